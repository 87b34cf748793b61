"""The walking keys of ``summary.json`` for many copies of a run at once: status, metrics, force account.

A sweep summarises each batch of copies (:func:`app.run_summary.summarise_batch`) through
:func:`walking_summary_batch`; a single run is the batch of one, so a copy's keys are the single
run's. The signals are read by role (:data:`app.walking.ROLES`) as arrays with a leading copy axis,
``(G, T, ...)`` on one time base ``t`` (T,) [s]; copy ``j`` holds ``lengths[j]`` valid rows (a copy
that failed stops early). Per copy, in order:

* its first fall (:func:`app.walking.first_falls`) and its status (:func:`app.walking.run_status`);
* the window of its metrics: every valid row, or up to the fall (``metrics_until_s``);
* copies with the same window (and the same torque sources) are summarised together: the walking
  metrics (:func:`models.gait_metrics.walking_metrics_batch`), the contact correction, the CoP
  shift, the force account, residual, speed and height accounts (:mod:`models.force_account`),
  each a numpy reduction over the samples of every copy at once;
* the recording's own metrics (:func:`recording_metrics`), which read only the recording and the
  stance phases: computed once for the copies whose inputs are equal, not per copy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from app.walking import REQUIRED, find_signals, first_falls, run_status
from models.batched import per_copy
from models.force_account import (
    force_account_batch,
    height_account_batch,
    residual_batch,
    residual_moment,
    speed_account_batch,
)
from models.gait_metrics import walking_metrics_batch

__all__ = ["walking_summary_batch", "recording_metrics", "ground_moment", "RECORDING_KEYS"]

# what the ``recording`` block of summary.json holds: the same metrics on the recording itself
RECORDING_KEYS = ("trunk_deg", "knee_range_deg", "knee_deg", "stride_length_m", "com_height_m", "speed_m_s")
_SOLVED_PARTS = (("solved_feedforward", "solved_ff"), ("solved_pd", "solved_pd"))


def ground_moment(s: Mapping[str, np.ndarray]) -> np.ndarray | None:
    """(..., n, 2) N m: every ground moment on the stance shanks, the ankle block's CoP shift plus the trunk
    balance passed to the ground (``TrunkBalance`` ``route = ground``); None if neither was recorded."""
    parts = [s[k] for k in ("mz", "trunk_mz") if k in s]
    return sum(parts[1:], parts[0]) if parts else None


def _account(t: np.ndarray, s: dict[str, np.ndarray], solved: Sequence[str], mass: float, g: float) -> dict[str, Any]:
    """``actuation`` and ``residual`` (:mod:`models.force_account`) of a group of copies; ``solved``: the
    solved-gait torque sources these copies apply (each one nonzero somewhere)."""
    stance = s["stance"] > 0.5
    legs = np.repeat(stance, 2, axis=-1)[..., [0, 2, 1, 3]]  # [hip_l hip_r knee_l knee_r] -> its leg's flag
    tau = s["tau"]
    parts = {name: np.where(legs, s[role], 0.0) for name, role in
             (("estimator", "est"), ("trunk_balance", "trunk"), ("stance_damping", "damp"), ("grf_match", "match"))
             if role in s}
    if "ff" in s:
        parts["feedforward"] = np.where(legs, 0.0, s["ff"])
    for name, role in _SOLVED_PARTS:  # every joint, any phase
        if name in solved:
            parts[name] = s[role]
    # joint feedback: whatever the applied torque holds beyond the named sources
    named = np.zeros_like(tau)
    for part in parts.values():  # in place: the same sums as sum(parts.values(), zeros), no temporaries
        named += part
    parts["joint_feedback"] = np.subtract(tau, named, out=named)
    order = ("estimator", "joint_feedback", "trunk_balance", "feedforward", "stance_damping", "grf_match",
             "solved_feedforward", "solved_pd")
    torques = {k: parts[k] for k in order if k in parts}
    grf = s.get("grf")
    if grf is None:
        return {}
    corr = s.get("corr")
    mz = ground_moment(s)
    out: dict[str, Any] = {"actuation": force_account_batch(t, stance, mass, g, grf, corr, torques, mz)}
    if corr is not None:
        contact = s.get("contact", s["feet"])
        moment = residual_moment(corr, contact, s["com"], mz)
        out["residual"] = residual_batch(grf, corr, moment, np.mean(s["com"][..., 1], axis=-1), mass)
    return out


def recording_metrics(t: np.ndarray, s: Mapping[str, np.ndarray], mass: float) -> dict[str, Any]:
    """:data:`RECORDING_KEYS` of the recording over the window ``t`` (n,) of one copy (``s``: (n, ...)
    arrays): the reference angles, its footprints and its CoM (``ReferenceMotion``), with the run's
    stance phases (from the GRF). ``trunk_deg`` is None when the recording has no trunk angle (a marker
    set without a trunk marker is imported with alpha = 0 throughout): a range of 0..0 deg would read as
    a finding."""
    from models.gait_metrics import walking_metrics

    q_ref = np.concatenate([s["ref_com"][:, :2], s["ref"]], axis=1)
    m = walking_metrics(t, q_ref, None, s["stance"] > 0.5, s["ref_feet"], s["ref_com"][:, :2],
                        np.zeros((t.size, 4)), mass)
    m["com_height_m"] = float(np.mean(s["ref_com"][:, 1]))
    span = float(t[-1] - t[0])
    m["speed_m_s"] = float(s["ref_com"][-1, 0] - s["ref_com"][0, 0]) / span if span > 0 else None
    if not np.any(s["ref"][:, 0]):
        m["trunk_deg"] = None
    return {k: m[k] for k in RECORDING_KEYS}


def _recordings(t: np.ndarray, s: Mapping[str, np.ndarray], windows: Mapping[int, int], mass: float
                ) -> dict[int, dict[str, Any]]:
    """:func:`recording_metrics` of copy ``j`` over its window ``t[:windows[j]]``, computed once per
    distinct input (a sweep's copies share the recording, and their stance phases come from the same
    recorded GRF): a copy whose window and inputs equal an earlier copy's gets that copy's dict."""
    keys = ("ref", "ref_feet", "ref_com", "stance")
    done: list[tuple[int, dict[str, Any]]] = []
    out = {}
    for j, n in windows.items():
        same = next((m for i, m in done if windows[i] == n and all(np.array_equal(s[k][j, :n], s[k][i, :n])
                                                                  for k in keys)), None)
        if same is None:
            same = recording_metrics(t[:n], {k: s[k][j, :n] for k in keys}, mass)
            done.append((j, same))
        out[j] = same
    return out


def _group(t: np.ndarray, s: dict[str, np.ndarray], solved: Sequence[str], mass: float, g: float,
           com_velocity: Callable[[np.ndarray, np.ndarray], np.ndarray] | None) -> dict[str, Any]:
    """The metric keys (after the status keys) of copies that share their window ``t`` (n,); ``s``
    (G, n, ...)."""
    q = s["q"]
    q_ref = np.concatenate([q[..., :2], s["ref"]], axis=-1) if "ref" in s else None
    feet = s.get("contact", s["feet"])  # where the feet touch: the rolling contact coordinates
    out = walking_metrics_batch(t, q, q_ref, s["stance"] > 0.5, feet, s["com"], s["tau"], mass)
    weight = mass * g
    if "corr" in s:
        corr = s["corr"]
        net = corr[..., 0:2] + corr[..., 2:4]  # external; in double support the feet also push on each other
        out["contact_corr_bw_rms"] = {"x": np.sqrt(np.mean(net[..., 0] ** 2, axis=-1)) / weight,
                                      "y": np.sqrt(np.mean(net[..., 1] ** 2, axis=-1)) / weight,
                                      "per_foot_x": np.sqrt([np.mean(c[:, [0, 2]] ** 2) for c in corr]) / weight}
    mz = ground_moment(s)
    if "cop" in s and mz is not None:
        shifts = []
        for j in range(q.shape[0]):
            cop = np.abs(s["cop"][j])[s["stance"][j] > 0.5]  # the ankle block's own CoP shift
            shifts.append({"rms": float(np.sqrt(np.mean(cop ** 2))) if cop.size else 0.0,
                           "max": float(cop.max()) if cop.size else 0.0})
        out["cop_shift_m"] = shifts
        out["peak_ground_moment_nm_per_kg"] = np.abs(mz).max(axis=(1, 2)) / mass
    out["com_height_m"] = np.mean(s["com"][..., 1], axis=-1)
    out.update(_account(t, s, solved, mass, g))
    if com_velocity is not None and "qd" in s and "grf" in s:
        v0 = np.array([com_velocity(s["q"][j, 0], s["qd"][j, 0]) for j in range(q.shape[0])])
        floor = s.get("corr")
        out["speed_account"] = speed_account_batch(t, s["com"][..., 0], v0[:, 0], s["grf"], floor, mass)
        out["height_account"] = height_account_batch(t, s["com"][..., 1], v0[:, 1], s["grf"], floor, mass, g)
    return out


def walking_summary_batch(t: np.ndarray, signals: Mapping[str, np.ndarray], lengths: Sequence[int],
                          statuses: Sequence[str], mass: float, leg_length: float | None = None, g: float = 9.81,
                          com_velocity: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
                          ) -> list[dict[str, Any]]:
    """Per copy: status, walking metrics (up to a fall) and the force account (module docstring);
    ``{}`` without walking signals or with fewer than 2 rows. ``signals``: canonical names, (G, T, ...);
    ``statuses``: each copy's engine status; ``com_velocity(q, qd)``, the model's CoM velocity (2,) [m/s]
    in a state, adds the speed and height accounts."""
    n_copies = len(lengths)
    s = find_signals(signals)
    if any(role not in s for role in REQUIRED):
        return [{} for _ in range(n_copies)]
    falls = first_falls(t, s["q"], s.get("hip"), leg_length, s["stance"], lengths)
    out: list[dict[str, Any]] = [{} for _ in range(n_copies)]
    groups: dict[tuple[int, tuple[str, ...]], list[int]] = {}
    windows: dict[int, int] = {}  # copy -> rows of its metrics' window
    for j, (size, fall) in enumerate(zip(lengths, falls, strict=True)):
        if size < 2:
            continue
        fell = fall.at_s if fall else None
        n = size if fell is None else max(int(np.searchsorted(t[:size], fell, side="right")), 2)
        out[j] = {"status": run_status(statuses[j], {"q": s["q"][j, :size]}, fell), "fell_at_s": fell,
                  "fell_because": fall.cause if fall else None, "metrics_until_s": float(t[n - 1]),
                  "metrics_scope": "whole run" if fell is None else "up to the fall"}
        solved = tuple(name for name, role in _SOLVED_PARTS if role in s and np.any(s[role][j, :n]))
        groups.setdefault((n, solved), []).append(j)
    for (n, solved), members in groups.items():
        pick: slice | list[int] = slice(members[0], members[-1] + 1) \
            if members == list(range(members[0], members[-1] + 1)) else members  # a view when it can
        part = {k: v[pick, :n] for k, v in s.items()}
        for j, keys in zip(members, per_copy(_group(t[:n], part, solved, mass, g, com_velocity), len(members)),
                           strict=True):
            out[j].update(keys)
            windows[j] = n
    if "ref" in s and "ref_feet" in s and "ref_com" in s:
        for j, recording in _recordings(t, s, windows, mass).items():
            out[j]["recording"] = recording
    return out
