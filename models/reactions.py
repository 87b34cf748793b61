r"""Hip and knee reaction forces of the five-link biped (Blajer & Czaplicki 2005).

Maximal (absolute) coordinates of the five links, ``p`` (15,): for each link in the order
trunk, thigh_l, shank_l, thigh_r, shank_r, its CoM ``(x, y)`` [m] and its *clockwise*
absolute angle ``phi`` [rad] (the angles of :mod:`models.biped`: ``phi_trunk = alpha``
from the upward vertical; ``phi_thigh = alpha - beta`` and ``phi_shank = phi_thigh +
gamma`` from the downward vertical). With ``w(phi) = (sin phi, cos phi)``, the joints are

* hip  = trunk CoM - r0 w(alpha) = thigh CoM + r1 w(phi_1),
* knee = thigh CoM - (l1 - r1) w(phi_1) = shank CoM + r2 w(phi_2),
* foot = shank CoM - (l2 - r2) w(phi_2).

Free-body equations ``MM p_dd = h - C^T lambda``: ``MM = diag(m, m, J)`` per link;
``h`` = gravity ``(0, -m g)``, the foot force on each shank with its moment about the shank
CoM, and the joint torques (``tau_hip`` counter-clockwise on the thigh and clockwise on the
trunk, ``tau_knee`` clockwise on the shank and counter-clockwise on the thigh), the angle
entries of ``h`` being *clockwise* moments to match ``phi``.

Open-constraint coordinates ``z`` (8,): at each hip the thigh's hip point minus the
trunk's hip point, at each knee the shank's knee point minus the thigh's knee point (x, y).
``C = dz/dp`` (8, 15). The augmented joint coordinates ``p = g(q, z)`` translate every link
below a joint by that joint's ``z``, so ``E = dg/dz`` (15, 8) holds only ones and zeros,
``C E = I`` and ``C D = 0`` with ``D = dg/dq`` (15, 7); ``p_dd = D q_dd + gamma``.

Two formulas for the multipliers, which must agree on consistent motions:

* augmented joint coordinates (no inversion):  ``lambda = E^T (h - MM (D q_dd + gamma))``;
* classical:  ``lambda = (C MM^-1 C^T)^-1 C (MM^-1 h - gamma)``  (``C gamma = -Cdot p_dot``).

Signs. ``-C^T lambda`` is the constraint force on ``p``: the distal link of a joint gets
``-lambda``. Every function here therefore returns ``F = -lambda``: **the force on the
thigh from the trunk at the hip, and on the shank from the thigh at the knee**, world
x/y in N (the convention of :mod:`models.newton_euler` and of Winter's recursive method).
The trunk feels ``-F_hip`` and the thigh ``-F_knee``. Output columns (8,):
``[hip_l_x, hip_l_y, hip_r_x, hip_r_y, knee_l_x, knee_l_y, knee_r_x, knee_r_y]``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from models.params import BipedParams

REACTION_NAMES = ("hip_l_x", "hip_l_y", "hip_r_x", "hip_r_y", "knee_l_x", "knee_l_y", "knee_r_x", "knee_r_y")

# link index k -> p columns 3k .. 3k+2; legs: side s -> thigh 1 + 2s, shank 2 + 2s
_THIGH = (1, 3)
_SHANK = (2, 4)


def _w(phi: np.ndarray) -> np.ndarray:
    return np.stack([np.sin(phi), np.cos(phi)], axis=-1)


def _dw(phi: np.ndarray) -> np.ndarray:
    return np.stack([np.cos(phi), -np.sin(phi)], axis=-1)


class MaximalTerms(NamedTuple):
    """Terms of the free-body equations for ``N`` states (see the module doc)."""

    MM: np.ndarray     # (15,) diagonal of the constant mass matrix [kg, kg m^2]
    D: np.ndarray      # (N, 15, 7) dp/dq
    gamma: np.ndarray  # (N, 15) velocity-product accelerations [m s^-2, rad s^-2]
    h: np.ndarray      # (N, 15) applied forces [N] and clockwise moments [N m]
    C: np.ndarray      # (N, 8, 15) constraint matrix dz/dp
    E: np.ndarray      # (15, 8) dp/dz (constant)


def _batch(x: np.ndarray | None, n: int, width: int) -> np.ndarray:
    if x is None:
        return np.zeros((n, width))
    return np.atleast_2d(np.asarray(x, dtype=np.float64)).reshape(n, width)


def maximal_terms(params: BipedParams, q: np.ndarray, qd: np.ndarray, tau: np.ndarray | None = None,
                  grf: np.ndarray | None = None) -> MaximalTerms:
    """``MM, D, gamma, h, C, E`` for a batch ``q, qd`` (N, 7), ``tau`` (N, 4), ``grf`` (N, 4)."""
    Q = np.atleast_2d(np.asarray(q, dtype=np.float64))
    n = Q.shape[0]
    QD, TAU, GRF = _batch(qd, n, 7), _batch(tau, n, 4), _batch(grf, n, 4)
    tr, th, sh, g = params.trunk, params.thigh, params.shank, params.g
    MM = np.array([v for lk in (tr, th, sh, th, sh) for v in (lk.mass, lk.mass, lk.inertia)])
    D = np.zeros((n, 15, 7))
    gamma = np.zeros((n, 15))
    h = np.zeros((n, 15))
    C = np.zeros((n, 8, 15))
    E = np.zeros((15, 8))
    alpha, alpha_d = Q[:, 2], QD[:, 2]
    D[:, 0, 0] = D[:, 1, 1] = D[:, 2, 2] = 1.0
    h[:, 1] = -tr.mass * g
    h[:, 2] = TAU[:, 0] + TAU[:, 1]  # hip torques are clockwise on the trunk
    for s in (0, 1):
        beta, gam = 3 + s, 5 + s
        phi1, phi2 = alpha - Q[:, beta], alpha - Q[:, beta] + Q[:, gam]
        w1d, w2d = alpha_d - QD[:, beta], alpha_d - QD[:, beta] + QD[:, gam]
        # CoM = hip + sum_k c_k w(angle_k), angle_k linear in q with gradient a_k
        chains = (
            (_THIGH[s], ((-tr.com, alpha, alpha_d, {2: 1.0}), (-th.com, phi1, w1d, {2: 1.0, beta: -1.0}))),
            (_SHANK[s], ((-tr.com, alpha, alpha_d, {2: 1.0}), (-th.length, phi1, w1d, {2: 1.0, beta: -1.0}),
                         (-sh.com, phi2, w2d, {2: 1.0, beta: -1.0, gam: 1.0}))),
        )
        for link, terms in chains:
            rows = slice(3 * link, 3 * link + 2)
            D[:, rows, 0:2] = np.eye(2)
            for c, ang, rate, grad in terms:
                for col, a in grad.items():
                    D[:, rows, col] += c * a * _dw(ang)
                gamma[:, rows] -= c * _w(ang) * rate[:, None] ** 2
            for col, a in terms[-1][3].items():
                D[:, 3 * link + 2, col] = a
        ti, si = 3 * _THIGH[s], 3 * _SHANK[s]
        t_hip, t_knee, force = TAU[:, s], TAU[:, 2 + s], GRF[:, 2 * s:2 * s + 2]
        h[:, ti + 1] = -th.mass * g
        h[:, ti + 2] = -(t_hip + t_knee)
        h[:, si:si + 2] = force
        h[:, si + 1] -= sh.mass * g
        lever = -(sh.length - sh.com) * _w(phi2)  # foot - shank CoM
        h[:, si + 2] = t_knee - (lever[:, 0] * force[:, 1] - lever[:, 1] * force[:, 0])
        # constraints: hip (rows 2s, 2s+1), knee (rows 4+2s, 5+2s)
        hip_r, knee_r = 2 * s, 4 + 2 * s
        for r0, dist, dist_arm, dist_phi, prox, prox_arm, prox_phi in (
            (hip_r, ti, th.com, phi1, 0, tr.com, alpha),
            (knee_r, si, sh.com, phi2, ti, th.length - th.com, phi1),
        ):
            rr = slice(r0, r0 + 2)
            C[:, rr, dist:dist + 2] = np.eye(2)
            C[:, rr, dist + 2] = dist_arm * _dw(dist_phi)
            C[:, rr, prox:prox + 2] = -np.eye(2)
            C[:, rr, prox + 2] = prox_arm * _dw(prox_phi)
        for link in (_THIGH[s], _SHANK[s]):
            E[3 * link:3 * link + 2, hip_r:hip_r + 2] = np.eye(2)
        E[si:si + 2, knee_r:knee_r + 2] = np.eye(2)
    return MaximalTerms(MM, D, gamma, h, C, E)


def _as_output(lam: np.ndarray, single: bool) -> np.ndarray:
    out = -lam
    return out[0] if single else out


def reactions_augmented(params: BipedParams, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
                        grf: np.ndarray | None = None) -> np.ndarray:
    """Joint reaction forces from the motion, ``-E^T (h - MM (D q_dd + gamma))``.

    Parameters
    ----------
    params : BipedParams
    q, qd, qdd : (7,) or (N, 7) arrays
        State and generalised accelerations (measured or simulated).
    grf : (4,) or (N, 4) array, optional
        Foot forces ``[F_lx, F_ly, F_rx, F_ry]`` [N].

    Returns
    -------
    (8,) or (N, 8) array
        Forces on the thighs (hip) and shanks (knee), world frame [N]; see
        :data:`REACTION_NAMES`. The joint torques are not needed: ``E`` has no rotational
        rows, so they enter only through ``q_dd``.
    """
    single = np.ndim(q) == 1
    t = maximal_terms(params, q, qd, None, grf)
    n = t.D.shape[0]
    pdd = np.einsum("nij,nj->ni", t.D, _batch(qdd, n, 7)) + t.gamma
    lam = (t.h - t.MM * pdd) @ t.E
    return _as_output(lam, single)


def reactions_classical(params: BipedParams, q: np.ndarray, qd: np.ndarray, tau: np.ndarray,
                        grf: np.ndarray | None = None) -> np.ndarray:
    """Joint reaction forces from the applied loads, ``-(C MM^-1 C^T)^-1 C (MM^-1 h - gamma)``.

    Takes the joint torques ``tau`` (4,)/(N, 4) [N m] instead of the accelerations (the
    accelerations the loads cause are implied). Output as :func:`reactions_augmented`.
    """
    single = np.ndim(q) == 1
    t = maximal_terms(params, q, qd, tau, grf)
    inv = 1.0 / t.MM
    A = np.einsum("nij,j,nkj->nik", t.C, inv, t.C)
    b = np.einsum("nij,nj->ni", t.C, inv * t.h - t.gamma)
    lam = np.linalg.solve(A, b[..., None])[..., 0]
    return _as_output(lam, single)
