r"""Classical kinematic analysis in absolute coordinates (Shabana, *Computational Dynamics*),
the independent check of the empirically-based kinematics (Ehsani 2023, §3-4).

Each body i has absolute coordinates :math:`X_i = (x_i, y_i, \varphi_i)` (m, m, rad) of a frame
at its proximal joint. Constraints, all stacked into :math:`C(X, t) = 0`:

* revolute joint between point :math:`s_i` of body i and :math:`s_j` of body j (or a ground
  point): :math:`r_i + R(\varphi_i) s_i - r_j - R(\varphi_j) s_j = 0`;
* drivers: an angle :math:`\varphi_i - \varphi_j = q_k(t)` or a point height
  :math:`[r_i + R(\varphi_i) s]_y = q_k(t)`.

Position: Newton on :math:`C = 0`. Velocity: :math:`C_X \dot X = -C_t` (the driver rows give
:math:`\dot q_k`). Acceleration: :math:`C_X \ddot X = \gamma`, with
:math:`\gamma = R(\varphi_i) s_i \dot\varphi_i^2 - R(\varphi_j) s_j \dot\varphi_j^2` for a joint
and :math:`\ddot q_k + [R(\varphi_i) s]_y \dot\varphi_i^2` for a height driver. Nothing here
uses the joint-variable manifold: it shares only the link lengths with
:mod:`models.mechanism.library`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["AbsoluteMechanism", "four_bar_absolute", "five_bar_absolute"]


def _R(phi: float) -> np.ndarray:
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, -s], [s, c]])


def _dR(phi: float) -> np.ndarray:
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[-s, -c], [c, -s]])


@dataclass
class AbsoluteMechanism:
    """Bodies ``n_b``; ``joints``: ``(i, s_i, j, s_j)`` with ``j = -1`` for a ground point
    ``s_j``; ``drivers``: ``("angle", i, j)`` (``j = -1``: absolute) or ``("height", i, s)``."""

    n_b: int
    joints: list[tuple[int, tuple[float, float], int, tuple[float, float]]]
    drivers: list[tuple]

    def _C(self, X: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = 3 * self.n_b
        rows, jac = [], []
        for i, si, j, sj in self.joints:
            c = X[3 * i:3 * i + 2] + _R(X[3 * i + 2]) @ np.array(si)
            J = np.zeros((2, n))
            J[:, 3 * i:3 * i + 2] = np.eye(2)
            J[:, 3 * i + 2] = _dR(X[3 * i + 2]) @ np.array(si)
            if j >= 0:
                c -= X[3 * j:3 * j + 2] + _R(X[3 * j + 2]) @ np.array(sj)
                J[:, 3 * j:3 * j + 2] -= np.eye(2)
                J[:, 3 * j + 2] -= _dR(X[3 * j + 2]) @ np.array(sj)
            else:
                c -= np.array(sj)
            rows.append(c)
            jac.append(J)
        for k, d in enumerate(self.drivers):
            J = np.zeros((1, n))
            if d[0] == "angle":
                _, i, j = d
                val = X[3 * i + 2] - (X[3 * j + 2] if j >= 0 else 0.0)
                J[0, 3 * i + 2] = 1.0
                if j >= 0:
                    J[0, 3 * j + 2] = -1.0
            else:
                _, i, s = d
                val = X[3 * i + 1] + (_R(X[3 * i + 2]) @ np.array(s))[1]
                J[0, 3 * i + 1] = 1.0
                J[0, 3 * i + 2] = (_dR(X[3 * i + 2]) @ np.array(s))[1]
            rows.append(np.array([val - q[k]]))
            jac.append(J)
        return np.concatenate(rows), np.vstack(jac)

    def _gamma(self, X: np.ndarray, Xd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
        out = []
        for i, si, j, sj in self.joints:
            g = _R(X[3 * i + 2]) @ np.array(si) * Xd[3 * i + 2] ** 2
            if j >= 0:
                g -= _R(X[3 * j + 2]) @ np.array(sj) * Xd[3 * j + 2] ** 2
            out.append(g)
        for k, d in enumerate(self.drivers):
            if d[0] == "angle":
                out.append(np.array([qdd[k]]))
            else:
                _, i, s = d
                out.append(np.array([qdd[k] + (_R(X[3 * i + 2]) @ np.array(s))[1] * Xd[3 * i + 2] ** 2]))
        return np.concatenate(out)

    def analyse(self, X: np.ndarray, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> tuple[
            np.ndarray, np.ndarray, np.ndarray]:
        """Position (Newton from ``X``), velocity and acceleration of all coordinates."""
        X = X.copy()
        for _ in range(50):
            C, J = self._C(X, q)
            step = np.linalg.solve(J, C)
            X -= step
            if np.max(np.abs(step)) < 1e-15 * (1 + np.max(np.abs(X))):
                break
        _, J = self._C(X, q)
        rhs_v = np.concatenate((np.zeros(2 * len(self.joints)), qd))
        Xd = np.linalg.solve(J, rhs_v)
        Xdd = np.linalg.solve(J, self._gamma(X, Xd, qdd))
        return X, Xd, Xdd

    @staticmethod
    def point_kinematics(X: np.ndarray, Xd: np.ndarray, Xdd: np.ndarray, i: int, s: tuple[float, float]) -> tuple[
            np.ndarray, np.ndarray]:
        """Velocity [m/s] and acceleration [m/s^2] of point ``s`` of body ``i``."""
        phi, w, al = X[3 * i + 2], Xd[3 * i + 2], Xdd[3 * i + 2]
        sv = np.array(s)
        v = Xd[3 * i:3 * i + 2] + _dR(phi) @ sv * w
        a = Xdd[3 * i:3 * i + 2] + _dR(phi) @ sv * al - _R(phi) @ sv * w * w
        return v, a


def four_bar_absolute(l0: float, l1: float, l2: float, lcm2: float, l3: float) -> AbsoluteMechanism:
    """Bodies 0, 1, 2 = link 1, coupler, link 3; driver: coupler CoM height = q."""
    joints = [(0, (0.0, 0.0), -1, (0.0, 0.0)), (0, (l1, 0.0), 1, (0.0, 0.0)), (1, (l2, 0.0), 2, (0.0, 0.0)),
              (2, (l3, 0.0), -1, (l0, 0.0))]
    return AbsoluteMechanism(3, joints, [("height", 1, (lcm2, 0.0))])


def five_bar_absolute(l0: float, l1: float, l2: float, l3: float, l4: float) -> AbsoluteMechanism:
    """Bodies 0..3 = links 1..4; drivers: phi_1 = q1, phi_2 - phi_1 = q2."""
    joints = [(0, (0.0, 0.0), -1, (0.0, 0.0)), (0, (l1, 0.0), 1, (0.0, 0.0)), (1, (l2, 0.0), 2, (0.0, 0.0)),
              (2, (l3, 0.0), 3, (0.0, 0.0)), (3, (l4, 0.0), -1, (l0, 0.0))]
    return AbsoluteMechanism(4, joints, [("angle", 0, -1), ("angle", 1, 0)])
