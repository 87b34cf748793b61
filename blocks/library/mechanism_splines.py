r"""B-spline evaluation for the compiled :class:`~blocks.library.mechanism.PlanarMechanism`: the
pre-modelled manifold ``f(q)`` and the guide spline, packed by :mod:`blocks.library.mechanism_pack`.

``BSpline`` (knots ``t``, coefficients ``c`` (n, m), degree ``k``): on the interval ``t[l] <= x < t[l+1]``
(``k <= l < n``; beyond the ends the end polynomials, as scipy extrapolates),

.. math:: s^{(\nu)}(x) = \sum_{a=0}^{k} c_{l-k+a}\, B^{(\nu)}_{l-k+a,k}(x),

the basis from de Boor's recurrence in scipy's order (``_deBoor_D``). The bivariate spline (fitpack's
``RectBivariateSpline``) is the tensor product, its arguments clamped to the box as fitpack does.
"""

from __future__ import annotations

import math

import numpy as np

from blocks.kernels import kernel
from blocks.library.mechanism_pack import LAYOUT

__all__ = ["deboor", "find_interval", "spline1", "spline2"]

_M = LAYOUT.at("_m")
_ST, _SNT, _SC, _SK, _SLO, _SPER, _SWIND = LAYOUT.at("_s_t", "_s_nt", "_s_c", "_s_k", "_s_lo", "_s_per", "_s_wind")
_BTX, _BNTX, _BTY, _BNTY, _BC, _BK = LAYOUT.at("_b_tx", "_b_ntx", "_b_ty", "_b_nty", "_b_c", "_b_k")


@kernel(literal_args=False)
def find_interval(t, k, n, x):
    """``l`` in ``[k, n - 1]`` with ``t[l] <= x < t[l + 1]`` (the end intervals beyond), as scipy."""
    if x < t[k]:
        return k
    if x >= t[n]:
        return n - 1
    lo, hi = k, n
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if x < t[mid]:
            hi = mid
        else:
            lo = mid
    return lo


@kernel(allocates=True, literal_args=False)  # nu: compiled once, not once per derivative order
def deboor(t, x, k, ell, nu):
    """The ``k + 1`` non-zero B-splines (derivative ``nu``) on interval ``ell`` at ``x`` (scipy's ``_deBoor_D``)."""
    h = np.zeros(k + 1)
    hh = np.zeros(k + 1)
    h[0] = 1.0
    for j in range(1, k + 1):
        deriv = j > k - nu  # the last nu rounds differentiate
        for n in range(j):  # hh[:j] = h[:j] as a loop: a slice copy compiles numba's shape check and its message
            hh[n] = h[n]
        h[0] = 0.0
        for n in range(1, j + 1):
            xb, xa = t[ell + n], t[ell + n - j]
            if xb == xa:
                h[nu if deriv else n] = 0.0  # scipy's quirk kept: a repeated knot zeroes h[nu] when differentiating
                continue
            if deriv:
                w = j * hh[n - 1] / (xb - xa)
                h[n - 1] -= w
                h[n] = w
            else:
                w = hh[n - 1] / (xb - xa)
                h[n - 1] += w * (xb - x)
                h[n] = w * (x - xa)
    return h


@kernel(allocates=True, literal_args=False)
def spline1(p, x, nd):
    """The 1-D pre-model (or guide) at ``x``: ``f`` (m,), and with ``nd = 2`` ``F`` (m, 1), ``H`` (m, 1, 1)
    (:meth:`models.mechanism.manifold.PreModel.evaluate`: the periodic part plus the winding)."""
    m = int(p[_M])
    ot, nt, k = int(p[_ST]), int(p[_SNT]), int(p[_SK])
    t = p[ot: ot + nt]
    n = nt - k - 1
    oc, ow = int(p[_SC]), int(p[_SWIND])
    lo, per = p[_SLO], p[_SPER]
    turns = 0.0
    if per > 0.0:
        turns = math.floor((x - lo) / per)
        x -= turns * per
        x = t[k] + (x - t[k]) % (t[n] - t[k])  # scipy's periodic extrapolation (a no-op inside)
    ell = find_interval(t, k, n, x)
    out = np.zeros((3, m))
    for nu in range(nd + 1):
        b = deboor(t, x, k, ell, nu)
        for j in range(m):
            acc = 0.0
            for a in range(k + 1):
                acc = acc + p[oc + (ell + a - k) * m + j] * b[a]
            out[nu, j] = acc
    if per > 0.0:
        for j in range(m):
            out[0, j] += p[ow + j] * ((x - lo) / per + turns)
            out[1, j] += p[ow + j] / per
    return out


@kernel(allocates=True)
def spline2(p, a, b):
    """The bivariate pre-model at ``(a, b)`` (clamped to its box): ``f``, ``F`` (m, 2), ``H`` (m, 2, 2)."""
    m, k = int(p[_M]), int(p[_BK])
    otx, ntx, oty, nty, oc = int(p[_BTX]), int(p[_BNTX]), int(p[_BTY]), int(p[_BNTY]), int(p[_BC])
    tx, ty = p[otx: otx + ntx], p[oty: oty + nty]
    nx, ny = ntx - k - 1, nty - k - 1
    a = min(max(a, tx[k]), tx[nx])
    b = min(max(b, ty[k]), ty[ny])
    lx, ly = find_interval(tx, k, nx, a), find_interval(ty, k, ny, b)
    bx0, bx1, bx2 = deboor(tx, a, k, lx, 0), deboor(tx, a, k, lx, 1), deboor(tx, a, k, lx, 2)
    by0, by1, by2 = deboor(ty, b, k, ly, 0), deboor(ty, b, k, ly, 1), deboor(ty, b, k, ly, 2)
    f = np.empty(m)
    F = np.empty((m, 2))
    Hs = np.empty((m, 2, 2))
    for i in range(m):
        base = oc + i * nx * ny
        vals = np.zeros(6)  # f, fx, fy, fxx, fyy, fxy
        for r in range(k + 1):
            for s in range(k + 1):
                c = p[base + (lx - k + r) * ny + (ly - k + s)]
                vals[0] += c * bx0[r] * by0[s]
                vals[1] += c * bx1[r] * by0[s]
                vals[2] += c * bx0[r] * by1[s]
                vals[3] += c * bx2[r] * by0[s]
                vals[4] += c * bx0[r] * by2[s]
                vals[5] += c * bx1[r] * by1[s]
        f[i] = vals[0]
        F[i, 0], F[i, 1] = vals[1], vals[2]
        Hs[i, 0, 0], Hs[i, 1, 1] = vals[3], vals[4]
        Hs[i, 0, 1] = Hs[i, 1, 0] = vals[5]
    return f, F, Hs
