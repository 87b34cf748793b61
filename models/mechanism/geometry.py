r"""Planar point kinematics as explicit functions of the joint variables (Ehsani 2023, §3).

A planar mechanism of revolute joints, cut open at its loops, is a tree: the absolute angle
of every body is a linear combination of the joint variables ``f`` (rad),

.. math:: \varphi_b(f) = a_b^T f + c_b ,

and every material point is a sum of rotated body-fixed vectors,

.. math:: r(f) = r_0 + \sum_k R(\theta_k)\, p_k, \qquad \theta_k = a_k^T f + c_k ,

with :math:`R(\theta)` the rotation by :math:`\theta` (counter-clockwise, x right, y up),
:math:`p_k` a body-fixed vector (m) and :math:`r_0` a fixed ground point (m). Writing
:math:`u_k = R(\theta_k) p_k` and :math:`u_k^\perp = R(\pi/2) u_k`, the derivatives are
closed-form (no finite differences anywhere):

.. math::

    J(f) = \frac{\partial r}{\partial f} = \sum_k u_k^\perp a_k^T \quad [m/rad],

    \frac{\partial^2 r}{\partial f\,\partial f}[v, w] = -\sum_k u_k (a_k^T v)(a_k^T w),

so velocity and acceleration of the point are :math:`\dot r = J \dot f` (m/s) and
:math:`\ddot r = J \ddot f + \kappa(f, \dot f)` with the convective term
:math:`\kappa = -\sum_k u_k (a_k^T \dot f)^2` (m/s²). This is the planar instance of
Ehsani's :math:`D_i` and :math:`D_i'` matrices (Eqs. 44-57): the gradient and Hessian of the
body transform with respect to the coordinates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["PointExpr", "Body", "point"]


@dataclass(frozen=True)
class PointExpr:
    """``r(f) = r0 + sum_k R(A[k] f + c[k]) P[k]`` (see the module docstring).

    ``A`` (k, m) joint weights, ``c`` (k,) angle offsets [rad], ``P`` (k, 2) body vectors [m],
    ``r0`` (2,) ground offset [m].
    """

    A: np.ndarray
    c: np.ndarray
    P: np.ndarray
    r0: np.ndarray

    def _u(self, f: np.ndarray) -> np.ndarray:
        th = self.A @ f + self.c
        cs, sn = np.cos(th), np.sin(th)
        return np.column_stack((cs * self.P[:, 0] - sn * self.P[:, 1], sn * self.P[:, 0] + cs * self.P[:, 1]))

    def position(self, f: np.ndarray) -> np.ndarray:
        """(2,) position [m]."""
        return self.r0 + self._u(f).sum(axis=0)

    def jacobian(self, f: np.ndarray) -> np.ndarray:
        """(2, m) ``dr/df`` [m/rad]."""
        u = self._u(f)
        perp = np.column_stack((-u[:, 1], u[:, 0]))
        return perp.T @ self.A

    def convective(self, f: np.ndarray, fd: np.ndarray) -> np.ndarray:
        """(2,) ``kappa = d2r/df2 [fd, fd]`` [m/s^2]: the acceleration when ``fdd = 0``."""
        w = self.A @ fd
        return -(self._u(f) * (w * w)[:, None]).sum(axis=0)

    def hessian(self, f: np.ndarray, v: np.ndarray, w: np.ndarray) -> np.ndarray:
        """(2,) the bilinear second derivative ``d2r/df2 [v, w]`` [m]."""
        return -(self._u(f) * ((self.A @ v) * (self.A @ w))[:, None]).sum(axis=0)

    def __sub__(self, other: PointExpr) -> PointExpr:
        return PointExpr(np.vstack((self.A, other.A)), np.concatenate((self.c, other.c)),
                         np.vstack((self.P, -other.P)), self.r0 - other.r0)


def point(m: int, terms: Sequence[tuple[Sequence[int], Sequence[float]] | tuple[Sequence[int], Sequence[float], float]],
          r0: Sequence[float] = (0.0, 0.0)) -> PointExpr:
    """Build a :class:`PointExpr` over ``m`` joint variables.

    Each term is ``(joints, (px, py))`` or ``(joints, (px, py), c)``: the vector ``(px, py)``
    [m] fixed in the body whose absolute angle is the sum of the joint variables listed in
    ``joints`` plus ``c`` [rad]. ``r0`` is a ground point [m].
    """
    A = np.zeros((len(terms), m))
    c = np.zeros(len(terms))
    P = np.zeros((len(terms), 2))
    for k, term in enumerate(terms):
        joints, vec = term[0], term[1]
        for j in joints:
            A[k, j] += 1.0
        c[k] = float(term[2]) if len(term) > 2 else 0.0
        P[k] = vec
    return PointExpr(A, c, P, np.asarray(r0, dtype=float))


@dataclass(frozen=True)
class Body:
    """A rigid planar body: ``mass`` [kg], ``inertia`` about its CoM [kg m^2], absolute
    angle ``a^T f + c`` [rad], CoM position ``com`` (a :class:`PointExpr`)."""

    name: str
    mass: float
    inertia: float
    a: np.ndarray
    c: float
    com: PointExpr
