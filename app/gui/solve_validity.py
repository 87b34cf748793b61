"""The solved posture's part of the Validity panel: status, residual verdicts, convergence, sensitivity.

Filled from a solve's ``summary.json`` dict (:func:`app.posture.solve_one`, :mod:`app.solve_job`):

* the status named as the solver names it -- ``converged``, ``no_periodic_gait``, ``implausible``
  or ``failed`` (``docs/posture.md``) -- in colour, with the solver's reason when it gives one;
* the residual verdicts: force RMS / peak GRF (good <= 5 %, acceptable <= 10 %) and moment about
  the CoM / (peak GRF x CoM height) (good <= 1 %), after Hicks et al. 2015;
* convergence: IPOPT iterations (all stages), final objective, constraint violation;
* sensitivity: the solved trunk mean with the trunk's CoM 1 cm lower and higher (two more solves,
  warm-started from this one), and the slope in deg per cm.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtWidgets

__all__ = ["SolveValidity", "solve_rows"]

STATUS_COLOURS = {"converged": "#1b7f3b", "no_periodic_gait": "#b35c00", "implausible": "#b35c00",
                  "failed": "#b00020"}


def _pct(v: Any) -> str:
    return "–" if not isinstance(v, (int, float)) else f"{100 * v:.2f} %"


def _g(v: Any, fmt: str = ".3g") -> str:
    return "–" if not isinstance(v, (int, float)) else format(v, fmt)


def solve_rows(summary: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``(quantity, value, verdict or note)`` rows of a solve summary (module doc)."""
    res = summary.get("residual", {})
    cell = (summary.get("cycles") or [{}])[0]
    rows = [
        ("residual force (RMS / peak GRF)", _pct(res.get("force_ratio")), str(res.get("force_verdict", "–"))),
        ("residual moment (about the CoM)", _pct(res.get("moment_ratio")), str(res.get("moment_verdict", "–"))),
        ("IPOPT iterations", str(summary.get("iterations", "–")),
         " + ".join(f"{s['stage']} {s['iterations']}" for s in cell.get("stages", []))),
        ("objective", _g(cell.get("objective")), ""),
        ("constraint violation", _g(cell.get("constraint_violation"), ".2e"), "met below 1e-6"),
        ("trunk mean [deg]", _g(summary.get("trunk_mean_deg", {}).get("mean"), ".2f"), "solved"),
    ]
    sens = summary.get("sensitivity")
    if sens:
        for c in sens["cases"]:
            value = "–" if c["trunk_mean_deg"] is None else f"{c['trunk_mean_deg']:.2f} ({c['delta_deg']:+.2f})"
            rows.append((f"trunk mean, trunk CoM {100 * c['shift_m']:+g} cm", value,
                         f"{c['status']}, {c['iterations']} iterations"))
        slope = sens.get("trunk_mean_deg_per_cm")
        rows.append(("trunk mean per cm of trunk CoM", "–" if slope is None else f"{slope:+.3f} deg/cm",
                     "central difference"))
    else:
        rows.append(("trunk CoM sensitivity", "–", "not solved"))
    return rows


class SolveValidity(QtWidgets.QGroupBox):
    """Status line and table of the solved posture (module doc); hidden until a solve is shown."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Solved posture (posture solver)", parent)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.status = QtWidgets.QLabel("")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        lay.addWidget(self.status)
        self.table = QtWidgets.QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["quantity", "value", "verdict / note"])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        lay.addWidget(self.table, 1)
        self.setVisible(False)

    def show_summary(self, summary: dict[str, Any]) -> None:
        status = str(summary.get("status", ""))
        why = summary.get("message") or ""
        colour = STATUS_COLOURS.get(status, "#000")
        self.status.setText(f"<b style='color:{colour}'>{status}</b>" + (f": {why}" if why else ""))
        rows = solve_rows(summary)
        self.table.setRowCount(len(rows))
        for i, row in enumerate(rows):
            for j, text in enumerate(row):
                self.table.setItem(i, j, QtWidgets.QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        self.setVisible(True)

    def cell(self, quantity: str) -> tuple[str, str] | None:
        """``(value, verdict)`` of the row ``quantity`` (tests)."""
        texts = [[item.text() if (item := self.table.item(i, j)) is not None else "" for j in range(3)]
                 for i in range(self.table.rowCount())]
        return next(((row[1], row[2]) for row in texts if row[0] == quantity), None)
