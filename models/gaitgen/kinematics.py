r"""Whole-body pose of the five-link biped from a CoM target, a trunk angle and two foot points.

Leg inverse kinematics (models.biped angles, knee in front of the hip-foot line)
-----------------------------------------------------------------------------------
With ``e = H - P`` from the foot ``P`` up to the hip ``H``, ``d = |e|`` and its direction
``psi = atan2(e_x, e_y)`` (from the upward vertical, clockwise positive), the triangle
thigh ``l1`` / shank ``l2`` / ``d`` gives

* ``cos a = (l1^2 + d^2 - l2^2) / (2 l1 d)`` (angle at the hip),
  ``cos b = (l2^2 + d^2 - l1^2) / (2 l2 d)`` (angle at the foot);
* thigh ``th1 = psi - a``, shank ``th2 = psi + b``, so ``gamma = a + b >= 0`` (knee flexion)
  and ``beta = alpha - th1`` (hip flexion).

An over-stretched leg (``d > l1 + l2``) is clipped to a straight knee and reported by
:func:`leg_reach`; the generator rejects such parameters.

Hip from the CoM (per sample, Newton)
-------------------------------------
Given ``alpha`` and both feet, the whole-body CoM is a smooth function ``c(H)`` of the hip
position. ``H`` is found with Newton's method on ``c(H) = c_target`` with a central-difference
2x2 Jacobian, all samples at once. Then ``(x0, y0) = H + r0 (sin alpha, cos alpha)``.
"""

from __future__ import annotations

import numpy as np

from models.params import BipedParams


def leg_ik(hip: np.ndarray, foot: np.ndarray, alpha: np.ndarray, params: BipedParams
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(beta, gamma, th1, th2)`` [rad] of a leg from hip and foot points ``(N, 2)`` [m]."""
    l1, l2 = params.thigh.length, params.shank.length
    e = hip - foot
    d = np.hypot(e[:, 0], e[:, 1])
    d = np.clip(d, abs(l1 - l2) + 1e-9, l1 + l2)
    psi = np.arctan2(e[:, 0], e[:, 1])
    a = np.arccos(np.clip((l1**2 + d**2 - l2**2) / (2.0 * l1 * d), -1.0, 1.0))
    b = np.arccos(np.clip((l2**2 + d**2 - l1**2) / (2.0 * l2 * d), -1.0, 1.0))
    th1 = psi - a
    th2 = psi + b
    return alpha - th1, a + b, th1, th2


def leg_reach(hip: np.ndarray, foot: np.ndarray, params: BipedParams) -> np.ndarray:
    """Hip-foot distance over the straight-leg length (1 = fully stretched), ``(N,)``."""
    e = hip - foot
    return np.hypot(e[:, 0], e[:, 1]) / params.leg_length


def _com(hip: np.ndarray, alpha: np.ndarray, feet: tuple[np.ndarray, np.ndarray],
         params: BipedParams) -> np.ndarray:
    tr, th, sh = params.trunk, params.thigh, params.shank
    up = np.stack([np.sin(alpha), np.cos(alpha)], axis=-1)
    total = tr.mass * (hip + tr.com * up)
    for foot in feet:
        _, _, th1, th2 = leg_ik(hip, foot, alpha, params)
        d1 = np.stack([np.sin(th1), np.cos(th1)], axis=-1)
        d2 = np.stack([np.sin(th2), np.cos(th2)], axis=-1)
        knee = hip - th.length * d1
        total = total + th.mass * (hip - th.com * d1) + sh.mass * (knee - sh.com * d2)
    return total / params.total_mass


def hip_for_com(com: np.ndarray, alpha: np.ndarray, foot_l: np.ndarray, foot_r: np.ndarray,
                params: BipedParams, iterations: int = 12) -> np.ndarray:
    """Hip positions ``(N, 2)`` [m] that put the whole-body CoM at ``com`` ``(N, 2)``."""
    feet = (foot_l, foot_r)
    up = np.stack([np.sin(alpha), np.cos(alpha)], axis=-1)
    hip = com - 0.5 * params.trunk.com * up
    h = 1e-6
    for _ in range(iterations):
        err = _com(hip, alpha, feet, params) - com
        if np.max(np.abs(err)) < 1e-12:
            break
        jac = np.empty((hip.shape[0], 2, 2))
        for j in range(2):
            step = np.zeros(2)
            step[j] = h
            jac[:, :, j] = (_com(hip + step, alpha, feet, params) - _com(hip - step, alpha, feet, params)) / (2 * h)
        hip = hip - np.linalg.solve(jac, err[..., None])[..., 0]
    return hip


def pose_from_com(com: np.ndarray, alpha: np.ndarray, foot_l: np.ndarray, foot_r: np.ndarray,
                  params: BipedParams) -> tuple[np.ndarray, np.ndarray]:
    """Generalised coordinates ``q`` ``(N, 7)`` and the hip ``(N, 2)`` for the CoM target."""
    hip = hip_for_com(com, alpha, foot_l, foot_r, params)
    beta_l, gamma_l, _, _ = leg_ik(hip, foot_l, alpha, params)
    beta_r, gamma_r, _, _ = leg_ik(hip, foot_r, alpha, params)
    r0 = params.trunk.com
    q = np.column_stack([hip[:, 0] + r0 * np.sin(alpha), hip[:, 1] + r0 * np.cos(alpha), alpha,
                         beta_l, beta_r, gamma_l, gamma_r])
    return q, hip
