r"""The five-link equations of motion written once in CasADi (symbolic), for the posture solver.

Same conventions as :mod:`models.biped` (``q = [x0, y0, alpha, beta_l, beta_r, gamma_l,
gamma_r]``, link angles from the downward vertical ``th1 = alpha - beta``, ``th2 = th1 + gamma``),
derived independently of the numpy/numba code: every link CoM position ``p_i(q)`` and angle
``phi_i(q)`` is written out, and CasADi's algorithmic differentiation gives the rest,

* ``D_i = dp_i/dq`` (2x7), ``M = sum_i m_i D_i^T D_i + J_i a_i a_i^T`` with ``a_i = dphi_i/dq``;
* velocity-product terms ``c = sum_i m_i D_i^T (d(D_i qd)/dq) qd``;
* gravity ``Q_g = -sum_i m_i g D_i^T e_y``;
* a point-foot force ``F`` (world frame, on the foot) adds ``J_foot^T F``; a ground moment
  ``mz`` [N m, counter-clockwise +] on a shank adds ``-mz d(th2)/dq`` (the force acting at the
  centre of pressure ``c`` instead of the foot point ``P`` is the force at ``P`` plus
  ``mz = (c_x - P_x) F_y`` on flat ground).

The inverse dynamics ``gen = M qdd + c - Q_g - Q_foot`` (7,) [N, N, N m x5]: rows 0-2 are the
forces and the moment that an external "residual actuator" on the trunk would have to supply
(zero when the motion and the foot loads agree), rows 3-6 are the joint torques
``[hip_l, hip_r, knee_l, knee_r]`` (the projection of each joint torque falls on its own row).
A test checks it against :meth:`models.biped.FiveLinkBiped.inverse_dynamics` to 1e-9.
"""

from __future__ import annotations

from dataclasses import dataclass

import casadi as ca

from models.params import BipedParams

__all__ = ["SymbolicBiped"]


@dataclass(frozen=True)
class SymbolicBiped:
    """CasADi functions of one biped: ``inverse_dynamics(q, qd, qdd, grf, mz, dr0) -> gen`` and
    ``points(q, dr0) -> [hip, knee_l, knee_r, foot_l, foot_r, com]`` (each 2-vector, m).

    ``dr0`` [m] moves the trunk's centre of mass up the trunk line from ``params.trunk.com`` (the
    RRA-style adjustment of :mod:`models.posture.solver`; 0 = the model as given)."""

    inverse_dynamics: ca.Function
    points: ca.Function

    @classmethod
    def build(cls, params: BipedParams) -> SymbolicBiped:
        if params.foot_radius != 0.0:
            raise ValueError("the posture solver models point feet (foot_radius = 0); the centre of pressure "
                             "gives the foot's ground moment")
        q, qd, qdd = ca.SX.sym("q", 7), ca.SX.sym("qd", 7), ca.SX.sym("qdd", 7)
        grf, mz, dr0 = ca.SX.sym("grf", 4), ca.SX.sym("mz", 2), ca.SX.sym("dr0")
        tr, th, sh = params.trunk, params.thigh, params.shank
        a = q[2]
        up = ca.vertcat(ca.sin(a), ca.cos(a))
        trunk = q[0:2]
        hip = trunk - (tr.com + dr0) * up
        links = [(tr.mass, tr.inertia, trunk, a)]
        knees, feet, th2s = [], [], []
        for side in (0, 1):
            th1 = a - q[3 + side]
            th2 = th1 + q[5 + side]
            d1 = ca.vertcat(ca.sin(th1), ca.cos(th1))
            d2 = ca.vertcat(ca.sin(th2), ca.cos(th2))
            knee = hip - th.length * d1
            foot = knee - sh.length * d2
            links.append((th.mass, th.inertia, hip - th.com * d1, th1))
            links.append((sh.mass, sh.inertia, knee - sh.com * d2, th2))
            knees.append(knee)
            feet.append(foot)
            th2s.append(th2)
        total = sum(m for m, _, _, _ in links)
        com = sum(m * p for m, _, p, _ in links) / total
        inertial = ca.SX.zeros(7)
        gravity = ca.SX.zeros(7)
        for m, inertia, p, phi in links:
            D = ca.jacobian(p, q)
            av = ca.jacobian(phi, q)
            bias = ca.jacobian(D @ qd, q) @ qd
            inertial += m * D.T @ (D @ qdd + bias) + inertia * av.T @ (av @ qdd + ca.jacobian(av @ qd, q) @ qd)
            gravity += -m * params.g * D.T @ ca.DM([0.0, 1.0])
        foot_force = ca.SX.zeros(7)
        for side in (0, 1):
            J = ca.jacobian(feet[side], q)
            foot_force += J.T @ grf[2 * side: 2 * side + 2]
            foot_force += -mz[side] * ca.jacobian(th2s[side], q).T
        gen = inertial - gravity - foot_force
        inv = ca.Function("inverse_dynamics", [q, qd, qdd, grf, mz, dr0], [gen],
                          ["q", "qd", "qdd", "grf", "mz", "dr0"], ["gen"])
        pts = ca.Function("points", [q, dr0], [hip, knees[0], knees[1], feet[0], feet[1], com],
                          ["q", "dr0"], ["hip", "knee_l", "knee_r", "foot_l", "foot_r", "com"])
        return cls(inv, pts)
