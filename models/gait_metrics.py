"""Walking metrics of a simulated run, as reported in ``summary.json`` and by ``compare``.

Inputs are sampled on one time base ``t`` (N,) [s]:

* ``q``, ``q_ref`` (N, 7): simulated and reference generalised coordinates (angles in rad);
* ``stance`` (N, 2) bool: stance flags of the left and right foot (from the phase detector);
* ``feet`` (N, 4) [m]: simulated foot positions ``[x_l, y_l, x_r, y_r]``; with a rolling
  foot, its contact coordinates ``[xi, eta]`` (the arc's no-slip position and the height of
  its lowest point, :meth:`models.biped.FiveLinkBiped.contact_coordinates`), so slip and
  height measure the contact, not the rolling shank end;
* ``com`` (N, 2) [m]: simulated whole-body CoM;
* ``tau`` (N, 4) [N m]: applied joint torques ``[hip_l, hip_r, knee_l, knee_r]``;
* ``mass`` [kg]: model body mass.

Definitions (``docs/walking.md``, section "Walking metrics"):

``rms_deg``
    RMS over the run of ``q - q_ref`` for hip_l (beta_l), hip_r, knee_l (gamma_l), knee_r,
    trunk (alpha), in degrees.
``trunk_deg``
    min and max of alpha [deg]; and per phase, as in the paper's table, the min and max of
    alpha over every interval from a right take-off to the next left landing
    (``r_takeoff_to_l_landing``, left single support) and from a left take-off to the next
    right landing (``l_takeoff_to_r_landing``).
``knee_range_deg``
    max - min of knee flexion gamma per leg [deg]; ``knee_deg`` gives the min and max.
``stride_length_m``
    mean distance along x between successive landings of the same foot (both feet pooled).
``cadence_steps_per_min``
    landings of either foot per minute, from the first to the last landing.
``stance_slip_m_max``
    largest horizontal travel (max - min of x) of a foot within one of its stance intervals.
``stance_height_m_max``
    largest ``|y|`` of a foot while it is in stance (the ground is y = 0).
``com_height_drift_m_per_cycle``
    absolute slope of a straight line fitted to the mean CoM height of each complete gait
    cycle (left landing to left landing), in m per cycle; NaN with fewer than 2 cycles.
``peak_torque_nm_per_kg``
    max ``|tau|`` of the hips and of the knees divided by the body mass.
``cycles_completed``
    complete gait cycles (left landing to the next left landing) inside the run.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def intervals(flag: np.ndarray) -> list[tuple[int, int]]:
    """Half-open index intervals ``[start, end)`` where the boolean ``flag`` is True."""
    f = np.concatenate([[False], np.asarray(flag, dtype=bool), [False]])
    d = np.diff(f.astype(np.int8))
    starts = np.flatnonzero(d == 1)
    ends = np.flatnonzero(d == -1)
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def landings(flag: np.ndarray) -> np.ndarray:
    """Indices where a foot lands (stance begins), excluding a stance already on at index 0."""
    return np.array([s for s, _ in intervals(flag) if s > 0], dtype=int)


def takeoffs(flag: np.ndarray) -> np.ndarray:
    """Indices where a foot takes off (first swing sample), excluding the end of the record."""
    n = len(flag)
    return np.array([e for _, e in intervals(flag) if e < n], dtype=int)


def _phase_window_stats(alpha_deg: np.ndarray, takeoff: np.ndarray, landing: np.ndarray) -> dict[str, float]:
    lo, hi = np.inf, -np.inf
    for to in takeoff:
        nxt = landing[landing > to]
        if nxt.size == 0:
            continue
        seg = alpha_deg[to:nxt[0] + 1]
        lo, hi = min(lo, float(seg.min())), max(hi, float(seg.max()))
    if not np.isfinite(lo):
        return {"min": float("nan"), "max": float("nan")}
    return {"min": lo, "max": hi}


def walking_metrics(t: np.ndarray, q: np.ndarray, q_ref: np.ndarray | None, stance: np.ndarray,
                    feet: np.ndarray, com: np.ndarray, tau: np.ndarray, mass: float) -> dict[str, Any]:
    """All metrics of the module docstring, as plain floats/dicts ready for JSON."""
    stance = np.asarray(stance, dtype=bool)
    deg = np.degrees
    out: dict[str, Any] = {}
    names = {"hip_l": 3, "hip_r": 4, "knee_l": 5, "knee_r": 6, "trunk": 2}
    if q_ref is not None:
        err = deg(q - q_ref)
        out["rms_deg"] = {k: float(np.sqrt(np.mean(err[:, i] ** 2))) for k, i in names.items()}
    else:
        out["rms_deg"] = {k: float("nan") for k in names}

    alpha = deg(q[:, 2])
    land_l, land_r = landings(stance[:, 0]), landings(stance[:, 1])
    off_l, off_r = takeoffs(stance[:, 0]), takeoffs(stance[:, 1])
    out["trunk_deg"] = {
        "min": float(alpha.min()), "max": float(alpha.max()),
        "r_takeoff_to_l_landing": _phase_window_stats(alpha, off_r, land_l),
        "l_takeoff_to_r_landing": _phase_window_stats(alpha, off_l, land_r),
    }
    gam = deg(q[:, 5:7])
    out["knee_range_deg"] = {"l": float(np.ptp(gam[:, 0])), "r": float(np.ptp(gam[:, 1]))}
    out["knee_deg"] = {s: {"min": float(gam[:, i].min()), "max": float(gam[:, i].max())}
                       for i, s in enumerate(("l", "r"))}

    strides = []
    for land, col in ((land_l, 0), (land_r, 2)):
        if land.size >= 2:
            strides.extend(np.diff(feet[land, col]).tolist())
    out["stride_length_m"] = float(np.mean(strides)) if strides else float("nan")
    all_land = np.sort(np.concatenate([land_l, land_r]))
    if all_land.size >= 2 and t[all_land[-1]] > t[all_land[0]]:
        out["cadence_steps_per_min"] = float(60.0 * (all_land.size - 1) / (t[all_land[-1]] - t[all_land[0]]))
    else:
        out["cadence_steps_per_min"] = float("nan")

    slip, height = 0.0, 0.0
    for side in (0, 1):
        for s, e in intervals(stance[:, side]):
            x, y = feet[s:e, 2 * side], feet[s:e, 2 * side + 1]
            slip = max(slip, float(np.ptp(x)))
            height = max(height, float(np.max(np.abs(y))))
    out["stance_slip_m_max"] = slip
    out["stance_height_m_max"] = height

    cycle_means = [float(np.mean(com[a:b, 1])) for a, b in zip(land_l[:-1], land_l[1:], strict=True)]
    out["cycles_completed"] = len(cycle_means)
    if len(cycle_means) >= 2:
        slope = np.polyfit(np.arange(len(cycle_means)), cycle_means, 1)[0]
        out["com_height_drift_m_per_cycle"] = float(abs(slope))
    else:
        out["com_height_drift_m_per_cycle"] = float("nan")

    out["peak_torque_nm_per_kg"] = {
        "hip": float(np.max(np.abs(tau[:, 0:2])) / mass),
        "knee": float(np.max(np.abs(tau[:, 2:4])) / mass),
    }
    return out
