"""Vectorised numpy form of the five-link equations of motion (reference and fallback).

The derivation is in :mod:`models.biped`. Every function here works on a batch of ``N``
states at once: ``Q``, ``QD`` are ``(N, 7)``, ``TAU`` is ``(N, 4)`` and ``GRF`` is ``(N, 4)``.

A leg point is named by two distances: ``a1`` along the thigh from the hip and ``a2`` along
the shank from the knee (thigh CoM ``(r1, 0)``, knee ``(l1, 0)``, shank CoM ``(l1, r2)``,
foot ``(l1, l2)``; the hip is ``(0, 0)``). Its position is::

    P = H - a1 (sin th1, cos th1) - a2 (sin th2, cos th2),  H = (x0 - r0 sin a, y0 - r0 cos a)

with ``th1 = alpha - beta`` and ``th2 = th1 + gamma``. Its Jacobian on the columns
``[x0, y0, alpha, beta, gamma]`` of its side, and the velocity-product acceleration
``Jdot qd`` (the "bias"), follow by differentiation (m, m s^-2).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# indices into q
X0, Y0, ALPHA, BETA_L, BETA_R, GAMMA_L, GAMMA_R = range(7)
N_DOF = 7


def side_columns(side: int) -> np.ndarray:
    """Columns of q that move a point of leg ``side`` (0 = left, 1 = right)."""
    return np.array([X0, Y0, ALPHA, BETA_L + side, GAMMA_L + side])


class LegTrig(NamedTuple):
    sa: np.ndarray
    ca: np.ndarray
    s1: np.ndarray
    c1: np.ndarray
    s2: np.ndarray
    c2: np.ndarray
    ad: np.ndarray
    f1d: np.ndarray
    f2d: np.ndarray


def leg_trig(Q: np.ndarray, QD: np.ndarray, side: int) -> LegTrig:
    """Sines, cosines and absolute angular rates of trunk, thigh and shank of one leg."""
    th1 = Q[:, ALPHA] - Q[:, BETA_L + side]
    th2 = th1 + Q[:, GAMMA_L + side]
    f1d = QD[:, ALPHA] - QD[:, BETA_L + side]
    return LegTrig(
        np.sin(Q[:, ALPHA]), np.cos(Q[:, ALPHA]),
        np.sin(th1), np.cos(th1), np.sin(th2), np.cos(th2),
        QD[:, ALPHA], f1d, f1d + QD[:, GAMMA_L + side],
    )


def point_jacobian(r0: float, t: LegTrig, a1: float, a2: float) -> np.ndarray:
    """Jacobian ``(N, 2, 5)`` of a leg point on its side's columns (dimensionless / m)."""
    n = t.sa.shape[0]
    J = np.zeros((n, 2, 5))
    J[:, 0, 0] = 1.0
    J[:, 1, 1] = 1.0
    J[:, 0, 2] = -r0 * t.ca - a1 * t.c1 - a2 * t.c2
    J[:, 1, 2] = r0 * t.sa + a1 * t.s1 + a2 * t.s2
    J[:, 0, 3] = a1 * t.c1 + a2 * t.c2
    J[:, 1, 3] = -(a1 * t.s1 + a2 * t.s2)
    J[:, 0, 4] = -a2 * t.c2
    J[:, 1, 4] = a2 * t.s2
    return J


def point_bias(r0: float, t: LegTrig, a1: float, a2: float) -> np.ndarray:
    """Velocity-product acceleration ``Jdot qd`` of a leg point, ``(N, 2)`` in m s^-2."""
    w0, w1, w2 = t.ad**2, t.f1d**2, t.f2d**2
    return np.stack(
        [r0 * t.sa * w0 + a1 * t.s1 * w1 + a2 * t.s2 * w2,
         r0 * t.ca * w0 + a1 * t.c1 * w1 + a2 * t.c2 * w2],
        axis=-1,
    )


def full_jacobian(J5: np.ndarray, side: int) -> np.ndarray:
    """Embed a ``(N, 2, 5)`` side Jacobian into ``(N, 2, 7)``."""
    J = np.zeros((J5.shape[0], 2, N_DOF))
    J[:, :, side_columns(side)] = J5
    return J


class EomTerms(NamedTuple):
    """``M qdd = coriolis + gravity + joint + foot`` (all ``(N, 7)``, N or N m)."""

    M: np.ndarray
    coriolis: np.ndarray
    gravity: np.ndarray
    joint: np.ndarray
    foot: np.ndarray


def eom_terms(p: np.ndarray, Q: np.ndarray, QD: np.ndarray, TAU: np.ndarray, GRF: np.ndarray,
              MZ: np.ndarray | None = None) -> EomTerms:
    """Mass matrix and the generalised forces, split by origin, for a batch of states.

    ``MZ`` (N, 2): ground moments on the shanks [N m, ccw +], counted with the foot forces.
    """
    l0, r0, m0, J0, l1, r1, m1, J1, l2, r2, m2, J2, g, rf = p
    n = Q.shape[0]
    M = np.zeros((n, N_DOF, N_DOF))
    cor = np.zeros((n, N_DOF))
    grav = np.zeros((n, N_DOF))
    joint = np.zeros((n, N_DOF))
    foot = np.zeros((n, N_DOF))
    M[:, X0, X0] = m0
    M[:, Y0, Y0] = m0
    M[:, ALPHA, ALPHA] = J0
    grav[:, Y0] = -m0 * g
    thigh_dir = np.array([0.0, 0.0, 1.0, -1.0, 0.0])  # d(th1)/dq on side columns
    shank_dir = np.array([0.0, 0.0, 1.0, -1.0, 1.0])  # d(th2)/dq
    for side in (0, 1):
        cols = side_columns(side)
        sub = np.ix_(cols, cols)
        t = leg_trig(Q, QD, side)
        for mass, a1, a2 in ((m1, r1, 0.0), (m2, l1, r2)):
            J = point_jacobian(r0, t, a1, a2)
            bias = point_bias(r0, t, a1, a2)
            M[:, sub[0], sub[1]] += mass * np.einsum("nki,nkj->nij", J, J)
            cor[:, cols] -= mass * np.einsum("nki,nk->ni", J, bias)
            grav[:, cols] -= mass * g * J[:, 1, :]
        M[:, sub[0], sub[1]] += J1 * np.outer(thigh_dir, thigh_dir) + J2 * np.outer(shank_dir, shank_dir)
        Jf = point_jacobian(r0, t, l1, l2)
        F = GRF[:, 2 * side: 2 * side + 2]
        foot[:, cols] += np.einsum("nki,nk->ni", Jf, F)
        mz = np.zeros(n) if MZ is None else MZ[:, side].copy()  # ground moment on the shank
        if rf > 0.0:  # rolling foot: the moment of F about the foot point turns the shank
            mz += rf * (t.s2 * F[:, 1] - (t.c2 - 1.0) * F[:, 0])
        foot[:, cols] -= mz[:, None] * shank_dir
        joint[:, BETA_L + side] = TAU[:, side]
        joint[:, GAMMA_L + side] = TAU[:, 2 + side]
    return EomTerms(M, cor, grav, joint, foot)


def forward_dynamics(p: np.ndarray, Q: np.ndarray, QD: np.ndarray, TAU: np.ndarray, GRF: np.ndarray,
                     MZ: np.ndarray | None = None) -> np.ndarray:
    """``qdd = M^-1 (coriolis + gravity + joint + foot)`` for a batch, ``(N, 7)``."""
    terms = eom_terms(p, Q, QD, TAU, GRF, MZ)
    rhs = terms.coriolis + terms.gravity + terms.joint + terms.foot
    return np.linalg.solve(terms.M, rhs[..., None])[..., 0]
