r"""``GrfMatch``: stance torques under which the recorded GRF is the force the stance feet need.

Why: with a stance foot held by the floor, the floor supplies whatever force the leg's joint
torques and the body's motion ask of it. The GRF estimator's torques (``J^T F``) are the
quasi-static answer for a massless leg; any other stance torque (a knee spring, the trunk
balance) and the legs' own inertia make the floor's force differ from the recording, and that
difference (the contact correction) sets the body's speed, not the recorded GRF. This block
adds to the stance joints the torque that makes the recorded GRF exactly the force the stance
feet need, so the floor adds nothing beyond the recording and the whole-body momentum follows
the recorded GRF (Newton: ``m a_com = F_rec + m g``).

Law. Write ``a_s(tau)`` [m/s^2] for the acceleration of stance foot ``s`` (its rolling contact
point) when the body is driven by the joint torques ``tau`` [N m], the recorded foot forces
``F`` [N] and the ground moments ``m_z`` [N m] and by nothing else::

    a_s(tau) = J_s(q) qdd(q, qd, tau, F, m_z) + Jdot_s(q, qd) qd        (qdd: the forward dynamics)

It is affine in ``tau``. With ``tau = tau_in + d`` (``d`` on the stance joints only: hip and knee
of each stance leg, 2 or 4 unknowns for 2 or 4 foot-acceleration rows)::

    A d = a_des - a(tau_in),   A[:, j] = J (qdd(tau_in + e_j) - qdd(tau_in)) = J M^-1 u_j

(``u_j``: 1 on joint ``j``'s own coordinate; the mass matrix ``M`` is factored once per call and
serves ``qdd(tau_in)`` and every column).

solved in the least-squares sense with a Tikhonov term ``lambda = reg trace(A^T A) / n`` (near a
straight knee ``A`` loses rank): ``d = (A^T A + lambda I)^-1 A^T (a_des - a(tau_in))``. The wanted
foot acceleration holds the foot where it is held (``feet_ref``, from ``Footprints``) through the
joint torques, not through a floor force::

    a_des = -v_foot / tau_v - (p_foot - p_held) / tau_p^2        (a term is off when its tau is 0)

Internal torques cannot change the whole-body momentum, so stopping a landing foot this way
passes its momentum to the body, as a floor that pushes only the recorded force would.
``Jdot qd`` is a central difference of ``J(q) qd`` along ``qd`` (step ``1e-6``).

Limit. The correction is scaled down whole when its largest joint torque passes ``u_max`` [N m]::

    d <- d min(1, u_max / max_j |gain d_j|)

Scaling keeps the direction of the least-squares solution (the mix of hip and knee torques the
wanted foot acceleration asks for). Measured under ``emergent`` without a limit: at most 47 N m on
the bundled sets over 10 s, but 2.5-4.0 kN m spikes at toe-offs and landings on the real trials
(peak joint torques 41-73 N m/kg), and a tumbling body's torques grow without bound. With the
default 600 N m the three real trials still walk their whole length (peak joint torques
13.6-16.1 N m/kg; with 400 N m walk2 falls at 1.60 s of 1.67 s): docs/presets.md.

Output ``tau = tau_in + gain d`` (``gain`` 0 passes ``tau_in`` through: the block is off) and
``dtau = gain d`` [N m], reported in the force account as ``grf_match``. The floor
(``GroundContact``) still holds the foot: what the torques do not achieve (the regularised part,
the change within a solver step of torques held from its start, what the limit cuts) is its correction, and stays
in the residual.

Sampled like the controllers (output computed once per tick and held). The law: the kernel
:func:`match_torques` (both engines run it) on the packed vector the class declares (the tunables,
then the biped's 14 parameters).
"""

from __future__ import annotations

from blocks.core import Kernels, PortSpec
from blocks.core import ParamSpec as P
from blocks.kernels import kernel, seg
from blocks.library.context import FEET, Q_IN, QD_IN, STANCE_IN, ReadsBiped
from models._eom_numba import _assemble, _back, _factor, foot_state_side
from models.biped import GRF_NAMES, TAU_NAMES
from models.jit import scratch, scratch_matrix

__all__ = ["GrfMatch", "match_torques"]

_H = 1e-6  # central-difference step of Jdot qd [s]


# The solver's pieces as kernels of their own, called by match_torques and not inlined into it: the block
# runs once a tick, and only where its gain is on (the setpoint preset), while its inlined copies of them
# made it the largest compile of every first run (3.6 s, in every preset: the gain is tunable live).
@kernel
def _assembled(p, q, qd, tau, grf, mz, M, b):
    """:func:`models._eom_numba._assemble`: the mass matrix ``M`` and right-hand side ``b``."""
    _assemble(p, q, qd, tau, grf, mz, M, b)


@kernel
def _factored(M, n):
    """:func:`models._eom_numba._factor`: the Cholesky factor of ``M[:n, :n]``, in place."""
    _factor(M, n)


@kernel
def _solved(M, b, x, n):
    """:func:`models._eom_numba._back`: ``x = M^-1 b`` from the factor."""
    _back(M, b, x, n)


@kernel
def _foot(p, q, qd, s):
    """:func:`models._eom_numba.foot_state_side`: ``(xi, eta, vx, vy)`` of leg ``s``."""
    return foot_state_side(p, q, qd, s)


@kernel
def match_torques(p, q, qd, tau_in, F, mz, stance, held, dtau):
    """``dtau`` (4) [N m]: the module docstring's ``gain d`` for the packed vector ``p`` of a :class:`GrfMatch`."""
    gain, reg, tau_v, tau_p, u_max = p[_GAIN], p[_REG], p[_TAU_V], p[_TAU_P], p[_U_MAX]
    dtau[:] = 0.0
    first = 0  # the stance legs are first, first + 1, ... (legs [0, 1] or the one leg in stance)
    n_legs = 0
    for s in range(2):
        if stance[s] > 0.5:
            if n_legs == 0:
                first = s
            n_legs += 1
    if gain <= 0.0 or n_legs == 0:
        return
    bp = seg(p, _BP)
    m = 2 * n_legs  # unknowns: hip (2 i) and knee (2 i + 1) of stance leg first + i, joint 2 (c % 2) + first + c // 2
    M, rhs0, A, N = scratch_matrix(7, 7), scratch(7), scratch_matrix(4, 4), scratch_matrix(4, 4)
    buf = scratch(47)  # qdd0, qdd, e, qp, qm (7 each); rhs, r, d (4 each)
    qdd0, qdd, e, qp, qm, rhs = buf[0:7], buf[7:14], buf[14:21], buf[21:28], buf[28:35], buf[35:39]
    r, d = buf[39:43], buf[43:47]
    _assembled(bp, q, qd, tau_in, F, mz, M, rhs0)
    _factored(M, M.shape[0])  # M is the same for every torque: factored once (n not a literal: one compile)
    _solved(M, rhs0, qdd0, M.shape[0])
    for k in range(7):
        qp[k] = q[k] + _H * qd[k]
        qm[k] = q[k] - _H * qd[k]
    for i in range(n_legs):
        s = first + i
        x, y, vx, vy = _foot(bp, q, qd, s)
        _, _, jx, jy = _foot(bp, q, qdd0, s)  # J qdd (the velocity map is linear in qd)
        _, _, px, py = _foot(bp, qp, qd, s)
        _, _, mx, my = _foot(bp, qm, qd, s)
        ax = jx + (px - mx) / (2.0 * _H)
        ay = jy + (py - my) / (2.0 * _H)
        dx = -vx / tau_v if tau_v > 0.0 else 0.0
        dy = -vy / tau_v if tau_v > 0.0 else 0.0
        if tau_p > 0.0:
            dx -= (x - held[2 * s]) / (tau_p * tau_p)
            dy -= (y - held[2 * s + 1]) / (tau_p * tau_p)
        rhs[2 * i] = dx - ax
        rhs[2 * i + 1] = dy - ay
    for c in range(m):
        e[:] = 0.0
        e[3 + 2 * (c % 2) + first + c // 2] = 1.0  # a unit torque at joint j: 1 on its own coordinate 3 + j
        _solved(M, e, qdd, M.shape[0])  # qdd(tau_in + e_j) - qdd(tau_in) = M^-1 e_j
        for i in range(n_legs):
            _, _, jx, jy = _foot(bp, q, qdd, first + i)
            A[2 * i, c] = jx
            A[2 * i + 1, c] = jy
    trace = 0.0
    for a in range(m):
        for b in range(m):
            acc = 0.0
            for i in range(m):
                acc += A[i, a] * A[i, b]
            N[a, b] = acc
        trace += N[a, a]
        acc = 0.0
        for i in range(m):
            acc += A[i, a] * rhs[i]
        r[a] = acc
    lam = reg * trace / m
    for a in range(m):
        N[a, a] += lam
    if trace <= 0.0:
        return
    _factored(N, m)  # the top-left m x m block
    _solved(N, r, d, m)
    peak = 0.0
    for c in range(m):
        peak = max(peak, abs(gain * d[c]))
    scale = u_max / peak if peak > u_max else 1.0
    for c in range(m):
        dtau[2 * (c % 2) + first + c // 2] = scale * gain * d[c]


@kernel
def grf_match_output(t, x, z, tau_in, q, qd, F, mz, stance, held, p, tau, dtau):
    """GrfMatch: ``tau = tau_in + dtau`` (module docstring)."""
    match_torques(p, q, qd, tau_in, F, mz, stance, held, dtau)
    for k in range(4):
        tau[k] = tau_in[k] + dtau[k]


class GrfMatch(ReadsBiped):
    """Adds the stance torques under which the recorded GRF is what the stance feet need (module docstring)."""

    params = {"gain": P(0.0, min=0.0, max=1.0, description="1 = on, 0 = off (tau_in passes through)"),
              "reg": P(1e-3, min=0.0, max=1.0, description="Tikhonov weight, relative to trace(A^T A) / n"),
              "tau_v": P(0.05, min=0.0, max=10.0, unit="s",
                         description="stance-foot velocity time constant of the wanted foot acceleration (0 = off)"),
              "tau_p": P(0.1, min=0.0, max=10.0, unit="s",
                         description="stance-foot position time constant of the wanted foot acceleration (0 = off)"),
              "u_max": P(600.0, min=0.0, max=1e5, unit="N*m",
                         description="largest added torque on a stance joint; a larger solution is scaled down whole")}
    inputs = (PortSpec("tau_in", 4, "N*m", "joint torques of every other source", TAU_NAMES), Q_IN, QD_IN,
              PortSpec("F", 4, "N", "recorded foot forces", GRF_NAMES),
              PortSpec("mz", 2, "N*m", "ground moments on the shanks", ("l", "r")),
              STANCE_IN,
              PortSpec("feet_ref", 4, "m", "where each stance foot is held", FEET))
    outputs = (PortSpec("tau", 4, "N*m", "joint torques to apply", TAU_NAMES),
               PortSpec("dtau", 4, "N*m", "torque added to the stance joints", TAU_NAMES))
    discrete = True

    packed = ("gain", "reg", "tau_v", "tau_p", "u_max", "_bp[]")
    law = Kernels(output=grf_match_output)


#: where the kernels above read each packed entry (numba takes them as constants when it compiles)
_GAIN, _REG, _TAU_V, _TAU_P, _U_MAX, _BP = GrfMatch.packed_at("gain", "reg", "tau_v", "tau_p", "u_max", "_bp")
