r"""Newton-Euler free-body equations of the five-link biped in maximal coordinates.

An independent second formulation of the dynamics in :mod:`models.biped`: no Lagrangian,
no generalised mass matrix, no Jacobians. Each of the five links is a free body with
unknown CoM acceleration ``a_i`` [m s^-2] and counter-clockwise angular acceleration
``eps_i`` [rad s^-2]; the hips and knees transmit unknown reaction forces.

Unknowns (23): ``a_i`` (10), ``eps_i`` (5), hip forces ``F_h`` on each thigh from the
trunk (4), knee forces ``F_k`` on each shank from the thigh (4).

Equations (23), for gravity ``g_vec = (0, -g)`` and the 2-D cross product
``r x F = r_x F_y - r_y F_x``:

* trunk:  ``m0 a0 = m0 g_vec - F_hl - F_hr``;
  ``J0 eps0 = sum_sides (h - p0) x (-F_h) - tau_hip``;
* thigh:  ``m1 a1 = m1 g_vec + F_h - F_k``;
  ``J1 eps1 = (h - p1) x F_h - (k - p1) x F_k + tau_hip + tau_knee``;
* shank:  ``m2 a2 = m2 g_vec + F_k + F_foot``;
  ``J2 eps2 = (k - p2) x F_k + (f - p2) x F_foot + mz - tau_knee`` (``mz`` a ground
  moment on the shank, N m, ccw +; ``f`` the point where ``F_foot`` acts);
* joint acceleration constraints at each hip and knee (the joint point has one
  acceleration whichever link it is computed from):
  ``a_A + eps_A x r_A - w_A^2 r_A = a_B + eps_B x r_B - w_B^2 r_B``.

The joint torques follow the models.biped convention: the hip torque is counter-clockwise on the
thigh (its reaction on the trunk), the knee torque clockwise on the shank (reaction on the
thigh). Accelerations map back to q as ``alpha_dd = -eps0``, ``beta_dd = alpha_dd + eps1``,
``gamma_dd = eps1 - eps2``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from models.params import BipedParams


class NewtonEulerSolution(NamedTuple):
    qdd: np.ndarray  # (7,) generalised accelerations
    hip_force: np.ndarray  # (2, 2): [left, right] force on the thigh from the trunk, N
    knee_force: np.ndarray  # (2, 2): [left, right] force on the shank from the thigh, N


def _rot_ccw(r: np.ndarray) -> np.ndarray:
    """``e_z x r`` for a 2-D vector: (-r_y, r_x)."""
    return np.array([-r[1], r[0]])


def solve(params: BipedParams, q: np.ndarray, qd: np.ndarray, tau: np.ndarray, grf: np.ndarray,
          mz: np.ndarray | None = None) -> NewtonEulerSolution:
    """Solve the 23 free-body equations for one state (see module doc); ``mz`` (2,) ground
    moments on the shanks [N m, ccw +] enter each shank's moment equation."""
    q = np.asarray(q, dtype=float)
    qd = np.asarray(qd, dtype=float)
    tau = np.asarray(tau, dtype=float)
    grf = np.asarray(grf, dtype=float)
    mz = np.zeros(2) if mz is None else np.asarray(mz, dtype=float)
    r0, m0, J0 = params.trunk.com, params.trunk.mass, params.trunk.inertia
    l1, r1, m1, J1 = params.thigh.length, params.thigh.com, params.thigh.mass, params.thigh.inertia
    l2, r2, m2, J2 = params.shank.length, params.shank.com, params.shank.mass, params.shank.inertia
    gvec = np.array([0.0, -params.g])

    alpha = q[2]
    p0 = q[:2]
    up = np.array([np.sin(alpha), np.cos(alpha)])
    hip = p0 - r0 * up
    w0 = -qd[2]

    n = 23
    K = np.zeros((n, n))
    rhs = np.zeros(n)
    # a_i at 2*i, eps_i at 10 + i (i: 0 trunk, 1 thigh_l, 2 shank_l, 3 thigh_r, 4 shank_r)
    # F_h side s at 15 + 2 s, F_k side s at 19 + 2 s

    def a(i: int) -> slice:
        return slice(2 * i, 2 * i + 2)

    def eps(i: int) -> int:
        return 10 + i

    def fh(s: int) -> slice:
        return slice(15 + 2 * s, 17 + 2 * s)

    def fk(s: int) -> slice:
        return slice(19 + 2 * s, 21 + 2 * s)

    row = 0

    def cross_row(r: np.ndarray) -> np.ndarray:
        # r x F = r_x F_y - r_y F_x as a row acting on F = (F_x, F_y)
        return np.array([-r[1], r[0]])

    # trunk linear and angular
    K[row:row + 2, a(0)] = m0 * np.eye(2)
    for s in (0, 1):
        K[row:row + 2, fh(s)] = np.eye(2)
    rhs[row:row + 2] = m0 * gvec
    row += 2
    K[row, eps(0)] = J0
    for s in (0, 1):
        K[row, fh(s)] = cross_row(hip - p0)  # moves (h-p0) x F_h to the left-hand side
    rhs[row] = -(tau[0] + tau[1])
    row += 1

    for s in (0, 1):
        ithigh, ishank = 1 + 2 * s, 2 + 2 * s
        th1 = alpha - q[3 + s]
        th2 = th1 + q[5 + s]
        d1 = np.array([np.sin(th1), np.cos(th1)])
        d2 = np.array([np.sin(th2), np.cos(th2)])
        w1 = -(qd[2] - qd[3 + s])
        w2 = w1 - qd[5 + s]
        p1 = hip - r1 * d1
        knee = hip - l1 * d1
        p2 = knee - r2 * d2
        foot = knee - l2 * d2
        F_foot = grf[2 * s:2 * s + 2]
        t_hip, t_knee = tau[s], tau[2 + s]

        # thigh
        K[row:row + 2, a(ithigh)] = m1 * np.eye(2)
        K[row:row + 2, fh(s)] = -np.eye(2)
        K[row:row + 2, fk(s)] = np.eye(2)
        rhs[row:row + 2] = m1 * gvec
        row += 2
        K[row, eps(ithigh)] = J1
        K[row, fh(s)] = -cross_row(hip - p1)
        K[row, fk(s)] = cross_row(knee - p1)
        rhs[row] = t_hip + t_knee
        row += 1
        # shank
        K[row:row + 2, a(ishank)] = m2 * np.eye(2)
        K[row:row + 2, fk(s)] = -np.eye(2)
        rhs[row:row + 2] = m2 * gvec + F_foot
        row += 2
        K[row, eps(ishank)] = J2
        K[row, fk(s)] = -cross_row(knee - p2)
        contact = foot + params.foot_radius * np.array([d2[0], d2[1] - 1.0])  # rolling foot: where F acts
        rhs[row] = cross_row(contact - p2) @ F_foot + mz[s] - t_knee
        row += 1
        # joint constraints: hip seen from trunk and thigh, knee seen from thigh and shank
        for (i_a, p_a, w_a), (i_b, p_b, w_b), point in (
            ((0, p0, w0), (ithigh, p1, w1), hip),
            ((ithigh, p1, w1), (ishank, p2, w2), knee),
        ):
            ra, rb = point - p_a, point - p_b
            K[row:row + 2, a(i_a)] = np.eye(2)
            K[row:row + 2, eps(i_a)] = _rot_ccw(ra)
            K[row:row + 2, a(i_b)] = -np.eye(2)
            K[row:row + 2, eps(i_b)] = -_rot_ccw(rb)
            rhs[row:row + 2] = w_a**2 * ra - w_b**2 * rb
            row += 2
    assert row == n

    x = np.linalg.solve(K, rhs)
    qdd = np.empty(7)
    qdd[:2] = x[a(0)]
    qdd[2] = -x[eps(0)]
    for s in (0, 1):
        e1, e2 = x[eps(1 + 2 * s)], x[eps(2 + 2 * s)]
        qdd[3 + s] = qdd[2] + e1
        qdd[5 + s] = e1 - e2
    hip_f = np.array([x[fh(0)], x[fh(1)]])
    knee_f = np.array([x[fk(0)], x[fk(1)]])
    return NewtonEulerSolution(qdd, hip_f, knee_f)
