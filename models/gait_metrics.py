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

from models.batched import per_copy


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
    for to in takeoff.tolist():
        nxt = landing[landing > to]
        if nxt.size == 0:
            continue
        seg = alpha_deg[to:nxt[0] + 1]
        lo, hi = min(lo, float(seg.min())), max(hi, float(seg.max()))
    if not np.isfinite(lo):
        return {"min": float("nan"), "max": float("nan")}
    return {"min": lo, "max": hi}


def _edges(stance: np.ndarray) -> tuple[list[list[np.ndarray]], list[list[np.ndarray]]]:
    """Per copy and leg, the starts and ends of the stance intervals of ``stance`` (G, n, 2) bool
    (as :func:`intervals`), from one ``diff`` over every copy."""
    g, n, _ = stance.shape
    f = np.zeros((g, 2, n + 2), dtype=np.int8)
    f[:, :, 1:-1] = stance.transpose(0, 2, 1)
    d = np.diff(f, axis=-1)
    out = []
    for edge in (1, -1):
        hit = d == edge
        copy, leg, at = np.nonzero(hit)  # ordered by copy, leg, index
        bounds = np.concatenate([[0], np.cumsum(hit.sum(axis=-1).reshape(-1))]).tolist()
        out.append([[at[bounds[2 * c + k]: bounds[2 * c + k + 1]] for k in (0, 1)] for c in range(g)])
    return out[0], out[1]


def _events(t: np.ndarray, alpha: np.ndarray, feet: np.ndarray, com_y: np.ndarray, starts: list[np.ndarray],
            ends: list[np.ndarray]) -> dict[str, Any]:
    """One copy's metrics that follow its landings and take-offs (module docstring): ``alpha`` (n,) deg,
    ``feet`` (n, 4) m, ``com_y`` (n,) m, the stance intervals ``[starts[k], ends[k])`` of each leg."""
    n = t.size
    land_l, land_r = (s[s > 0] for s in starts)
    off_l, off_r = (e[e < n] for e in ends)
    out: dict[str, Any] = {"r_takeoff_to_l_landing": _phase_window_stats(alpha, off_r, land_l),
                           "l_takeoff_to_r_landing": _phase_window_stats(alpha, off_l, land_r)}
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
        for s, e in zip(starts[side].tolist(), ends[side].tolist(), strict=True):
            x, y = feet[s:e, 2 * side], feet[s:e, 2 * side + 1]
            slip = max(slip, float(np.ptp(x)))
            height = max(height, float(np.max(np.abs(y))))
    out["stance_slip_m_max"] = slip
    out["stance_height_m_max"] = height
    cuts = land_l.tolist()
    cycle_means = [float(np.mean(com_y[a:b])) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    out["cycles_completed"] = len(cycle_means)
    if len(cycle_means) >= 2:
        slope = np.polyfit(np.arange(len(cycle_means)), cycle_means, 1)[0]
        out["com_height_drift_m_per_cycle"] = float(abs(slope))
    else:
        out["com_height_drift_m_per_cycle"] = float("nan")
    return out


def walking_metrics_batch(t: np.ndarray, q: np.ndarray, q_ref: np.ndarray | None, stance: np.ndarray,
                          feet: np.ndarray, com: np.ndarray, tau: np.ndarray, mass: float) -> dict[str, Any]:
    """:func:`walking_metrics` of ``G`` copies on one time base ``t`` (n,): every other input with a
    leading copy axis (``q`` (G, n, 7), ...). The reductions over samples run on all copies at once;
    what follows the landings runs per copy on their indices. Leaves as :mod:`models.batched` says."""
    stance = np.asarray(stance, dtype=bool)
    g = q.shape[0]
    deg = np.degrees
    out: dict[str, Any] = {}
    names = {"hip_l": 3, "hip_r": 4, "knee_l": 5, "knee_r": 6, "trunk": 2}
    if q_ref is not None:
        err = deg(q - q_ref)
        out["rms_deg"] = {k: np.sqrt(np.mean(err[..., i] ** 2, axis=-1)) for k, i in names.items()}
    else:
        out["rms_deg"] = {k: float("nan") for k in names}
    alpha = deg(q[..., 2])
    starts, ends = _edges(stance)
    events = [_events(t, alpha[c], feet[c], com[c, :, 1], starts[c], ends[c]) for c in range(g)]
    out["trunk_deg"] = {"min": alpha.min(axis=-1), "max": alpha.max(axis=-1),
                        "r_takeoff_to_l_landing": [e["r_takeoff_to_l_landing"] for e in events],
                        "l_takeoff_to_r_landing": [e["l_takeoff_to_r_landing"] for e in events]}
    gam = deg(q[..., 5:7])
    lo, hi = gam.min(axis=1), gam.max(axis=1)
    out["knee_range_deg"] = {"l": hi[:, 0] - lo[:, 0], "r": hi[:, 1] - lo[:, 1]}
    out["knee_deg"] = {s: {"min": lo[:, i], "max": hi[:, i]} for i, s in enumerate(("l", "r"))}
    for key in ("stride_length_m", "cadence_steps_per_min", "stance_slip_m_max", "stance_height_m_max",
                "cycles_completed", "com_height_drift_m_per_cycle"):
        out[key] = [e[key] for e in events]
    out["peak_torque_nm_per_kg"] = {"hip": np.abs(tau[..., 0:2]).max(axis=(1, 2)) / mass,
                                    "knee": np.abs(tau[..., 2:4]).max(axis=(1, 2)) / mass}
    return out


def walking_metrics(t: np.ndarray, q: np.ndarray, q_ref: np.ndarray | None, stance: np.ndarray,
                    feet: np.ndarray, com: np.ndarray, tau: np.ndarray, mass: float) -> dict[str, Any]:
    """All metrics of the module docstring, as plain floats/dicts ready for JSON."""
    one = walking_metrics_batch(t, q[None], None if q_ref is None else q_ref[None], np.asarray(stance)[None],
                                feet[None], com[None], tau[None], mass)
    return per_copy(one, 1)[0]
