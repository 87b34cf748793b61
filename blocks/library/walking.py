r"""What a real biped needs beyond the paper's scheme: the ``default`` preset's additions.

The paper applies recorded GRF to a free floating-base body. That system is open-loop
unstable: the trunk is an inverted pendulum no joint acts on directly, the stance foot is
not pinned, and any mismatch between the data and the model lets the body drift (joint
torques cannot change the whole-body momentum; only foot forces can). Each block here
answers one of these, and each can be switched off to measure what it does.

``GroundContact`` -- the ground under the stance foot
    The applied foot force is the recorded GRF plus a spring-damper that holds the stance
    foot at the human's footprint (x) and on the ground (y = ``ground_y``)::

        F_applied = F_rec + clip(-K (p_foot - p_ref) - C v_foot, -F_max, F_max)   (stance)
        F_applied = F_rec                                                       (swing)

    ``p_ref = (x_ref, ground_y)`` [m] with ``x_ref`` from the input ``feet_ref``: the
    reference foot position (``tracking``) or where the foot landed (``emergent``; both from
    :class:`~blocks.library.floor.Footprints`), ``K`` [N/m], ``C`` [N s/m]. With ``mu > 0``
    the horizontal force is regularised Coulomb friction: the total ``|F_x|`` of a foot
    (recorded plus correction) is held within ``mu F_y`` and the foot slides beyond it. With
    ``no_pull`` the vertical correction is cut at ``-F_rec,y`` of that foot, so the floor never
    pulls: the foot's total vertical force stays >= 0 (a lifted foot under a small recorded force
    is let go instead of yanked down). The footprint anchor
    keeps the model in step with the recording: an anchor where the model's own foot landed
    brakes it a little every step until it meets the recorded events too early and falls.
    Physically the correction is the ground's reaction to the difference between the
    recorded GRF and what the model needs; its size (output ``corr``; ``contact_corr_bw_rms``
    in ``summary.json``) measures how consistent data and model are. Measured on the
    bundled sets: a soft contact (K = 2e4 N/m) lets the foot slide and the walker fall
    within 3 s; K = 1e5 N/m with C = 2e3 N s/m holds it within about 6 mm. C = 1e3 lets a
    step-frequency oscillation grow on the sneakers set; C = 3e3 with K = 2e5 puts RK4 at
    dt = 1 ms at its stability limit on the shank mode (about 67 Hz). It is a feedthrough
    block, evaluated inside the RK4 stages.

``ReferenceMotion`` -- what the reference motion needs, and where its feet are
    The inverse dynamics of the reference motion under the recorded (mass-scaled) GRF
    (:func:`models.reference.reference_state` and :meth:`FiveLinkBiped.inverse_dynamics`),
    computed once when the diagram is compiled and played back: ``tau_ff(t)`` [N m], used
    for the swing legs (the swing PID alone lags a fast human swing by several degrees), and
    the reference foot positions (contact coordinates), where ``GroundContact`` anchors the
    stance foot.

``TrunkBalance`` -- trunk attitude through the stance hip(s)
    A PD on the trunk angle, applied as hip torque of the legs in stance (split equally)::

        tau_hip,stance = (-K_a (alpha - alpha_ref) - D_a (alpha_dot - alpha_dot_ref)) / n_stance

    ``target = "reference"`` (``tracking``): ``alpha_ref`` is the recording's trunk curve.
    ``target = "setpoint"`` (``emergent``): ``alpha_ref = alpha_set`` (``alpha_set_deg``), one
    documented value for every condition, and ``alpha_dot_ref = 0``; the trunk's excursions
    about it are then the result of the GRF, not a copy of the recording.

    A positive hip torque turns the thigh counter-clockwise and the trunk clockwise (forward),
    so a trunk leaning too far forward gets a negative (extending) hip torque. N m.

    ``route = "hip"`` (default) applies only the hip torque: with the stance foot held, its
    reaction goes down the leg into the floor as a contact force. ``route = "ground"`` passes
    it down the stance leg to the floor as a moment instead (an ankle strategy)::

        tau_knee,s = -tau_hip,s      m_z,s = -tau_hip,s      (output ``mz``, N m, ccw +)

    Together the three load only the trunk-angle row of the equations of motion (a pure couple
    ``tau_hip`` on the trunk, no load on the leg joints; checked against the biped's generalised
    forces in the tests), so a massless stance leg carries it without any floor force; the
    ground moment is a CoP shift ``m_z / F_y`` beyond the recording, reported in
    ``actuation.ground_moment`` and in the residual moment.

``AnkleBalance`` (:mod:`blocks.library.ankle`) -- the centre of pressure under the stance foot
    Joint torques cannot change the angular momentum about the stance contact; a CoP shift
    along the foot can. A PD on the CoM over the stance foot against the reference moves it.

``TrunkBalance`` and ``ReferenceMotion`` are sampled blocks like the PIDs: their outputs are
computed once per sample (``ts``, default every solver tick) and held through the RK4 stages,
so only the physics (GRF source, contact, dynamics) is re-evaluated inside a step.
"""

from __future__ import annotations

import math

import numpy as np

from blocks.core import Block, CompileContext, Kernels, Params, PortSpec
from blocks.core import ParamSpec as P
from blocks.kernels import helper, kernel, seg
from blocks.library import sources_kernels as sk
from blocks.library.context import FEET, Q_IN, QD_IN, STANCE_IN, TRIG_IN, ReadsBiped, biped_of, data_of, dataset_of
from blocks.library.sources_kernels import table_row, table_value
from models._eom_numba import foot_state_of
from models.biped import GRF_NAMES, TAU_NAMES, FiveLinkBiped
from models.dataset import ANGLE_NAMES
from models.jit import scratch
from models.reference import reference_state
from models.segment_trig import trig_of

__all__ = ["FeedbackEnable", "GroundContact", "ReferenceMotion", "TrunkBalance"]


@helper
def _clip(v, lim):
    return lim if v > lim else -lim if v < -lim else v


@kernel
def _contact_output(t, x, z, q, qd, stance, f_rec, ref, trig, p, f_out, corr):
    """GroundContact: recorded GRF plus the stance-foot spring-damper (``walking`` docstring)."""
    k_x, c_x, k_y, c_y, ground_y, f_max = p[_K_X], p[_C_X], p[_K_Y], p[_C_Y], p[_GROUND_Y], p[_F_MAX]
    unilateral, mu, gain = p[_UNILATERAL] != 0.0, p[_MU], p[_GAIN]
    reference_height, no_pull = p[_HEIGHT] != 0.0, p[_NO_PULL] != 0.0
    corr[:] = 0.0
    if gain > 0.0 and (stance[0] > 0.5 or stance[1] > 0.5):
        bp = seg(p, _BP)
        sc = scratch(10)
        trig_of(q, trig, sc)
        for s in range(2):
            if not stance[s] > 0.5:
                continue
            fx, fy, vx, vy = foot_state_of(bp, q, qd, sc, s)
            gy = ref[2 * s + 1] if reference_height else ground_y
            cy = gain * _clip(-k_y * (fy - gy) - c_y * vy, f_max)
            if unilateral:
                cy = max(cy, 0.0) if fy < gy else 0.0
            if no_pull:
                cy = max(cy, -f_rec[2 * s + 1])
            corr[2 * s + 1] = cy
            cx = gain * _clip(-k_x * (fx - ref[2 * s]) - c_x * vx, f_max)
            if mu > 0.0:  # regularised Coulomb friction: the stick spring saturates at mu N
                fr = f_rec[2 * s]
                lim = mu * max(f_rec[2 * s + 1] + cy, 0.0)
                cx = min(max(fr + cx, -lim), lim) - fr
            corr[2 * s] = cx
    for k in range(4):
        f_out[k] = f_rec[k] + corr[k]


@kernel
def _trunk_output(t, x, z, q, qd, ref, ref_rate, stance, p, tau, mz):
    """TrunkBalance: the trunk PD shared by the stance hips (route ground: and passed to the ground)."""
    mz[:] = 0.0
    if p[_TARGET] != 0.0:
        e, ed = q[2] - p[_ALPHA_SET], qd[2]
    else:
        e, ed = q[2] - ref[0], qd[2] - ref_rate[0]
    sl, sr = stance[0] > 0.5, stance[1] > 0.5
    n = int(sl) + int(sr)
    tau[:] = 0.0
    if n:
        share = (-p[_KP] * e - p[_KD] * ed) / n
        tau[0] = share if sl else 0.0
        tau[1] = share if sr else 0.0
        if p[_ROUTE] != 0.0:
            for s in range(2):
                tau[2 + s] = -tau[s]
                mz[s] = -tau[s]


@kernel
def _feedback_enable_output(t, x, z, swing, p, enable):
    """FeedbackEnable: 1 (``always``) or the swing flags (``swing``)."""
    for k in range(enable.size):
        enable[k] = swing[k] if p[_MODE] != 0.0 else 1.0


@kernel
def _reference_motion_output(t, x, z, p, tau, feet, com):
    """ReferenceMotion: the played-back row ``[tau, feet, com]`` of its recording (columns ``tau (4), feet (4),
    com (2), com rate (2)``), the feet and the CoM shifted by the origin."""
    data = seg(p, _RM_DATA)
    row = table_row(data, 0, t)
    for k in range(12):
        shift = (p[_ORIGIN_X] if k % 2 == 0 else p[_ORIGIN_Y]) if 4 <= k < 10 else 0.0  # positions, not rates
        v = table_value(data, row, k, shift, -1 if k == 4 or k == 6 or k == 8 else -2)  # x moves on when folded
        if k < 4:
            tau[k] = v * p[_RM_GAIN]
        elif k < 8:
            feet[k - 4] = v
        else:
            com[k - 8] = v


class GroundContact(ReadsBiped):
    """Recorded GRF plus a stance-foot spring-damper to the reference footprint (module docstring)."""

    params = {"k_x": P(1.0e5, min=0.0, max=1e7, unit="N/m", description="horizontal stiffness"),
              "c_x": P(2.0e3, min=0.0, max=1e5, unit="N*s/m", description="horizontal damping"),
              "k_y": P(1.0e5, min=0.0, max=1e7, unit="N/m", description="vertical stiffness"),
              "c_y": P(2.0e3, min=0.0, max=1e5, unit="N*s/m", description="vertical damping"),
              "ground_y": P(0.0, min=-1.0, max=1.0, unit="m", description="ground height"),
              "f_max": P(2000.0, min=0.0, max=1e5, unit="N", description="limit on each correction component"),
              "unilateral": P(False, description="a floor that only pushes (stance foot above the ground: no pull)"),
              "no_pull": P(False, description="the floor never pulls a stance foot down: the total vertical force "
                                              "(recorded + correction) of each foot stays >= 0"),
              "mu": P(0.0, min=0.0, max=5.0,
                      description="friction coefficient: |F_x| <= mu F_y of that foot (0 = no friction limit)"),
              "gain": P(1.0, min=0.0, max=1.0, description="1 = contact on, 0 = recorded GRF only (paper)"),
              "height": P("ground", choices=("ground", "reference"),
                          description="hold the stance foot at y = ground_y, or at the reference foot height")}
    inputs = (Q_IN, QD_IN, STANCE_IN,
              PortSpec("F_rec", 4, "N", "recorded foot forces", GRF_NAMES),
              PortSpec("feet_ref", 4, "m", "reference foot positions", FEET), TRIG_IN)
    outputs = (PortSpec("F", 4, "N", "applied foot forces", GRF_NAMES),
               PortSpec("corr", 4, "N", "contact correction", GRF_NAMES))

    packed = ("k_x", "c_x", "k_y", "c_y", "ground_y", "f_max", "unilateral", "mu", "gain", "height", "no_pull",
              "_bp[]")
    law = Kernels(output=_contact_output)

    def derive(self, p: Params, ctx: CompileContext) -> None:
        super().derive(p, ctx)
        p.set("_m_shank", biped_of(ctx).shank.mass)

    def max_step(self, p: Params) -> float | None:
        """RK4's real-axis limit ``h |lambda| <= 2.78`` on the shank's contact mode: ``lambda`` from
        ``m s^2 + c s + k`` with ``m`` the shank mass (the damping root ``c/m`` for an overdamped mode)."""
        if p.gain <= 0.0:
            return None
        k, c, m = max(p.k_x, p.k_y), max(p.c_x, p.c_y), p._m_shank
        lam = max(c / m, math.sqrt(k / m)) if m > 0 else 0.0
        return 2.78 / lam if lam > 0 else None


class TrunkBalance(Block):
    """PD on the trunk angle, applied through the stance hips (module docstring)."""

    params = {"kp": P(3000.0, min=0.0, max=1e5, unit="N*m/rad", description="trunk-angle stiffness"),
              "kd": P(300.0, min=0.0, max=1e4, unit="N*m*s/rad", description="trunk-rate damping"),
              "target": P("reference", choices=("reference", "setpoint"),
                          description="reference: the recording's trunk curve; setpoint: one alpha_set"),
              "alpha_set_deg": P(3.0, min=-30.0, max=30.0, unit="deg",
                                 description="trunk set-point (target = setpoint), forward lean +"),
              "route": P("hip", choices=("hip", "ground"),
                         description="hip: the stance hips alone; ground: down the stance leg to a ground moment")}
    inputs = (Q_IN, QD_IN,
              PortSpec("ref", 5, "rad", "reference angles", ANGLE_NAMES),
              PortSpec("ref_rate", 5, "rad/s", "reference rates", ANGLE_NAMES),
              STANCE_IN)
    outputs = (PortSpec("tau", 4, "N*m", "hip (and knee, route ground) torques of the stance legs", TAU_NAMES),
               PortSpec("mz", 2, "N*m", "ground moment on the stance shanks (route ground), ccw +", ("l", "r")))
    discrete = True

    packed = ("kp", "kd", "target", "_alpha_set", "route")
    law = Kernels(output=_trunk_output)

    def derive(self, p: Params, ctx: CompileContext) -> None:
        p.set("_alpha_set", math.radians(p.alpha_set_deg))


class FeedbackEnable(Block):
    """When the joint PIDs act: in swing only (the paper) or always (stance feedback too).

    ``enable = swing`` (``mode = "swing"``) or ``enable = 1`` (``mode = "always"``), per leg;
    the same flags go to the hip and the knee PID. In ``always`` mode the PID output is
    added to the stance torques (see the ``stance_fb`` gain in the default diagram), so the
    stance joints get joint-space feedback on top of the GRF-based estimate.
    """

    params = {"mode": P("always", choices=("always", "swing"),
                        description="always: PID in stance and swing; swing: PID in swing only (paper)")}
    inputs = (PortSpec("swing", 2, "1", "swing flags", ("l", "r")),)
    outputs = (PortSpec("enable", 2, "1", "PID enable flags", ("l", "r")),)

    packed = ("mode",)
    law = Kernels(output=_feedback_enable_output)


class ReferenceMotion(Block):
    """The reference motion's inverse-dynamics torques (times ``gain``), foot positions and CoM, played back.

    ``feet`` are where the reference puts the feet (their contact coordinates ``[xi_l, eta_l, xi_r, eta_r]``;
    the foot points for point feet) and ``com`` the reference's whole-body CoM, both shifted like the dynamics
    block's ``init = "reference"`` (the foot with the larger vertical force at t0 at the origin), so model and
    reference share one frame.
    """

    params = {"dataset": P("", tunable=False, description="dataset; empty = the run's"),
              "gain": P(1.0, min=0.0, max=2.0, description="multiplier on the feedforward torques (0 = off)")}
    outputs = (PortSpec("tau", 4, "N*m", "reference inverse-dynamics torques", TAU_NAMES),
               PortSpec("feet", 4, "m", "reference foot positions", FEET),
               PortSpec("com", 4, "m, m/s", "reference CoM position and velocity", ("x", "y", "vx", "vy")))
    time_varying = True
    discrete = True

    packed = ("gain", "_origin_x", "_origin_y", "_data[]")
    law = Kernels(output=_reference_motion_output)

    def derive(self, p: Params, ctx: CompileContext) -> None:
        if p.has("_data"):  # the recording is read once; a live change re-derives nothing here
            return
        ds = dataset_of(ctx, p.dataset)
        biped = FiveLinkBiped(biped_of(ctx))
        mass = ds.meta.body_mass_kg
        scale = biped_of(ctx).total_mass / mass if mass else 1.0
        Q, QD, QDD = reference_state(ds, biped, data_of(ctx).ref_filter_hz or None)
        tau, _ = biped.inverse_dynamics(Q, QD, QDD, scale * ds.grf)
        feet = biped.contact_coordinates(Q)
        com = biped.points_batch(Q)["com"]
        com_rate = np.gradient(com, ds.t, axis=0)  # central differences, as QD
        recording = np.column_stack([tau, feet, com, com_rate])
        t_first = ds.t[0] + data_of(ctx).t_offset_s  # the recording's time at the run's start
        side = 0 if np.interp(t_first, ds.t, ds.grf[:, 1]) >= np.interp(t_first, ds.t, ds.grf[:, 3]) else 1
        p.set("_origin_x", float(np.interp(t_first, ds.t, recording[:, 4 + 2 * side])))
        p.set("_origin_y", float(np.interp(t_first, ds.t, recording[:, 5 + 2 * side])))
        p.set("_data", sk.recording(ctx, ds, ds.t, recording.T))


#: where the kernels above read each packed entry (numba takes them as constants when it compiles)
(_K_X, _C_X, _K_Y, _C_Y, _GROUND_Y, _F_MAX, _UNILATERAL, _MU, _GAIN, _HEIGHT, _NO_PULL,
 _BP) = GroundContact.packed_at(*GroundContact.packed)
_KP, _KD, _TARGET, _ALPHA_SET, _ROUTE = TrunkBalance.packed_at(*TrunkBalance.packed)
_MODE = FeedbackEnable.packed_at("mode")
_RM_GAIN, _ORIGIN_X, _ORIGIN_Y, _RM_DATA = ReferenceMotion.packed_at(*ReferenceMotion.packed)
