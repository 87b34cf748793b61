r"""A planar constrained multibody system: bodies, revolute joints, closed loops (Ehsani 2023, §3).

Joint variables ``f`` (m of them, rad) describe the mechanism cut open at its loops (a tree,
:mod:`models.mechanism.geometry`). Closing the loops and defining the generalized
coordinates ``q`` (nq of them) gives m algebraic equations (Ehsani, Eq. 100):

.. math::

    G(f, q) = \begin{bmatrix} r_{P_\ell}(f) - r_{Q_\ell}(f) \\ c(f) - q \end{bmatrix} = 0,

two rows per loop :math:`\ell` (the two cut points coincide) and one row per coordinate,
:math:`c_j(f)` being a joint variable or a point coordinate (the four-bar's q is the height
of the coupler's CoM, Ehsani's Eq. 121). Applied loads, all as generalized forces on ``f``
(:math:`Q_f`, N m):

* gravity :math:`m_b g` at each CoM: :math:`J_{cm,b}^T m_b g`;
* linear springs between a body point and a ground anchor, stiffness k [N/m], rest
  length :math:`l_0` [m]: force :math:`-k (l - l_0)\, e` on the point, :math:`e` the unit
  vector from the anchor, generalized :math:`J^T F`; energy :math:`\tfrac12 k (l - l_0)^2`;
* joint torques (constant ones and the driving-torque inputs ``tau``): :math:`B\,\tau`,
  ``B`` (m, n_tau) selecting the joints they act across.

The tree's dynamics in ``f`` follow from the virtual work (Ehsani §4, Eqs. 124-195 in planar
form) with :math:`\ddot r_b = J_b \ddot f + \kappa_b`, :math:`\ddot\varphi_b = a_b^T \ddot f`:

.. math::

    M_f(f) = \sum_b m_b J_b^T J_b + I_b a_b a_b^T \quad [kg\,m^2],\qquad
    c_f(f, \dot f) = \sum_b m_b J_b^T \kappa_b \quad [N\,m],

    \delta f^T \left( M_f \ddot f + c_f - Q_f \right) = 0 \quad \text{for every admissible } \delta f .

:mod:`models.mechanism.embedded` restricts :math:`\delta f` to the manifold (minimal
coordinates); :mod:`models.mechanism.dae` keeps ``f`` with Lagrange multipliers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from models.mechanism.geometry import Body, PointExpr

__all__ = ["Coordinate", "Spring", "Mechanism", "ConstraintError"]


class ConstraintError(ArithmeticError):
    """The loop equations have no solution near the guess (out of the range of motion)."""


@dataclass(frozen=True)
class Coordinate:
    """A generalized coordinate: joint variable ``joint``, or component ``axis`` (0 = x,
    1 = y) of the point ``expr``. ``range`` [lo, hi] is its range of motion (pre-modelling);
    ``period`` (e.g. 2 pi for a crank) makes the manifold periodic."""

    name: str
    joint: int | None = None
    expr: PointExpr | None = None
    axis: int = 1
    range: tuple[float, float] = (-np.pi, np.pi)
    period: float | None = None
    unit: str = "rad"


@dataclass(frozen=True)
class Spring:
    """Linear spring from body point ``attach`` to ground point ``anchor`` [m]: ``k`` [N/m],
    rest length ``l0`` [m]."""

    attach: PointExpr
    anchor: tuple[float, float]
    k: float
    l0: float


@dataclass
class Mechanism:
    """A planar mechanism (see the module docstring). Built by :mod:`models.mechanism.library`."""

    name: str
    joint_names: tuple[str, ...]
    bodies: tuple[Body, ...]
    loops: tuple[tuple[PointExpr, PointExpr], ...]
    coords: tuple[Coordinate, ...]
    f_guess: np.ndarray
    gravity: tuple[float, float] = (0.0, -9.81)
    springs: tuple[Spring, ...] = ()
    torque_joints: tuple[tuple[str, np.ndarray], ...] = ()  # (input name, (m,) weights on f)
    const_torque: np.ndarray | None = None  # (m,) constant generalized force on f [N m]
    points: dict[str, PointExpr] = field(default_factory=dict)
    links: tuple[tuple[str, ...], ...] = ()  # polylines of point names, for drawing
    ground: tuple[str, ...] = ()  # point names fixed to the ground, for drawing
    q0: np.ndarray | None = None
    qd0: np.ndarray | None = None
    description: str = ""

    def __post_init__(self) -> None:
        m, nq = len(self.joint_names), len(self.coords)
        if 2 * len(self.loops) + nq != m:
            raise ValueError(f"mechanism {self.name}: {m} joint variables need 2 x loops + coordinates "
                             f"= {2 * len(self.loops)} + {nq} equations")
        self.f_guess = np.asarray(self.f_guess, dtype=float)
        self._B = (np.column_stack([w for _, w in self.torque_joints]) if self.torque_joints
                   else np.zeros((m, 0)))
        # every point expression stacked in one table: one cos/sin per evaluation
        exprs = [p - q for p, q in self.loops]
        self._i_loop = np.arange(len(exprs))
        self._coord_rows = []
        for c in self.coords:
            if c.expr is not None:
                self._coord_rows.append(len(exprs))
                exprs.append(c.expr)
            else:
                self._coord_rows.append(-1)
        self._i_body = np.arange(len(exprs), len(exprs) + len(self.bodies))
        exprs += [b.com for b in self.bodies]
        self._i_spring = np.arange(len(exprs), len(exprs) + len(self.springs))
        exprs += [s.attach for s in self.springs]
        sizes = [e.A.shape[0] for e in exprs]
        self._A = np.vstack([e.A for e in exprs]) if exprs else np.zeros((0, m))
        self._c = np.concatenate([e.c for e in exprs]) if exprs else np.zeros(0)
        self._P = np.vstack([e.P for e in exprs]) if exprs else np.zeros((0, 2))
        self._R0 = np.array([e.r0 for e in exprs]).reshape(-1, 2)
        self._S = np.zeros((len(exprs), int(sum(sizes))))
        col = 0
        for i, n in enumerate(sizes):
            self._S[i, col:col + n] = 1.0
            col += n
        self._masses = np.array([b.mass for b in self.bodies])
        self._Ia = np.array([b.a for b in self.bodies]).reshape(-1, m)
        self._inertia = np.array([b.inertia for b in self.bodies])
        self._rot_M = (self._Ia.T * self._inertia) @ self._Ia
        self._cache_key = b""
        self._cache: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] = (self._A, self._A, self._A, self._A)

    # ------------------------------------------------------------------ sizes
    @property
    def m(self) -> int:
        return len(self.joint_names)

    @property
    def nq(self) -> int:
        return len(self.coords)

    @property
    def torque_names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.torque_joints)

    # --------------------------------------------------- stacked kinematics
    def _kin(self, f: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``u`` (terms, 2), positions (exprs, 2), ``Jx``, ``Jy`` (exprs, m) of every expression."""
        key = f.tobytes()
        if key == self._cache_key:
            return self._cache
        th = self._A @ f + self._c
        cs, sn = np.cos(th), np.sin(th)
        ux = cs * self._P[:, 0] - sn * self._P[:, 1]
        uy = sn * self._P[:, 0] + cs * self._P[:, 1]
        u = np.column_stack((ux, uy))
        pos = self._S @ u + self._R0
        Jx = self._S @ (-uy[:, None] * self._A)
        Jy = self._S @ (ux[:, None] * self._A)
        self._cache_key, self._cache = key, (u, pos, Jx, Jy)
        return self._cache

    def _bilinear(self, f: np.ndarray, v: np.ndarray, w: np.ndarray) -> np.ndarray:
        """(exprs, 2) ``d2r/df2 [v, w]`` of every expression; ``v = w = fd`` gives ``kappa``."""
        u = self._kin(f)[0]
        return self._S @ (-u * ((self._A @ v) * (self._A @ w))[:, None])

    @staticmethod
    def _rows(idx: np.ndarray, Jx: np.ndarray, Jy: np.ndarray) -> np.ndarray:
        out = np.empty((2 * idx.size, Jx.shape[1]))
        out[0::2], out[1::2] = Jx[idx], Jy[idx]
        return out

    # ------------------------------------------------------ constraint algebra
    def loop_residual(self, f: np.ndarray) -> np.ndarray:
        """(2 n_loops,) loop-closure residual [m]."""
        return self._kin(f)[1][self._i_loop].ravel()

    def loop_jacobian(self, f: np.ndarray) -> np.ndarray:
        """(2 n_loops, m) ``d(loop residual)/df`` [m/rad]."""
        _, _, Jx, Jy = self._kin(f)
        return self._rows(self._i_loop, Jx, Jy)

    def loop_convective(self, f: np.ndarray, fd: np.ndarray) -> np.ndarray:
        """(2 n_loops,) ``Phi_ff [fd, fd]`` [m/s^2]."""
        return self._bilinear(f, fd, fd)[self._i_loop].ravel()

    def coord_values(self, f: np.ndarray) -> np.ndarray:
        """(nq,) the generalized coordinates ``c(f)`` of a joint configuration."""
        pos = self._kin(f)[1]
        return np.array([f[c.joint] if c.joint is not None else pos[r, c.axis]
                         for c, r in zip(self.coords, self._coord_rows)])

    def _coord_jac(self, f: np.ndarray) -> np.ndarray:
        _, _, Jx, Jy = self._kin(f)
        rows = np.zeros((self.nq, self.m))
        for j, (c, r) in enumerate(zip(self.coords, self._coord_rows)):
            if c.joint is not None:
                rows[j, c.joint] = 1.0
            else:
                rows[j] = (Jx, Jy)[c.axis][r]
        return rows

    def residual(self, f: np.ndarray, q: np.ndarray) -> np.ndarray:
        """(m,) ``G(f, q)`` of the module docstring."""
        return np.concatenate((self.loop_residual(f), self.coord_values(f) - q))

    def G_f(self, f: np.ndarray) -> np.ndarray:
        """(m, m) ``dG/df``; ``dG/dq = -[0; I]`` is constant."""
        return np.vstack((self.loop_jacobian(f), self._coord_jac(f)))

    def G_hess(self, f: np.ndarray, v: np.ndarray, w: np.ndarray) -> np.ndarray:
        """(m,) the bilinear ``d2G/df2 [v, w]`` (``v = w = fd``: the convective term)."""
        b = self._bilinear(f, v, w)
        coord = [0.0 if c.joint is not None else b[r, c.axis] for c, r in zip(self.coords, self._coord_rows)]
        return np.concatenate((b[self._i_loop].ravel(), coord))

    def G_conv(self, f: np.ndarray, fd: np.ndarray) -> np.ndarray:
        """(m,) ``d2G/df2 [fd, fd]`` (``G`` is linear in ``q``)."""
        return self.G_hess(f, fd, fd)

    def solve(self, q: Sequence[float] | np.ndarray, guess: np.ndarray | None = None, tol: float = 1e-9,
              max_iter: int = 30) -> np.ndarray:
        """Joint variables on the manifold at ``q``: Newton on ``G(f, q) = 0`` from ``guess``.

        Newton converges quadratically: after a step below ``tol`` (1 + |f|) [rad] the error
        left is of order ``step^2`` (about 1e-18 rad at the default), so it stops there and
        checks the residual (<= 1e-12 (1 + |G_f|) m); raises :class:`ConstraintError`.
        """
        q = np.asarray(q, dtype=float)
        f = (self.f_guess if guess is None else np.asarray(guess, dtype=float)).copy()
        for _ in range(max_iter):
            try:
                step = np.linalg.solve(self.G_f(f), self.residual(f, q))
            except np.linalg.LinAlgError:
                break
            f = f - step
            if not np.all(np.isfinite(f)):
                break
            if np.max(np.abs(step)) <= tol * (1.0 + np.max(np.abs(f))):
                if np.max(np.abs(self.residual(f, q))) <= 1e-12 * (1.0 + np.max(np.abs(q))):
                    return f
        raise ConstraintError(f"mechanism {self.name}: the loop equations have no solution near the guess at "
                              f"q = {np.array2string(q, precision=6)} (outside the range of motion or singular)")

    # --------------------------------------------------------------- dynamics
    def mass_matrix_f(self, f: np.ndarray) -> np.ndarray:
        """(m, m) ``M_f`` [kg m^2] of the open tree."""
        _, _, Jx, Jy = self._kin(f)
        jx, jy = Jx[self._i_body], Jy[self._i_body]
        mm = self._masses[:, None]
        return jx.T @ (mm * jx) + jy.T @ (mm * jy) + self._rot_M

    def bias_f(self, f: np.ndarray, fd: np.ndarray, tau: np.ndarray | None = None) -> np.ndarray:
        """(m,) ``Q_f - c_f`` [N m]: applied generalized forces minus convective inertia."""
        _, pos, Jx, Jy = self._kin(f)
        kappa = self._bilinear(f, fd, fd)[self._i_body]
        g = np.asarray(self.gravity)
        force = self._masses[:, None] * (g - kappa)
        out = Jx[self._i_body].T @ force[:, 0] + Jy[self._i_body].T @ force[:, 1]
        for s, i in zip(self.springs, self._i_spring):
            d = pos[i] - np.asarray(s.anchor)
            length = float(np.hypot(d[0], d[1]))
            fs = -s.k * (length - s.l0) / length * d
            out += Jx[i] * fs[0] + Jy[i] * fs[1]
        if self.const_torque is not None:
            out += self.const_torque
        if tau is not None and self._B.shape[1]:
            out += self._B @ np.asarray(tau, dtype=float)
        return out

    def energy(self, f: np.ndarray, fd: np.ndarray) -> float:
        """Kinetic + gravitational + spring energy [J] (constant torques do work: not included)."""
        T = 0.5 * fd @ self.mass_matrix_f(f) @ fd
        pos = self._kin(f)[1]
        g = np.asarray(self.gravity)
        V = -float(self._masses @ (pos[self._i_body] @ g))
        for s, i in zip(self.springs, self._i_spring):
            d = pos[i] - np.asarray(s.anchor)
            V += 0.5 * s.k * (float(np.hypot(d[0], d[1])) - s.l0) ** 2
        return float(T + V)

    def point_positions(self, f: np.ndarray) -> np.ndarray:
        """(n_points, 2) positions of the named points [m], in ``points`` order."""
        return np.array([e.position(f) for e in self.points.values()]).reshape(-1, 2)
