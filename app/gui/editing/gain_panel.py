"""Gain panel: Kp, Ki, Kd sliders with spin boxes for the hip and knee PIDs, per leg or linked, and
the PD of the solved gait.

The PID blocks are found by type (``PID``) and grouped by joint from their names (``hip``,
``knee``). The default ``grf_walk`` has one two-channel PID per joint (``[left, right]``) whose
gains are per-joint parameters (:class:`blocks.library.PID`):

* **linked** (the default when both legs have the same gains): one slider per gain writes
  ``block.kp`` -- one number, both legs. Linking legs that differ sets both to the left value.
* **unlinked**: a left and a right slider per gain write ``block.kp[0]`` and ``block.kp[1]``.

A diagram with one PID block per leg (a ``_l``/``_r`` name suffix) gets a row group per block;
there, "link left/right" copies a change to the other leg's block.
A ``SolvedGait`` block that reads a solution (``source`` not ``off``: the ``emergent`` preset) gets a
group of its own: the stiffness and damping of its PD around the solution's angles
(:mod:`blocks.library.solved_gait`: ``kp_hip, kd_hip, kp_knee, kd_knee`` on the joints,
``kp_trunk, kd_trunk`` on the trunk through the stance hips), so the sliders set how tightly the
diagram holds the solved gait. Those gains are one number for both legs (no link).
Each change is a registry change (``block.param``), applied at the next solver step. Given the
window's :class:`~app.gui.editing.param_edit.ParamSetter`, a change is an undoable edit like one from
the Block parameters panel (``Ctrl+Z``; a drag is one step, a linked pair or a recalled preset one macro).
Presets of all gains are stored in and recalled from ``QSettings`` (``gains/<name>``).
"""

from __future__ import annotations

import contextlib
import json
import math
from dataclasses import dataclass

from PySide6 import QtCore, QtWidgets

from app.gui.editing.fine_slider import FineSlider
from app.gui.editing.param_edit import ParamSetter
from app.gui.editing.param_panel import SliderMap
from app.gui.scopes.scope_units import pretty
from app.gui.session.session import GAIN_NAMES, SimSession
from app.gui.session.session_catalog import SOLVED_GAINS, solved_gait_blocks

__all__ = ["GainPanel", "GainRow"]

GAIN_LABELS = {"kp": "Kp", "ki": "Ki", "kd": "Kd"}   # units: the block's ParamSpec
GAIN_RANGE = {"kp": (0.1, 1e4), "ki": (0.1, 1e4), "kd": (0.01, 1e3)}
#: the slider ranges of the SolvedGait PD's gains (the trunk's ``emergent`` value is 8000 N·m/rad)
SOLVED_RANGE = {"kp": (1.0, 1e5), "kd": (0.1, 1e4)}
LEG_NAMES = ("L", "R")   # item 0 = left, 1 = right, as on the walking blocks' ports


@dataclass
class GainRow:
    """Editors of one gain (``ref`` = ``block.gain`` or one leg's ``block.gain[i]``): slider + spin box."""

    block: str
    gain: str
    slider: QtWidgets.QSlider
    box: QtWidgets.QDoubleSpinBox
    smap: SliderMap
    leg: int | None = None

    @property
    def ref(self) -> str:
        return f"{self.block}.{self.gain}" + ("" if self.leg is None else f"[{self.leg}]")


def _leg(name: str) -> str:
    low = name.lower()
    return "l" if low.endswith("_l") else ("r" if low.endswith("_r") else "")


def _kind(gain: str) -> str:
    """``kp``, ``ki`` or ``kd`` of a PID gain or a SolvedGait gain (``kp_hip`` -> ``kp``)."""
    return gain.split("_")[0]


def _joint(name: str) -> str:
    low = name.lower()
    return "hip" if "hip" in low else ("knee" if "knee" in low else low)


class GainPanel(QtWidgets.QWidget):
    """Live PID gains of a session, with link left/right and stored presets."""

    changed = QtCore.Signal(str, float)

    def __init__(self, settings: QtCore.QSettings, parent: QtWidgets.QWidget | None = None,
                 setter: ParamSetter | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self.setter = setter   # None: set the session directly (not undoable)
        self.session: SimSession | None = None
        self.rows: dict[str, GainRow] = {}
        self._syncing = False
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        self.link = QtWidgets.QCheckBox("link left/right")
        self.link.setChecked(True)
        self.link.setToolTip("linked: one slider sets both legs; unlinked: a left (L) and a right (R) slider")
        self.link.toggled.connect(self._link_toggled)
        outer.addWidget(self.link)   # a row of its own: the panel stays narrow enough for the figure at 1366 px
        top = QtWidgets.QHBoxLayout()
        self.presets = QtWidgets.QComboBox()
        self.presets.setMinimumWidth(110)
        self.presets.setToolTip("stored gain presets")
        self.store_btn = QtWidgets.QPushButton("Store…")
        self.recall_btn = QtWidgets.QPushButton("Recall")
        self.store_btn.clicked.connect(self._ask_store)
        self.recall_btn.clicked.connect(lambda: self.recall(self.presets.currentText()))
        for w in (QtWidgets.QLabel("preset"), self.presets, self.store_btn, self.recall_btn):
            top.addWidget(w)
        top.addStretch(1)
        outer.addLayout(top)
        self.area = QtWidgets.QScrollArea()
        self.area.setWidgetResizable(True)
        self.area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self._new_body()
        outer.addWidget(self.area, 1)
        self.note = QtWidgets.QLabel("")
        self.note.setObjectName("panelStatus")
        self.note.setWordWrap(True)
        outer.addWidget(self.note)
        self._reload_preset_names()

    # ------------------------------------------------------------ building
    def _blocks(self) -> list[str]:
        assert self.session is not None
        return sorted(self.session.blocks_of_type("PID"), key=lambda n: (_joint(n), _leg(n)))

    def _solved(self) -> list[str]:
        """The SolvedGait blocks that read a solution (their PD acts; ``source = off`` outputs zero)."""
        assert self.session is not None
        return solved_gait_blocks(self.session.diagram)

    def _legs(self, block: str) -> int:
        """Number of joints (channels) of PID ``block``: 2 for the biped's [left, right] PIDs."""
        assert self.session is not None
        return int(self.session.param_value(f"{block}.n"))

    def _new_body(self) -> None:
        """A fresh grid of rows (the scroll area deletes the previous one at once)."""
        self.body = QtWidgets.QWidget()
        self.grid = QtWidgets.QGridLayout(self.body)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setVerticalSpacing(3)
        self.area.setWidget(self.body)

    def _split(self) -> bool:
        """Whether any PID holds different gains per leg (the diagram's value: changes queued included)."""
        assert self.session is not None
        d = self.session.diagram
        return any(isinstance(d.value(f"{b}.{g}"), tuple) for b in self._blocks() for g in GAIN_NAMES)

    def bind(self, s: SimSession) -> None:
        """Build the rows for the PID blocks of ``s`` (after each compile). Legs whose gains differ
        start unlinked."""
        self.session = s
        split = self._split()
        self.link.blockSignals(True)
        self.link.setChecked(not split)
        self.link.blockSignals(False)
        self._rebuild()

    def _rebuild(self) -> None:
        s = self.session
        assert s is not None
        self._new_body()
        self.rows = {}
        blocks = self._blocks()
        per_block = any(_leg(b) for b in blocks)
        per_item = any(self._legs(b) == 2 for b in blocks)
        self.link.setEnabled(per_block or per_item)
        linked = self.link.isChecked()
        r = 0
        for b in blocks:
            items = self._legs(b) == 2 and not linked and not _leg(b)
            leg = {"l": "left", "r": "right"}.get(_leg(b), "" if self._legs(b) != 2 else
                                                  "left + right" if not items else "left | right")
            joint = _joint(b)
            title = f"{joint.capitalize()} PID" if joint in ("hip", "knee") else "PID"   # a PID of another diagram
            head = QtWidgets.QLabel(f"<b>{title}</b> &nbsp;({leg + ', ' if leg else ''}block <i>{b}</i>)")
            self.grid.addWidget(head, r, 0, 1, 3)
            r += 1
            for g in GAIN_NAMES:
                for leg_i in ((0, 1) if items else (None,)):
                    row = self._row(b, g, leg_i)
                    label = GAIN_LABELS[g] + ("" if leg_i is None else " " + LEG_NAMES[leg_i])
                    self.grid.addWidget(QtWidgets.QLabel(label), r, 0)
                    self.grid.addWidget(row.slider, r, 1)
                    self.grid.addWidget(row.box, r, 2)
                    self.rows[row.ref] = row
                    r += 1
        for b in self._solved():
            head = QtWidgets.QLabel(f"<b>Solved gait PD</b> &nbsp;(block <i>{b}</i>)")
            head.setWordWrap(True)
            head.setToolTip("the PD around the solution's own angles: how tightly the diagram holds the solved "
                            "gait (hips and knees on their angles, the trunk through the stance hips)")
            self.grid.addWidget(head, r, 0, 1, 3)
            r += 1
            for g in SOLVED_GAINS:
                row = self._row(b, g, None)
                kind, joint = g.split("_")
                self.grid.addWidget(QtWidgets.QLabel(f"{GAIN_LABELS[kind]} {joint}"), r, 0)
                self.grid.addWidget(row.slider, r, 1)
                self.grid.addWidget(row.box, r, 2)
                self.rows[row.ref] = row
                r += 1
        self.grid.setColumnStretch(1, 1)
        self.grid.setRowStretch(r, 1)
        self.note.setText("Changes apply at the next solver step. " + (
            "Linked: one slider sets both legs." if linked else "Unlinked: L and R set each leg."))

    def _row(self, block: str, gain: str, leg: int | None) -> GainRow:
        assert self.session is not None
        spec = self.session.diagram.param_spec(f"{block}.{gain}")
        kind = _kind(gain)
        lo, hi = (GAIN_RANGE if gain in GAIN_NAMES else SOLVED_RANGE)[kind]
        smap = SliderMap(0.0, min(hi, spec.max or hi), True, log_lo=lo)
        slider = FineSlider()
        slider.setRange(0, 1000)
        slider.setMinimumWidth(80)
        box = QtWidgets.QDoubleSpinBox()
        box.setRange(spec.min or 0.0, spec.max or 1e6)
        box.setDecimals(3)
        box.setKeyboardTracking(False)
        unit = pretty(spec.unit)
        box.setSuffix(f" {unit}" if unit else "")
        box.setMinimumWidth(130)
        row = GainRow(block, gain, slider, box, smap, leg)
        slider.setToolTip(f"{row.ref}: logarithmic {lo:g} … {smap.hi:g} {unit}; "
                          "hold Shift to drag finely")
        value = self._value(row.ref)
        slider.setValue(smap.pos(value))
        box.setValue(value)
        slider.valueChanged.connect(lambda pos, rr=row: self._slider_moved(rr, pos))
        box.valueChanged.connect(lambda v, rr=row: self.set_gain(rr.block, rr.gain, float(v), rr.leg))
        return row

    def _value(self, ref: str) -> float:
        """The value of ``ref`` (the diagram's, so a change still queued for the next step shows);
        a linked row of legs that differ shows the left one."""
        assert self.session is not None
        v = self.session.diagram.value(ref)
        return float(v[0]) if isinstance(v, tuple) else float(v)

    def _link_toggled(self, linked: bool) -> None:
        if self.session is None:
            return
        if linked:  # one value for both legs: the left one
            with self._macro("link left and right gains"):
                for b in self._blocks():
                    for g in GAIN_NAMES:
                        v = self.session.diagram.value(f"{b}.{g}")
                        if isinstance(v, tuple):
                            self._set(f"{b}.{g}", float(v[0]))
                            self.changed.emit(f"{b}.{g}", float(v[0]))
        self._rebuild()

    def _set(self, ref: str, value: float) -> None:
        """Set ``ref``: through the setter (undoable) when there is one, else on the session."""
        assert self.session is not None
        if self.setter is None:
            self.session.set_param(ref, value)
        else:
            self.setter.set(self.session, ref, value)

    def _macro(self, text: str) -> contextlib.AbstractContextManager[None]:
        """The sets inside are one undo step (through the setter, when there is one)."""
        return self.setter.macro(text) if self.setter is not None else contextlib.nullcontext()

    # ------------------------------------------------------------ changes
    def _slider_moved(self, row: GainRow, pos: int) -> None:
        if not self._syncing:
            self.set_gain(row.block, row.gain, float(f"{row.smap.value(pos):.4g}"), row.leg)

    def partner(self, block: str) -> str | None:
        """The other leg's PID block of the same joint, if the diagram has per-leg blocks."""
        leg = _leg(block)
        if not leg:
            return None
        other = block[:-1] + ("r" if leg == "l" else "l")
        return other if f"{other}.kp" in self.rows else None

    def set_gain(self, block: str, gain: str, value: float, leg: int | None = None) -> None:
        """Set ``block.gain`` (both legs), or one leg's ``block.gain[leg]`` (0 left, 1 right), in the
        engine and the editors; with per-leg blocks and link on, the other leg's block too."""
        if self._syncing or self.session is None:
            return
        suffix = "" if leg is None else f"[{leg}]"
        targets = [block]
        other = self.partner(block)
        if other is not None and self.link.isChecked():
            targets.append(other)
        with self._macro(f"set {block}.{gain}{suffix} = {value:g}") if len(targets) > 1 else contextlib.nullcontext():
            for b in targets:
                ref = f"{b}.{gain}{suffix}"
                self._set(ref, value)
                if ref in self.rows:
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
        if self._split() and self.link.isChecked():  # legs set apart elsewhere (block dialog, best.json)
            self.link.blockSignals(True)
            self.link.setChecked(False)
            self.link.blockSignals(False)
            self._rebuild()
            return
        for ref in self.rows:
            self._show(ref, self._value(ref))

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
        with self._macro(f"recall gains '{name}'"):
            for ref, value in data.items():
                if ref in self.rows and math.isfinite(float(value)):
                    row = self.rows[ref]
                    self._syncing = False
                    self.set_gain(row.block, row.gain, float(value), row.leg)
                    n += 1
        return n
