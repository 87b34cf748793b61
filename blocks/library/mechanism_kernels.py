r"""Compiled form (kernels) of :class:`~blocks.library.mechanism.PlanarMechanism`.

The laws of :mod:`models.mechanism` (numpy, the independent reference they are tested against),
written out on the packed vector of :mod:`blocks.library.mechanism_pack` (its tables' records by
their declared fields):

* kinematics of every stacked point expression: ``u_k = R(A_k f + c_k) P_k``, positions
  ``r_e = R0_e + sum u_k``, Jacobians ``J_e = sum u_k^perp A_k`` [m/rad], and the bilinear
  second derivative ``-sum u_k (A_k v)(A_k w)``;
* ``f(q)``: Newton on ``G(f, q) = 0`` from the block's guess (the guide spline at ``q`` for one
  coordinate, else the discrete state: the joints solved at the last tick), tolerance and residual
  test as :meth:`~models.mechanism.system.Mechanism.solve`, then ``G_f F = S``,
  ``G_f H[:, j, l] = -G_ff[F e_j, F e_l]`` (LU with partial pivoting); or the pre-modelled
  splines (de Boor's recurrence, as scipy's ``BSpline``; the bivariate ones clamped to their box
  as fitpack does);
* dynamics: ``F^T M_f F qdd = F^T (Q_f - c_f - M_f H[qd, qd])`` [N m], with gravity, springs,
  constant and input torques in ``Q_f``.

A failed solve (no root near the guess) writes NaN: the engine then stops and names the block and
port, where the Python engine's message says that the loop equations have no solution.
"""

from __future__ import annotations

import math

import numpy as np

from blocks.kernels import helper, kernel
from blocks.library.mechanism_pack import BODY, COORD, LAYOUT, SPRING
from blocks.library.mechanism_splines import spline1, spline2

__all__ = ["mech_output", "mech_derivative", "mech_update", "joints"]

_M, _NQ, _NT, _NE, _NLOOP, _NBODY, _NSPRING, _NPOINT, _NTAU = LAYOUT.at(
    "_m", "_nq", "_nt", "_ne", "_nloop", "_nbody", "_nspring", "_npoint", "_ntau")
_KIND, _GUIDE, _OA, _OC, _OP, _OE, _OR0, _OCOORD = LAYOUT.at("_kind", "_guide", "_A", "_c", "_P", "_E", "_R0", "_coord")
_OBODY, _OROT, _OSPRING, _OGRAV, _OCTAU, _OB = LAYOUT.at("_body", "_rot", "_spring", "_grav", "_ctau", "_B")
_C_KIND, _C_INDEX, _C_AXIS, _C_SIZE = COORD["kind"], COORD["index"], COORD["axis"], COORD["size"]
_B_EXPR, _B_MASS, _B_SIZE = BODY["expr"], BODY["mass"], BODY["size"]
_S_EXPR, _S_ANCHOR, _S_K, _S_L0, _S_SIZE = SPRING["expr"], SPRING["anchor"], SPRING["k"], SPRING["l0"], SPRING["size"]
TOL, MAX_ITER = 1e-9, 30  # as Mechanism.solve


@kernel(allocates=True)
def kinematics(p, f):
    """``ux, uy`` (terms), positions (exprs, 2), ``Jx``, ``Jy`` (exprs, m)."""
    m, nt, ne = int(p[_M]), int(p[_NT]), int(p[_NE])
    oa, oc, op, oe, orr = int(p[_OA]), int(p[_OC]), int(p[_OP]), int(p[_OE]), int(p[_OR0])
    ux, uy = np.empty(nt), np.empty(nt)
    pos = np.zeros((ne, 2))
    jx, jy = np.zeros((ne, m)), np.zeros((ne, m))
    for k in range(nt):
        th = 0.0
        for j in range(m):
            th += p[oa + k * m + j] * f[j]
        th += p[oc + k]
        cs, sn = math.cos(th), math.sin(th)
        px, py = p[op + 2 * k], p[op + 2 * k + 1]
        ux[k] = cs * px - sn * py
        uy[k] = sn * px + cs * py
        e = int(p[oe + k])
        pos[e, 0] += ux[k]
        pos[e, 1] += uy[k]
        for j in range(m):
            a = p[oa + k * m + j]
            jx[e, j] += -uy[k] * a
            jy[e, j] += ux[k] * a
    for e in range(ne):
        pos[e, 0] += p[orr + 2 * e]
        pos[e, 1] += p[orr + 2 * e + 1]
    return ux, uy, pos, jx, jy


@kernel(allocates=True)
def bilinear(p, ux, uy, v, w):
    """(exprs, 2) ``d2r/df2 [v, w]`` of every expression."""
    m, nt, ne = int(p[_M]), int(p[_NT]), int(p[_NE])
    oa, oe = int(p[_OA]), int(p[_OE])
    out = np.zeros((ne, 2))
    for k in range(nt):
        av = 0.0
        aw = 0.0
        for j in range(m):
            av += p[oa + k * m + j] * v[j]
            aw += p[oa + k * m + j] * w[j]
        e = int(p[oe + k])
        out[e, 0] -= ux[k] * (av * aw)
        out[e, 1] -= uy[k] * (av * aw)
    return out


@kernel(allocates=True)
def lu_factor(a):
    """In place LU with partial pivoting; ``(pivots, ok)``: ok is False for a zero or non-finite pivot."""
    n = a.shape[0]
    piv = np.empty(n, np.int64)
    for i in range(n):  # np.arange(n) without compiling numba's arange
        piv[i] = i
    for c in range(n):
        r, big = c, abs(a[c, c])
        for i in range(c + 1, n):
            if abs(a[i, c]) > big:
                r, big = i, abs(a[i, c])
        if big == 0.0 or not math.isfinite(big):
            return piv, False
        if r != c:
            for j in range(n):
                a[r, j], a[c, j] = a[c, j], a[r, j]
            piv[r], piv[c] = piv[c], piv[r]
        for i in range(c + 1, n):
            lv = a[i, c] / a[c, c]
            a[i, c] = lv
            for j in range(c + 1, n):
                a[i, j] -= lv * a[c, j]
    return piv, True


@kernel(allocates=True)
def lu_solve(a, piv, b):
    n = a.shape[0]
    x = np.empty(n)
    for i in range(n):
        x[i] = b[piv[i]]
    for i in range(n):
        for j in range(i):
            x[i] -= a[i, j] * x[j]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            x[i] -= a[i, j] * x[j]
        x[i] /= a[i, i]
    return x


@kernel
def _coord(p, j):
    """Coordinate ``j``: kind (0 joint, 1 point), its joint or expression, the point's axis."""
    o = int(p[_OCOORD]) + _C_SIZE * j
    return int(p[o + _C_KIND]), int(p[o + _C_INDEX]), int(p[o + _C_AXIS])


@kernel(allocates=True)
def g_f(p, jx, jy):
    """(m, m) ``dG/df``."""
    m, nq, nl = int(p[_M]), int(p[_NQ]), int(p[_NLOOP])
    g = np.zeros((m, m))
    for lp in range(nl):
        for j in range(m):
            g[2 * lp, j] = jx[lp, j]
            g[2 * lp + 1, j] = jy[lp, j]
    for c in range(nq):
        kind, idx, axis = _coord(p, c)
        row = 2 * nl + c
        if kind == 0:
            g[row, idx] = 1.0
        else:
            for j in range(m):
                g[row, j] = jx[idx, j] if axis == 0 else jy[idx, j]
    return g


@kernel(allocates=True)
def residual(p, f, q, pos):
    """(m,) ``G(f, q)``: the loop rows from ``pos`` (exprs, 2), a coordinate's row ``f_j - q_c`` or
    ``pos[e, axis] - q_c`` (with ``f = 0``, ``q = 0`` and ``d2r/df2 [v, w]`` as ``pos``: ``G_ff[v, w]``)."""
    m, nq, nl = int(p[_M]), int(p[_NQ]), int(p[_NLOOP])
    r = np.empty(m)
    for lp in range(nl):
        r[2 * lp] = pos[lp, 0]
        r[2 * lp + 1] = pos[lp, 1]
    for c in range(nq):
        kind, idx, axis = _coord(p, c)
        r[2 * nl + c] = (f[idx] if kind == 0 else pos[idx, axis]) - q[c]
    return r


@kernel(allocates=True)
def newton(p, q, guess):
    """``(f, ok)``: the joints on the manifold at ``q`` (Mechanism.solve's iteration and tests)."""
    f = guess.copy()
    qmax = 0.0
    for c in range(q.size):
        qmax = max(qmax, abs(q[c]))
    for _ in range(MAX_ITER):
        ux, uy, pos, jx, jy = kinematics(p, f)
        g = g_f(p, jx, jy)
        piv, ok = lu_factor(g)
        if not ok:
            break
        step = lu_solve(g, piv, residual(p, f, q, pos))
        smax, fmax, finite = 0.0, 0.0, True
        for j in range(f.size):
            f[j] -= step[j]
            finite = finite and math.isfinite(f[j])
            smax, fmax = max(smax, abs(step[j])), max(fmax, abs(f[j]))
        if not finite:
            break
        if smax <= TOL * (1.0 + fmax):
            pos2 = kinematics(p, f)[2]
            r = residual(p, f, q, pos2)
            rmax = 0.0
            for j in range(r.size):
                rmax = max(rmax, abs(r[j]))
            if rmax <= 1e-12 * (1.0 + qmax):
                return f, True
    return f, False


@helper  # inlined into joints, its one caller (as accel)
def _projection(p, f):
    """``F`` (m, nq), ``H`` (m, nq, nq) at a solved ``f``."""
    m, nq = int(p[_M]), int(p[_NQ])
    ux, uy, _, jx, jy = kinematics(p, f)
    g = g_f(p, jx, jy)
    piv, _ = lu_factor(g)
    F = np.empty((m, nq))
    e = np.zeros(m)
    for j in range(nq):
        e[:] = 0.0
        e[m - nq + j] = 1.0
        col = lu_solve(g, piv, e)
        for i in range(m):  # not F[:, j] = col: a slice copy compiles numba's shape check and its message
            F[i, j] = col[i]
    Hs = np.empty((m, nq, nq))
    f0, q0 = np.zeros(m), np.zeros(nq)
    for j in range(nq):
        for k in range(j, nq):
            b = bilinear(p, ux, uy, F[:, j].copy(), F[:, k].copy())
            col = lu_solve(g, piv, residual(p, f0, q0, b))  # G_f H[:, j, k] = -G_ff[F e_j, F e_k]
            for i in range(m):
                Hs[i, j, k] = -col[i]
                Hs[i, k, j] = -col[i]
    return F, Hs


@kernel(allocates=True)
def _matvec(a, v):
    out = np.zeros(a.shape[0])
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[i] += a[i, j] * v[j]
    return out


@kernel(allocates=True)
def joints(p, q, z):
    """``(f, F, H, ok)`` at ``q``; ``z`` is the Newton guess when the block has no guide spline."""
    m, nq, kind = int(p[_M]), int(p[_NQ]), int(p[_KIND])
    if kind == 1:
        s = spline1(p, q[0], 2)
        F = np.empty((m, 1))
        Hs = np.empty((m, 1, 1))
        for j in range(m):
            F[j, 0] = s[1, j]
            Hs[j, 0, 0] = s[2, j]
        return s[0].copy(), F, Hs, True
    if kind == 2:
        f, F, Hs = spline2(p, q[0], q[1])
        return f, F, Hs, True
    guess = spline1(p, q[0], 0)[0].copy() if p[_GUIDE] > 0.0 else z[:m].copy()
    f, ok = newton(p, q, guess)
    if not ok:
        return f, np.full((m, nq), np.nan), np.full((m, nq, nq), np.nan), False
    F, Hs = _projection(p, f)
    return f, F, Hs, True


@helper  # inlined into mech_derivative, its one caller: as a kernel of its own, LLVM optimised its callees twice
def accel(p, q, qd, tau, z):
    """``qdd`` (nq,) of the embedded ODE (module docstring); NaN when the solve fails."""
    m, nq = int(p[_M]), int(p[_NQ])
    f, F, Hs, ok = joints(p, q, z)
    if not ok:
        return np.full(nq, np.nan)
    fd = _matvec(F, qd)
    ux, uy, pos, jx, jy = kinematics(p, f)
    kap = bilinear(p, ux, uy, fd, fd)
    orot = int(p[_OROT])
    mf = np.empty((m, m))
    for i in range(m):
        for j in range(m):
            mf[i, j] = p[orot + i * m + j]
    bias = np.zeros(m)
    gx, gy = p[int(p[_OGRAV])], p[int(p[_OGRAV]) + 1]
    ob = int(p[_OBODY])
    for bi in range(int(p[_NBODY])):
        e, mass = int(p[ob + _B_SIZE * bi + _B_EXPR]), p[ob + _B_SIZE * bi + _B_MASS]
        fx, fy = mass * (gx - kap[e, 0]), mass * (gy - kap[e, 1])
        for i in range(m):
            bias[i] += jx[e, i] * fx + jy[e, i] * fy
            for j in range(m):
                mf[i, j] += mass * (jx[e, i] * jx[e, j] + jy[e, i] * jy[e, j])
    osp = int(p[_OSPRING])
    for si in range(int(p[_NSPRING])):
        o = osp + _S_SIZE * si
        e = int(p[o + _S_EXPR])
        dxs, dys = pos[e, 0] - p[o + _S_ANCHOR], pos[e, 1] - p[o + _S_ANCHOR + 1]
        length = math.hypot(dxs, dys)
        c = -p[o + _S_K] * (length - p[o + _S_L0]) / length
        for i in range(m):
            bias[i] += jx[e, i] * (c * dxs) + jy[e, i] * (c * dys)
    oct_, obb, ntau = int(p[_OCTAU]), int(p[_OB]), int(p[_NTAU])
    for i in range(m):
        bias[i] += p[oct_ + i]
        for j in range(min(ntau, tau.size)):
            bias[i] += p[obb + i * ntau + j] * tau[j]
    hq = np.zeros(m)
    for i in range(m):
        for j in range(nq):
            for k in range(nq):
                hq[i] += Hs[i, j, k] * qd[j] * qd[k]
    r = bias - _matvec(mf, hq)
    rhs = np.zeros(nq)
    mq = np.zeros((nq, nq))
    mff = np.zeros((m, nq))
    for i in range(m):
        for k in range(nq):
            for j in range(m):
                mff[i, k] += mf[i, j] * F[j, k]
    for a in range(nq):
        for i in range(m):
            rhs[a] += F[i, a] * r[i]
            for k in range(nq):
                mq[a, k] += F[i, a] * mff[i, k]
    piv, ok2 = lu_factor(mq)
    if not ok2:
        return np.full(nq, np.nan)
    return lu_solve(mq, piv, rhs)


@kernel(allocates=True)
def mech_output(t, x, z, *a):
    # a = ([tau,] p, q, qd, joints, joint_rates, points, point_vel)
    n_in = len(a) - 7
    p = a[n_in]
    yq, yqd, yf, yfd, ypt, ypv = a[n_in + 1], a[n_in + 2], a[n_in + 3], a[n_in + 4], a[n_in + 5], a[n_in + 6]
    m, nq = int(p[_M]), int(p[_NQ])
    for j in range(nq):
        yq[j] = x[j]
        yqd[j] = x[nq + j]
    f, F, _, ok = joints(p, x[:nq].copy(), z)
    fd = _matvec(F, x[nq:].copy())
    for i in range(m):
        yf[i] = f[i] if ok else np.nan
        yfd[i] = fd[i]
    _, _, pos, jx, jy = kinematics(p, f)
    e0 = int(p[_NE]) - int(p[_NPOINT])
    for k in range(int(p[_NPOINT])):
        e = e0 + k
        vx, vy = 0.0, 0.0
        for j in range(m):
            vx += jx[e, j] * fd[j]
            vy += jy[e, j] * fd[j]
        ypt[2 * k] = pos[e, 0] if ok else np.nan
        ypt[2 * k + 1] = pos[e, 1] if ok else np.nan
        ypv[2 * k] = vx
        ypv[2 * k + 1] = vy


@kernel(allocates=True)
def mech_derivative(t, x, z, *a):
    # a = ([tau,] p, dx)
    n_in = len(a) - 2
    p, dx = a[n_in], a[n_in + 1]
    tau = a[0] if n_in == 1 else p[:0]
    nq = int(p[_NQ])
    qdd = accel(p, x[:nq].copy(), x[nq:].copy(), tau, z)
    for j in range(nq):
        dx[j] = x[nq + j]
        dx[nq + j] = qdd[j]


@kernel(allocates=True)
def mech_update(t, x, z, *a):
    # a = ([tau,] p, znext): the joints solved at this tick, the next tick's Newton guess
    n_in = len(a) - 2
    p, zn = a[n_in], a[n_in + 1]
    nq = int(p[_NQ])
    f, ok = newton(p, x[:nq].copy(), z[:zn.size].copy())
    for i in range(zn.size):
        zn[i] = f[i] if ok else np.nan
