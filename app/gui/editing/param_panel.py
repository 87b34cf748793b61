"""A block's parameter panel, generated from its ``ParamSpec``s (the single source of truth).

* float / int: a spin box with the unit as suffix and the spec's range (range-checked);
  tunable numbers also get a slider (logarithmic when the range starts at 0 and spans more
  than three decades, as gains do; Shift drags finely, :mod:`app.gui.editing.fine_slider`);
* bool: a check box; text with choices: a combo box; free text and vectors: a line edit,
  parsed with ``ParamSpec.parse`` (no eval);
* structural parameters are marked: changing one recompiles and restarts the run.

Every change goes through the panel's :class:`~app.gui.editing.param_edit.ParamSetter` (in the
window: the one the model-explorer tree shares, undoable); errors show in the panel, and the
editors follow the value in force after an undo or redo (:meth:`ParamPanel.show_value`).
"""

from __future__ import annotations

import html
import math
from typing import Any

from PySide6 import QtCore, QtWidgets

from app.gui.editing.fine_slider import FineSlider
from app.gui.editing.param_edit import ParamSetter
from app.gui.session.session import SimSession
from blocks import ParamSpec
from blocks.spec import INHERIT

__all__ = ["ParamPanel", "SliderMap", "BlockDialog"]

SLIDER_STEPS = 1000
HINT = "Click a block in the diagram to edit its parameters."


class SliderMap:
    """Maps slider positions 0..SLIDER_STEPS to values in ``[lo, hi]`` (linear or log; 0 stays 0)."""

    def __init__(self, lo: float, hi: float, log: bool, log_lo: float = 1e-3) -> None:
        self.lo, self.hi, self.log = lo, hi, log
        self.llo = math.log10(log_lo) if log else 0.0

    @classmethod
    def for_spec(cls, spec: ParamSpec, value: float) -> SliderMap:
        """Linear over the spec's range; logarithmic over [value/100, max] when the range starts
        at 0 and spans more than two decades above ``value`` (gains)."""
        lo = spec.min if spec.min is not None else value - 10 * abs(value) - 1
        hi = spec.max if spec.max is not None else value + 10 * abs(value) + 1
        if lo == 0.0 and value > 0 and hi / value >= 100:
            return cls(0.0, float(hi), True, log_lo=min(value / 100.0, hi * 1e-4))
        return cls(float(lo), float(hi), False)

    def value(self, pos: int) -> float:
        f = pos / SLIDER_STEPS
        if self.log:
            return 0.0 if pos <= 0 else 10 ** (self.llo + f * (math.log10(self.hi) - self.llo))
        return self.lo + f * (self.hi - self.lo)

    def pos(self, value: float) -> int:
        if self.log:
            if value <= 10 ** self.llo:
                return 0
            f = (math.log10(min(value, self.hi)) - self.llo) / (math.log10(self.hi) - self.llo)
        else:
            f = (value - self.lo) / (self.hi - self.lo) if self.hi > self.lo else 0.0
        return int(round(min(max(f, 0.0), 1.0) * SLIDER_STEPS))


def _decimals(spec: ParamSpec) -> int:
    return 4 if spec.max is None or spec.max <= 10 else 3


class ParamPanel(QtWidgets.QWidget):
    """Editors for every parameter of one block of a session."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, setter: ParamSetter | None = None) -> None:
        super().__init__(parent)
        self.session: SimSession | None = None
        self.block = ""
        self.editors: dict[str, QtWidgets.QWidget] = {}
        self.sliders: dict[str, tuple[FineSlider, SliderMap]] = {}
        self.setter = setter if setter is not None else ParamSetter(self)
        self.setter.changed.connect(self.show_value)
        outer = QtWidgets.QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        self.title = QtWidgets.QLabel(HINT)
        self.title.setWordWrap(True)
        self.title.setObjectName("panelTitle")
        outer.addWidget(self.title)
        self.area = QtWidgets.QScrollArea()
        self.area.setWidgetResizable(True)
        self.area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        outer.addWidget(self.area, 1)
        self.status = QtWidgets.QLabel("")
        self.status.setObjectName("panelStatus")
        self.status.setWordWrap(True)
        outer.addWidget(self.status)

    def clear(self) -> None:
        """Show no block (the one shown is gone: an undo removed it, or another diagram was opened)."""
        self.block = ""
        self.editors, self.sliders = {}, {}
        self.title.setText(HINT)
        self.area.setWidget(QtWidgets.QWidget())
        self.status.setText("")

    def show_block(self, s: SimSession, block: str) -> None:
        """Editors for ``block``'s parameters; a block the run does not have yet (an edit still
        compiling, or one that did not compile) is named with a note, and shown once it compiles."""
        self.session, self.block = s, block
        self.editors, self.sliders = {}, {}
        if block not in s.diagram.blocks:
            self.title.setText(f"<b>{block}</b> &nbsp;is not compiled yet")
            self.area.setWidget(QtWidgets.QWidget())
            self.status.setText("Its parameters can be set once the diagram compiles; until then the run goes "
                                "on with the last diagram that did.")
            return
        self.title.setText(f"<b>{block}</b> &nbsp;<i>{s.block_type(block)}</i>")
        body = QtWidgets.QWidget()
        form = QtWidgets.QFormLayout(body)
        form.setLabelAlignment(QtCore.Qt.AlignmentFlag.AlignRight)
        for pname, spec in s.param_specs(block).items():
            ref = f"{block}.{pname}"
            value = s.diagram.value(ref) if spec.inherit else s.param_value(ref)   # -1 (inherit) as written
            editor = self._editor(ref, spec, value)
            label = QtWidgets.QLabel(pname + ("" if spec.tunable else " ⚙"))
            label.setToolTip(spec.description + ("" if spec.tunable else "\nstructural: changing it restarts the run"))
            editor.setToolTip(label.toolTip())
            form.addRow(label, editor)
        self.area.setWidget(body)
        self.status.setText("⚙ structural (restarts the run); others apply at the next step.")

    def _editor(self, ref: str, spec: ParamSpec, value: Any) -> QtWidgets.QWidget:
        kind = spec.kind
        if spec.size and isinstance(value, tuple):  # per-joint values: edited as a list (or per leg: gain panel)
            kind = "vector"
        if kind in ("float", "int"):
            box: QtWidgets.QDoubleSpinBox | QtWidgets.QSpinBox
            if kind == "int":
                box = QtWidgets.QSpinBox()
                box.setRange(int(spec.min) if spec.min is not None else -10**9,
                             int(spec.max) if spec.max is not None else 10**9)
                if spec.inherit:   # the box's 0 stands for -1: inherit (the width of the last compile shown)
                    return self._width_box(ref, box, value)
            else:
                box = QtWidgets.QDoubleSpinBox()
                box.setDecimals(_decimals(spec))
                box.setRange(spec.min if spec.min is not None else -1e12, spec.max if spec.max is not None else 1e12)
            box.setValue(value)
            box.setKeyboardTracking(False)
            if spec.unit:
                box.setSuffix(" " + spec.unit.replace("*", "·"))
            box.valueChanged.connect(lambda v, r=ref: self._apply(r, v))
            self.editors[ref] = box
            if not spec.tunable or kind == "int":
                return box
            m = SliderMap.for_spec(spec, float(value))
            slider = FineSlider()
            slider.setRange(0, 1000)
            slider.setValue(m.pos(float(value)))
            slider.valueChanged.connect(lambda pos, b=box, mm=m: b.setValue(mm.value(pos)))
            self.sliders[ref] = (slider, m)
            row = QtWidgets.QWidget()
            lay = QtWidgets.QHBoxLayout(row)
            lay.setContentsMargins(0, 0, 0, 0)
            lay.addWidget(slider, 3)
            lay.addWidget(box, 2)
            return row
        if kind == "bool":
            cb = QtWidgets.QCheckBox()
            cb.setChecked(bool(value))
            cb.toggled.connect(lambda v, r=ref: self._apply(r, bool(v)))
            self.editors[ref] = cb
            return cb
        if kind == "str" and spec.choices:
            combo = QtWidgets.QComboBox()
            combo.addItems(list(spec.choices))
            combo.setCurrentText(str(value))
            combo.currentTextChanged.connect(lambda v, r=ref: self._apply(r, v))
            self.editors[ref] = combo
            return combo
        edit = QtWidgets.QLineEdit(", ".join(f"{v:g}" for v in value) if kind == "vector" else str(value))
        if kind == "callable":
            edit.setReadOnly(True)
        edit.editingFinished.connect(lambda r=ref, e=edit, sp=spec: self._apply_text(r, e.text(), sp))
        self.editors[ref] = edit
        return edit

    def _width_box(self, ref: str, box: QtWidgets.QSpinBox, value: int) -> QtWidgets.QSpinBox:
        """A width that may inherit: ``inherit (w)`` below 1, ``w`` its width in the run."""
        s = self.session
        how = s.model.inherited.get(ref.split(".")[0]) if s is not None else None
        box.setMinimum(0)
        box.setSpecialValueText(f"inherit ({how.width})" if how is not None else "inherit")
        box.setValue(0 if value == INHERIT else int(value))
        box.setKeyboardTracking(False)
        box.valueChanged.connect(lambda v, r=ref: self._apply(r, INHERIT if v == 0 else int(v)))
        self.editors[ref] = box
        return box

    def _apply_text(self, ref: str, text: str, spec: ParamSpec) -> None:
        try:
            value = spec.parse(text, f"parameter '{ref}'")
        except ValueError as exc:
            self.status.setText(f"<span style='color:#c00'>{exc}</span>")
            return
        self._apply(ref, value)

    def _apply(self, ref: str, value: Any) -> None:
        s = self.session
        if s is None:
            return
        error = self.setter.set(s, ref, value)
        if error is not None:
            self.status.setText(f"<span style='color:#c00'>{error}</span>")
            return
        self.status.setText(f"{ref} = {value:.6g}" if isinstance(value, float) else f"{ref} = {value}")

    def show_value(self, ref: str, value: Any) -> None:
        """Show ``ref``'s value in force (after a set here or elsewhere, an undo, a redo) without applying it."""
        editor = self.editors.get(ref)
        if editor is None:
            return
        widgets: list[QtWidgets.QWidget] = [editor] + ([self.sliders[ref][0]] if ref in self.sliders else [])
        for w in widgets:
            w.blockSignals(True)
        if isinstance(editor, (QtWidgets.QDoubleSpinBox, QtWidgets.QSpinBox)):
            editor.setValue(value)
        elif isinstance(editor, QtWidgets.QCheckBox):
            editor.setChecked(bool(value))
        elif isinstance(editor, QtWidgets.QComboBox):
            editor.setCurrentText(str(value))
        elif isinstance(editor, QtWidgets.QLineEdit):
            editor.setText(", ".join(f"{v:g}" for v in value) if isinstance(value, tuple) else str(value))
        if ref in self.sliders:
            slider, m = self.sliders[ref]
            slider.setValue(m.pos(float(value)))
        for w in widgets:
            w.blockSignals(False)


class BlockDialog(QtWidgets.QDialog):
    """Double-click dialog: the block's description, ports and parameter panel."""

    def __init__(self, s: SimSession, block: str, parent: QtWidgets.QWidget | None = None,
                 setter: ParamSetter | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Block {block} ({s.block_type(block)})")
        self.resize(520, 560)
        lay = QtWidgets.QVBoxLayout(self)
        cls_doc = (type(s.diagram.instantiate(block)).__doc__ or "").strip().split("\n\n")[0]
        ins, outs = s.block_ports(block)
        ports = "<br>".join(f"{way} <b>{p.name}</b> ({p.size})" + (f" {p.unit}" if p.unit else "")
                            + (f": {html.escape(p.description)}" if p.description else "")
                            for way, side in (("in", ins), ("out", outs)) for p in side)
        info = QtWidgets.QLabel(f"{cls_doc}<br><br>{ports}")
        info.setWordWrap(True)
        info.setTextFormat(QtCore.Qt.TextFormat.RichText)
        lay.addWidget(info)
        self.panel = ParamPanel(self, setter)
        self.panel.show_block(s, block)
        lay.addWidget(self.panel, 1)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
