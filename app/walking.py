"""Walking metrics of a finished run, for ``summary.json`` and ``gaitblocks compare``.

``fell_at_s`` is the first time the trunk tilts beyond 60 deg or the hip drops below half the
leg length (None if neither happens): a walker whose legs fold or spin has fallen even with an
upright trunk.
Reads the signals by their canonical names (``body.q``, ``ref.angles``, ``phase.stance``,
``kin.feet`` or ``kin.contact``, ``kin.com``, ``switch.tau``, ``contact.corr``, ``ankle.cop``,
``ankle.mz``, ``est.tau``: the first block of each type in :data:`app.runs.CANONICAL`, whatever
it is called) and computes the metrics of :mod:`models.gait_metrics`. Diagrams without those
signals get no walking keys.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from blocks import Results
from models.gait_metrics import walking_metrics

FALL_ALPHA_RAD = np.radians(60.0)  # a trunk tilted beyond 60 deg has fallen
FALL_HIP_FRACTION = 0.5  # ... and so has a hip below half the leg length
REQUIRED = ("body.q", "phase.stance", "kin.feet", "kin.com", "switch.tau")


def walking_summary_from(results: Results, mass: float, leg_length: float | None = None) -> dict[str, Any]:
    """Walking metrics (module doc) from recorded signals; ``{}`` if the signals are missing."""
    if any(name not in results.signals for name in REQUIRED) or results.t.size < 2:
        return {}
    q = results["body.q"]
    q_ref = None
    if "ref.angles" in results.signals:
        q_ref = np.concatenate([q[:, :2], results["ref.angles"]], axis=1)
    # where the feet touch: the rolling contact coordinates (the foot points for point feet)
    feet = results["kin.contact"] if "kin.contact" in results.signals else results["kin.feet"]
    out = walking_metrics(results.t, q, q_ref, results["phase.stance"] > 0.5, feet,
                          results["kin.com"], results["switch.tau"], mass)
    down = np.abs(q[:, 2]) > FALL_ALPHA_RAD
    if leg_length is not None and "kin.hip" in results.signals:
        down |= results["kin.hip"][:, 1] < FALL_HIP_FRACTION * leg_length
    fallen = np.flatnonzero(down)
    out["fell_at_s"] = float(results.t[fallen[0]]) if fallen.size else None
    weight = mass * 9.81
    if "contact.corr" in results.signals:
        corr = results["contact.corr"]
        net = corr[:, 0:2] + corr[:, 2:4]  # external; in double support the feet also push on each other
        out["contact_corr_bw_rms"] = {"x": float(np.sqrt(np.mean(net[:, 0] ** 2)) / weight),
                                      "y": float(np.sqrt(np.mean(net[:, 1] ** 2)) / weight),
                                      "per_foot_x": float(np.sqrt(np.mean(corr[:, [0, 2]] ** 2)) / weight)}
    if "ankle.cop" in results.signals and "ankle.mz" in results.signals:
        stance = results["phase.stance"] > 0.5
        cop = np.abs(results["ankle.cop"])[stance]
        out["cop_shift_m"] = {"rms": float(np.sqrt(np.mean(cop ** 2))) if cop.size else 0.0,
                              "max": float(cop.max()) if cop.size else 0.0}
        out["peak_ground_moment_nm_per_kg"] = float(np.abs(results["ankle.mz"]).max()) / mass
    return out


def walking_summary(results: Results, built: Any) -> dict[str, Any]:
    """Metric hook of :mod:`app.runs` (``results`` carries the canonical names: :func:`app.runs.by_type`)."""
    bp = built.model.ctx.biped_params
    out = walking_summary_from(results, bp.total_mass, bp.leg_length)
    preset = built.spec.preset
    if out and preset:
        out["preset"] = preset
    return out
