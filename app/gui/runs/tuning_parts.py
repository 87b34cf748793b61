"""Parts of the tuning panel (:mod:`app.gui.runs.tuning_panel`): the worker that runs a tuning job off
the GUI thread, and the editor of one swept or tuned parameter."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6 import QtCore, QtWidgets

from app.gui.session.handover import Mailbox, without_frames
from app.tuning.grid import Axis

__all__ = ["AxisEditor", "Job", "TuningWorker"]

#: a job: ``job(cancel, emit_row) -> {"rows": list | None, "interrupted": bool, "message": str}``
Job = Callable[[threading.Event, Callable[[dict[str, Any]], None]], dict[str, Any]]


class TuningWorker(QtCore.QObject):
    """Runs one tuning job off the GUI thread; posts each finished run's ``row``, then ``finished``
    (the outcome) or ``failed`` (the error) to ``mailbox`` (:mod:`app.gui.session.handover`: no Python object
    goes through a Qt signal from this thread)."""

    def __init__(self, job: Job, mailbox: Mailbox) -> None:
        super().__init__()
        self.job, self.mailbox = job, mailbox
        self.cancel = threading.Event()

    def _post_row(self, row: dict[str, Any]) -> None:
        self.mailbox.post("row", row)

    @QtCore.Slot()
    def run(self) -> None:
        try:
            out = self.job(self.cancel, self._post_row)
        except BaseException as exc:  # reported in the GUI thread
            self.mailbox.post("failed", without_frames(exc))
            return
        self.mailbox.post("finished", out)


class AxisEditor(QtWidgets.QWidget):
    """One parameter: name (editable list of the session's gains), lo, hi and number of values."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.ref = QtWidgets.QComboBox()
        self.ref.setEditable(True)
        self.ref.setMinimumWidth(130)
        self.ref.setToolTip("block.param, or one leg: block.param[0] (left) / [1] (right)")
        self.lo, self.hi = QtWidgets.QDoubleSpinBox(), QtWidgets.QDoubleSpinBox()
        for box in (self.lo, self.hi):
            box.setRange(-1e6, 1e6)
            box.setDecimals(3)
            box.setMinimumWidth(80)
        self.n = QtWidgets.QSpinBox()
        self.n.setRange(1, 50)
        self.n.setValue(3)
        self.n.setToolTip("number of values (sweep)")
        for w, stretch in ((self.ref, 2), (QtWidgets.QLabel("from"), 0), (self.lo, 1), (QtWidgets.QLabel("to"), 0),
                           (self.hi, 1), (QtWidgets.QLabel("n"), 0), (self.n, 0)):
            lay.addWidget(w, stretch)

    def axis(self) -> Axis:
        """The parameter as a sweep axis: ``n`` values from ``lo`` to ``hi`` inclusive."""
        lo, hi, n = self.lo.value(), self.hi.value(), self.n.value()
        values = tuple(float(v) for v in np.linspace(lo, hi, n)) if n > 1 else (lo,)
        return Axis(self.ref.currentText().strip(), lo, hi, values)
