"""The posture solver's first guess: reads no trunk, CoM or stance angle of the recording.

Trunk upright (or at ``lean_deg``), the hip moving at the constant speed ``stride / T`` over the
footprints at a height of 0.93 leg lengths, each stance leg reaching its footprint by inverse
kinematics (knee flexed), each swing leg at its swing reference. Footprints: each stance's mean
CoP, or without a CoP the right foot at 0 and the left half a stride on; the stride: the step of
the mean CoPs of one foot, else 0.85 leg lengths. Rates and accelerations by periodic central
differences (x shifted one stride).
"""

from __future__ import annotations

import numpy as np

from models.params import BipedParams
from models.posture.inputs import CycleInputs

__all__ = ["ik", "periodic_rates", "footprint_guess", "stride_guess", "initial_guess"]


def ik(dx: np.ndarray, dy: np.ndarray, l1: float, l2: float, alpha: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(beta, gamma)`` [rad] putting the foot at ``(dx, dy)`` from the hip, knee flexed (gamma >= 0)."""
    r = np.clip(np.hypot(dx, dy), 0.3 * (l1 + l2), 0.995 * (l1 + l2))
    gamma = np.arccos(np.clip((r**2 - l1**2 - l2**2) / (2 * l1 * l2), -1.0, 1.0))
    phi = np.arctan2(-dx, -dy)
    th1 = phi - np.arctan2(l2 * np.sin(gamma), l1 + l2 * np.cos(gamma))
    return alpha - th1, gamma


def periodic_rates(q: np.ndarray, h: float, shift: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    nxt = np.roll(q, -1, axis=0)
    nxt[-1] += shift
    prv = np.roll(q, 1, axis=0)
    prv[0] -= shift
    return (nxt - prv) / (2 * h), (nxt - 2 * q + prv) / h**2


def footprint_guess(inputs: CycleInputs, stride: float) -> np.ndarray:
    out = []
    for run in inputs.runs:
        if run.anchor is not None:
            out.append(run.anchor)
        else:  # no CoP: the right foot at 0, the left half a stride on, by symmetry
            out.append(0.0 if run.foot == 1 else 0.5 * stride)
    return np.asarray(out, dtype=float)


def stride_guess(inputs: CycleInputs, params: BipedParams) -> float:
    for run in inputs.runs:
        if run.anchor is not None and run.anchor_prev is not None:
            return float(run.anchor - run.anchor_prev)
    return 0.85 * params.leg_length  # a typical stride of slow walking, m


def initial_guess(inputs: CycleInputs, params: BipedParams, stride: float, footprints: np.ndarray,
                  lean_deg: float = 0.0) -> np.ndarray:
    """``q`` (n, 7) of the first guess (module doc): reads no trunk, CoM or stance angle; the trunk at
    ``lean_deg`` (0 = upright)."""
    n, T = inputs.n, inputs.period
    t = np.arange(n) * T / n
    l1, l2, r0 = params.thigh.length, params.shank.length, params.trunk.com
    v = stride / T
    right = next((r for r in inputs.runs if r.foot == 1 and not r.wrapped.any()), inputs.runs[0])
    mid = t[right.nodes].mean()
    x_hip = footprints[inputs.runs.index(right)] + v * (t - mid)
    y_hip = np.full(n, 0.93 * (l1 + l2))
    q = np.zeros((n, 7))
    alpha = np.full(n, np.deg2rad(lean_deg))
    q[:, 0], q[:, 1], q[:, 2] = x_hip + r0 * np.sin(alpha), y_hip + r0 * np.cos(alpha), alpha
    for foot in (0, 1):
        dx, dy = np.zeros(n), np.full(n, -0.93 * (l1 + l2))
        for i, run in enumerate(inputs.runs):
            if run.foot != foot:
                continue
            target = footprints[i] - run.wrapped * stride
            dx[run.nodes] = target - x_hip[run.nodes]
            dy[run.nodes] = -y_hip[run.nodes]
        beta, gamma = ik(dx, dy, l1, l2, alpha)
        swing = ~inputs.stance[:, foot]
        ref = inputs.swing_ref[:, foot]
        if inputs.swing_reference == "joint":
            beta[swing], gamma[swing] = ref[swing, 0], ref[swing, 1]
        elif inputs.swing_reference == "segment":
            beta[swing], gamma[swing] = alpha[swing] - ref[swing, 0], ref[swing, 1] - ref[swing, 0]
        else:
            b, g = ik(ref[:, 0], ref[:, 1], l1, l2, alpha)
            beta[swing], gamma[swing] = b[swing], g[swing]
        q[:, 3 + foot], q[:, 5 + foot] = beta, gamma
    return q


def resample(q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, stride: float, n_new: int) -> tuple[np.ndarray, ...]:
    """A solution's ``q, qd, qdd`` on ``n`` nodes, linearly interpolated onto ``n_new`` nodes of the
    same cycle (mesh refinement): periodic, with ``q`` shifted one stride in x after the period."""
    n = q.shape[0]
    s_old, s_new = np.arange(n + 1) / n, np.arange(n_new) / n_new
    shift = np.zeros(7)
    shift[0] = stride
    out = []
    for a, d in ((q, shift), (qd, 0.0 * shift), (qdd, 0.0 * shift)):
        ext = np.vstack([a, a[0] + d])
        out.append(np.column_stack([np.interp(s_new, s_old, ext[:, j]) for j in range(7)]))
    return tuple(out)
