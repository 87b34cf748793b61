r"""What a solved cycle says: posture, stride, torques, tracking and the residual account.

Residual verdicts (Hicks, Uchida, Seth, Rajagopal & Delp 2015, J Biomech Eng 137:020905):

* force: the RMS of each residual force component ``R_x, R_y`` [N] against the peak magnitude of
  the recorded resultant GRF; ``good`` <= 5 %, ``acceptable`` <= 10 %, else ``poor``
  (:func:`models.force_account.verdict`);
* moment: the residual moment about the *whole-body* CoM,
  ``M = R_m + (p_trunk - p_com) x (R_x, R_y)`` [N m, ccw +], RMS against
  ``peak GRF x mean CoM height``; ``good`` <= 1 %, else ``poor``.

Impulse balance: over a periodic cycle the body's momentum returns, so the *mean* residual force is
fixed by the data alone, ``mean R = m g e_y - mean(F_recorded)``: a recorded GRF whose mean
vertical force is not the body weight (or whose fore-aft impulse does not cancel) has no periodic
gait without an external force. :func:`answer_status` calls a cycle ``no_periodic_gait`` when the
mean residual exceeds :data:`IMPULSE_LIMIT` of body weight (vertical, fore-aft), or the residual
force verdict is poor; and ``implausible`` when the optimum needs a joint torque beyond
:data:`TORQUE_LIMIT` N m/kg or leaves the swing reference by more than :data:`TRACKING_LIMIT`
tolerances RMS (the model and the recording disagree: the numbers are not a human walk).

Posture figures: the trunk angle ``alpha`` [deg] (mean, min, max, range); the stance knee's
loading peak, the largest knee flexion [deg] in the first half of each stance; the stride [m]
and speed ``stride / T`` [m/s] (solved); the cadence ``120 / T`` [steps/min] (an input: the
recording's event timing); peak joint torques per body mass [N m/kg]; the swing tracking RMS
(deg, or mm for the foot-path reference).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from models.force_account import GOOD_MOMENT, verdict
from models.posture.solver import PostureSolution

__all__ = ["posture_metrics", "com_path", "answer_status", "IMPULSE_LIMIT", "TORQUE_LIMIT", "TRACKING_LIMIT"]

IMPULSE_LIMIT = (0.02, 0.03)  # mean residual force / body weight: fore-aft, vertical
TORQUE_LIMIT = 5.0  # N m/kg: no walking human needs more at a hip or knee (about 1-2 measured)
TRACKING_LIMIT = 4.0  # swing tracking RMS beyond this many tolerances (sigma): the swing was not followed


def com_path(sol: PostureSolution) -> np.ndarray:
    """(n, 2) whole-body CoM [m]."""
    from models.biped import FiveLinkBiped

    return FiveLinkBiped(sol.params, backend="numpy").points_batch(sol.q)["com"]


def _rms(a: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(a)))) if a.size else 0.0


def stance_knee_peak_deg(sol: PostureSolution) -> float:
    """Mean over stances of the largest knee flexion in the first half of each stance [deg]."""
    peaks = []
    for run in sol.inputs.runs:
        nodes = run.nodes
        if nodes.size < 4:
            continue
        first = nodes[: nodes.size // 2]
        peaks.append(float(np.rad2deg(sol.q[first, 5 + run.foot]).max()))
    return float(np.mean(peaks)) if peaks else float("nan")


def swing_tracking_rms(sol: PostureSolution) -> float:
    """RMS over tracked swing nodes of the tracking error, deg (joint/segment) or mm (foot)."""
    ci, q = sol.inputs, sol.q
    errs = []
    from models.posture.inputs import _swing_quantities

    lengths = (sol.params.thigh.length, sol.params.shank.length)
    for foot in (0, 1):
        w = ci.swing_weight[:, foot] > 0
        if not w.any():
            continue
        y = _swing_quantities(q[:, 2:7], ci.swing_reference, foot, lengths)
        errs.append((y - ci.swing_ref[:, foot])[w])
    if not errs:
        return float("nan")
    scale = 1000.0 if ci.swing_reference == "foot" else float(np.rad2deg(1.0))
    return _rms(np.concatenate(errs)) * scale


def posture_metrics(sol: PostureSolution) -> dict[str, Any]:
    """The solved cycle's figures (module doc), JSON-ready."""
    p, ci = sol.params, sol.inputs
    mass = p.total_mass
    com = com_path(sol)
    grf = ci.grf
    peak_grf = float(np.max(np.hypot(grf[:, 0] + grf[:, 2], grf[:, 1] + grf[:, 3])))
    com_h = float(com[:, 1].mean())
    rx, ry, rm = sol.residual.T
    moment = rm + (sol.q[:, 0] - com[:, 0]) * ry - (sol.q[:, 1] - com[:, 1]) * rx
    f_ratio = max(_rms(rx), _rms(ry)) / peak_grf
    m_ratio = _rms(moment) / (peak_grf * com_h)
    alpha = np.rad2deg(sol.q[:, 2])
    tau = np.abs(sol.tau) / mass
    return {
        "trunk_deg": {"mean": float(alpha.mean()), "min": float(alpha.min()), "max": float(alpha.max()),
                      "range": float(alpha.max() - alpha.min())},
        "stance_knee_peak_deg": stance_knee_peak_deg(sol),
        "stride_m": sol.stride,
        "speed_m_s": sol.stride / ci.period,
        "cadence_spm": 120.0 / ci.period,
        "period_s": ci.period,
        "com_height_m": {"mean": com_h, "min": float(com[:, 1].min()), "max": float(com[:, 1].max())},
        "peak_torque_nm_per_kg": {"hip": float(tau[:, :2].max()), "knee": float(tau[:, 2:].max())},
        "swing_tracking_rms": swing_tracking_rms(sol),
        "swing_tracking_unit": "mm" if ci.swing_reference == "foot" else "deg",
        "residual": {
            "force_rms_n": [_rms(rx), _rms(ry)], "force_peak_n": [float(np.abs(rx).max()), float(np.abs(ry).max())],
            "force_ratio": f_ratio, "force_verdict": verdict(f_ratio),
            "moment_rms_nm": _rms(moment), "moment_peak_nm": float(np.abs(moment).max()),
            "moment_ratio": m_ratio, "moment_verdict": "good" if m_ratio <= GOOD_MOMENT else "poor",
            "peak_grf_n": peak_grf,
            "mean_force_n": [float(rx.mean()), float(ry.mean())],
            "mean_force_bw": [float(rx.mean()) / (mass * p.g), float(ry.mean()) / (mass * p.g)],
        },
    }


def answer_status(sol: PostureSolution, metrics: dict[str, Any]) -> tuple[str, str]:
    """``(status, why)``: ``converged``; ``no_periodic_gait`` when IPOPT converged but only with a
    poor residual force (the recorded force cannot carry this body through a periodic cycle);
    ``failed`` when IPOPT did not converge."""
    if not sol.converged:
        return "failed", f"the solver stopped: {sol.message} after {sol.iterations} iterations"
    res = metrics["residual"]
    mx, my = res["mean_force_bw"]
    if abs(mx) > IMPULSE_LIMIT[0] or abs(my) > IMPULSE_LIMIT[1]:
        return "no_periodic_gait", (f"the recorded GRF's impulse over the cycle does not balance the body: a periodic "
                                    f"cycle needs a mean external force of {100 * mx:+.1f} % (fore-aft) and "
                                    f"{100 * my:+.1f} % (vertical) of body weight beyond the recording (limits "
                                    f"{100 * IMPULSE_LIMIT[0]:.0f} / {100 * IMPULSE_LIMIT[1]:.0f} %)")
    if res["force_verdict"] == "poor":
        return "no_periodic_gait", (f"a periodic cycle needs a residual force of {100 * res['force_ratio']:.1f} % "
                                    f"of the peak GRF (poor, > 10 %): the recorded force cannot carry this body")
    why = []
    peak = max(metrics["peak_torque_nm_per_kg"].values())
    if peak > TORQUE_LIMIT:
        why.append(f"a joint torque of {peak:.1f} N m/kg (a walk needs under {TORQUE_LIMIT:g})")
    o = sol.options
    tol = o.sigma_foot_m * 1000.0 if sol.inputs.swing_reference == "foot" else o.sigma_deg
    if metrics["swing_tracking_rms"] > TRACKING_LIMIT * tol:
        why.append(f"a swing {metrics['swing_tracking_rms']:.1f} {metrics['swing_tracking_unit']} RMS off its "
                   f"reference (tolerance {tol:g})")
    if why:
        return "implausible", "the optimum needs " + " and ".join(why) + ": the model and the recording disagree"
    return "converged", sol.message
