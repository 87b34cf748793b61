"""Compiled (numba) forward dynamics of the five-link biped.

Same equations as :mod:`models._eom_numpy` (see :mod:`models.biped` for the derivation),
written as scalar loops so that one state costs about 0.35 us (:func:`forward_dynamics_into`), 0.27 us
with the segment angles' sines and cosines given (:func:`forward_dynamics_sc_into`, :mod:`models.segment_trig`):

* ``_assemble`` (``_assemble_sc``: the sines and cosines given) fills ``M`` (7x7, kg / kg m / kg m^2)
  and ``b`` (7, N / N m), ``M qdd = b``
  (with a rolling foot, ``p[13] > 0``, the foot force also turns the shank, and the ground
  moments ``mz`` (N m, ccw +) turn it too: ``models.biped``);
  (``M`` is symmetric: only its lower triangle, ``j <= i``, is filled, the only part the solve reads;
  each entry gets the same terms in the same order as a full fill, so the numbers are bit-identical;
  ``_mirror`` completes it where a caller needs whole rows);
* ``_factor`` and ``_back`` solve the SPD system in place (no pivoting needed: M is SPD), inlined
  with ``n = 7`` in :func:`forward_dynamics_into` (``_cholesky_solve`` for any ``n``).

Compiled on first use and cached on disk (``cache=True``), so only the very first start
pays the compile time. Import fails softly: :data:`AVAILABLE` is False without numba.
"""

from __future__ import annotations

import math

import numpy as np

from models.jit import AVAILABLE, scratch, scratch_matrix
from models.jit import njit as njit

if AVAILABLE:
    from models.segment_trig import leg_of, segment_trig_into

    @njit(cache=True, inline="always")
    def _assemble(p, q, qd, tau, grf, mz, M, b):
        """:func:`_assemble_sc` with the sines and cosines of ``q`` computed here (:mod:`models.segment_trig`)."""
        sc = scratch(10)
        segment_trig_into(q, sc)
        _assemble_sc(p, q, qd, tau, grf, mz, sc, M, b)

    @njit(cache=True, inline="always")
    def _assemble_sc(p, q, qd, tau, grf, mz, sc, M, b):
        """``M`` (lower triangle) and ``b`` of ``M qdd = b`` (module docstring), with ``sc`` the segment angles'
        sines and cosines (:func:`models.segment_trig.segment_trig_into`): for each leg body of mass
        ``m`` at ``(a1, a2)`` along thigh and shank, with the point's Jacobian rows over
        ``[x0, y0, alpha, beta, gamma]``, ``jx = [1, 0, x2, x3, x4]`` and ``jy = [0, 1, y2, y3, y4]``,
        ``M[i, j] += m (jx_i jx_j + jy_i jy_j)`` and ``b[i] -= m (jx_i bx + jy_i (by + g))``
        (``bx, by``: ``Jdot qd``), and each foot force ``F`` adds ``jx_i F_x + jy_i F_y``.
        The entries with the constant 1 and 0 of ``jx, jy`` are written out (``m``, ``m x2``, ``m y2``, ...,
        nothing for ``M[1, 0] = 0``): the same numbers as the products with 1 and 0 (``x * 1 = x``,
        ``x + (+-0) = x``), without them (four calls 1.74 -> 1.55 us, bit-identical on 40,000 random
        states against the loop over ``jx, jy``)."""
        r0, m0, J0 = p[1], p[2], p[3]
        l1, r1, m1, J1 = p[4], p[5], p[6], p[7]
        l2, r2, m2, J2 = p[8], p[9], p[10], p[11]
        g = p[12]
        rf = p[13]
        for i in range(7):
            b[i] = 0.0
            for j in range(i + 1):
                M[i, j] = 0.0
        M[0, 0] = m0
        M[1, 1] = m0
        M[2, 2] = J0
        b[1] = -m0 * g
        sa = sc[0]
        ca = sc[1]
        ad = qd[2]
        for s in range(2):
            ib = 3 + s
            ig = 5 + s
            s1 = sc[2 + 4 * s]
            c1 = sc[3 + 4 * s]
            s2 = sc[4 + 4 * s]
            c2 = sc[5 + 4 * s]
            w1 = qd[2] - qd[ib]
            w2 = w1 + qd[ig]
            for k in range(3):
                if k == 0:
                    a1, a2, m = r1, 0.0, m1
                elif k == 1:
                    a1, a2, m = l1, r2, m2
                else:
                    a1, a2, m = l1, l2, 0.0
                # the Jacobian's rows x and y over [x0, y0, alpha, beta, gamma]: [1, 0, x2, x3, x4], [0, 1, y2, y3, y4]
                x2 = -r0 * ca - a1 * c1 - a2 * c2
                x3 = a1 * c1 + a2 * c2
                x4 = -a2 * c2
                y2 = r0 * sa + a1 * s1 + a2 * s2
                y3 = -(a1 * s1 + a2 * s2)
                y4 = a2 * s2
                if k < 2:
                    bx = r0 * sa * ad * ad + a1 * s1 * w1 * w1 + a2 * s2 * w2 * w2
                    by = r0 * ca * ad * ad + a1 * c1 * w1 * w1 + a2 * c2 * w2 * w2
                    byg = by + g
                    b[0] -= m * bx
                    b[1] -= m * byg
                    b[2] -= m * (x2 * bx + y2 * byg)
                    b[ib] -= m * (x3 * bx + y3 * byg)
                    b[ig] -= m * (x4 * bx + y4 * byg)
                    M[0, 0] += m
                    M[1, 1] += m
                    M[2, 0] += m * x2
                    M[2, 1] += m * y2
                    M[2, 2] += m * (x2 * x2 + y2 * y2)
                    M[ib, 0] += m * x3
                    M[ib, 1] += m * y3
                    M[ib, 2] += m * (x3 * x2 + y3 * y2)
                    M[ib, ib] += m * (x3 * x3 + y3 * y3)
                    M[ig, 0] += m * x4
                    M[ig, 1] += m * y4
                    M[ig, 2] += m * (x4 * x2 + y4 * y2)
                    M[ig, ib] += m * (x4 * x3 + y4 * y3)
                    M[ig, ig] += m * (x4 * x4 + y4 * y4)
                else:
                    fx = grf[2 * s]
                    fy = grf[2 * s + 1]
                    b[0] += fx
                    b[1] += fy
                    b[2] += x2 * fx + y2 * fy
                    b[ib] += x3 * fx + y3 * fy
                    b[ig] += x4 * fx + y4 * fy
                    m_shank = mz[s]
                    if rf > 0.0:
                        m_shank += rf * (s2 * fy - (c2 - 1.0) * fx)
                    b[2] -= m_shank
                    b[ib] += m_shank
                    b[ig] -= m_shank
            jl = J1 + J2
            M[2, 2] += jl
            M[ib, 2] -= jl
            M[ib, ib] += jl
            M[ig, 2] += J2
            M[ig, ib] -= J2
            M[ig, ig] += J2
            b[ib] += tau[s]
            b[ig] += tau[2 + s]

    @njit(cache=True)
    def _mirror(M):
        """Copy the lower triangle of the 7x7 ``M`` onto the upper (``_assemble`` fills the lower only)."""
        for i in range(7):
            for j in range(i):
                M[j, i] = M[i, j]

    @njit(cache=True)
    def _cholesky_solve(M, b, x):
        """Solve ``M x = b`` for SPD ``M`` (n x n, overwritten by its Cholesky factor)."""
        n = M.shape[0]
        _factor(M, n)
        _back(M, b, x, n)

    @njit(cache=True, inline="always")
    def _factor(M, n):
        """``M[:n, :n]`` (SPD, lower triangle read) overwritten by its Cholesky factor ``L`` (lower):
        ``L[j, j] = sqrt(M[j, j] - sum_k<j L[j, k]^2)``, ``L[i, j] = (M[i, j] - sum_k<j L[i, k] L[j, k]) / L[j, j]``.

        Inlined into its caller (numba ``inline="always"``): called with a literal ``n`` (7, the mass
        matrix) the loops have constant bounds and are unrolled, the same operations in the same order
        (bit-identical): four :func:`forward_dynamics_into` calls 2.11 -> 1.74 us (benchmarks/engine_floor.py's
        loop, the old and the new module in one process)."""
        for j in range(n):
            acc = M[j, j]
            for k in range(j):
                acc -= M[j, k] * M[j, k]
            d = math.sqrt(acc)
            M[j, j] = d
            for i in range(j + 1, n):
                acc = M[i, j]
                for k in range(j):
                    acc -= M[i, k] * M[j, k]
                M[i, j] = acc / d

    @njit(cache=True, inline="always")
    def _back(M, b, x, n):
        """Solve ``L L^T x = b`` (forward then backward substitution) with the factor ``L`` that
        :func:`_factor` left in ``M[:n, :n]``; inlined like it."""
        for i in range(n):
            acc = b[i]
            for k in range(i):
                acc -= M[i, k] * x[k]
            x[i] = acc / M[i, i]
        for i in range(n - 1, -1, -1):
            acc = x[i]
            for k in range(i + 1, n):
                acc -= M[k, i] * x[k]
            x[i] = acc / M[i, i]

    @njit(cache=True)
    def forward_dynamics_one(p, q, qd, tau, grf, mz):
        M = np.empty((7, 7))
        b = np.empty(7)
        x = np.empty(7)
        _assemble(p, q, qd, tau, grf, mz, M, b)
        _cholesky_solve(M, b, x)
        return x

    @njit(cache=True)
    def forward_dynamics_many(p, Q, QD, TAU, GRF, MZ, out):
        M = np.empty((7, 7))
        b = np.empty(7)
        for n in range(Q.shape[0]):
            _assemble(p, Q[n], QD[n], TAU[n], GRF[n], MZ[n], M, b)
            _cholesky_solve(M, b, out[n])
        return out

    @njit(cache=True, inline="always")
    def _leg_trig(q, qd, s):
        """Shank angle ``th2``, thigh and shank rates ``w1, w2`` and the sines and cosines of
        leg ``s`` (absolute angles clockwise from the downward vertical, rad, rad/s)."""
        th1 = q[2] - q[3 + s]
        th2 = th1 + q[5 + s]
        w1 = qd[2] - qd[3 + s]
        w2 = w1 + qd[5 + s]
        return th2, w1, w2, math.sin(th1), math.cos(th1), math.sin(th2), math.cos(th2)

    @njit(cache=True, inline="always")
    def foot_state_side(p, q, qd, s):
        """``(xi, eta, vx, vy)`` of leg ``s`` (0 left, 1 right): :func:`feet_state_one` for one foot,
        as scalars (no array: what block kernels call inside a step)."""
        a = q[2]
        th2, w1, w2, s1, c1, s2, c2 = _leg_trig(q, qd, s)
        return _foot_state(p, q, qd, math.sin(a), math.cos(a), th2, w1, w2, s1, c1, s2, c2)

    @njit(cache=True, inline="always")
    def foot_state_of(p, q, qd, sc, s):
        """:func:`foot_state_side` with the segment angles' sines and cosines ``sc`` given
        (:mod:`models.segment_trig`)."""
        th2, w1, w2, s1, c1, s2, c2 = leg_of(q, qd, sc, s)
        return _foot_state(p, q, qd, sc[0], sc[1], th2, w1, w2, s1, c1, s2, c2)

    @njit(cache=True, inline="always")
    def _foot_state(p, q, qd, sa, ca, th2, w1, w2, s1, c1, s2, c2):
        """``(xi, eta, vx, vy)`` [m, m/s] of one leg from its angles' sines and cosines (:func:`foot_state_side`)."""
        r0, l1, l2, rf = p[1], p[4], p[8], p[13]
        ad = qd[2]
        xi = q[0] - r0 * sa - l1 * s1 - l2 * s2
        eta = q[1] - r0 * ca - l1 * c1 - l2 * c2
        vx = qd[0] - r0 * ca * ad - l1 * c1 * w1 - l2 * c2 * w2
        vy = qd[1] + r0 * sa * ad + l1 * s1 * w1 + l2 * s2 * w2
        if rf > 0.0:
            xi += rf * (s2 - th2)
            eta += rf * (c2 - 1.0)
            vx += rf * (c2 - 1.0) * w2
            vy -= rf * s2 * w2
        return xi, eta, vx, vy

    @njit(cache=True)
    def feet_state_one(p, q, qd, out):
        """``out = [xi_l, eta_l, vx_l, vy_l, xi_r, eta_r, vx_r, vy_r]``: contact coordinates (m, m/s).

        With a point foot (``R = p[13] = 0``) these are the foot point and its velocity; with a
        rolling foot, the rolling coordinates of :meth:`FiveLinkBiped.contact_state`.
        """
        for s in range(2):
            out[4 * s], out[4 * s + 1], out[4 * s + 2], out[4 * s + 3] = foot_state_side(p, q, qd, s)
        return out

    @njit(cache=True)
    def com_state_one(p, q, qd, out):
        """``out = [x, y, vx, vy]``: whole-body CoM position (m) and velocity (m/s)."""
        r0, m0, l1, r1, m1, r2, m2 = p[1], p[2], p[4], p[5], p[6], p[9], p[10]
        a, ad = q[2], qd[2]
        sa, ca = math.sin(a), math.cos(a)
        hx, hy = q[0] - r0 * sa, q[1] - r0 * ca
        hvx, hvy = qd[0] - r0 * ca * ad, qd[1] + r0 * sa * ad
        sx, sy, svx, svy = m0 * q[0], m0 * q[1], m0 * qd[0], m0 * qd[1]
        for s in range(2):
            th2, w1, w2, s1, c1, s2, c2 = _leg_trig(q, qd, s)
            sx += m1 * (hx - r1 * s1) + m2 * (hx - l1 * s1 - r2 * s2)
            sy += m1 * (hy - r1 * c1) + m2 * (hy - l1 * c1 - r2 * c2)
            svx += m1 * (hvx - r1 * c1 * w1) + m2 * (hvx - l1 * c1 * w1 - r2 * c2 * w2)
            svy += m1 * (hvy + r1 * s1 * w1) + m2 * (hvy + l1 * s1 * w1 + r2 * s2 * w2)
        mt = m0 + 2.0 * (m1 + m2)
        out[0], out[1], out[2], out[3] = sx / mt, sy / mt, svx / mt, svy / mt
        return out

    @njit(cache=True, inline="always")
    def com_contact_x(p, q, qd, sc):
        """``(x_com, vx_com, xi_l, xi_r)`` [m, m/s, m, m]: the horizontal parts of :func:`com_state_one`
        and :func:`feet_state_one`, in the same operation order, from the segment angles' sines and
        cosines ``sc`` (:mod:`models.segment_trig`), with no arrays."""
        r0, m0, l1, r1, m1, l2, r2, m2, rf = p[1], p[2], p[4], p[5], p[6], p[8], p[9], p[10], p[13]
        ad = qd[2]
        sa, ca = sc[0], sc[1]
        hx, hvx = q[0] - r0 * sa, qd[0] - r0 * ca * ad
        sx, svx = m0 * q[0], m0 * qd[0]
        xi_l = xi_r = 0.0
        for s in range(2):
            th2, w1, w2, s1, c1, s2, c2 = leg_of(q, qd, sc, s)
            sx += m1 * (hx - r1 * s1) + m2 * (hx - l1 * s1 - r2 * s2)
            svx += m1 * (hvx - r1 * c1 * w1) + m2 * (hvx - l1 * c1 * w1 - r2 * c2 * w2)
            xi = q[0] - r0 * sa - l1 * s1 - l2 * s2
            if rf > 0.0:
                xi += rf * (s2 - th2)
            if s == 0:
                xi_l = xi
            else:
                xi_r = xi
        mt = m0 + 2.0 * (m1 + m2)
        return sx / mt, svx / mt, xi_l, xi_r

    @njit(cache=True, inline="always")
    def forward_dynamics_into(p, q, qd, tau, grf, mz, out):
        """``out = qdd`` (7,) [m s^-2, rad s^-2], as :func:`forward_dynamics_one` with its scratch on the
        stack (:func:`models.jit.scratch`): no allocation (the block kernels' form); the sines and cosines
        of ``q`` computed here (:func:`forward_dynamics_sc_into`). Inlined into its callers."""
        sc = scratch(10)
        segment_trig_into(q, sc)
        return forward_dynamics_sc_into(p, q, qd, tau, grf, mz, sc, out)

    @njit(cache=True, inline="always")
    def forward_dynamics_sc_into(p, q, qd, tau, grf, mz, sc, out):
        """:func:`forward_dynamics_into` with the segment angles' sines and cosines ``sc`` of ``q`` given
        (:mod:`models.segment_trig`), as the dynamics' derivative kernel reads them from a
        :class:`~blocks.library.biped.SegmentTrig` block; ``_assemble_sc`` and the solve inlined (one call from
        a compiled loop: 0.27-0.29 us with ``sc`` given, the five sincos of :func:`forward_dynamics_into`
        another 0.06; ``_assemble_sc`` called instead of inlined, 0.29 and 0.39 us)."""
        M, b = scratch_matrix(7, 7), scratch(7)
        _assemble_sc(p, q, qd, tau, grf, mz, sc, M, b)
        _factor(M, 7)
        _back(M, b, out, 7)
        return out

    @njit(cache=True)
    def _point_accel(r0, sa, ca, ad, s1, c1, w1, s2, c2, w2, a1, a2, qdd, ib, ig):
        """Acceleration ``J qdd + Jdot qd`` (m s^-2) of the leg point ``(a1, a2)`` (:mod:`models._eom_numpy`)."""
        jx2 = -r0 * ca - a1 * c1 - a2 * c2
        jy2 = r0 * sa + a1 * s1 + a2 * s2
        ax = qdd[0] + jx2 * qdd[2] + (a1 * c1 + a2 * c2) * qdd[ib] - a2 * c2 * qdd[ig]
        ay = qdd[1] + jy2 * qdd[2] - (a1 * s1 + a2 * s2) * qdd[ib] + a2 * s2 * qdd[ig]
        ax += r0 * sa * ad * ad + a1 * s1 * w1 * w1 + a2 * s2 * w2 * w2
        ay += r0 * ca * ad * ad + a1 * c1 * w1 * w1 + a2 * c2 * w2 * w2
        return ax, ay

    @njit(cache=True)
    def joint_reactions_one(p, q, qd, qdd, grf, out):
        """``out`` (8,) N: the forces on the thighs at the hips and on the shanks at the knees,
        ``[hip_l_x, hip_l_y, hip_r_x, hip_r_y, knee_l_x, knee_l_y, knee_r_x, knee_r_y]``
        (:func:`models.reactions.reactions_augmented`, ``-E^T (h - MM (D qdd + gamma))``, written out):

            F_knee = m2 a_shank - F_foot + (0, m2 g)
            F_hip  = m1 a_thigh + m2 a_shank - F_foot + (0, (m1 + m2) g)

        with ``a`` the CoM accelerations ``D qdd + gamma``; joint torques and ground moments do not enter.
        """
        r0, l1, r1, m1, r2, m2, g = p[1], p[4], p[5], p[6], p[9], p[10], p[12]
        sa, ca, ad = math.sin(q[2]), math.cos(q[2]), qd[2]
        for s in range(2):
            th2, w1, w2, s1, c1, s2, c2 = _leg_trig(q, qd, s)
            tx, ty = _point_accel(r0, sa, ca, ad, s1, c1, w1, s2, c2, w2, r1, 0.0, qdd, 3 + s, 5 + s)
            hx, hy = _point_accel(r0, sa, ca, ad, s1, c1, w1, s2, c2, w2, l1, r2, qdd, 3 + s, 5 + s)
            fx, fy = grf[2 * s], grf[2 * s + 1]
            out[4 + 2 * s] = m2 * hx - fx
            out[5 + 2 * s] = m2 * hy + m2 * g - fy
            out[2 * s] = m1 * tx + m2 * hx - fx
            out[2 * s + 1] = m1 * ty + m2 * hy + (m1 + m2) * g - fy
        return out

    @njit(cache=True)
    def decomposition_one(p, q, qd, qdd, grf, inertial, coriolis, gravity, external):
        """Duarte's M/C/G/E parts of the joint torques ``[hip_l, hip_r, knee_l, knee_r]`` [N m]
        (:func:`models.decomposition.biped_decomposition`): the joint rows of ``M qdd``, ``-Q_coriolis``,
        ``-Q_gravity`` and ``-Q_foot`` (the foot forces' and, with a rolling foot, their moment's)."""
        M, b, zero = scratch_matrix(7, 7), scratch(7), scratch(7)
        for i in range(7):
            zero[i] = 0.0
        _assemble(p, q, zero, zero, zero, zero, M, b)
        _mirror(M)
        for r in range(4):
            acc = 0.0
            for j in range(7):
                acc += M[3 + r, j] * qdd[j]
            inertial[r] = acc
        r0, l1, r1, m1, l2, r2, m2, g, rf = p[1], p[4], p[5], p[6], p[8], p[9], p[10], p[12], p[13]
        sa, ca, ad = math.sin(q[2]), math.cos(q[2]), qd[2]
        for s in range(2):
            th2, w1, w2, s1, c1, s2, c2 = _leg_trig(q, qd, s)
            cb = cg = gb = gg = 0.0  # generalised Coriolis and gravity forces on beta, gamma
            for k in range(2):
                a1, a2, m = (r1, 0.0, m1) if k == 0 else (l1, r2, m2)
                bx = r0 * sa * ad * ad + a1 * s1 * w1 * w1 + a2 * s2 * w2 * w2
                by = r0 * ca * ad * ad + a1 * c1 * w1 * w1 + a2 * c2 * w2 * w2
                jxb, jyb, jxg, jyg = a1 * c1 + a2 * c2, -(a1 * s1 + a2 * s2), -a2 * c2, a2 * s2
                cb -= m * (jxb * bx + jyb * by)
                cg -= m * (jxg * bx + jyg * by)
                gb -= m * g * jyb
                gg -= m * g * jyg
            fx, fy = grf[2 * s], grf[2 * s + 1]
            m_shank = rf * (s2 * fy - (c2 - 1.0) * fx) if rf > 0.0 else 0.0
            eb = (l1 * c1 + l2 * c2) * fx - (l1 * s1 + l2 * s2) * fy + m_shank
            eg = -l2 * c2 * fx + l2 * s2 * fy - m_shank
            coriolis[s], coriolis[2 + s] = -cb, -cg
            gravity[s], gravity[2 + s] = -gb, -gg
            external[s], external[2 + s] = -eb, -eg
