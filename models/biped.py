r"""Planar five-link biped: kinematics and Lagrangian dynamics, and the project's conventions.

Conventions
-----------
World frame x forward, y up, gravity ``-g y``. Generalised coordinates
``q = [x0, y0, alpha, beta_l, beta_r, gamma_l, gamma_r]`` (m, m, rad x5): trunk CoM,
trunk angle from the upward vertical (+ = forward lean), hip flexion (+ = thigh forward),
knee flexion (+ = flexed). Absolute thigh and shank angles from the downward vertical,
clockwise-positive: ``th1 = alpha - beta``, ``th2 = th1 + gamma``. ``alpha`` is clockwise
positive too, so every link's counter-clockwise angular velocity is minus the rate of its
absolute angle.

Derivation (projection form, Blajer & Czaplicki 2005; identical to Lagrange's equations)
----------------------------------------------------------------------------------------
Each link i has mass ``m_i`` [kg], central inertia ``J_i`` [kg m^2], CoM position
``p_i(q)`` [m] and absolute angle ``phi_i(q)`` (linear in q, with constant gradient
``a_i``). With ``D_i = dp_i/dq`` (2x7) the CoM Jacobian,

* kinetic energy ``T = 1/2 qd^T M qd`` with
  ``M(q) = sum_i m_i D_i^T D_i + J_i a_i a_i^T``                     [kg, kg m, kg m^2];
* the CoM acceleration is ``D_i qdd + gamma_i`` with the velocity-product term
  ``gamma_i = Ddot_i qd`` [m s^-2] (for a point at distance ``c`` along a link of angle
  ``phi``: ``c (sin phi, cos phi) phi_dot^2``);
* d'Alembert / virtual power gives ``M qdd = b`` with

  ``b = Q_coriolis + Q_gravity + Q_joint + Q_foot``                   [N or N m]

  - ``Q_coriolis = -sum_i m_i D_i^T gamma_i`` (centrifugal and Coriolis forces),
  - ``Q_gravity  = -sum_i m_i g D_i^T e_y``,
  - ``Q_joint``: the hip torque ``tau_hip`` acts counter-clockwise on the thigh and
    clockwise on the trunk, so its virtual power is ``tau_hip * beta_dot`` and it lands on
    the ``beta`` row alone; likewise the knee torque (clockwise on the shank) on ``gamma``;
  - ``Q_foot = J_foot^T F`` for each point foot, ``F`` the world-frame force on the foot.

Rolling foot (``BipedParams.foot_radius = R > 0``): an arc of radius ``R`` fixed to the
shank, centred ``c = foot + R (sin th2, cos th2)`` on the shank axis. On flat ground it
touches at ``P = c - (0, R)``, and ``F`` acts there. The force at ``P`` is the force at the
foot point plus the moment ``M_z = (P - foot) x F = R (sin th2 F_y - (cos th2 - 1) F_x)``
[N m, ccw +] on the shank, whose virtual power ``-M_z th2_dot`` adds ``-M_z d(th2)/dq``:
``-M_z`` on the alpha and gamma rows and ``+M_z`` on beta. A ground moment ``mz`` given to
the dynamics (optional, (2,) ``[l, r]`` N m, ccw +; e.g. a centre of pressure ``d`` metres
ahead of the contact point gives ``mz = d F_y``) enters the same way. The contact is described by the
rolling coordinates (:meth:`FiveLinkBiped.contact_coordinates`)::

    xi  = c_x - R th2     [m]   constant while the arc rolls without slipping
    eta = c_y - R         [m]   height of the arc's lowest point (0 on the ground)

whose rates are exactly the velocity of the shank's material point at ``P``. With
``R = 0`` all of this is the point foot.

The :class:`GeneralizedForces` split exposes these terms one by one (the later M/C/G/E
torque decomposition is built on it).

Two implementations compute the same equations: a vectorised numpy reference
(:mod:`models._eom_numpy`) and compiled numba kernels (:mod:`models._eom_numba`), chosen
by the ``GAITBLOCKS_BACKEND`` environment variable (``numba`` default, ``numpy`` forced).
A third, independent Newton-Euler formulation in maximal coordinates lives in
:mod:`models.newton_euler` and checks them in the tests.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from models import _eom_numba
from models import _eom_numpy as ref
from models.params import BipedParams, LinkParams

__all__ = ["BipedParams", "LinkParams", "FiveLinkBiped", "GeneralizedForces", "Q_NAMES", "TAU_NAMES", "GRF_NAMES"]

Q_NAMES = ("x0", "y0", "alpha", "beta_l", "beta_r", "gamma_l", "gamma_r")
TAU_NAMES = ("hip_l", "hip_r", "knee_l", "knee_r")
GRF_NAMES = ("F_lx", "F_ly", "F_rx", "F_ry")

POINT_NAMES = ("head", "hip", "knee_l", "knee_r", "foot_l", "foot_r", "contact_l", "contact_r", "com")


def _backend_from_env() -> str:
    wanted = os.environ.get("GAITBLOCKS_BACKEND", "numba").strip().lower()
    if wanted not in ("numba", "numpy"):
        raise ValueError(f"GAITBLOCKS_BACKEND must be 'numba' or 'numpy', got {wanted!r}")
    if wanted == "numba" and not _eom_numba.AVAILABLE:
        return "numpy"
    return wanted


@dataclass(frozen=True)
class GeneralizedForces:
    """Right-hand side of ``M(q) qdd = b`` split by origin; each is ``(7,)`` in N or N m."""

    coriolis: np.ndarray
    gravity: np.ndarray
    joint: np.ndarray
    foot: np.ndarray

    @property
    def total(self) -> np.ndarray:
        return self.coriolis + self.gravity + self.joint + self.foot


def _batch(x: np.ndarray | None, width: int) -> np.ndarray:
    if x is None:
        return np.zeros((1, width))
    return np.asarray(x, dtype=np.float64).reshape(1, width)


class FiveLinkBiped:
    """The five-link biped (conventions in the module doc).

    Parameters
    ----------
    params : BipedParams
        Segment parameters; :meth:`BipedParams.paper` by default.
    backend : {"numba", "numpy"}, optional
        Implementation of :meth:`forward_dynamics`; default from ``GAITBLOCKS_BACKEND``.
    """

    n_dof = 7

    def __init__(self, params: BipedParams | None = None, backend: str | None = None) -> None:
        self.params = params if params is not None else BipedParams.paper()
        self._p = self.params.as_array()
        self.backend = backend if backend is not None else _backend_from_env()
        if self.backend not in ("numba", "numpy"):
            raise ValueError(f"backend must be 'numba' or 'numpy', got {self.backend!r}")
        if self.backend == "numba" and not _eom_numba.AVAILABLE:
            raise RuntimeError("backend 'numba' asked for, but numba is not installed (pip install numba)")

    @property
    def total_mass(self) -> float:
        return self.params.total_mass

    # ------------------------------------------------------------------ dynamics
    def mass_matrix(self, q: np.ndarray) -> np.ndarray:
        """Generalised mass matrix ``M(q)``, (7, 7), symmetric positive definite."""
        Q = _batch(q, 7)
        return ref.eom_terms(self._p, Q, np.zeros_like(Q), np.zeros((1, 4)), np.zeros((1, 4))).M[0]

    def generalized_forces(
        self, q: np.ndarray, qd: np.ndarray, tau: np.ndarray | None = None, grf: np.ndarray | None = None,
        mz: np.ndarray | None = None,
    ) -> GeneralizedForces:
        """Coriolis/centrifugal, gravity, joint-torque and foot-force parts of ``rhs`` (ground
        moments ``mz`` count with the foot forces)."""
        t = ref.eom_terms(self._p, _batch(q, 7), _batch(qd, 7), _batch(tau, 4), _batch(grf, 4), _batch(mz, 2))
        return GeneralizedForces(t.coriolis[0], t.gravity[0], t.joint[0], t.foot[0])

    def inertial_forces(self, q: np.ndarray, qdd: np.ndarray) -> np.ndarray:
        """Inertia term ``M(q) qdd`` (7,) in N or N m."""
        return self.mass_matrix(q) @ np.asarray(qdd, dtype=np.float64)

    def rhs(self, q: np.ndarray, qd: np.ndarray, tau: np.ndarray | None = None,
            grf: np.ndarray | None = None, mz: np.ndarray | None = None) -> np.ndarray:
        """``b(q, qd, tau, grf[, mz])`` with ``M qdd = b``, (7,)."""
        return self.generalized_forces(q, qd, tau, grf, mz).total

    def forward_dynamics(self, q: np.ndarray, qd: np.ndarray, tau: np.ndarray | None = None,
                         grf: np.ndarray | None = None, mz: np.ndarray | None = None) -> np.ndarray:
        """Accelerations ``qdd`` (7,) [m s^-2, rad s^-2]; ``mz`` (2,) ground moments on the shanks."""
        tau_a = np.zeros(4) if tau is None else np.asarray(tau, dtype=np.float64)
        grf_a = np.zeros(4) if grf is None else np.asarray(grf, dtype=np.float64)
        mz_a = np.zeros(2) if mz is None else np.asarray(mz, dtype=np.float64)
        if self.backend == "numba":
            return _eom_numba.forward_dynamics_one(
                self._p, np.asarray(q, dtype=np.float64), np.asarray(qd, dtype=np.float64), tau_a, grf_a, mz_a
            )
        return ref.forward_dynamics(self._p, _batch(q, 7), _batch(qd, 7), tau_a[None], grf_a[None], mz_a[None])[0]

    def accel_function(self) -> Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
        """``f(q, qd, tau, grf, mz) -> qdd`` with the least call overhead (float64 contiguous arrays in)."""
        if self.backend == "numba":
            return partial(_eom_numba.forward_dynamics_one, self._p)
        return self.forward_dynamics

    def com_state(self, q: np.ndarray, qd: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``[x, y, vx, vy]``: whole-body CoM position [m] and velocity ``J_com qd`` [m/s]."""
        out = np.empty(4) if out is None else out
        q_a, qd_a = np.asarray(q, dtype=np.float64), np.asarray(qd, dtype=np.float64)
        if self.backend == "numba":
            return _eom_numba.com_state_one(self._p, q_a, qd_a, out)
        out[0:2] = self.points(q_a)["com"]
        out[2:4] = self.com_jacobian(q_a) @ qd_a
        return out

    def feet_state(self, q: np.ndarray, qd: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``[xi_l, eta_l, vx_l, vy_l, xi_r, eta_r, vx_r, vy_r]`` [m, m/s]: contact coordinates
        (:meth:`contact_coordinates`) and the velocity of the shank's point in contact (the
        point foot itself when ``foot_radius = 0``)."""
        out = np.empty(8) if out is None else out
        q_a, qd_a = np.asarray(q, dtype=np.float64), np.asarray(qd, dtype=np.float64)
        if self.backend == "numba":
            return _eom_numba.feet_state_one(self._p, q_a, qd_a, out)
        xi = self.contact_coordinates(q_a)[0]
        radius = self.params.foot_radius
        for side, jac in enumerate(self.foot_jacobians(q_a)):
            th2 = q_a[2] - q_a[3 + side] + q_a[5 + side]
            w2 = qd_a[2] - qd_a[3 + side] + qd_a[5 + side]
            v = jac @ qd_a + radius * w2 * np.array([np.cos(th2) - 1.0, -np.sin(th2)])
            out[4 * side: 4 * side + 2], out[4 * side + 2: 4 * side + 4] = xi[2 * side: 2 * side + 2], v
        return out

    def contact_coordinates(self, Q: np.ndarray) -> np.ndarray:
        """``(N, 4)`` rolling coordinates ``[xi_l, eta_l, xi_r, eta_r]`` [m] (module doc).

        ``eta`` is the height of the foot's lowest point, ``xi`` the ground position the
        arc would touch with the shank vertical; both equal the foot point when
        ``foot_radius = 0``.
        """
        Q = np.atleast_2d(np.asarray(Q, dtype=np.float64))
        pts, radius = self.points_batch(Q), self.params.foot_radius
        out = np.empty((Q.shape[0], 4))
        for side, tag in ((0, "l"), (1, "r")):
            th2 = Q[:, 2] - Q[:, 3 + side] + Q[:, 5 + side]
            out[:, 2 * side] = pts[f"foot_{tag}"][:, 0] + radius * (np.sin(th2) - th2)
            out[:, 2 * side + 1] = pts[f"foot_{tag}"][:, 1] + radius * (np.cos(th2) - 1.0)
        return out

    def forward_dynamics_batch(self, Q: np.ndarray, QD: np.ndarray, TAU: np.ndarray | None = None,
                               GRF: np.ndarray | None = None, out: np.ndarray | None = None,
                               MZ: np.ndarray | None = None) -> np.ndarray:
        """Accelerations for ``N`` states at once: ``(N, 7)`` from ``(N, 7), (N, 7), (N, 4), (N, 4)``
        and optional ground moments ``MZ`` ``(N, 2)``."""
        Q = np.ascontiguousarray(Q, dtype=np.float64)
        QD = np.ascontiguousarray(QD, dtype=np.float64)
        n = Q.shape[0]
        TAU = np.zeros((n, 4)) if TAU is None else np.ascontiguousarray(TAU, dtype=np.float64)
        GRF = np.zeros((n, 4)) if GRF is None else np.ascontiguousarray(GRF, dtype=np.float64)
        MZ = np.zeros((n, 2)) if MZ is None else np.ascontiguousarray(MZ, dtype=np.float64)
        for name, arr, width in (("Q", Q, 7), ("QD", QD, 7), ("TAU", TAU, 4), ("GRF", GRF, 4), ("MZ", MZ, 2)):
            if arr.shape != (n, width):
                raise ValueError(f"{name} must have shape ({n}, {width}), got {arr.shape}")
        if self.backend == "numba":
            result = np.empty((n, 7)) if out is None else out
            return _eom_numba.forward_dynamics_many(self._p, Q, QD, TAU, GRF, MZ, result)
        result = ref.forward_dynamics(self._p, Q, QD, TAU, GRF, MZ)
        if out is not None:
            out[...] = result
            return out
        return result

    def inverse_dynamics(self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
                         grf: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Joint torques that produce ``qdd``, and the unexplained residual.

        Solves ``M qdd - (coriolis + gravity + foot) = Q`` for the generalised force ``Q``
        that joint torques would have to supply. Joint torques act only on the beta and
        gamma rows, so ``tau = Q[3:7]`` (``[hip_l, hip_r, knee_l, knee_r]``, N m) and the
        rows ``(x0, y0, alpha)`` are the residual (N, N, N m): zero when the motion and the
        foot forces are consistent. Accepts one state (7,) or a batch (N, 7).
        """
        Q = np.atleast_2d(np.asarray(q, dtype=np.float64))
        QD = np.atleast_2d(np.asarray(qd, dtype=np.float64))
        QDD = np.atleast_2d(np.asarray(qdd, dtype=np.float64))
        GRF = np.zeros((Q.shape[0], 4)) if grf is None else np.atleast_2d(np.asarray(grf, dtype=np.float64))
        t = ref.eom_terms(self._p, Q, QD, np.zeros((Q.shape[0], 4)), GRF)
        gen = np.einsum("nij,nj->ni", t.M, QDD) - (t.coriolis + t.gravity + t.foot)
        tau, residual = gen[:, 3:7], gen[:, 0:3]
        if np.ndim(q) == 1:
            return tau[0], residual[0]
        return tau, residual

    # ---------------------------------------------------------------- kinematics
    def points_batch(self, Q: np.ndarray) -> dict[str, np.ndarray]:
        """Named points (each ``(N, 2)``, m) for a batch of configurations."""
        Q = np.atleast_2d(np.asarray(Q, dtype=np.float64))
        pr = self.params
        l0, r0 = pr.trunk.length, pr.trunk.com
        l1, r1, l2, r2 = pr.thigh.length, pr.thigh.com, pr.shank.length, pr.shank.com
        a = Q[:, 2]
        trunk = Q[:, :2]
        up = np.stack([np.sin(a), np.cos(a)], axis=-1)
        hip = trunk - r0 * up
        out = {"head": trunk + (l0 - r0) * up, "hip": hip}
        com = pr.trunk.mass * trunk
        for side, tag in ((0, "l"), (1, "r")):
            th1 = a - Q[:, 3 + side]
            th2 = th1 + Q[:, 5 + side]
            d1 = np.stack([np.sin(th1), np.cos(th1)], axis=-1)
            d2 = np.stack([np.sin(th2), np.cos(th2)], axis=-1)
            knee = hip - l1 * d1
            out[f"knee_{tag}"] = knee
            out[f"foot_{tag}"] = knee - l2 * d2
            out[f"contact_{tag}"] = out[f"foot_{tag}"] + pr.foot_radius * (d2 - np.array([0.0, 1.0]))
            com = com + pr.thigh.mass * (hip - r1 * d1) + pr.shank.mass * (knee - r2 * d2)
        out["com"] = com / pr.total_mass
        return out

    def points(self, q: np.ndarray) -> dict[str, np.ndarray]:
        """head, hip, knee_l, knee_r, foot_l, foot_r, contact_l, contact_r (where a rolling foot
        touches flat ground; the foot point when ``foot_radius = 0``) and com, each (2,) in m."""
        return {k: v[0] for k, v in self.points_batch(_batch(q, 7)).items()}

    def foot_jacobians(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(J_l, J_r)``: d(foot position)/dq, each (2, 7)."""
        Q = _batch(q, 7)
        pr = self.params
        jac = []
        for side in (0, 1):
            t = ref.leg_trig(Q, np.zeros_like(Q), side)
            J5 = ref.point_jacobian(pr.trunk.com, t, pr.thigh.length, pr.shank.length)
            jac.append(ref.full_jacobian(J5, side)[0])
        return jac[0], jac[1]

    def _com_terms(self, q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        Q, QD = _batch(q, 7), _batch(qd, 7)
        pr = self.params
        J = np.zeros((2, 7))
        bias = np.zeros(2)
        J[0, 0] = J[1, 1] = pr.trunk.mass
        for side in (0, 1):
            t = ref.leg_trig(Q, QD, side)
            for m, a1, a2 in ((pr.thigh.mass, pr.thigh.com, 0.0), (pr.shank.mass, pr.thigh.length, pr.shank.com)):
                J += m * ref.full_jacobian(ref.point_jacobian(pr.trunk.com, t, a1, a2), side)[0]
                bias += m * ref.point_bias(pr.trunk.com, t, a1, a2)[0]
        return J / pr.total_mass, bias / pr.total_mass

    def com_jacobian(self, q: np.ndarray) -> np.ndarray:
        """Whole-body CoM Jacobian (2, 7)."""
        return self._com_terms(q, np.zeros(7))[0]

    def com_acceleration(self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
        """Whole-body CoM acceleration ``J_com qdd + Jdot_com qd`` (2,) in m s^-2."""
        J, bias = self._com_terms(q, qd)
        return J @ np.asarray(qdd, dtype=np.float64) + bias

    def momentum(self, q: np.ndarray, qd: np.ndarray) -> np.ndarray:
        """Linear momentum of the whole body (2,) in kg m s^-1."""
        return self.total_mass * (self.com_jacobian(q) @ np.asarray(qd, dtype=np.float64))

    def energy(self, q: np.ndarray, qd: np.ndarray) -> tuple[float, float]:
        """``(kinetic, potential)`` in J; potential datum y = 0."""
        qd_a = np.asarray(qd, dtype=np.float64)
        kinetic = 0.5 * float(qd_a @ self.mass_matrix(q) @ qd_a)
        potential = self.total_mass * self.params.g * float(self.points(q)["com"][1])
        return kinetic, potential
