"""Run controls: dataset and preset selectors, Run/Pause, Step, Reset, speed, and the timeline.

Keyboard: Space run/pause, Right arrow step, R reset, while the diagram or the stick figure has
the focus (:meth:`ControlBar.bind_keys`): elsewhere those keys stay with the focused widget (→ moves
a focused slider, Space ticks a check box). The window adds Ctrl+O open and Ctrl+S save.
Speeds are multiples of real time, or ``None`` for as fast as possible.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.session.session import SimSession, available_datasets, available_presets
from app.runs import uses_dataset

__all__ = ["ControlBar", "Timeline", "SPEEDS", "NO_DATA", "NO_PRESET", "OPEN_ITEM"]

SPEEDS: tuple[tuple[str, float | None], ...] = (
    ("0.1×", 0.1), ("0.25×", 0.25), ("0.5×", 0.5), ("1× real time", 1.0), ("2×", 2.0), ("5×", 5.0),
    ("10×", 10.0), ("as fast as possible", None))
OPEN_ITEM = "Open file…"
NO_DATA = "—"                   # the dataset box of a diagram that reads no recording
NO_PRESET = "(none)"            # the diagram as it is, no preset applied
KEYS_WHERE = "in the diagram or the stick figure"


class ControlBar(QtWidgets.QToolBar):
    """Toolbar with the run controls; the window connects its signals."""

    dataset_chosen = QtCore.Signal(str)
    open_requested = QtCore.Signal()
    preset_chosen = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Simulation", parent)
        self.setObjectName("controls")
        self.setMovable(False)
        self.setIconSize(QtCore.QSize(18, 18))
        style = self.style()
        sp = QtWidgets.QStyle.StandardPixmap
        self.addWidget(QtWidgets.QLabel(" Dataset "))
        self.dataset = QtWidgets.QComboBox()
        self.dataset.setMinimumWidth(200)
        self.dataset.setToolTip("bundled GRF datasets; 'Open file…' or drop a file on the window for your own")
        self.addWidget(self.dataset)
        self.addWidget(QtWidgets.QLabel("  Preset "))
        self.preset = QtWidgets.QComboBox()
        self.preset.setToolTip("default: the recommended diagram; paper: as published")
        self.addWidget(self.preset)
        self.addSeparator()
        self.run_action = QtGui.QAction(style.standardIcon(sp.SP_MediaPlay), "Run", self)
        self.run_action.setCheckable(True)
        self.run_action.setToolTip(f"Run / Pause (Space {KEYS_WHERE})")
        self.step_action = QtGui.QAction(style.standardIcon(sp.SP_MediaSeekForward), "Step", self)
        self.step_action.setToolTip(f"Step one frame (→ {KEYS_WHERE})")
        self.reset_action = QtGui.QAction(style.standardIcon(sp.SP_MediaSkipBackward), "Reset", self)
        self.reset_action.setToolTip(f"Reset to t = 0 (R {KEYS_WHERE})")
        for act in (self.run_action, self.step_action, self.reset_action):
            self.addAction(act)
        self.shortcuts: list[QtGui.QShortcut] = []
        self.setToolButtonStyle(QtCore.Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.addSeparator()
        self.addWidget(QtWidgets.QLabel(" Speed "))
        self.speed = QtWidgets.QComboBox()
        for label, _ in SPEEDS:
            self.speed.addItem(label)
        self.speed.setCurrentIndex(3)
        self.addWidget(self.speed)
        self.run_action.toggled.connect(self._run_toggled)
        self.dataset.activated.connect(self._dataset_activated)
        self.preset.activated.connect(lambda i: self.preset_chosen.emit(str(self.preset.itemData(i))))

    def bind_keys(self, *widgets: QtWidgets.QWidget) -> None:
        """Space, → and R run/pause, step and reset while one of ``widgets`` (or a child) has the
        focus, and nowhere else (module docstring)."""
        keys = ((QtCore.Qt.Key.Key_Space, self.run_action), (QtCore.Qt.Key.Key_Right, self.step_action),
                (QtCore.Qt.Key.Key_R, self.reset_action))
        for widget in widgets:
            for key, act in keys:
                sc = QtGui.QShortcut(QtGui.QKeySequence(key), widget)
                sc.setContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
                sc.activated.connect(lambda a=act: a.trigger() if a.isEnabled() else None)
                self.shortcuts.append(sc)

    def _run_toggled(self, on: bool) -> None:
        sp = QtWidgets.QStyle.StandardPixmap
        self.run_action.setText("Pause" if on else "Run")
        self.run_action.setIcon(self.style().standardIcon(sp.SP_MediaPause if on else sp.SP_MediaPlay))

    def _dataset_activated(self, index: int) -> None:
        text = self.dataset.itemText(index)
        if text == OPEN_ITEM:
            self.open_requested.emit()
        else:
            self.dataset_chosen.emit(str(self.dataset.itemData(index) or text))

    def show_session(self, s: SimSession) -> None:
        """The dataset and preset lists for session ``s`` (both disabled when its diagram reads no
        recording: the datasets and presets configure the walking diagram)."""
        walking = uses_dataset(s.diagram)
        self.set_datasets(available_datasets(), s.dataset, walking)
        self.set_presets(available_presets(), s.preset, walking)

    def set_datasets(self, names: list[str], current: str, used: bool = True) -> None:
        """The bundled datasets, ``current`` chosen; disabled, with a dash, for a diagram that reads none."""
        self.dataset.blockSignals(True)
        self.dataset.clear()
        if not used:
            self.dataset.addItem(NO_DATA, current)
        else:
            for n in names:
                self.dataset.addItem(n, n)
            if current not in names:
                label = " | ".join(QtCore.QFileInfo(part.strip()).fileName() or part for part in current.split("|"))
                self.dataset.addItem(label or current, current)
            self.dataset.insertSeparator(self.dataset.count())
            self.dataset.addItem(OPEN_ITEM)
        self.dataset.setCurrentIndex(max(self.dataset.findData(current), 0))
        self.dataset.setEnabled(used)
        self.dataset.setToolTip("" if used else "this diagram reads no recording (no block has a dataset)")
        self.dataset.blockSignals(False)

    def set_presets(self, names: tuple[str, ...], current: str, used: bool = True) -> None:
        """The presets, ``current`` chosen (``""``: :data:`NO_PRESET`, the diagram as it is); disabled
        for a diagram the presets do not configure (one that reads no recording)."""
        self.preset.blockSignals(True)
        self.preset.clear()
        for n in (*names, *([] if current in names else [""])):
            self.preset.addItem(n or NO_PRESET, n)
        self.preset.setCurrentIndex(max(self.preset.findData(current), 0))
        self.preset.setEnabled(used)
        self.preset.blockSignals(False)

    def speed_value(self) -> float | None:
        return SPEEDS[self.speed.currentIndex()][1]


class Timeline(QtWidgets.QWidget):
    """Slider over the simulated history, in ticks of ``resolution`` seconds."""

    scrubbed = QtCore.Signal(float)

    def __init__(self, parent: QtWidgets.QWidget | None = None, resolution: float = 0.01) -> None:
        super().__init__(parent)
        self.resolution = resolution
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(8, 2, 8, 2)
        lay.addWidget(QtWidgets.QLabel("Timeline"))
        self.slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.setToolTip("drag to scrub back through the simulated history; Run continues from here")
        lay.addWidget(self.slider, 1)
        self.label = QtWidgets.QLabel("0.000 / 0.000 s")
        self.label.setMinimumWidth(150)
        lay.addWidget(self.label)
        self.slider.valueChanged.connect(self._moved)
        self._end = 0.0
        self._quiet = False

    def _moved(self, value: int) -> None:
        t = value * self.resolution
        self.label.setText(f"{t:.3f} / {self._end:.3f} s")
        if not self._quiet:
            self.scrubbed.emit(t)

    def set_end(self, t_end: float, follow: bool) -> None:
        """Extend the range to ``t_end`` [s]; keep the handle at the end when ``follow``."""
        self._end = t_end
        n = int(round(t_end / self.resolution))
        self._quiet = True
        self.slider.setMaximum(n)
        if follow:
            self.slider.setValue(n)
        self._quiet = False
        self.label.setText(f"{self.slider.value() * self.resolution:.3f} / {t_end:.3f} s")

    def show_position(self, t: float) -> None:
        """Move the handle to ``t`` [s] without emitting ``scrubbed`` (playback)."""
        self._quiet = True
        self.slider.setValue(int(round(t / self.resolution)))
        self._quiet = False

    def position(self) -> float:
        return self.slider.value() * self.resolution

    def at_end(self) -> bool:
        return self.slider.value() >= self.slider.maximum()
