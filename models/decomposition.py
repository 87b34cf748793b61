r"""Joint-torque decomposition in Duarte's M/C/G/E form.

For a system with equations of motion ``M(q) q_dd = Q_c(q, q_d) + Q_g(q) + Q_e(q, F) + Q_tau``
(generalised Coriolis/centrifugal, gravity, external and joint-torque forces), the torque
that the joints must supply is (Duarte, "Multibody dynamics of simple biomechanical
models", BMC; Craig 2005)

.. math::

    \tau = \underbrace{M(q)\ddot q}_{\text{inertial}} + \underbrace{C(q,\dot q)}_{-Q_c}
         + \underbrace{G(q)}_{-Q_g} + \underbrace{E(q, F)}_{-Q_e} .

Each part is the torque needed to *overcome* that effect, in N m. Interaction torques
(Hollerbach & Flash 1982) are here the inertial plus Coriolis/centrifugal parts.

Two systems are provided: the five-link biped (:func:`biped_decomposition`, on
``FiveLinkBiped.mass_matrix`` and ``generalized_forces``; the joint rows are
``[hip_l, hip_r, knee_l, knee_r]`` and the unactuated rows ``(x0, y0, alpha)`` form the
residual) and Duarte's planar two-link arm (:class:`TwoLinkArm`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.biped import FiveLinkBiped
from models.segments import DUARTE_ARM_LENGTHS, WINTER, scale_segment


@dataclass(frozen=True)
class TorqueDecomposition:
    """Parts of the joint torques, each ``(N, n_joints)`` in N m; ``residual`` (N, k) or None."""

    inertial: np.ndarray
    coriolis: np.ndarray
    gravity: np.ndarray
    external: np.ndarray
    residual: np.ndarray | None = None

    @property
    def total(self) -> np.ndarray:
        return self.inertial + self.coriolis + self.gravity + self.external

    @property
    def interaction(self) -> np.ndarray:
        """Inertial + Coriolis/centrifugal parts."""
        return self.inertial + self.coriolis


def decompose(mass_matrix: np.ndarray, qdd: np.ndarray, coriolis_force: np.ndarray, gravity_force: np.ndarray,
              external_force: np.ndarray, joints: slice | np.ndarray | None = None,
              unactuated: slice | np.ndarray | None = None) -> TorqueDecomposition:
    """Generic M/C/G/E split of ``M q_dd - Q_c - Q_g - Q_e``.

    Parameters
    ----------
    mass_matrix : (N, n, n) array
    qdd : (N, n) array
    coriolis_force, gravity_force, external_force : (N, n) arrays
        Generalised forces on the right-hand side of the equations of motion.
    joints : index, optional
        Rows driven by joint torques (all rows by default).
    unactuated : index, optional
        Rows reported as ``residual`` (the sum of all parts there; zero for consistent data).
    """
    inertial = np.einsum("nij,nj->ni", mass_matrix, qdd)
    parts = (inertial, -np.asarray(coriolis_force), -np.asarray(gravity_force), -np.asarray(external_force))
    rows = slice(None) if joints is None else joints
    residual = None
    if unactuated is not None:
        residual = parts[0][:, unactuated] + parts[1][:, unactuated] + parts[2][:, unactuated] \
            + parts[3][:, unactuated]
    inert, cor, grav, ext = (p[:, rows] for p in parts)
    return TorqueDecomposition(inert, cor, grav, ext, residual)


def biped_decomposition(biped: FiveLinkBiped, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
                        grf: np.ndarray | None = None) -> TorqueDecomposition:
    """M/C/G/E parts of the biped's joint torques ``[hip_l, hip_r, knee_l, knee_r]`` [N m].

    ``q, qd, qdd`` are (7,) or (N, 7), ``grf`` (4,) or (N, 4) [N]. ``external`` is the
    torque that balances the foot forces, ``-(J_foot^T F)``; ``total`` equals
    ``biped.inverse_dynamics(...)[0]`` and ``residual`` its second output.
    """
    Q = np.atleast_2d(np.asarray(q, dtype=np.float64))
    n = Q.shape[0]
    QD = np.asarray(qd, dtype=np.float64).reshape(n, 7)
    QDD = np.asarray(qdd, dtype=np.float64).reshape(n, 7)
    GRF = np.zeros((n, 4)) if grf is None else np.asarray(grf, dtype=np.float64).reshape(n, 4)
    M = np.empty((n, 7, 7))
    cor, grav, ext = (np.empty((n, 7)) for _ in range(3))
    for i in range(n):
        M[i] = biped.mass_matrix(Q[i])
        f = biped.generalized_forces(Q[i], QD[i], None, GRF[i])
        cor[i], grav[i], ext[i] = f.coriolis, f.gravity, f.foot
    out = decompose(M, QDD, cor, grav, ext, joints=slice(3, 7), unactuated=slice(0, 3))
    if np.ndim(q) == 1:
        return TorqueDecomposition(*(np.asarray(a)[0] for a in (out.inertial, out.coriolis, out.gravity,
                                                                 out.external, out.residual)))
    return out


@dataclass(frozen=True)
class TwoLinkArm:
    """Planar shoulder-elbow arm of Duarte's notebook.

    ``q = [q1, q2]``: ``q1`` the upper arm's angle from the forward horizontal, ``q2`` the
    elbow angle (forearm relative to upper arm), both counter-clockwise [rad]; gravity -y.
    Segment 2 is forearm + hand. ``l`` lengths, ``d`` joint-to-CoM distances [m], ``m``
    masses [kg], ``inertia`` about each CoM [kg m^2].
    """

    l1: float
    l2: float
    d1: float
    d2: float
    m1: float
    m2: float
    inertia1: float
    inertia2: float
    g: float = 9.81

    @classmethod
    def dempster(cls, height: float = 1.70, mass: float = 70.0, g: float = 9.81) -> TwoLinkArm:
        """Dempster/Winter fractions (:mod:`models.segments`) with Duarte's arm lengths."""
        up = scale_segment(WINTER["upper_arm"], DUARTE_ARM_LENGTHS["upper_arm"] * height, mass)
        fo = scale_segment(WINTER["forearm_hand"], DUARTE_ARM_LENGTHS["forearm_hand"] * height, mass)
        return cls(up.length, fo.length, up.com, fo.com, up.mass, fo.mass, up.inertia, fo.inertia, g)

    def mass_matrix(self, q: np.ndarray) -> np.ndarray:
        """``M(q)`` (N, 2, 2) [kg m^2]."""
        c2 = np.cos(np.atleast_2d(q)[:, 1])
        a = self.m2 * self.l1 * self.d2
        m22 = self.inertia2 + self.m2 * self.d2**2
        m12 = m22 + a * c2
        m11 = self.inertia1 + self.m1 * self.d1**2 + self.m2 * self.l1**2 + m22 + 2.0 * a * c2
        return np.stack([np.stack([m11, m12], -1), np.stack([m12, np.full_like(c2, m22)], -1)], -2)

    def generalized_forces(self, q: np.ndarray, qd: np.ndarray,
                           end_force: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(Q_c, Q_g, Q_e)``, each (N, 2) [N m], for an endpoint force (N, 2) [N] on the hand."""
        Q, QD = np.atleast_2d(q), np.atleast_2d(qd)
        q1, q2, w1, w2 = Q[:, 0], Q[:, 1], QD[:, 0], QD[:, 1]
        a = self.m2 * self.l1 * self.d2 * np.sin(q2)
        coriolis = np.stack([a * (2.0 * w1 * w2 + w2**2), -a * w1**2], -1)
        c1, c12 = np.cos(q1), np.cos(q1 + q2)
        g2 = self.g * self.m2 * self.d2 * c12
        gravity = -np.stack([self.g * (self.m1 * self.d1 + self.m2 * self.l1) * c1 + g2, g2], -1)
        F = np.zeros_like(Q) if end_force is None else np.atleast_2d(end_force)
        s1, s12 = np.sin(q1), np.sin(q1 + q2)
        j1 = np.stack([-(self.l1 * s1 + self.l2 * s12), self.l1 * c1 + self.l2 * c12], -1)  # d(end)/dq1
        j2 = np.stack([-self.l2 * s12, self.l2 * c12], -1)
        external = np.stack([np.sum(j1 * F, -1), np.sum(j2 * F, -1)], -1)
        return coriolis, gravity, external

    def decomposition(self, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray,
                      end_force: np.ndarray | None = None) -> TorqueDecomposition:
        """M/C/G/E parts of the shoulder and elbow torques, (N, 2) each [N m]."""
        cor, grav, ext = self.generalized_forces(q, qd, end_force)
        return decompose(self.mass_matrix(q), np.atleast_2d(qdd), cor, grav, ext)


def minimum_jerk(q_start: np.ndarray, q_end: np.ndarray, duration: float,
                 n: int = 501) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Minimum-jerk path (Flash & Hogan 1985) between two postures, with exact derivatives.

    ``s = 10 u^3 - 15 u^4 + 6 u^5``, ``u = t / duration``; returns ``t`` (n,) [s] and
    ``q, qd, qdd`` (n, k) in the units of ``q`` per s^0, s^-1, s^-2.
    """
    if not duration > 0:
        raise ValueError(f"duration must be > 0 s, got {duration!r}")
    t = np.linspace(0.0, duration, n)
    u = (t / duration)[:, None]
    dq = np.asarray(q_end, dtype=np.float64) - np.asarray(q_start, dtype=np.float64)
    s = 10 * u**3 - 15 * u**4 + 6 * u**5
    sd = (30 * u**2 - 60 * u**3 + 30 * u**4) / duration
    sdd = (60 * u - 180 * u**2 + 120 * u**3) / duration**2
    return t, np.asarray(q_start) + s * dq, sd * dq, sdd * dq


def dominance(dec: TorqueDecomposition) -> dict[str, np.ndarray]:
    """Per joint, the fraction of samples where gravity or the interaction torque is larger.

    Returns ``{"gravity": (n_joints,), "interaction": (n_joints,)}``: the share of samples
    with ``|G| > |M q_dd + C|`` and with ``|M q_dd + C| > |G|``.
    """
    g, i = np.abs(dec.gravity), np.abs(dec.interaction)
    return {"gravity": np.mean(g > i, axis=0), "interaction": np.mean(i > g, axis=0)}
