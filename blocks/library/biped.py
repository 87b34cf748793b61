r"""The five-link biped as blocks: dynamics (continuous state), kinematics (read-outs) and the segment
angles' sines and cosines that the blocks reading ``q`` share (:class:`SegmentTrig`).

Dynamics (:mod:`models.biped` and its conventions)::

    d/dt [q, qd] = [qd, M(q)^-1 rhs(q, qd, tau, F, mz)]

with ``q = [x0, y0, alpha, beta_l, beta_r, gamma_l, gamma_r]`` (m, m, rad x5), joint torques
``tau = [hip_l, hip_r, knee_l, knee_r]`` N m, foot forces ``F = [F_lx, F_ly, F_rx, F_ry]`` N
and ground moments on the shanks ``mz = [l, r]`` N m (counter-clockwise +; optional, zero
when unconnected).
The biped's segment parameters are the diagram's ``model`` settings.

The laws (:class:`~blocks.core.Kernels`) read the biped's parameter vector
(:meth:`models.params.BipedParams.as_array`, :data:`blocks.library.context.BIPED_LAYOUT`): the dynamics'
kernel calls :func:`models._eom_numba.forward_dynamics_sc_into` with the sines and cosines of its optional
input ``trig`` (:func:`models.segment_trig.trig_of`: computed when unconnected); the kinematics' kernel writes
the points out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from blocks.core import Block, CompileContext, Kernels, ParameterValueError, Params, PortSpec
from blocks.core import ParamSpec as P
from blocks.kernels import kernel, seg
from blocks.library.context import BIPED_LAYOUT, FEET, Q_IN, TRIG_IN, ReadsBiped, biped_of, data_of, dataset_of
from blocks.library.sources import initial_from_reference
from blocks.packing import state_offsets
from models._eom_numba import forward_dynamics_sc_into
from models.biped import GRF_NAMES, Q_NAMES, TAU_NAMES, FiveLinkBiped
from models.jit import scratch
from models.segment_trig import TRIG_NAMES, TRIG_SIZE, segment_trig_into, trig_of

__all__ = ["FiveLinkDynamics", "BipedKinematics", "BIPED_LAYOUT", "SegmentTrig"]

#: the dynamics' continuous state: the coordinates q and their rates qd (7 each, :data:`models.biped.Q_NAMES`)
_STATE = state_offsets((("q", 7), ("qd", 7)), {})
_XQ, _XQD = _STATE["q"], _STATE["qd"]
#: where the kinematics kernel reads the geometry [m], the masses [kg] and the foot radius [m] in the biped vector
_L0, _R0, _L1, _R1, _L2, _R2, _M0, _M1, _M2, _RF = (BIPED_LAYOUT.index(k) for k in (
    "l0", "r0", "l1", "r1", "l2", "r2", "m0", "m1", "m2", "R"))

_STANDING = (0.0, 0.8735, 0.0, 0.0, 0.0, 0.0, 0.0)


@kernel
def _dynamics_output(t, x, z, tau, grf, mz, trig, p, q, qd):
    for i in range(7):
        q[i] = x[_XQ + i]
        qd[i] = x[_XQD + i]


@kernel
def _dynamics_derivative(t, x, z, tau, grf, mz, trig, p, dx):
    for i in range(7):
        dx[_XQ + i] = x[_XQD + i]
    q = x[_XQ:_XQ + 7]
    sc = scratch(10)
    trig_of(q, trig, sc)
    forward_dynamics_sc_into(seg(p, _BP), q, x[_XQD:_XQD + 7], tau, grf, mz, sc, dx[_XQD:_XQD + 7])


@kernel
def _trig_output(t, x, z, q, p, sc):
    segment_trig_into(q, sc)


@kernel
def _kinematics_output(t, x, z, q, trig, p, feet, com, hip, knees, head, contact):
    """The points of :class:`BipedKinematics` from ``q`` and the geometry (the biped vector), into the outputs."""
    bp = seg(p, _KBP)
    x0, y0, a, bl, br, gl, gr = q[0], q[1], q[2], q[3], q[4], q[5], q[6]
    l0, r0, l1, r1, l2, r2, rf = bp[_L0], bp[_R0], bp[_L1], bp[_R1], bp[_L2], bp[_R2], bp[_RF]
    m0, m1, m2 = bp[_M0], bp[_M1], bp[_M2]
    mt = m0 + 2.0 * (m1 + m2)  # as BipedParams.total_mass
    sc = scratch(10)
    trig_of(q, trig, sc)
    sa, ca = sc[0], sc[1]
    hx, hy = x0 - r0 * sa, y0 - r0 * ca
    s1l, c1l, s2l, c2l = sc[2], sc[3], sc[4], sc[5]
    s1r, c1r, s2r, c2r = sc[6], sc[7], sc[8], sc[9]
    kxl, kyl, kxr, kyr = hx - l1 * s1l, hy - l1 * c1l, hx - l1 * s1r, hy - l1 * c1r
    feet[0], feet[1], feet[2], feet[3] = kxl - l2 * s2l, kyl - l2 * c2l, kxr - l2 * s2r, kyr - l2 * c2r
    contact[0] = feet[0] + rf * (s2l - (a - bl + gl))
    contact[1] = feet[1] + rf * (c2l - 1.0)
    contact[2] = feet[2] + rf * (s2r - (a - br + gr))
    contact[3] = feet[3] + rf * (c2r - 1.0)
    knees[0], knees[1], knees[2], knees[3] = kxl, kyl, kxr, kyr
    com[0] = (m0 * x0 + m1 * (2 * hx - r1 * (s1l + s1r)) + m2 * (kxl + kxr - r2 * (s2l + s2r))) / mt
    com[1] = (m0 * y0 + m1 * (2 * hy - r1 * (c1l + c1r)) + m2 * (kyl + kyr - r2 * (c2l + c2r))) / mt
    hip[0], hip[1] = hx, hy
    head[0], head[1] = x0 + (l0 - r0) * sa, y0 + (l0 - r0) * ca


class FiveLinkDynamics(ReadsBiped):
    """Floating-base five-link biped driven by joint torques, foot forces (world frame) and ground moments.

    The ground moment ``mz`` on a shank (counter-clockwise positive) of a centre of pressure ``d`` metres
    ahead of the contact point is ``d F_y`` (:class:`~blocks.library.ankle.AnkleBalance`).

    Continuous state ``[q, qd]`` (14). Initial state: ``init = "reference"`` takes the pose
    and rates from the dataset's reference at the start of the run, with the stance foot
    on the ground at rest (:func:`~blocks.library.sources.initial_from_reference`; the rates
    are the slope of a least-squares cubic over ``rate_window_s`` either side of the start);
    ``init = "params"`` uses ``q0`` and ``qd0``; ``init = "solution"`` the run's solved gait at the start
    (:class:`~blocks.library.solved_gait.SolvedCycle`, the compile resource ``SolvedGait`` reads with
    ``source = run``). ``init_vy = "grf"`` (with ``init = "reference"``) then
    gives the CoM the vertical velocity under which the recorded GRF keeps the mean height over the
    recording's whole gait cycles from the run's start (whatever the run's duration), through the stance
    leg's rates with its foot still at rest (:mod:`models.initial_state`); the reference's own value is
    kept, with a warning, when the recording holds no whole cycle or the stance knee is too straight.
    ``init_vy = "paired"`` does so only when the kinematics come from another recording than the GRF
    (``--grf A --kinematics B``), whose reference velocity belongs to another GRF; a recording's own
    kinematics keep theirs.
    """

    params = {"init": P("reference", tunable=False, choices=("reference", "params", "solution"),
                        description="initial state from the reference at t0, from q0/qd0, or the run's solved "
                                    "gait at t0"),
              "q0": P(_STANDING, tunable=False, description="initial q (init = params) [m, rad]"),
              "qd0": P((0.0,) * 7, tunable=False, description="initial qd (init = params) [m/s, rad/s]"),
              "dataset": P("", tunable=False, description="dataset for init = reference; empty = the run's"),
              "rate_window_s": P(0.05, min=0.0, max=1.0, unit="s", tunable=False,
                                 description="initial rates: least-squares cubic over +/- this span of the "
                                             "reference (0 = the spline's derivative)"),
              "init_vy": P("reference", tunable=False, choices=("reference", "grf", "paired"),
                           description="initial vertical CoM velocity: the reference's; the one under which the "
                                       "recorded GRF keeps the mean height over whole cycles (grf); or grf only "
                                       "when the kinematics come from another recording than the GRF (paired)")}
    inputs = (PortSpec("tau", 4, "N*m", "joint torques", TAU_NAMES),
              PortSpec("grf", 4, "N", "forces on the feet, world frame", GRF_NAMES),
              PortSpec("mz", 2, "N*m", "ground moments on the shanks (ccw +)", ("l", "r"), optional=True),
              TRIG_IN)
    outputs = (PortSpec("q", 7, "m, rad", "generalised coordinates", Q_NAMES),
               PortSpec("qd", 7, "m/s, rad/s", "generalised velocities", Q_NAMES))
    feedthrough = "none"
    n_states = _STATE["size"]
    state_names = tuple(Q_NAMES) + tuple(f"{n}_dot" for n in Q_NAMES)
    law = Kernels(output=_dynamics_output, derivative=_dynamics_derivative)

    def check(self, values: Mapping[str, Any]) -> None:
        for key in ("q0", "qd0"):
            if len(values[key]) != 7:
                raise ParameterValueError(f"block '{self.name}': {key} needs 7 values, got {len(values[key])}")

    packed = ("_bp[]",)

    def derive(self, p: Params, ctx: CompileContext) -> None:
        super().derive(p, ctx)
        p.set("_biped", FiveLinkBiped(biped_of(ctx)))

    def initial_state(self, p: Params, ctx: CompileContext) -> np.ndarray:
        if p.init == "params":
            return np.concatenate([p.q0, p.qd0])
        if p.init == "solution":
            from blocks.library.solved_gait import run_solution

            q, qd = run_solution(ctx).state_at(float(dataset_of(ctx).t[0]) + data_of(ctx).t_offset_s)
            return np.concatenate([q, qd])
        q, qd = initial_from_reference(ctx, self.values, p._biped)
        return np.concatenate([q, qd])


class BipedKinematics(ReadsBiped):
    """Point positions of the biped, world frame (the formulas of :meth:`models.biped.FiveLinkBiped.points`).

    ``contact`` holds the rolling-foot contact coordinates ``xi = x_foot + R (sin th2 - th2)``,
    ``eta = y_foot + R (cos th2 - 1)`` (the feet when the foot radius ``R`` is 0;
    :meth:`models.biped.FiveLinkBiped.contact_coordinates`).
    """

    inputs = (PortSpec("q", 7, "m, rad", "", Q_NAMES), TRIG_IN)
    outputs = (PortSpec("feet", 4, "m", "foot points", FEET),
               PortSpec("com", 2, "m", "whole-body CoM", ("x", "y")), PortSpec("hip", 2, "m", "", ("x", "y")),
               PortSpec("knees", 4, "m", "", FEET), PortSpec("head", 2, "m", "", ("x", "y")),
               PortSpec("contact", 4, "m", "rolling contact coordinates", ("xi_l", "eta_l", "xi_r", "eta_r")))

    packed = ("_bp[]",)
    law = Kernels(output=_kinematics_output)


class SegmentTrig(Block):
    """Sines and cosines of the trunk, thigh and shank angles of ``q``, computed once for the blocks reading them.

    The law is :func:`models.segment_trig.segment_trig_into`; the readers take it on their optional input ``trig``.

    ``sc = [sin a, cos a, sin th1_l, cos th1_l, sin th2_l, cos th2_l, sin th1_r, cos th1_r, sin th2_r,
    cos th2_r]`` with the trunk angle ``a``, thigh ``th1 = a - beta`` and shank ``th2 = th1 + gamma`` [rad].
    Wired from the dynamics' ``q`` to the dynamics' own ``trig``, it is evaluated once per RK4 stage where
    the dynamics, the ground contact, the ankle, the kinematics, the estimator and the footprints each
    computed them again: the libm calls of a ``tracking`` tick 60 -> 20, the step about 4-5 % faster
    (docs/benchmarks.md, "The step at its floor"). Not recorded unless named (a run's log is its results,
    not this intermediate).
    """

    inputs = (Q_IN,)
    outputs = (PortSpec("sc", TRIG_SIZE, "1", "sines and cosines of the segment angles", TRIG_NAMES, record=False),)
    law = Kernels(output=_trig_output)


#: where the kernels above read each packed entry (numba takes them as constants when it compiles)
_BP = FiveLinkDynamics.packed_at("_bp")
_KBP = BipedKinematics.packed_at("_bp")
