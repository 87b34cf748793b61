"""Validity panel: is this run a walk, and what held it up? Status, posture against the recording, force account.

Filled from the run's ``summary.json`` dict (:meth:`app.gui.session.session.SimSession.summary`,
:func:`app.run_summary.summarise`) when a run finishes, pauses or stops:

* the status (``ok``, ``FELL at t``, ``FAILED``) in colour;
* the posture metrics beside the recording's own values (``summary["recording"]``), each
  marked *input* or *emergent* for the preset (:mod:`app.compare_report`);
* the force account: each torque source's share of the stance-leg joint impulse and the
  residual (the ground's force beyond the recording) against the peak GRF, with its verdict, the
  residual moment about the CoM, and the speed account (initial speed + recorded GRF + floor).

Below, once the posture solver has run (*Solve posture*), the solved posture's status, residual
verdicts, convergence and trunk-CoM sensitivity (:class:`~app.gui.solve.solve_validity.SolveValidity`,
:meth:`ValidityPanel.show_solution`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6 import QtCore, QtWidgets

from app.compare_report import label
from app.gui.solve.solve_validity import SolveValidity
from app.walking import speed_text, status_text

__all__ = ["ValidityPanel"]

STATUS_COLOURS = {"ok": "#1b7f3b", "fell": "#b35c00", "failed": "#b00020"}
VERDICT_COLOURS = {"good": "#1b7f3b", "acceptable": "#b35c00", "poor": "#b00020"}


def _num(v: Any, digits: int = 2) -> str:
    return "–" if not isinstance(v, (int, float)) or v != v else f"{v:.{digits}f}"


class ValidityPanel(QtWidgets.QWidget):
    """Status, posture against the recording and the force account of one run (module docstring)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QtWidgets.QVBoxLayout(self)
        self.status = QtWidgets.QLabel("no run evaluated yet")
        self.status.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        font = self.status.font()
        font.setPointSizeF(font.pointSizeF() * 1.3)
        font.setBold(True)
        self.status.setFont(font)
        self.status.setWordWrap(True)   # a FELL line with its cause is ~560 px: wrapped, it never widens the panel
        self.status.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        lay.addWidget(self.status)
        self.posture = self._table(("metric", "simulation", "recording", "is"))
        lay.addWidget(QtWidgets.QLabel("Posture (to the fall, if any)"))
        lay.addWidget(self.posture, 2)
        self.forces = self._table(("source", "stance impulse share", "RMS", "peak"))
        lay.addWidget(QtWidgets.QLabel("Force account: what acted beyond the recorded GRF"))
        lay.addWidget(self.forces, 2)
        self.residual = QtWidgets.QLabel("")
        self.residual.setWordWrap(True)
        self.residual.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        lay.addWidget(self.residual)
        self.solution = SolveValidity()
        lay.addWidget(self.solution, 5)   # its lines get more of the height than the run's tables (they scroll)

    def show_solution(self, summary: dict[str, Any] | None) -> None:
        """Show a posture solve's ``summary.json`` dict below the run's account (None: hide it)."""
        if summary is None:
            self.solution.setVisible(False)
        else:
            self.solution.show_summary(summary)

    @staticmethod
    def _table(header: tuple[str, ...]) -> QtWidgets.QTableWidget:
        t = QtWidgets.QTableWidget(0, len(header))
        t.setHorizontalHeaderLabels(list(header))
        t.verticalHeader().setVisible(False)
        t.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        t.horizontalHeader().setStretchLastSection(True)
        return t

    @staticmethod
    def _fill(t: QtWidgets.QTableWidget, rows: Sequence[tuple[str, ...]]) -> None:
        t.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, cell in enumerate(row):
                t.setItem(i, j, QtWidgets.QTableWidgetItem(cell))
        t.resizeColumnsToContents()

    def show_summary(self, summary: dict[str, Any]) -> None:
        """Fill every part from a ``summary.json`` dict."""
        status = summary.get("status", "")
        self.status.setText(status_text(summary))
        self.status.setStyleSheet(f"color: {STATUS_COLOURS.get(status, '#000')}")
        preset = str(summary.get("preset") or "")
        rec = summary.get("recording", {})
        tr, rtr = summary.get("trunk_deg") or {}, rec.get("trunk_deg") or {}
        kr, rkr = summary.get("knee_range_deg", {}), rec.get("knee_range_deg", {})
        self._fill(self.posture, [
            ("trunk min / max [deg]", f"{_num(tr.get('min'), 1)} / {_num(tr.get('max'), 1)}",
             f"{_num(rtr.get('min'), 1)} / {_num(rtr.get('max'), 1)}", label(preset, "trunk")),
            ("knee range L / R [deg]", f"{_num(kr.get('l'), 0)} / {_num(kr.get('r'), 0)}",
             f"{_num(rkr.get('l'), 0)} / {_num(rkr.get('r'), 0)}", label(preset, "knee")),
            ("stride [m]", _num(summary.get("stride_length_m"), 3), _num(rec.get("stride_length_m"), 3),
             label(preset, "stride")),
            ("CoM height [m]", _num(summary.get("com_height_m"), 3), _num(rec.get("com_height_m"), 3),
             label(preset, "com_height")),
            ("cycles completed", str(summary.get("cycles_completed", "–")), "", ""),
        ])
        act = summary.get("actuation", {})
        share = act.get("stance_joint_impulse_share", {})
        rows = []
        for name, value in act.items():
            if not isinstance(value, dict) or name == "stance_joint_impulse_share":
                continue
            if "rms_bw" in value:
                rms, peak = f"{_num(value['rms_bw'])} BW", f"{_num(value['peak_bw'])} BW"
            else:
                rms, peak = f"{_num(value['rms_nm_per_kg'])} N·m/kg", f"{_num(value['peak_nm_per_kg'])} N·m/kg"
            sh = f"{100 * share[name]:.0f} %" if name in share else ""
            rows.append((name.replace("_", " "), sh, rms, peak))
        self._fill(self.forces, rows)
        res = summary.get("residual")
        if res:
            colour = VERDICT_COLOURS.get(res["verdict"], "#000")
            self.residual.setText(
                f"Residual (ground force beyond the recording, net of both feet, RMS / peak external force): "
                f"x {100 * res['x']['rms_fraction']:.1f} %, y {100 * res['y']['rms_fraction']:.1f} % → "
                f"<b style='color:{colour}'>{res['verdict']}</b> (good ≤ 5 %, acceptable ≤ 10 %: Hicks et al. 2015)"
                + _moment_text(res) + _speed_sentence(summary))
        else:
            self.residual.setText("no ground contact model in this diagram: no residual")


def _speed_sentence(summary: dict[str, Any]) -> str:
    """The speed account (``speed_account``: the initial speed, what the recorded GRF and what the floor
    added over the run), or ``""``."""
    text = speed_text(summary)
    return f"<br>Speed account [m/s]: {text}" if text else ""


def _moment_text(res: dict) -> str:
    """The residual moment sentence (contact corrections and CoP shifts about the CoM), or ``""``."""
    if "moment" not in res:
        return ""
    m = res["moment"]
    colour = VERDICT_COLOURS.get(res["moment_verdict"], "#000")
    return (f"<br>Residual moment about the CoM (corrections and CoP shifts): {m['rms_nm']:.1f} N·m RMS, "
            f"{100 * m['rms_fraction']:.1f} % of peak GRF × CoM height → "
            f"<b style='color:{colour}'>{res['moment_verdict']}</b> (good ≤ 1 %)")
