r"""Controllers: the swing-phase PID and the stance/swing torque switch.

Discrete PID per channel (sample period ``h = ts``, or the solver tick), error ``e = ref - meas``::

    D_k = (T_f D_{k-1} + K_d (e_k - e_{k-1})) / (T_f + h)      filtered derivative (backward Euler)
    v_k = K_p e_k + I_k + D_k,   u_k = clip(v_k, -u_max, u_max)
    I_{k+1} = I_k + K_i h e_k    when enabled, unless v_k is saturated and e_k pushes further
                                  (clamping anti-windup)
    I_{k+1} = clip(track_k - K_p e_k - D_k)   when disabled (tracking mode)

Tracking mode gives bumpless transfer: while the phase detector has the joint in stance the
integrator follows the torque actually applied (``track``), so when the leg enters swing the
PID output starts from that torque instead of jumping. ``I`` is stored in N m, so changing
``ki`` live does not bump the output either.

Reference blend (``t_blend = T_b`` [s] > 0; 0, the default, is off): the tracking integrator
cannot keep the output from jumping when the joint is far from its reference at the switch,
because it is clipped at ``u_max`` and so absorbs at most ``u_max`` of ``K_p e`` (in the ``emergent``
preset the stance leg leaves the ground 12-25 deg from the swing reference: K_p e reaches
500-1100 N m, and the hip and knee outputs jumped to their 300 N m limit at every toe-off).
With the blend the error starts from zero and reaches the full error along a quintic::

    e_k = (r_k - y_k) - e_0 b(s),   s = (t_k - t_0) / T_b,   b(s) = 1 - s^3 (10 - 15 s + 6 s^2)  (s < 1)

``t_0`` is the tick the joint is enabled and ``e_0 = r - y`` there; ``b`` falls from 1 to 0 with
zero slope at both ends. While disabled, ``e = 0`` (the error the blend would start from).
So the swing torque starts from the stance torque and moves to tracking within ``T_b``.
"""

from __future__ import annotations

from blocks.core import Block, CompileContext, Kernels, Params, PortSpec
from blocks.core import ParamSpec as P
from blocks.kernels import helper, kernel, seg
from blocks.packing import state_offsets
from models.biped import TAU_NAMES

__all__ = ["PID", "TorqueSwitch"]

#: the PID's discrete state: each field and its size (``"n"``: one per joint), in order
STATE = (("I", "n"), ("D", "n"), ("e_prev", "n"), ("enabled", "n"), ("started", 1), ("e0", "n"), ("age", "n"))


@helper
def _blended(e, on, was_on, e0, age, t_blend):
    """The error after the reference blend (module docstring): ``e`` [rad] the raw error, ``on`` the
    enable flag now, ``was_on`` at the last update, ``e0`` [rad] and ``age`` [s] the stored start."""
    if t_blend <= 0.0:
        return e
    if not on:
        return 0.0
    if not was_on:
        return 0.0  # the first enabled tick: e - e b(0) with e0 = e
    s = age / t_blend
    if s >= 1.0:
        return e
    return e - e0 * (1.0 - s * s * s * (10.0 - 15.0 * s + 6.0 * s * s))


@helper
def _pid_law(z, ref, meas, enable, p, i):
    # (e, D, v) of joint i (module docstring)
    tf, h = p[_TF], p[_H]
    kp, kd = seg(p, _KP)[i], seg(p, _KD)[i]
    e = _blended(ref[i] - meas[i], enable[i] > 0.5, z[int(p[_ZON]) + i] > 0.5, z[int(p[_ZE0]) + i],
                 z[int(p[_ZAGE]) + i], p[_T_BLEND])
    d = (tf * z[int(p[_ZD]) + i] + kd * (e - z[int(p[_ZE]) + i])) / (tf + h) if z[int(p[_ZSTART])] > 0.5 else 0.0
    return e, d, kp * e + z[int(p[_ZI]) + i] + d


@kernel
def _pid_output(t, x, z, ref, meas, enable, track, p, u):
    um = p[_U_MAX]
    for i in range(int(p[_N])):
        v = _pid_law(z, ref, meas, enable, p, i)[2]
        u[i] = um if v > um else (-um if v < -um else v)


@kernel
def _pid_update(t, x, z, ref, meas, enable, track, p, znext):
    um, h = p[_U_MAX], p[_H]
    zi, zd, ze, zon, ze0, zage = int(p[_ZI]), int(p[_ZD]), int(p[_ZE]), int(p[_ZON]), int(p[_ZE0]), int(p[_ZAGE])
    for i in range(int(p[_N])):
        e, d, v = _pid_law(z, ref, meas, enable, p, i)
        on = enable[i] > 0.5
        if on:
            ki = seg(p, _KI)[i]
            znext[zi + i] = z[zi + i] if (v > um and e > 0.0) or (v < -um and e < 0.0) else z[zi + i] + ki * h * e
        else:
            znext[zi + i] = min(max(track[i] - seg(p, _KP)[i] * e - d, -um), um)
        znext[zd + i] = d
        znext[ze + i] = e
        rising = on and z[zon + i] < 0.5
        znext[ze0 + i] = ref[i] - meas[i] if rising else z[ze0 + i]
        if on:
            znext[zage + i] = h if rising else z[zage + i] + h
        else:
            znext[zage + i] = 0.0
        znext[zon + i] = 1.0 if on else 0.0
    znext[int(p[_ZSTART])] = 1.0


@kernel
def _switch_output(t, x, z, stance, a, b, p, tau, hip, knee):
    sl, sr = stance[0] > 0.5, stance[1] > 0.5
    tau[0] = a[0] if sl else b[0]
    tau[2] = a[2] if sl else b[2]
    tau[1] = a[1] if sr else b[1]
    tau[3] = a[3] if sr else b[3]
    hip[0], hip[1] = tau[0], tau[1]
    knee[0], knee[1] = tau[2], tau[3]


class PID(Block):
    """Per-joint discrete PID with output limits, anti-windup, filtered derivative and bumpless transfer.

    Discrete state :data:`STATE`: ``[I (n), D (n), e_prev (n), enabled (n), started, e_0 (n), t - t_0 (n)]``
    (the last two for the reference blend, ``t_blend``); the kernels read its offsets from the packed vector.
    Default gains: the authors' Simulink prototype, P = 500, I = 250, D = 25 (N m/rad).

    Per-joint gains: ``kp``, ``ki`` and ``kd`` are each one number for every joint (the presets'
    form) or a list of ``n`` numbers, one per joint (``[left, right]`` for the biped's hip and
    knee PIDs). ``"pid_hip.kp[0]"`` addresses the left leg's gain alone (``--set``, sweeps,
    tuning, the gain panel).
    """

    params = {"kp": P(500.0, min=0.0, max=1e5, unit="N*m/rad", description="proportional gain", size="n"),
              "ki": P(250.0, min=0.0, max=1e5, unit="N*m/(rad*s)", description="integral gain", size="n"),
              "kd": P(25.0, min=0.0, max=1e4, unit="N*m*s/rad", description="derivative gain", size="n"),
              "tf": P(0.005, min=0.0, max=1.0, unit="s", description="derivative filter time constant"),
              "u_max": P(300.0, min=0.0, max=1e5, unit="N*m", description="output limit (symmetric)"),
              "t_blend": P(0.0, min=0.0, max=2.0, unit="s",
                           description="reference blend after enable (0 = off): the error starts from 0"),
              "n": P(2, min=1, max=64, tunable=False, description="number of joints")}
    inputs = (PortSpec("ref", "n", "rad", "reference joint angles"),
              PortSpec("meas", "n", "rad", "measured joint angles"),
              PortSpec("enable", "n", "", "1 = the PID drives the joint (swing); 0 = tracking mode"),
              PortSpec("track", "n", "N*m", "torque applied to the joint (bumpless transfer; not fed through)"))
    outputs = (PortSpec("u", "n", "N*m", "PID torque"),)
    feedthrough = frozenset({("ref", "u"), ("meas", "u")})
    discrete = True

    packed = ("n", "tf", "u_max", "_h", "t_blend", "kp", "ki", "kd", *(f"_z_{name}" for name, _ in STATE))
    law = Kernels(output=_pid_output, update=_pid_update)

    def discrete_size(self) -> int:
        return state_offsets(STATE, self.values)["size"]

    def derive(self, p: Params, ctx: CompileContext) -> None:
        p.set("_h", p.ts if p.ts > 0 else ctx.dt)
        for name, at in state_offsets(STATE, self.values).items():
            p.set(f"_z_{name}", float(at))


class TorqueSwitch(Block):
    """Per leg, the stance torques when the foot is in stance, else the swing torques.

    ``tau_j = tau_stance_j if stance_leg(j) else tau_swing_j`` for ``j`` in
    ``[hip_l, hip_r, knee_l, knee_r]``.
    """

    inputs = (PortSpec("stance", 2, "", "stance flags [l, r]"), PortSpec("tau_stance", 4, "N*m"),
              PortSpec("tau_swing", 4, "N*m"))
    outputs = (PortSpec("tau", 4, "N*m", "applied joint torques", TAU_NAMES),
               PortSpec("hip", 2, "N*m", "tau of the hips", ("l", "r")),
               PortSpec("knee", 2, "N*m", "tau of the knees", ("l", "r")))
    law = Kernels(output=_switch_output)


#: where the kernels above read each packed entry (numba takes them as constants when it compiles)
_N, _TF, _U_MAX, _H, _T_BLEND, _KP, _KI, _KD = PID.packed_at("n", "tf", "u_max", "_h", "t_blend", "kp", "ki", "kd")
_ZI, _ZD, _ZE, _ZON, _ZSTART, _ZE0, _ZAGE = PID.packed_at(*(f"_z_{name}" for name, _ in STATE))
