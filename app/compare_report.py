"""What ``compare`` reports: each metric labelled *input* or *emergent*, next to the recording's own value.

Under the ``tracking`` preset the trunk curve, the stance angles, the footprints and the CoM
are tracked, so the posture metrics are the recording's (``input``); under ``emergent`` they
are results of the GRF (``emergent``). Cadence is set by the recorded GRF's phases in both
(``input``). The table adds ``emergent - recording`` columns, and the verdict speaks only
of emergent metrics. The paper's published trunk-inclination ranges (Luxman & Zielinska
2017, their results as restated in the project's conventions) are added as reference rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

__all__ = ["LABELS", "PAPER_TRUNK", "label", "metrics_table", "verdict"]

CITATION = ("Luxman R, Zielinska T (2017) Robot motion synthesis using ground reaction forces pattern: analysis "
            "of walking posture. Int J Adv Robotic Systems 14(4), doi:10.1177/1729881417720873")

# footwear -> (R take-off -> L landing, L take-off -> R landing) trunk inclination [deg], as published
PAPER_TRUNK: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "barefoot": ((0.7, 2.5), (1.2, 3.7)),
    "sneakers": ((3.2, 5.9), (2.8, 6.2)),
    "high_heels": ((2.2, 5.2), (-1.8, 5.7)),
}

# preset -> metric -> "input" (tracked or given) | "emergent" (a result of the simulation)
_POSTURE = ("trunk", "knee", "stride", "com_height")
LABELS: dict[str, dict[str, str]] = {
    "tracking": {**{m: "input" for m in _POSTURE}, "cadence": "input"},
    "emergent": {**{m: "emergent" for m in _POSTURE}, "cadence": "input"},
    "paper": {"trunk": "emergent", "knee": "emergent", "stride": "emergent", "com_height": "emergent",
              "cadence": "input"},
}
LABELS["default"] = LABELS["tracking"]


class Condition(Protocol):
    name: str
    summary: dict[str, Any]


def label(preset: str, metric: str) -> str:
    """``input`` or ``emergent`` for ``metric`` under ``preset`` (unknown presets: ``emergent``)."""
    return LABELS.get(preset, LABELS["emergent"]).get(metric, "emergent")


def _fmt(v: Any, digits: int = 1) -> str:
    return "n/a" if v is None or (isinstance(v, float) and not np.isfinite(v)) else f"{v:.{digits}f}"


def _values(s: dict[str, Any]) -> dict[str, float]:
    tr = s.get("trunk_deg") or {}
    kr = s.get("knee_range_deg", {})
    return {"trunk_min": tr.get("min", np.nan), "trunk_max": tr.get("max", np.nan),
            "knee_range": max(kr.get("l", np.nan), kr.get("r", np.nan)) if kr else np.nan,
            "stride": s.get("stride_length_m", np.nan), "com_height": s.get("com_height_m", np.nan)}


_COLUMNS = (("trunk_min", "trunk min [deg]", "trunk", 1), ("trunk_max", "trunk max [deg]", "trunk", 1),
            ("knee_range", "knee range [deg]", "knee", 1), ("stride", "stride [m]", "stride", 3),
            ("com_height", "CoM height [m]", "com_height", 3))


def _residual_cell(res: dict[str, Any]) -> str:
    """``force verdict (% of peak GRF); moment verdict (% of peak GRF x CoM height)``, or ``n/a``."""
    if not res:
        return "n/a"
    text = f"{res.get('verdict', 'n/a')} ({_fmt(100 * res['fraction'])} %)"
    if "moment" in res:
        text += f"; {res['moment_verdict']} ({_fmt(100 * res['moment']['rms_fraction'])} %)"
    return text


def metrics_table(results: Sequence[Condition], preset: str) -> list[list[str]]:
    """Header plus one row per condition: status, then each metric as simulation / recording / difference,
    each column headed with its label (``input`` or ``emergent``) under ``preset``; paper rows last."""
    header = ["condition", "status"]
    for _, title, metric, _ in _COLUMNS:
        tag = label(preset, metric)
        header += [f"{title} ({tag})", f"{title} recording", f"{title} sim - recording"]
    header += ["cadence [steps/min] (input)", "residual force; moment"]
    rows = [header]
    for r in results:
        s = r.summary
        sim, rec = _values(s), _values(s.get("recording", {}))
        row = [r.name, str(s.get("status"))]
        for key, _, _, digits in _COLUMNS:
            row += [_fmt(sim[key], digits), _fmt(rec[key], digits), _fmt(sim[key] - rec[key], digits)]
        res = s.get("residual", {})
        row += [_fmt(s.get("cadence_steps_per_min")), _residual_cell(res)]
        rows.append(row)
    for name, ((a0, a1), (b0, b1)) in PAPER_TRUNK.items():
        row = [f"paper: {name}", "published", f"{min(a0, b0):.1f}", "", "", f"{max(a1, b1):.1f}", "", ""]
        rows.append(row + [""] * (len(header) - len(row)))
    return rows


def verdict(results: Sequence[Condition], preset: str, cycle_means: dict[str, float] | None = None) -> str:
    """Sentences on the *emergent* metrics only (lean, sway, stride), each beside the recording's value."""
    ok = [r for r in results if r.summary.get("status") == "ok" and "trunk_deg" in r.summary]
    lines = [f"{r.name}: run {str(r.summary.get('status')).upper()}"
             + (f" at {r.summary['fell_at_s']:.2f} s" if r.summary.get("fell_at_s") is not None else "")
             + (f" ({r.summary.get('message')})" if r.summary.get("message") else "")
             for r in results if r.summary.get("status") != "ok"]
    emergent = [m for m in _POSTURE if label(preset, m) == "emergent"]
    if not emergent:
        lines.append(f"Preset '{preset}': trunk, knee, stride and CoM height are tracked inputs, so they are not "
                     "findings; run compare with --preset emergent to see how the GRF shapes them.")
        return "\n".join(lines)
    if not ok:
        return "\n".join(lines)
    lines.append(f"Preset '{preset}': emergent metrics (simulation; recording in brackets).")
    if "trunk" in emergent:
        def mean_trunk(r: Condition) -> float:
            return (cycle_means or {}).get(r.name, float(np.mean([_values(r.summary)["trunk_min"],
                                                                    _values(r.summary)["trunk_max"]])))

        def sway(r: Condition) -> float:
            v = _values(r.summary)
            return v["trunk_max"] - v["trunk_min"]

        def rec_sway(r: Condition) -> float:
            v = _values(r.summary.get("recording", {}))
            return v["trunk_max"] - v["trunk_min"]

        lean = max(ok, key=mean_trunk)
        lines.append(f"Most forward lean: {lean.name} (mean trunk angle {mean_trunk(lean):.1f} deg).")
        lo, hi = min(ok, key=sway), max(ok, key=sway)
        lines.append(f"Smallest trunk sway: {lo.name} ({sway(lo):.1f} deg [{rec_sway(lo):.1f}]); "
                     f"largest: {hi.name} ({sway(hi):.1f} deg [{rec_sway(hi):.1f}]).")
        back = min(ok, key=lambda r: _values(r.summary)["trunk_min"])
        if _values(back.summary)["trunk_min"] < 0:
            lines.append(f"{back.name} leans backward at times (trunk down to "
                         f"{_values(back.summary)['trunk_min']:.1f} deg "
                         f"[{_values(back.summary.get('recording', {}))['trunk_min']:.1f}]).")
    if "stride" in emergent:
        strides = [(_values(r.summary)["stride"], r) for r in ok if np.isfinite(_values(r.summary)["stride"])]
        if strides:
            (s0, r0), (s1, r1) = min(strides, key=lambda x: x[0]), max(strides, key=lambda x: x[0])
            rec0, rec1 = _values(r0.summary.get("recording", {}))["stride"], _values(
                r1.summary.get("recording", {}))["stride"]
            lines.append(f"Shortest stride: {r0.name} ({s0:.2f} m [{rec0:.2f}]); "
                         f"longest: {r1.name} ({s1:.2f} m [{rec1:.2f}]).")
    lines.append(f"Reference rows: {CITATION}.")
    return "\n".join(lines)
