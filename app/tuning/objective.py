r"""The tuning objective: one number per run, smaller is better.

.. math::

    J = w_{track}\,\overline{RMS}_{joint} + w_{trunk}\,RMS_{trunk}
        + w_{effort}\,(\hat\tau_{hip} + \hat\tau_{knee})
        + w_{solved}\,RMS^{sol}_{trunk} + w_{pd}\,100\,S_{pd}
        + w_{slip}\,\big[\max(0, s/s_{max} - 1) + \max(0, h/h_{max} - 1)\big]
        + P_{fail}

* :math:`\overline{RMS}_{joint}` -- mean of the hip and knee RMS tracking errors of both legs [deg]
  (``rms_deg.hip_l .. knee_r`` of ``summary.json``); :math:`RMS_{trunk}` -- ``rms_deg.trunk`` [deg];
* :math:`\hat\tau` -- peak hip / knee torque [N m/kg] (``peak_torque_nm_per_kg``), the effort term;
* :math:`RMS^{sol}_{trunk}` -- the trunk's RMS distance from the posture solver's solution [deg]
  (``solved_gait.trunk_rms_deg``) and :math:`S_{pd}` -- the solved gait's PD share of the stance
  joint impulse (``solved_gait.pd_stance_share``, as a fraction; the term is per percent): how
  tightly and how cheaply the diagram holds the solved gait (preset ``emergent``);
* :math:`s` -- ``stance_slip_m_max`` [m], :math:`h` -- ``stance_height_m_max`` [m]; beyond the limits
  ``s_max = h_max = 1 cm`` (the walking targets of the bundled sets) the penalty grows by
  ``w_slip`` per limit exceeded, so it is continuous and an optimiser can follow it;
* :math:`P_{fail} = w_{fail}\,(2 - t_{reached}/t_{end})` when the run failed (blew up), the biped fell
  (``fell_at_s`` set: :math:`t_{reached}` is then the time of the fall) or a metric is missing or not
  finite: always above any walking run, and smaller the longer the run lasted.

Defaults: ``track = 1``, ``trunk = 1`` (deg), ``effort = 0.1`` deg per N m/kg, ``solved = pd = 0``,
``slip = 100`` deg, ``fail = 1000`` deg. ``--objective`` takes ``default``, ``tracking`` (effort weight 0),
``solved`` (the solved gait held: ``solved = 1``, ``pd = 0.01`` deg per percent, ``effort = 0.1``, and no
term that compares with the recording, whose posture under ``emergent`` is a result, not a target),
overrides such as ``track=1,effort=0.5``, or ``metric:COLUMN`` to minimise one flattened metric
column of ``sweep.csv`` (e.g. ``metric:rms_deg.knee_l``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from models.errors import UserError

__all__ = ["Objective", "parse_objective"]

_JOINTS = ("hip_l", "hip_r", "knee_l", "knee_r")


@dataclass(frozen=True)
class Objective:
    """Weights of :math:`J` (module docstring); ``metric`` non-empty = minimise that column instead."""

    track: float = 1.0
    trunk: float = 1.0
    effort: float = 0.1
    solved: float = 0.0
    pd: float = 0.0
    slip: float = 100.0
    fail: float = 1000.0
    slip_max_m: float = 0.01
    height_max_m: float = 0.01
    metric: str = ""

    def describe(self) -> str:
        if self.metric:
            return f"metric:{self.metric}"
        return ",".join(f"{f.name}={getattr(self, f.name):g}" for f in fields(self) if f.name != "metric")

    def failure(self, row: Mapping[str, Any]) -> float:
        t_end = float(row.get("t_end_requested") or 0.0)
        fell = row.get("fell_at_s")
        reached = float(fell if isinstance(fell, (int, float)) and not isinstance(fell, bool)
                        else row.get("t_end_reached") or 0.0)
        frac = min(max(reached / t_end, 0.0), 1.0) if t_end > 0 and math.isfinite(reached) else 0.0
        return self.fail * (2.0 - frac)

    def __call__(self, row: Mapping[str, Any]) -> float:
        """:math:`J` of one flattened summary row (keys like ``rms_deg.hip_l``)."""
        fell = row.get("fell_at_s") not in (None, "") or row.get("status") == "fell"
        if self.metric:
            v = _num(row.get(self.metric))
            return v if row.get("status") == "ok" and not fell and math.isfinite(v) else self.failure(row)
        vals = [_num(row.get(f"rms_deg.{j}")) for j in _JOINTS]
        trunk = _num(row.get("rms_deg.trunk"))
        effort = _num(row.get("peak_torque_nm_per_kg.hip")) + _num(row.get("peak_torque_nm_per_kg.knee"))
        slip, height = _num(row.get("stance_slip_m_max")), _num(row.get("stance_height_m_max"))
        held = _num(row.get("solved_gait.trunk_rms_deg")) if self.solved else 0.0
        share = _num(row.get("solved_gait.pd_stance_share")) if self.pd else 0.0
        used = [v for v, w in ((sum(vals), self.track), (trunk, self.trunk)) if w] + [effort, slip, height, held, share]
        if row.get("status") != "ok" or fell or not all(math.isfinite(v) for v in used):
            return self.failure(row)
        excess = max(0.0, slip / self.slip_max_m - 1.0) + max(0.0, height / self.height_max_m - 1.0)
        joints = self.track * sum(vals) / len(vals) if self.track else 0.0
        return (joints + (self.trunk * trunk if self.trunk else 0.0) + self.effort * effort + self.solved * held
                + self.pd * 100.0 * share + self.slip * excess)


def _num(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return math.nan
    return float(v)


def parse_objective(text: str | None) -> Objective:
    """``default`` | ``tracking`` | ``solved`` | ``name=value,...`` | ``metric:COLUMN`` (module docstring)."""
    text = (text or "default").strip()
    if text == "default":
        return Objective()
    if text == "tracking":
        return Objective(effort=0.0)
    if text == "solved":
        return Objective(track=0.0, trunk=0.0, solved=1.0, pd=0.01)
    if text.startswith("metric:"):
        col = text[len("metric:"):].strip()
        if not col:
            raise UserError("--objective metric:COLUMN needs a column name, e.g. metric:rms_deg.knee_l")
        return Objective(metric=col)
    names = {f.name for f in fields(Objective)} - {"metric"}
    out = Objective()
    for item in text.split(","):
        if "=" not in item:
            raise UserError(f"--objective {text!r}: expected default, tracking, solved, metric:COLUMN or "
                            f"weights like track=1,effort=0.1 (weights: {', '.join(sorted(names))})")
        key, val = (s.strip() for s in item.split("=", 1))
        if key not in names:
            raise UserError(f"--objective: unknown weight {key!r}; known: {', '.join(sorted(names))}")
        try:
            v = float(val)
        except ValueError:
            raise UserError(f"--objective {key}: cannot read {val!r} as a number") from None
        if not math.isfinite(v) or v < 0:
            raise UserError(f"--objective {key}: must be a finite number >= 0, got {val!r}")
        out = replace(out, **{key: v})  # type: ignore[arg-type]
    return out
