r"""The floor and the stance leg without the recording's answer: blocks of the ``emergent`` preset.

``Footprints`` -- where each stance foot is held
    ``source = "reference"`` passes the reference footprints through (the ``tracking``
    preset: the foot is held where the human's was). ``source = "landing"`` captures the
    foot's own rolling contact coordinate ``xi`` [m] (:meth:`FiveLinkBiped.contact_coordinates`)
    at the tick its stance begins (the recorded GRF's phase flag rises) and holds it for the
    whole stance: a floor with friction, not a footprint from the recording::

        x_anchor,s = xi_s(t_landing)          (stance)
        x_anchor,s = xi_s(t)                  (swing: not used)

    Output ``feet`` (4) ``[x_l, y_l, x_r, y_r]`` [m] with ``y`` the held height (``landing``) or the
    reference's (``reference``), in the layout of ``ReferenceMotion.feet``, so the
    ``GroundContact`` block reads either. With a rolling foot ``xi`` stays constant while the
    foot rolls without slipping, so the anchor holds the rolling contact, not a point.

    The held height is the floor's, ``ground_y``, from the landing tick on; with ``tau_land > 0``
    [s] it is instead where the foot landed, relaxing to the floor::

        y_anchor,s = ground_y + (eta_s(t_landing) - ground_y) exp(-(t - t_landing) / tau_land)

    so a foot that lands a little above or below the floor is not snapped to it within a few
    milliseconds by the contact spring (``GroundContact`` reads this height with
    ``height = reference``).

    Discrete state ``[x_l, x_r, stance_l, stance_r, eta_l, eta_r, t_l, t_r]``: the anchors, the
    stance flags of the previous tick, the landing heights [m] and landing times [s]. The output
    at a landing tick already holds the new anchor.

``StanceDamping`` -- light stance-leg impedance instead of tracking the reference angles
    What the ``emergent`` preset adds to the GRF estimator in stance::

        tau_hip,s  = -c_hip  beta_dot_s                                                   (stance)
        tau_knee,s = k_knee (gamma_rest - gamma_s) - c_knee gamma_dot_s
                     + k_stop max(gamma_min - gamma_s, 0)                                 (stance)

    plus, with ``k_leg``/``c_leg``, an axial spring along the hip-to-foot line about the length at
    the same rest angle (``L(gamma) = sqrt(l1^2 + l2^2 + 2 l1 l2 cos gamma)``, thigh and shank
    lengths ``l1``, ``l2`` [m])::

        f = k_leg (L(gamma_rest) - L) - c_leg dL/dt         [N, pushing hip and foot apart]
        tau_knee,s += f dL/dgamma                             (virtual work; dL/dgamma <= 0)

    A knee spring is infinitely stiff along the leg near a straight knee (``dL/dgamma -> 0``);
    the axial spring has the same stiffness ``k_leg`` [N/m] along the leg in every pose.

    The knee is a torsional spring about one rest angle ``gamma_rest`` (``knee_rest_deg``,
    the same for every condition), the "quasi-stiffness" of the stance knee (Shamaei,
    Sawicki & Dollar 2013, PLoS ONE 8(3):e59935: about 4-5 N m/deg in weight acceptance for
    a 70 kg walker), on top of the estimator that carries the GRF's moment. No reference
    angle is read: the stance knee's excursion about the rest angle is the result (its mean
    is set by the rest angle, which ``compare`` says). ``c`` [N m s/rad], ``k`` [N m/rad],
    ``gamma_min`` [deg]. The knee stop is the passive end of the knee's range (a human knee
    does not hyperextend); it acts only past ``gamma_min``. Its torque and the damping are
    reported in the run's force account (``actuation.stance_damping``). Output ``tau`` (4)
    N m ``[hip_l, hip_r, knee_l, knee_r]``, zero for swing legs. Sampled like the controllers
    (held through the RK4 stages); evaluated in every stage instead, the bundled high-heels
    walk fell at 7.4 s instead of walking its 10 s (measured).
"""

from __future__ import annotations

import math

from blocks.core import Block, CompileContext, Kernels, Params, PortSpec
from blocks.core import ParamSpec as P
from blocks.kernels import helper, kernel, seg
from blocks.library.context import FEET, Q_IN, QD_IN, STANCE_IN, TRIG_IN, ReadsBiped, biped_of
from blocks.packing import state_offsets
from models._eom_numba import foot_state_of
from models.biped import TAU_NAMES
from models.jit import register_jitable, scratch
from models.segment_trig import trig_of

__all__ = ["Footprints", "StanceDamping"]

#: Footprints' discrete state per foot ``[l, r]``: anchor x [m], stance flag, landed eta [m], landing time [s]
_FP_STATE = state_offsets((("x", 2), ("on", 2), ("eta", 2), ("t", 2)), {})
_ZX, _ZON, _ZETA, _ZT = (_FP_STATE[k] for k in ("x", "on", "eta", "t"))


@helper
def _anchor(t, z, q, stance, sc, p, s):
    """``(x, y_landed, t_landed)`` of foot ``s``: held, or its contact coordinates now (which read no
    rates: ``q`` stands in for them), ``sc`` the segment angles' sines and cosines (:mod:`models.segment_trig`)."""
    if stance[s] > 0.5 and z[_ZON + s] > 0.5:
        return z[_ZX + s], z[_ZETA + s], z[_ZT + s]
    fs = foot_state_of(seg(p, _BP), q, q, sc, s)
    return fs[0], fs[1], t


@helper
def _held_height(t, y_land, t_land, p):
    if p[_TAU_LAND] <= 0.0:
        return p[_GROUND_Y]
    return p[_GROUND_Y] + (y_land - p[_GROUND_Y]) * math.exp(-(t - t_land) / p[_TAU_LAND])


@kernel
def _footprints_output(t, x, z, q, stance, feet_ref, trig, p, feet):
    if p[_SOURCE] == 0.0:
        for k in range(4):
            feet[k] = feet_ref[k]
        return
    sc = scratch(10)
    trig_of(q, trig, sc)
    xl, yl, tl = _anchor(t, z, q, stance, sc, p, 0)
    xr, yr, tr = _anchor(t, z, q, stance, sc, p, 1)
    feet[0], feet[1], feet[2], feet[3] = xl, _held_height(t, yl, tl, p), xr, _held_height(t, yr, tr, p)


@kernel
def _footprints_update(t, x, z, q, stance, feet_ref, trig, p, znext):
    sc = scratch(10)
    trig_of(q, trig, sc)
    xl, yl, tl = _anchor(t, z, q, stance, sc, p, 0)
    xr, yr, tr = _anchor(t, z, q, stance, sc, p, 1)
    znext[_ZX], znext[_ZX + 1], znext[_ZON], znext[_ZON + 1] = xl, xr, stance[0], stance[1]
    znext[_ZETA], znext[_ZETA + 1], znext[_ZT], znext[_ZT + 1] = yl, yr, tl, tr


@register_jitable
def leg_spring_torque(gam: float, gam_dot: float, rest: float, k: float, c: float, l1: float, l2: float) -> float:
    """Knee torque [N m] of the axial leg spring ``f = k (L(rest) - L) - c dL/dt`` [N] with the hip-to-foot
    length ``L(gamma) = sqrt(l1^2 + l2^2 + 2 l1 l2 cos gamma)``: by virtual work ``tau_knee = f dL/dgamma``."""
    if k == 0.0 and c == 0.0:
        return 0.0
    length = math.sqrt(l1 * l1 + l2 * l2 + 2.0 * l1 * l2 * math.cos(gam))
    rest_length = math.sqrt(l1 * l1 + l2 * l2 + 2.0 * l1 * l2 * math.cos(rest))
    d_len = -l1 * l2 * math.sin(gam) / length
    return (k * (rest_length - length) - c * d_len * gam_dot) * d_len


@kernel
def _stance_damping_output(t, x, z, q, qd, stance, p, tau):
    tau[:] = 0.0
    for s in range(2):
        if stance[s] <= 0.5:
            continue
        tau[s] = -p[_C_HIP] * qd[3 + s]
        gam = q[5 + s]
        stop = p[_K_STOP] * (p[_G_MIN] - gam) if gam < p[_G_MIN] else 0.0
        tau[2 + s] = (p[_K_KNEE] * (p[_REST] - gam) - p[_C_KNEE] * qd[5 + s] + stop
                      + leg_spring_torque(gam, qd[5 + s], p[_REST], p[_K_LEG], p[_C_LEG], p[_L1], p[_L2]))


class Footprints(ReadsBiped):
    """Stance-foot anchors: the reference footprints, or where the foot landed (module docstring)."""

    params = {"source": P("reference", choices=("reference", "landing"),
                          description="reference: the recording's footprints; landing: where the model's foot landed"),
              "ground_y": P(0.0, min=-1.0, max=1.0, unit="m", description="floor height (source = landing)"),
              "tau_land": P(0.0, min=0.0, max=1.0, unit="s",
                            description="the held height relaxes from where the foot landed to the floor with "
                                        "this time constant (0: held on the floor from the landing tick)")}
    inputs = (Q_IN, STANCE_IN,
              PortSpec("feet_ref", 4, "m", "reference footprints", FEET), TRIG_IN)
    outputs = (PortSpec("feet", 4, "m", "where each stance foot is held", FEET),)
    n_discrete = _FP_STATE["size"]
    discrete = True

    packed = ("source", "ground_y", "tau_land", "_bp[]")
    law = Kernels(output=_footprints_output, update=_footprints_update)


class StanceDamping(Block):
    """Stance hip damping, a knee quasi-stiffness about one rest angle, and the knee stop (module docstring)."""

    params = {"c_hip": P(0.0, min=0.0, max=1e4, unit="N*m*s/rad", description="stance hip damping"),
              "c_knee": P(0.0, min=0.0, max=1e4, unit="N*m*s/rad", description="stance knee damping"),
              "k_knee": P(0.0, min=0.0, max=1e4, unit="N*m/rad",
                          description="stance knee quasi-stiffness about knee_rest_deg"),
              "knee_rest_deg": P(15.0, min=0.0, max=90.0, unit="deg",
                                 description="rest angle of the knee spring (one value for every condition)"),
              "k_stop": P(0.0, min=0.0, max=1e6, unit="N*m/rad", description="knee stop stiffness (0 = off)"),
              "gamma_min": P(0.0, min=-30.0, max=30.0, unit="deg", description="knee angle where the stop begins"),
              "k_leg": P(0.0, min=0.0, max=1e6, unit="N/m",
                         description="leg-length spring about the length at knee_rest_deg (axial, hip to foot)"),
              "c_leg": P(0.0, min=0.0, max=1e5, unit="N*s/m", description="leg-length damping")}
    inputs = (Q_IN, QD_IN, STANCE_IN)
    outputs = (PortSpec("tau", 4, "N*m", "stance damping, knee spring and knee-stop torques", TAU_NAMES),)
    discrete = True

    packed = ("c_hip", "c_knee", "k_knee", "_rest", "k_stop", "_gamma_min", "k_leg", "c_leg", "_l1", "_l2")
    law = Kernels(output=_stance_damping_output)

    def derive(self, p: Params, ctx: CompileContext) -> None:
        b = biped_of(ctx)
        p.set("_l1", float(b.thigh.length))
        p.set("_l2", float(b.shank.length))
        p.set("_rest", math.radians(p.knee_rest_deg))
        p.set("_gamma_min", math.radians(p.gamma_min))


#: where the kernels above read each packed entry (numba takes them as constants when it compiles)
_SOURCE, _GROUND_Y, _TAU_LAND, _BP = Footprints.packed_at("source", "ground_y", "tau_land", "_bp")
_C_HIP, _C_KNEE, _K_KNEE, _REST, _K_STOP, _G_MIN, _K_LEG, _C_LEG, _L1, _L2 = StanceDamping.packed_at(
    *StanceDamping.packed)
