r"""Joint variables as functions of the generalized coordinates, with gradient and Hessian
(Ehsani 2023, §3-3): ``f = f(q)``, :math:`\nabla f` = ``F`` (m, nq), :math:`H` (m, nq, nq).

Three ways, one interface (:meth:`evaluate` -> ``f, F, H``):

* :class:`Projection` -- *analytical projection*: solve :math:`G(f, q) = 0` exactly (Newton,
  :meth:`~models.mechanism.system.Mechanism.solve`) at every evaluation, then differentiate
  the identity :math:`G(f(q), q) \equiv 0` once and twice (Ehsani, Eqs. 101-120):

  .. math::

      G_f F = S, \qquad G_f H[:, j, l] = -G_{ff}[F e_j, F e_l],

  with :math:`S = -\partial G/\partial q = [0; I]`. (Ehsani eliminates with projection
  matrices, Eqs. 105-119; a dense LU solve of the same square system gives the same numbers.)
* :class:`PreModel` -- *pre-modelling*: sweep q over its range of motion with a fixed step
  (Ehsani: 0.01), solve the constraints at each node by continuation, and fit splines (quintic
  here, so the Hessian -- a second derivative -- stays accurate to about step^4; Ehsani used
  cubic splines and Fourier series). Derivatives are the spline's. A coordinate with a
  ``period`` (a crank) is fitted over one turn: ``f(q) = p(q) + w (q - lo) / period`` with
  ``p`` periodic and ``w`` the joints' winding per turn (multiples of 2 pi).
* :class:`NumericalDiff` -- *numerical differentiation* on the computational molecule (Ehsani
  Fig. 2): exact solves at ``q +- h e_j`` (and the corners for mixed terms), central
  differences. Truncation error ~ h^2, round-off ~ eps/h (gradient) and eps/h^2 (Hessian):
  the step length matters.
"""

from __future__ import annotations

import numpy as np

from models.mechanism.system import Mechanism

__all__ = ["Projection", "PreModel", "NumericalDiff", "continuation", "hessian_term", "sweep"]


MAX_NODES_2D = 40_000  # exact solves of a bivariate pre-model (about 2 s)


def hessian_term(H: np.ndarray, qd: np.ndarray) -> np.ndarray:
    """(m,) ``H[qd, qd]``: the part of ``fdd`` not proportional to ``qdd`` [rad/s^2]."""
    return np.einsum("ijk,j,k->i", H, qd, qd)


class Projection:
    """Exact constraint solve + analytical projection (see the module docstring)."""

    kind = "projection"

    def __init__(self, mech: Mechanism) -> None:
        self.mech = mech
        self._S = np.vstack((np.zeros((mech.m - mech.nq, mech.nq)), np.eye(mech.nq)))

    def solve(self, q: np.ndarray, guess: np.ndarray | None = None) -> np.ndarray:
        return self.mech.solve(q, guess)

    def derivatives(self, f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``F`` (m, nq) and ``H`` (m, nq, nq) at a solved ``f``."""
        mech = self.mech
        lu = np.linalg.inv(mech.G_f(f))
        F = lu @ self._S
        H = np.empty((mech.m, mech.nq, mech.nq))
        for j in range(mech.nq):
            for k in range(j, mech.nq):
                H[:, j, k] = H[:, k, j] = -lu @ mech.G_hess(f, F[:, j], F[:, k])
        return F, H

    def evaluate(self, q: np.ndarray, guess: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        f = self.solve(np.atleast_1d(np.asarray(q, dtype=float)), guess)
        F, H = self.derivatives(f)
        return f, F, H


def sweep(mech: Mechanism, lo: float, hi: float, step: float, start: np.ndarray | None = None) -> tuple[
        np.ndarray, np.ndarray]:
    """Nodes ``q`` from lo to hi (``step`` apart) and the joints solved there by continuation
    (each solve starts from the previous node's solution). 1-dof mechanisms."""
    n = int(round((hi - lo) / step))
    qs = lo + step * np.arange(n + 1)
    fs = np.empty((qs.size, mech.m))
    guess = start
    for i, qv in enumerate(qs):
        fs[i] = guess = mech.solve(np.array([qv]), guess)
    return qs, fs


def continuation(mech: Mechanism, q_to: np.ndarray, f_from: np.ndarray | None = None, step: float = 0.02) -> np.ndarray:
    """Joints at ``q_to`` reached from ``f_from`` (default ``mech.f_guess``) along a straight
    path in q, ``step`` apart: stays on the starting assembly branch."""
    f = mech.f_guess if f_from is None else f_from
    q_from = mech.coord_values(f)
    q_to = np.asarray(q_to, dtype=float)
    n = max(1, int(np.ceil(np.max(np.abs(q_to - q_from)) / step)))
    for k in range(1, n + 1):
        f = mech.solve(q_from + (q_to - q_from) * k / n, f)
    return f


class PreModel:
    """Splines of ``f(q)`` fitted to exact solutions at nodes ``step`` apart (see module doc).

    ``q_start``: a coordinate value whose branch is the one modelled (the solve there starts
    from ``mech.f_guess``); default the middle of the range. ``ranges``: per coordinate
    (lo, hi); default the coordinates' ranges of motion.
    """

    kind = "spline"

    def __init__(self, mech: Mechanism, step: float = 0.01, q_start: np.ndarray | None = None,
                 degree: int = 5, ranges: tuple[tuple[float, float], ...] | None = None) -> None:
        self.mech, self.step, self.degree = mech, step, degree
        self.ranges = ranges if ranges is not None else tuple(c.range for c in mech.coords)
        if mech.nq == 1:
            self._fit_1d(q_start)
        elif mech.nq == 2:
            self._fit_2d()
        else:
            raise ValueError("pre-modelling is implemented for 1 and 2 coordinates")

    def _fit_1d(self, q_start: np.ndarray | None) -> None:
        mech, c = self.mech, self.mech.coords[0]
        lo, hi = self.ranges[0] if c.period is None else (self.ranges[0][0], self.ranges[0][0] + c.period)
        mid = np.array([0.5 * (lo + hi)]) if q_start is None else np.atleast_1d(q_start)
        f_mid = mech.solve(mid)
        q_up, f_up = sweep(mech, float(mid[0]), hi + 0.5 * self.step, self.step, f_mid)
        q_dn, f_dn = sweep(mech, float(mid[0]), lo - 0.5 * self.step, -self.step, f_mid)
        qs = np.concatenate((q_dn[::-1], q_up[1:]))
        fs = np.vstack((f_dn[::-1], f_up[1:]))
        self.lo, self.period = lo, c.period
        if c.period is None:
            self.winding = np.zeros(mech.m)
            from scipy.interpolate import make_interp_spline  # at need: 0.45 s of every start otherwise

            self._spl = make_interp_spline(qs, fs, k=self.degree)
            return
        # one turn on the grid lo .. lo + period, periodic after removing the winding
        n = int(round(c.period / self.step))
        grid = lo + c.period * np.arange(n + 1) / n
        f_grid = np.column_stack([np.interp(grid, qs, fs[:, j]) for j in range(mech.m)])
        f_grid = np.array([mech.solve(np.array([g]), fg) for g, fg in zip(grid, f_grid)])
        self.winding = 2 * np.pi * np.round((f_grid[-1] - f_grid[0]) / (2 * np.pi))
        per = f_grid - np.outer((grid - lo) / c.period, self.winding)
        per[-1] = per[0]
        from scipy.interpolate import make_interp_spline

        self._spl = make_interp_spline(grid, per, k=self.degree, bc_type="periodic")

    def _fit_2d(self) -> None:
        mech = self.mech
        (lo0, hi0), (lo1, hi1) = self.ranges
        g0 = np.arange(lo0, hi0 + 0.5 * self.step, self.step)
        g1 = np.arange(lo1, hi1 + 0.5 * self.step, self.step)
        if g0.size * g1.size > MAX_NODES_2D:
            raise ValueError(f"pre-modelling {mech.name} on a {g0.size} x {g1.size} grid is too large "
                             f"(limit {MAX_NODES_2D} nodes): use a larger step or smaller ranges")
        fs = np.empty((g0.size, g1.size, mech.m))
        row_guess = continuation(mech, np.array([g0[0], g1[0]]))
        for i, a in enumerate(g0):
            guess = row_guess = mech.solve(np.array([a, g1[0]]), row_guess)
            for j, b in enumerate(g1):
                fs[i, j] = guess = mech.solve(np.array([a, b]), guess)
        k = min(self.degree, 5)
        from scipy.interpolate import RectBivariateSpline

        self._spl2 = [RectBivariateSpline(g0, g1, fs[:, :, i], kx=k, ky=k, s=0) for i in range(mech.m)]

    def value(self, q: np.ndarray) -> np.ndarray:
        """``f(q)`` alone (no derivatives): the Newton guess of :class:`~models.mechanism.embedded.Embedded`."""
        q = np.atleast_1d(np.asarray(q, dtype=float))
        if self.mech.nq == 2:
            return np.array([s(q[0], q[1])[0, 0] for s in self._spl2])
        x = float(q[0])
        if self.period is None:
            return np.asarray(self._spl(x), dtype=float)
        turns = np.floor((x - self.lo) / self.period)
        x -= turns * self.period
        return np.asarray(self._spl(x) + self.winding * ((x - self.lo) / self.period + turns), dtype=float)

    def evaluate(self, q: np.ndarray, guess: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        q = np.atleast_1d(np.asarray(q, dtype=float))
        m = self.mech.m
        if self.mech.nq == 2:
            a, b = float(q[0]), float(q[1])
            f = np.array([s(a, b)[0, 0] for s in self._spl2])
            F = np.array([[s(a, b, dx=1)[0, 0], s(a, b, dy=1)[0, 0]] for s in self._spl2])
            H = np.empty((m, 2, 2))
            for i, s in enumerate(self._spl2):
                H[i, 0, 0] = s(a, b, dx=2)[0, 0]
                H[i, 1, 1] = s(a, b, dy=2)[0, 0]
                H[i, 0, 1] = H[i, 1, 0] = s(a, b, dx=1, dy=1)[0, 0]
            return f, F, H
        x = float(q[0])
        turns = 0.0
        if self.period is not None:
            turns = np.floor((x - self.lo) / self.period)
            x -= turns * self.period
            lin = self.winding / self.period
            f = self._spl(x) + self.winding * ((x - self.lo) / self.period + turns)
            F = (self._spl(x, 1) + lin)[:, None]
        else:
            f = self._spl(x)
            F = self._spl(x, 1)[:, None]
        H = self._spl(x, 2)[:, None, None]
        return np.asarray(f, dtype=float), F, H


class NumericalDiff:
    """Central differences of exact solves on the computational molecule, step ``h``."""

    kind = "numerical"

    def __init__(self, mech: Mechanism, h: float = 1e-4) -> None:
        self.mech, self.h = mech, h

    def evaluate(self, q: np.ndarray, guess: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        mech, h = self.mech, self.h
        q = np.atleast_1d(np.asarray(q, dtype=float))
        f0 = mech.solve(q, guess)
        nq = mech.nq
        E = np.eye(nq) * h
        plus = [mech.solve(q + E[j], f0) for j in range(nq)]
        minus = [mech.solve(q - E[j], f0) for j in range(nq)]
        F = np.column_stack([(plus[j] - minus[j]) / (2 * h) for j in range(nq)])
        H = np.empty((mech.m, nq, nq))
        for j in range(nq):
            H[:, j, j] = (plus[j] - 2 * f0 + minus[j]) / (h * h)
            for k in range(j + 1, nq):
                pp = mech.solve(q + E[j] + E[k], f0)
                pm = mech.solve(q + E[j] - E[k], f0)
                mp = mech.solve(q - E[j] + E[k], f0)
                mm = mech.solve(q - E[j] - E[k], f0)
                H[:, j, k] = H[:, k, j] = (pp - pm - mp + mm) / (4 * h * h)
        return f0, F, H
