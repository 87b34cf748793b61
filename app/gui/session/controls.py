"""Run controls: dataset and preset selectors, Run/Pause, Step, Reset, speed, and the timeline.

Keyboard: Space run/pause, Right arrow step, R reset, while the diagram or the stick figure has
the focus (:meth:`ControlBar.bind_keys`): elsewhere those keys stay with the focused widget (→ moves
a focused slider, Space ticks a check box). The window adds Ctrl+O open and Ctrl+S save.
Speeds are multiples of real time, or ``None`` for as fast as possible.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

__all__ = ["ControlBar", "Timeline", "SPEEDS", "OPEN_ITEM"]

SPEEDS: tuple[tuple[str, float | None], ...] = (
    ("0.1×", 0.1), ("0.25×", 0.25), ("0.5×", 0.5), ("1× real time", 1.0), ("2×", 2.0), ("5×", 5.0),
    ("10×", 10.0), ("as fast as possible", None))
OPEN_ITEM = "Open file…"
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
        self.preset.activated.connect(lambda i: self.preset_chosen.emit(self.preset.itemText(i)))

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

    def set_datasets(self, names: list[str], current: str) -> None:
        self.dataset.blockSignals(True)
        self.dataset.clear()
        for n in names:
            self.dataset.addItem(n, n)
        if current not in names:
            label = " | ".join(QtCore.QFileInfo(part.strip()).fileName() or part for part in current.split("|"))
            self.dataset.addItem(label or current, current)
        self.dataset.insertSeparator(self.dataset.count())
        self.dataset.addItem(OPEN_ITEM)
        idx = self.dataset.findData(current)
        self.dataset.setCurrentIndex(max(idx, 0))
        self.dataset.blockSignals(False)

    def set_presets(self, names: tuple[str, ...], current: str) -> None:
        self.preset.blockSignals(True)
        self.preset.clear()
        self.preset.addItems(list(names))
        self.preset.setCurrentText(current)
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
