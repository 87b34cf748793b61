"""Gain panel: Kp, Ki, Kd sliders with spin boxes for the hip and knee PIDs.

The PID blocks are found by type (``PID``) and grouped by joint from their names (``hip``,
``knee``) and leg (a ``_l``/``_r`` suffix). A diagram with one PID block per joint driving
both legs (the default ``grf_walk``) has one row per joint and "link left/right" is
implicit; with per-leg blocks, "link left/right" copies a change to the other leg.
Each change is a registry change (``block.param``), applied at the next solver step.
Presets of all gains are stored in and recalled from ``QSettings`` (``gains/<name>``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

from PySide6 import QtCore, QtWidgets

from app.gui.param_panel import SliderMap
from app.gui.session import GAIN_NAMES, SimSession

__all__ = ["GainPanel", "GainRow"]

GAIN_LABELS = {"kp": ("Kp", "N·m/rad"), "ki": ("Ki", "N·m/(rad·s)"), "kd": ("Kd", "N·m·s/rad")}
GAIN_RANGE = {"kp": (0.1, 1e4), "ki": (0.1, 1e4), "kd": (0.01, 1e3)}


@dataclass
class GainRow:
    """Editors of one PID block's gain: slider + spin box."""

    block: str
    gain: str
    slider: QtWidgets.QSlider
    box: QtWidgets.QDoubleSpinBox
    smap: SliderMap


def _leg(name: str) -> str:
    low = name.lower()
    return "l" if low.endswith("_l") else ("r" if low.endswith("_r") else "")


def _joint(name: str) -> str:
    low = name.lower()
    return "hip" if "hip" in low else ("knee" if "knee" in low else low)


class GainPanel(QtWidgets.QWidget):
    """Live PID gains of a session, with link left/right and stored presets."""

    changed = QtCore.Signal(str, float)

    def __init__(self, settings: QtCore.QSettings, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.session: SimSession | None = None
        self.rows: dict[str, GainRow] = {}
        self._syncing = False
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        top = QtWidgets.QHBoxLayout()
        self.link = QtWidgets.QCheckBox("link left/right")
        self.link.setChecked(True)
        top.addWidget(self.link)
        top.addStretch(1)
        self.presets = QtWidgets.QComboBox()
        self.presets.setMinimumWidth(110)
        self.presets.setToolTip("stored gain presets")
        self.store_btn = QtWidgets.QPushButton("Store…")
        self.recall_btn = QtWidgets.QPushButton("Recall")
        self.store_btn.clicked.connect(self._ask_store)
        self.recall_btn.clicked.connect(lambda: self.recall(self.presets.currentText()))
        for w in (QtWidgets.QLabel("preset"), self.presets, self.store_btn, self.recall_btn):
            top.addWidget(w)
        outer.addLayout(top)
        self.body = QtWidgets.QWidget()
        self.grid = QtWidgets.QGridLayout(self.body)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setVerticalSpacing(3)
        outer.addWidget(self.body)
        self.note = QtWidgets.QLabel("")
        self.note.setObjectName("panelStatus")
        self.note.setWordWrap(True)
        outer.addWidget(self.note)
        outer.addStretch(1)
        self._reload_preset_names()

    # ------------------------------------------------------------ building
    def bind(self, s: SimSession) -> None:
        """Build a row group per PID block of ``s`` (after each compile)."""
        self.session = s
        while self.grid.count():
            item = self.grid.takeAt(0)
            w = item.widget() if item is not None else None
            if w is not None:
                w.deleteLater()
        self.rows = {}
        blocks = sorted(s.blocks_of_type("PID"), key=lambda n: (_joint(n), _leg(n)))
        per_leg = any(_leg(b) for b in blocks)
        self.link.setEnabled(per_leg)
        self.link.setToolTip("" if per_leg else "each PID block of this diagram drives both legs with one set of "
                                                "gains, so left and right are always linked")
        r = 0
        for b in blocks:
            leg = {"l": "left", "r": "right"}.get(_leg(b), "left + right")
            head = QtWidgets.QLabel(f"<b>{_joint(b).capitalize()} PID</b> &nbsp;({leg}, block <i>{b}</i>)")
            self.grid.addWidget(head, r, 0, 1, 3)
            r += 1
            for g in GAIN_NAMES:
                ref = f"{b}.{g}"
                value = float(s.param_value(ref))
                spec = s.diagram.param_spec(ref)
                lo, hi = GAIN_RANGE[g]
                smap = SliderMap(0.0, min(hi, spec.max or hi), True, log_lo=lo)
                slider = QtWidgets.QSlider(QtCore.Qt.Orientation.Horizontal)
                slider.setRange(0, 1000)
                slider.setValue(smap.pos(value))
                slider.setToolTip(f"{ref}: logarithmic {lo:g} … {smap.hi:g} {GAIN_LABELS[g][1]}")
                box = QtWidgets.QDoubleSpinBox()
                box.setRange(spec.min or 0.0, spec.max or 1e6)
                box.setDecimals(3)
                box.setKeyboardTracking(False)
                box.setSuffix(" " + GAIN_LABELS[g][1])
                box.setMinimumWidth(150)
                box.setValue(value)
                row = GainRow(b, g, slider, box, smap)
                slider.valueChanged.connect(lambda pos, rr=row: self._slider_moved(rr, pos))
                box.valueChanged.connect(lambda v, rr=row: self.set_gain(rr.block, rr.gain, float(v)))
                self.grid.addWidget(QtWidgets.QLabel(GAIN_LABELS[g][0]), r, 0)
                self.grid.addWidget(slider, r, 1)
                self.grid.addWidget(box, r, 2)
                self.rows[ref] = row
                r += 1
        self.grid.setColumnStretch(1, 1)
        self.note.setText("Changes apply at the next solver step. " + ("" if per_leg else
                          "One PID block per joint drives both legs: left/right are linked."))

    # ------------------------------------------------------------ changes
    def _slider_moved(self, row: GainRow, pos: int) -> None:
        if not self._syncing:
            self.set_gain(row.block, row.gain, float(f"{row.smap.value(pos):.4g}"))

    def partner(self, block: str) -> str | None:
        """The other leg's PID block of the same joint, if the diagram has per-leg blocks."""
        leg = _leg(block)
        if not leg:
            return None
        other = block[:-1] + ("r" if leg == "l" else "l")
        return other if f"{other}.kp" in self.rows else None

    def set_gain(self, block: str, gain: str, value: float) -> None:
        """Set ``block.gain`` (and the other leg's when linked) in the engine and the editors."""
        if self._syncing or self.session is None:
            return
        targets = [block]
        other = self.partner(block)
        if other is not None and self.link.isChecked():
            targets.append(other)
        for b in targets:
            ref = f"{b}.{gain}"
            self.session.set_param(ref, value)
            self._show(ref, value)
            self.changed.emit(ref, value)

    def _show(self, ref: str, value: float) -> None:
        row = self.rows[ref]
        self._syncing = True
        try:
            row.box.setValue(value)
            row.slider.setValue(row.smap.pos(value))
        finally:
            self._syncing = False

    def sync(self) -> None:
        """Show the engine's current values (after a rewind restored older gains)."""
        if self.session is None:
            return
        for ref in self.rows:
            self._show(ref, float(self.session.param_value(ref)))

    def gains(self) -> dict[str, float]:
        return {ref: float(row.box.value()) for ref, row in self.rows.items()}

    # ------------------------------------------------------------ presets
    def _reload_preset_names(self) -> None:
        self.settings.beginGroup("gains")
        names = sorted(self.settings.childKeys())
        self.settings.endGroup()
        self.presets.clear()
        self.presets.addItems(names)

    def _ask_store(self) -> None:
        name, ok = QtWidgets.QInputDialog.getText(self, "Store gains", "Preset name:")
        if ok and name.strip():
            self.store(name.strip())

    def store(self, name: str) -> None:
        self.settings.setValue(f"gains/{name}", json.dumps(self.gains()))
        self.settings.sync()
        self._reload_preset_names()
        self.presets.setCurrentText(name)

    def recall(self, name: str) -> int:
        """Apply stored preset ``name``; returns how many gains of this diagram it set."""
        raw = self.settings.value(f"gains/{name}")
        if not name or raw is None:
            return 0
        data = json.loads(str(raw))
        n = 0
        for ref, value in data.items():
            if ref in self.rows and math.isfinite(float(value)):
                b, g = ref.split(".")
                self._syncing = False
                self.set_gain(b, g, float(value))
                n += 1
        return n
