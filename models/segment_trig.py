"""The five-link biped's segment angles' sines and cosines, computed once and shared (issue 35 §4).

With the trunk angle ``a = q[2]`` (from the upward vertical), the thigh angle ``th1_s = a - beta_s`` and the
shank angle ``th2_s = th1_s + gamma_s`` (from the downward vertical, clockwise +; :mod:`models.biped`), rad::

    sc = [sin a, cos a, sin th1_l, cos th1_l, sin th2_l, cos th2_l, sin th1_r, cos th1_r, sin th2_r, cos th2_r]

Every law that reads the body's state needs some of these: the dynamics (:mod:`models._eom_numba`), the
ground contact, the ankle, the kinematics, the estimator and the footprints, the contact and the dynamics
at each of the four RK4 stages of a tick. The block :class:`~blocks.library.biped.SegmentTrig` computes
them once per evaluation of ``q`` and the others read its output; :func:`trig_of` lets a block whose input
is left unconnected (an optional input reads zeros) compute them itself, from the same expressions, so the
numbers are the same to the bit either way.
"""

from __future__ import annotations

import math

from models.jit import AVAILABLE
from models.jit import njit as njit

__all__ = ["TRIG_NAMES", "TRIG_SIZE", "leg_of", "segment_trig_into", "trig_of"]

#: the entries of ``sc`` (module docstring)
TRIG_NAMES = ("sin_a", "cos_a", "sin_th1_l", "cos_th1_l", "sin_th2_l", "cos_th2_l",
              "sin_th1_r", "cos_th1_r", "sin_th2_r", "cos_th2_r")
TRIG_SIZE = len(TRIG_NAMES)

if AVAILABLE:

    @njit(cache=True, inline="always")
    def segment_trig_into(q, sc):
        """``sc`` (10,) from ``q`` (7,): the sines and cosines of the module docstring. Inlined into its
        callers (numba ``inline="always"``): a call with two arrays costs about a third of the five sincos."""
        a = q[2]  # read once: a store into sc between the two would make q[2] a new load (sc may alias q)
        sa, ca = math.sin(a), math.cos(a)  # and then two libm calls instead of one sincos
        sc[0] = sa
        sc[1] = ca
        for s in range(2):
            th1 = q[2] - q[3 + s]
            th2 = th1 + q[5 + s]
            sc[2 + 4 * s] = math.sin(th1)
            sc[3 + 4 * s] = math.cos(th1)
            sc[4 + 4 * s] = math.sin(th2)
            sc[5 + 4 * s] = math.cos(th2)
        return sc

    @njit(cache=True, inline="always")
    def trig_of(q, shared, sc):
        """``sc`` (10,) = ``shared``, the sines and cosines of ``q`` a :class:`SegmentTrig` block computed, or,
        when that input is unconnected (zeros: ``sin a = cos a = 0`` holds for no angle), computed here
        (:func:`segment_trig_into`). Inlined into the kernels; ``sc`` is their stack scratch
        (:func:`models.jit.scratch`), always the array they read: returning either array instead made the
        dynamics' derivative and the contact slower than computing the sines and cosines themselves (0.43-0.47
        against 0.38 us, 0.11 against 0.075 us a call from a compiled loop; the merged array's reference
        counting, presumably)."""
        if shared[0] == 0.0 and shared[1] == 0.0:
            segment_trig_into(q, sc)
        else:
            for k in range(10):
                sc[k] = shared[k]

    @njit(cache=True, inline="always")
    def leg_of(q, qd, sc, s):
        """``(th2, w1, w2, s1, c1, s2, c2)`` of leg ``s`` (0 left, 1 right): the shank angle [rad], the thigh and
        shank rates [rad/s] and the leg's entries of ``sc`` (:func:`models._eom_numba._leg_trig`'s values)."""
        th2 = q[2] - q[3 + s] + q[5 + s]
        w1 = qd[2] - qd[3 + s]
        w2 = w1 + qd[5 + s]
        return th2, w1, w2, sc[2 + 4 * s], sc[3 + 4 * s], sc[4 + 4 * s], sc[5 + 4 * s]
