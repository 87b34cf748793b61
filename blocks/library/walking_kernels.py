"""Compiled forms (kernels) of the blocks of :mod:`blocks.library.walking` (laws in its docstring).

Packed layouts (``Block.pack``; a choice is its index in the parameter's ``choices``):

* ``GroundContact``: :data:`CONTACT_PARAMS` in that order, then the biped's parameter vector
  (``BipedParams.as_array``, 14 values) at :data:`CONTACT_BIPED`;
* ``TrunkBalance``: ``[kp, kd, target, alpha_set, route]`` (``alpha_set`` in rad);
* ``FeedbackEnable``: ``[mode]``;
* ``ReferenceMotion``: ``[gain, origin_x, origin_y]``, the grid header at 3
  (:mod:`blocks.library.sources_kernels`), the sample times, then the 12 columns ``tau (4), feet (4),
  com (2), com rate (2)`` before the origin shift, each ``n`` long.
"""

from __future__ import annotations

from blocks.kernels import kernel
from blocks.library.sources_kernels import table_row, table_value
from models._eom_numba import foot_state_side

__all__ = ["CONTACT_BIPED", "CONTACT_PARAMS", "contact_output", "feedback_enable_output", "reference_motion_output",
           "trunk_output"]

CONTACT_PARAMS = ("k_x", "c_x", "k_y", "c_y", "ground_y", "f_max", "unilateral", "mu", "gain", "height", "no_pull")
CONTACT_BIPED = len(CONTACT_PARAMS)


@kernel
def _clip(v, lim):
    return lim if v > lim else -lim if v < -lim else v


@kernel
def contact_output(t, x, z, q, qd, stance, f_rec, ref, p, f_out, corr):
    """GroundContact: recorded GRF plus the stance-foot spring-damper (``walking`` docstring)."""
    k_x, c_x, k_y, c_y, ground_y, f_max = p[0], p[1], p[2], p[3], p[4], p[5]
    unilateral, mu, gain, reference_height, no_pull = p[6] != 0.0, p[7], p[8], p[9] != 0.0, p[10] != 0.0
    for k in range(4):
        corr[k] = 0.0
    if gain > 0.0 and (stance[0] > 0.5 or stance[1] > 0.5):
        bp = p[CONTACT_BIPED:CONTACT_BIPED + 14]
        for s in range(2):
            if not stance[s] > 0.5:
                continue
            fx, fy, vx, vy = foot_state_side(bp, q, qd, s)
            gy = ref[2 * s + 1] if reference_height else ground_y
            cy = gain * _clip(-k_y * (fy - gy) - c_y * vy, f_max)
            if unilateral:
                cy = max(cy, 0.0) if fy < gy else 0.0
            if no_pull:
                cy = max(cy, -f_rec[2 * s + 1])
            corr[2 * s + 1] = cy
            cx = gain * _clip(-k_x * (fx - ref[2 * s]) - c_x * vx, f_max)
            if mu > 0.0:
                fr = f_rec[2 * s]
                lim = mu * max(f_rec[2 * s + 1] + cy, 0.0)
                cx = min(max(fr + cx, -lim), lim) - fr
            corr[2 * s] = cx
    for k in range(4):
        f_out[k] = f_rec[k] + corr[k]


@kernel
def trunk_output(t, x, z, q, qd, ref, ref_rate, stance, p, tau, mz):
    """TrunkBalance: the trunk PD shared by the stance hips (route ground: and passed to the ground)."""
    mz[0] = 0.0
    mz[1] = 0.0
    if p[2] != 0.0:
        e, ed = q[2] - p[3], qd[2]
    else:
        e, ed = q[2] - ref[0], qd[2] - ref_rate[0]
    sl, sr = stance[0] > 0.5, stance[1] > 0.5
    n = int(sl) + int(sr)
    for k in range(4):
        tau[k] = 0.0
    if n:
        share = (-p[0] * e - p[1] * ed) / n
        tau[0] = share if sl else 0.0
        tau[1] = share if sr else 0.0
        if p[4] != 0.0:
            for s in range(2):
                tau[2 + s] = -tau[s]
                mz[s] = -tau[s]


@kernel
def feedback_enable_output(t, x, z, swing, p, enable):
    """FeedbackEnable: 1 (``always``) or the swing flags (``swing``)."""
    for k in range(enable.size):
        enable[k] = swing[k] if p[0] != 0.0 else 1.0


@kernel
def reference_motion_output(t, x, z, p, tau, feet, com):
    """ReferenceMotion: the played-back row ``[tau, feet, com]`` (module docstring for ``p``), the feet
    and the CoM shifted by the origin ``p[1:3]``."""
    row = table_row(p, 3, t)
    for k in range(12):
        v = table_value(p, row, k, p[1 + k % 2] if 4 <= k < 10 else 0.0,  # positions shifted, not rates
                        -1 if k == 4 or k == 6 or k == 8 else -2)  # the x positions move on when folded
        if k < 4:
            tau[k] = v * p[0]
        elif k < 8:
            feet[k - 4] = v
        else:
            com[k - 8] = v
