"""What ``compare`` reports: each metric labelled, next to the recording's own value.

Labels (:data:`LABELS`):

* ``input``: tracked or given. Under ``tracking`` the trunk curve, the stance angles, the
  footprints and the CoM are tracked, so the posture metrics are the recording's; cadence is
  set by the recorded GRF's phases under every preset;
* ``solved``: the posture the recorded GRF and CoP produce, walked by the diagram on the posture
  solver's gait (``emergent``);
* ``set-point``: held toward a tuned set-point (the trunk under ``setpoint``, whose balance is an
  external couple not in the recording: issue 30);
* ``simulated``: a result of the simulation that is neither (``setpoint``'s knee, stride and CoM
  height; the ``paper`` preset).

The table adds ``simulation - recording`` columns, and the verdict speaks only of metrics that
are results (:data:`RESULTS`: ``solved`` or ``simulated``). The paper's published
trunk-inclination ranges (Luxman & Zielinska 2017, their results as restated in the project's
conventions) are added as reference rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

__all__ = ["LABELS", "PAPER_TRUNK", "RESULTS", "label", "labels", "metrics_table", "verdict"]

CITATION = ("Luxman R, Zielinska T (2017) Robot motion synthesis using ground reaction forces pattern: analysis "
            "of walking posture. Int J Adv Robotic Systems 14(4), doi:10.1177/1729881417720873")

# footwear -> (R take-off -> L landing, L take-off -> R landing) trunk inclination [deg], as published
PAPER_TRUNK: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "barefoot": ((0.7, 2.5), (1.2, 3.7)),
    "sneakers": ((3.2, 5.9), (2.8, 6.2)),
    "high_heels": ((2.2, 5.2), (-1.8, 5.7)),
}

# preset -> metric -> "input" | "solved" | "set-point" | "simulated" (module docstring)
_POSTURE = ("trunk", "knee", "stride", "com_height")
LABELS: dict[str, dict[str, str]] = {
    "tracking": {**{m: "input" for m in _POSTURE}, "cadence": "input"},
    "emergent": {**{m: "solved" for m in _POSTURE}, "cadence": "input"},
    "setpoint": {**{m: "simulated" for m in _POSTURE}, "trunk": "set-point", "cadence": "input"},
    "paper": {**{m: "simulated" for m in _POSTURE}, "cadence": "input"},
}
LABELS["default"] = LABELS["tracking"]
RESULTS = ("solved", "simulated")  # the labels of metrics that are findings of a run


class Condition(Protocol):
    name: str
    summary: dict[str, Any]


def label(preset: str, metric: str) -> str:
    """The label of ``metric`` under ``preset`` (module docstring; unknown presets and metrics: ``simulated``)."""
    return LABELS.get(preset, LABELS["paper"]).get(metric, "simulated")


def labels(preset: str) -> dict[str, str]:
    """``{metric: label}`` of every metric under ``preset`` (``summary.json`` ``labels``)."""
    return {m: label(preset, m) for m in (*_POSTURE, "cadence")}


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
    each column headed with its label (module docstring) under ``preset``; paper rows last."""
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
    """Sentences on the metrics that are results only (:data:`RESULTS`: lean, sway, stride), each beside the
    recording's value."""
    ok = [r for r in results if r.summary.get("status") == "ok" and "trunk_deg" in r.summary]
    lines = [f"{r.name}: run {str(r.summary.get('status')).upper()}"
             + (f" at {r.summary['fell_at_s']:.2f} s" if r.summary.get("fell_at_s") is not None else "")
             + (f" ({r.summary.get('message')})" if r.summary.get("message") else "")
             for r in results if r.summary.get("status") != "ok"]
    found = [m for m in _POSTURE if label(preset, m) in RESULTS]
    if not found:
        lines.append(f"Preset '{preset}': trunk, knee, stride and CoM height are tracked inputs, so they are not "
                     "findings; run compare with --preset emergent to see how the GRF shapes them.")
        return "\n".join(lines)
    if not ok:
        return "\n".join(lines)
    tags = sorted({label(preset, m) for m in found})
    lines.append(f"Preset '{preset}': {' and '.join(tags)} metrics (simulation; recording in brackets).")
    if label(preset, "trunk") == "set-point":
        lines.append("The trunk is held toward a set-point (not a finding of the GRF).")
    if "trunk" in found:
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
    if "stride" in found:
        strides = [(_values(r.summary)["stride"], r) for r in ok if np.isfinite(_values(r.summary)["stride"])]
        if strides:
            (s0, r0), (s1, r1) = min(strides, key=lambda x: x[0]), max(strides, key=lambda x: x[0])
            rec0, rec1 = _values(r0.summary.get("recording", {}))["stride"], _values(
                r1.summary.get("recording", {}))["stride"]
            lines.append(f"Shortest stride: {r0.name} ({s0:.2f} m [{rec0:.2f}]); "
                         f"longest: {r1.name} ({s1:.2f} m [{rec1:.2f}]).")
    lines.append(f"Reference rows: {CITATION}.")
    return "\n".join(lines)
