r"""Support-phase net-torque estimator: the paper's method (its Appendix 2).

Per leg, with foot force ``F = (F_x, F_y)`` [N], thigh angle ``th1 = alpha - beta`` and shank
angle ``th2 = th1 + gamma`` (from the downward vertical, clockwise +), ``s_i = sin th_i``,
``c_i = cos th_i``, thigh/shank lengths ``l1, l2`` [m], CoM distances ``r1, r2`` [m],
masses ``m1, m2`` [kg]:

**mode "jacobian"** (default; physically consistent). The quasi-static balance of the leg
below each joint, by virtual work (it ignores the leg's own inertia)::

    tau_stance = -(J_foot^T F)[beta, gamma] - Q_gravity,leg[beta, gamma]

with, in closed form (checked against :meth:`FiveLinkBiped.foot_jacobians` and
:meth:`FiveLinkBiped.generalized_forces` in the tests),

    (J^T F)_beta  =  F_x (l1 c1 + l2 c2) - F_y (l1 s1 + l2 s2)   = T_net,hip   (N m, ccw +)
    (J^T F)_gamma = -l2 (F_x c2 - F_y s2)                        = -T_net,knee
    Q_g,beta  =  g (m1 r1 s1 + m2 (l1 s1 + r2 s2))
    Q_g,gamma = -g m2 r2 s2

where ``T_net,J = (P - J) x F`` is the moment of the GRF about joint J. With a rolling foot
of radius ``R`` (model ``foot_radius_m``) the force acts at the contact point, ``R (s2, c2 - 1)``
from the foot point, and both moments gain ``M_roll = R (s2 F_y - (c2 - 1) F_x)``. So
``tau_hip = -T_net,hip - Q_g,beta`` (a positive hip torque turns the thigh counter-clockwise)
and ``tau_knee = T_net,knee + g m2 r2 s2`` (a positive knee torque turns the shank clockwise).

**mode "paper"** (literal reproduction, dimensionally inconsistent). With the GRF direction
``phi = atan2(F_y, F_x)``, ``th4 = pi/2 - phi - th1`` and ``th5 = th4 - gamma`` (the paper's
``(alpha+beta)`` is our ``th1`` and its knee angle is ``-gamma``)::

    r2 = l2 sin th5,   r1 = r2 + l1 sin th4,   T_net = |F| r        (the same T_net as above)
    M_hip  = T_net,hip  - m1 g sin th1
    M_knee = T_net,knee - (m2 g sin th1 + mu_s |F|)
    tau_hip = -M_hip,   tau_knee = M_knee

How they differ: the lever-arm moments are identical; the paper's "gravity" terms have no
lever arm (newtons, not N m), use the thigh angle for the shank and ignore the shank's
weight at the hip, and its friction term ``mu_s |F|`` is a force; in our sign convention its
hip gravity term also has the opposite sign. For a 55 kg model the two differ by up to tens
of N m in the hip.

The block is sampled like the controllers (``ts``, default every solver tick) and its
torques hold between samples (zero-order hold), as on a digital controller.

The law: the output kernel (both engines run it) calls the leg functions below on the packed
vector the class declares (``mode`` as 0 jacobian / 1 paper; ``gain`` and ``mu_s`` tunable; the biped's
parameter vector, :data:`blocks.library.context.BIPED_LAYOUT`).
"""

from __future__ import annotations

import math

from blocks.core import Kernels, PortSpec
from blocks.core import ParamSpec as P
from blocks.kernels import kernel, seg
from blocks.library.context import BIPED_LAYOUT, Q_IN, TRIG_IN, ReadsBiped
from models.biped import TAU_NAMES
from models.jit import register_jitable, scratch
from models.segment_trig import trig_of

__all__ = ["NetTorqueEstimator", "leg_torque_jacobian", "leg_torque_paper", "rolling_moment"]

#: where the kernel reads the leg geometry [m], masses [kg], g [m/s^2] and foot radius [m] in the biped vector
_L1, _L2, _R1, _R2, _M1, _M2, _G, _RF = (BIPED_LAYOUT.index(k) for k in ("l1", "l2", "r1", "r2", "m1", "m2", "g", "R"))


@register_jitable
def rolling_moment(th2: float, fx: float, fy: float, rf: float) -> float:
    """``M_roll = R (sin th2 F_y - (cos th2 - 1) F_x)`` [N m]: the moment of a foot force applied at
    the rolling contact point about the foot point (0 for a point foot, ``R = rf = 0``)."""
    return _rolling(math.sin(th2), math.cos(th2), fx, fy, rf) if rf > 0.0 else 0.0


@register_jitable
def _rolling(s2: float, c2: float, fx: float, fy: float, rf: float) -> float:
    """:func:`rolling_moment` from ``s2 = sin th2``, ``c2 = cos th2``."""
    return rf * (s2 * fy - (c2 - 1.0) * fx) if rf > 0.0 else 0.0


@register_jitable
def leg_torque_jacobian(th1: float, gamma: float, fx: float, fy: float, l1: float, l2: float, r1: float,
                        r2: float, m1: float, m2: float, g: float, rf: float = 0.0
                        ) -> tuple[float, float, float, float]:
    """``(tau_hip, tau_knee, T_net_hip, T_net_knee)`` of the Jacobian-transpose form (module doc)."""
    th2 = th1 + gamma
    return leg_torque_jacobian_sc(math.sin(th1), math.cos(th1), math.sin(th2), math.cos(th2), fx, fy, l1, l2, r1,
                                  r2, m1, m2, g, rf)


@register_jitable
def leg_torque_jacobian_sc(s1: float, c1: float, s2: float, c2: float, fx: float, fy: float, l1: float, l2: float,
                           r1: float, r2: float, m1: float, m2: float, g: float, rf: float
                           ) -> tuple[float, float, float, float]:
    """:func:`leg_torque_jacobian` from the sines and cosines of the thigh and shank angles (``s1 = sin th1``,
    ..., :mod:`models.segment_trig`)."""
    m_roll = _rolling(s2, c2, fx, fy, rf)
    t_hip = fx * (l1 * c1 + l2 * c2) - fy * (l1 * s1 + l2 * s2) + m_roll
    t_knee = l2 * (fx * c2 - fy * s2) + m_roll
    qg_b = g * (m1 * r1 * s1 + m2 * (l1 * s1 + r2 * s2))
    qg_g = -g * m2 * r2 * s2
    return -t_hip - qg_b, t_knee - qg_g, t_hip, t_knee


@register_jitable
def leg_torque_paper(th1: float, gamma: float, fx: float, fy: float, l1: float, l2: float, m1: float,
                     m2: float, g: float, mu_s: float, rf: float = 0.0) -> tuple[float, float, float, float]:
    """``(tau_hip, tau_knee, T_net_hip, T_net_knee)`` of the paper's literal lever-arm form (module doc)."""
    mag = math.hypot(fx, fy)
    phi = math.atan2(fy, fx)
    th4 = 0.5 * math.pi - phi - th1
    th5 = th4 - gamma
    r2 = l2 * math.sin(th5)
    r1 = r2 + l1 * math.sin(th4)
    m_roll = rolling_moment(th1 + gamma, fx, fy, rf)
    t_hip, t_knee = mag * r1 + m_roll, mag * r2 + m_roll
    m_hip = t_hip - m1 * g * math.sin(th1)
    m_knee = t_knee - (m2 * g * math.sin(th1) + mu_s * mag)
    return -m_hip, m_knee, t_hip, t_knee


@kernel
def _estimator_output(t, x, z, q, F, trig, p, tau, tn):
    a, bl, br, gl, gr = q[2], q[3], q[4], q[5], q[6]
    bp = seg(p, _BP)
    l1, l2, r1, r2, m1, m2, g, rf = bp[_L1], bp[_L2], bp[_R1], bp[_R2], bp[_M1], bp[_M2], bp[_G], bp[_RF]
    if p[_MODE] > 0.5:
        hl, kl, t0, t2 = leg_torque_paper(a - bl, gl, F[0], F[1], l1, l2, m1, m2, g, p[_MU_S], rf)
        hr, kr, t1, t3 = leg_torque_paper(a - br, gr, F[2], F[3], l1, l2, m1, m2, g, p[_MU_S], rf)
    else:
        sc = scratch(10)
        trig_of(q, trig, sc)
        hl, kl, t0, t2 = leg_torque_jacobian_sc(sc[2], sc[3], sc[4], sc[5], F[0], F[1], l1, l2, r1, r2, m1, m2, g, rf)
        hr, kr, t1, t3 = leg_torque_jacobian_sc(sc[6], sc[7], sc[8], sc[9], F[2], F[3], l1, l2, r1, r2, m1, m2, g, rf)
    k = p[_GAIN]
    tn[0], tn[1], tn[2], tn[3] = t0, t1, t2, t3
    tau[0], tau[1], tau[2], tau[3] = k * hl, k * hr, k * kl, k * kr


class NetTorqueEstimator(ReadsBiped):
    """Stance hip and knee torques from the GRF geometry (equations in the module docstring)."""

    params = {"mode": P("jacobian", tunable=False, choices=("jacobian", "paper"),
                        description="jacobian: -J^T F - leg gravity; paper: literal lever-arm formula"),
              "gain": P(1.0, min=0.0, max=2.0, description="multiplier on the estimated torques (0 = off)"),
              "mu_s": P(0.0, min=0.0, max=2.0, description="paper mode: static friction coefficient in M_knee")}
    inputs = (Q_IN, PortSpec("F", 4, "N", "foot forces"), TRIG_IN)
    outputs = (PortSpec("tau", 4, "N*m", "estimated stance torques, times gain", TAU_NAMES),
               PortSpec("tnet", 4, "N*m", "GRF moment about hip and knee (ccw +)", TAU_NAMES))
    discrete = True

    packed = ("mode", "gain", "mu_s", "_bp[]")
    law = Kernels(output=_estimator_output)


#: where the kernels above read each packed entry (numba takes them as constants when it compiles)
_MODE, _GAIN, _MU_S, _BP = NetTorqueEstimator.packed_at(*NetTorqueEstimator.packed)
