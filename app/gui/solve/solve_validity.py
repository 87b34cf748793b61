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

from html import escape
from typing import Any

from PySide6 import QtCore, QtWidgets

__all__ = ["SolveValidity", "solve_rows"]

STATUS_COLOURS = {"converged": "#1b7f3b", "no_periodic_gait": "#b35c00", "implausible": "#b35c00",
                  "failed": "#b00020"}


def _pct(v: Any) -> str:
    if not isinstance(v, (int, float)):
        return "–"
    return "< 0.01 %" if 0 <= v < 1e-4 else f"{100 * v:.2f} %"


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


VERDICT_COLOURS = {"good": "#1b7f3b", "acceptable": "#b35c00", "poor": "#b00020"}


def _verdict(v: str) -> str:
    return f"<b style='color:{VERDICT_COLOURS.get(v, '#000')}'>{v}</b>"


def solve_html(summary: dict[str, Any]) -> str:
    """The compact account shown in the panel: status, residual verdicts, convergence, sensitivity (HTML)."""
    status = str(summary.get("status", ""))
    why = summary.get("message") or ""
    res = summary.get("residual", {})
    cell = (summary.get("cycles") or [{}])[0]
    stages = " + ".join(f"{s['stage']} {s['iterations']}" for s in cell.get("stages", []))
    lines = [
        f"<b style='color:{STATUS_COLOURS.get(status, '#000')}'>{status}</b>" + (f" ({escape(why)})" if why else ""),
        f"Residual: force {escape(_pct(res.get('force_ratio')))} of peak GRF → "
        f"{_verdict(str(res.get('force_verdict', '–')))} (≤ 5 %), moment {escape(_pct(res.get('moment_ratio')))} → "
        f"{_verdict(str(res.get('moment_verdict', '–')))} (≤ 1 %)",
        f"IPOPT: {summary.get('iterations', '–')} iterations ({stages}), objective "
        f"{_g(cell.get('objective'))}, constraint violation {_g(cell.get('constraint_violation'), '.1e')}",
    ]
    sens = summary.get("sensitivity")
    mean = summary.get("trunk_mean_deg", {}).get("mean")
    if sens:
        parts = [f"{100 * c['shift_m']:+g} cm: " + (f"{c['delta_deg']:+.2f}°" if c["status"] == "converged"
                                                   and c["delta_deg"] is not None else str(c["status"]))
                 for c in sens["cases"]]
        slope = sens.get("trunk_mean_deg_per_cm")
        lines.append(f"Trunk mean {_g(mean, '.2f')}°; trunk CoM " + ", ".join(parts)
                     + ("" if slope is None else f" → {slope:+.3f} °/cm"))
    else:
        lines.append(f"Trunk mean {_g(mean, '.2f')}°; trunk-CoM sensitivity not solved")
    return "<br>".join(lines)


class SolveValidity(QtWidgets.QGroupBox):
    """The solved posture's account as a few wrapped lines (module doc); hidden until a solve is shown.
    :func:`solve_rows` gives the same figures as rows (``cell``, tests)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__("Solved posture (posture solver)", parent)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        # rich text that wraps and, in a short panel (1366 x 768), scrolls rather than being cut
        self.status = QtWidgets.QTextBrowser()
        self.status.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.status.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.status.viewport().setAutoFillBackground(False)
        self.status.setMinimumHeight(84)   # five lines; the run's tables above scroll
        lay.addWidget(self.status)
        self.rows: list[tuple[str, str, str]] = []
        self.setVisible(False)

    def show_summary(self, summary: dict[str, Any]) -> None:
        self.status.setHtml(solve_html(summary))
        self.rows = solve_rows(summary)
        self.setVisible(True)

    def cell(self, quantity: str) -> tuple[str, str] | None:
        """``(value, verdict)`` of the row ``quantity`` (tests)."""
        return next(((v, n) for q, v, n in self.rows if q == quantity), None)
