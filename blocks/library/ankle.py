r"""``AnkleBalance`` -- the stance foot's centre of pressure steers the body over it.

Why the ``default`` preset needs it
    Joint torques are internal: they cannot change the body's angular momentum about the
    stance contact point. For a foot force applied at the contact point ``c``::

        dL_c/dt = (r_com - c) x (m g)  + mz          [N m]

    so with ``mz = 0`` the body's progression over the stance foot is an inverted pendulum
    driven by gravity alone (time constant ``sqrt(h/g)``, about 0.3 s for a 1 m CoM height),
    and the hip and knee controllers can only trade trunk attitude against leg angle. A human
    steers it with the ankle: the centre of pressure (CoP) moves along the foot. Without this
    block, on demotu-BMC walk1 the body ran 16 cm ahead of the reference over 1.9 s, the next
    foot landed 11 cm ahead of its footprint, and the contact's pull-back made 3.4 / 5.3
    N m/kg hip / knee torque peaks (session figures in the README).

What it computes (every tick, held through the RK4 stages like the other controllers)
    For each foot in stance, the CoM's horizontal position relative to that foot's contact
    coordinate, against the reference's, and its rate::

        e_s   = (x_com - xi_s) - (x_com,ref - xi_ref,s)          [m]
        e_dot = v_com - v_com,ref                                 [m/s]

        d_s   = clip(gain (k_p e_s + k_d e_dot), -d_max, d_max)   [m]   CoP shift ahead of the contact
        mz_s  = d_s max(F_y,s, 0)                                 [N m] ground moment on the shank (ccw +)

    ``xi`` are the rolling contact coordinates (the foot points for point feet),
    ``FiveLinkBiped.contact_coordinates``; the reference's come from ``ReferenceMotion``.
    ``F_y,s`` is the vertical force the ground applies to that foot. A CoP ahead of the
    contact (``d > 0``) pitches the body back. Linearised about the pendulum,
    ``x_dd = (g/h) (x - d)``, the error obeys ``e_dd = -(g/h) ((k_p - 1) e + k_d e_dot)``: stable
    for ``k_p > 1``. The defaults ``k_p = 2``, ``k_d = 0.3 s`` give about 3.1 rad/s with
    damping ratio 0.47 at ``h = 1 m``. ``d_max = 0.10 m`` keeps the CoP within a foot's
    length of the contact point; the run's ``summary.json`` reports how far it went
    (``cop_shift_m``).

    ``target = "own_speed"`` (the ``emergent`` preset) reads no reference: the position term is
    dropped and the rate error is the CoM's forward speed against the body's *own* running
    mean ``v_mean`` (a first-order lag with time constant ``tau_v`` [s], discrete state)::

        d_s = clip(gain k_d (v_com - v_mean), -d_max, d_max)

    It damps the speed's step-to-step swings without pulling toward any recorded speed or
    position: the mean speed stays whatever the GRF makes it.

The law: output and update kernels (both engines run them) on the packed vector the class declares
(``target`` as 0 reference / 1 own_speed, the update's sample period ``_dt`` [s], the biped's
parameter vector ``_bp``, :meth:`models.params.BipedParams.as_array`), with
:func:`models._eom_numba.com_contact_x`: the horizontal CoM and contact terms of
``com_state_one``/``feet_state_one``, without arrays.
"""

from __future__ import annotations

from blocks.core import CompileContext, Kernels, Params, PortSpec
from blocks.core import ParamSpec as P
from blocks.kernels import kernel, seg
from blocks.library.context import FEET, Q_IN, QD_IN, STANCE_IN, TRIG_IN, ReadsBiped
from blocks.packing import state_offsets
from models._eom_numba import com_contact_x
from models.biped import GRF_NAMES
from models.jit import scratch
from models.segment_trig import trig_of

__all__ = ["AnkleBalance", "TARGETS"]

TARGETS = ("reference", "own_speed")
#: the discrete state: the body's own mean forward speed [m/s] and whether it has started (1) yet
_STATE = state_offsets((("v_mean", 1), ("started", 1)), {})
_ZV, _ZSTARTED = _STATE["v_mean"], _STATE["started"]


@kernel
def _ankle_update(t, x, z, q, qd, stance, F, feet_ref, com_ref, trig, p, znext):
    """``z = [v_mean, started]`` (``_STATE``): the body's own mean forward speed, a first-order lag of ``v_com``."""
    sc = scratch(10)
    trig_of(q, trig, sc)
    v = com_contact_x(seg(p, _BP), q, qd, sc)[1]
    a = p[_DT] / p[_TAU_V]
    if a > 1.0:
        a = 1.0
    znext[_ZV] = v if z[_ZSTARTED] < 0.5 else z[_ZV] + a * (v - z[_ZV])
    znext[_ZSTARTED] = 1.0


@kernel
def _ankle_output(t, x, z, q, qd, stance, F, feet_ref, com_ref, trig, p, mz, cop):
    mz[0] = mz[1] = cop[0] = cop[1] = 0.0
    gain = p[_GAIN]
    if gain <= 0.0:
        return
    sc = scratch(10)
    trig_of(q, trig, sc)
    x_com, v_com, xi_l, xi_r = com_contact_x(seg(p, _BP), q, qd, sc)
    own = p[_TARGET] > 0.5
    if own:
        rate_err = v_com - (z[_ZV] if z[_ZSTARTED] > 0.5 else v_com)
    else:
        rate_err = v_com - com_ref[2]
    d_max = p[_DMAX]
    for s in range(2):
        if stance[s] <= 0.5:
            continue
        err = 0.0 if own else (x_com - (xi_l if s == 0 else xi_r)) - (com_ref[0] - feet_ref[2 * s])
        d = gain * (p[_KP] * err + p[_KD] * rate_err)
        d = -d_max if -d_max > d else d  # min(max(d, -d_max), d_max), NaN included
        d = d_max if d_max < d else d
        cop[s] = d
        fy = F[2 * s + 1]
        mz[s] = d * (0.0 if 0.0 > fy else fy)


class AnkleBalance(ReadsBiped):
    """CoP shift under each stance foot from a PD on the CoM over that foot (module docstring)."""

    params = {"kp": P(2.0, min=0.0, max=100.0, unit="m/m", description="CoP shift per metre of CoM error"),
              "kd": P(0.3, min=0.0, max=10.0, unit="s", description="CoP shift per m/s of CoM velocity error"),
              "d_max": P(0.10, min=0.0, max=0.5, unit="m", description="largest CoP shift from the contact point"),
              "gain": P(1.0, min=0.0, max=1.0, description="1 = on, 0 = off (paper)"),
              "target": P("reference", choices=TARGETS,
                          description="reference: the reference CoM; own_speed: the body's own mean speed"),
              "tau_v": P(2.0, min=0.05, max=100.0, unit="s", description="own_speed: time constant of the mean speed")}
    inputs = (Q_IN, QD_IN, STANCE_IN,
              PortSpec("F", 4, "N", "foot forces applied by the ground", GRF_NAMES),
              PortSpec("feet_ref", 4, "m", "reference contact coordinates", FEET),
              PortSpec("com_ref", 4, "m, m/s", "reference CoM position and velocity", ("x", "y", "vx", "vy")),
              TRIG_IN)
    outputs = (PortSpec("mz", 2, "N*m", "ground moments on the shanks (ccw +)", ("l", "r")),
               PortSpec("cop", 2, "m", "CoP shift ahead of the contact point", ("l", "r")))
    n_discrete = _STATE["size"]
    discrete = True

    packed = ("kp", "kd", "d_max", "gain", "target", "tau_v", "_dt", "_bp[]")
    law = Kernels(output=_ankle_output, update=_ankle_update)

    def derive(self, p: Params, ctx: CompileContext) -> None:
        super().derive(p, ctx)
        p.set("_dt", ctx.dt * max(1, round(p.ts / ctx.dt)) if p.ts > 0 else ctx.dt)


#: where the kernels above read each packed entry (numba takes them as constants when it compiles)
_KP, _KD, _DMAX, _GAIN, _TARGET, _TAU_V, _DT, _BP = AnkleBalance.packed_at(*AnkleBalance.packed)
