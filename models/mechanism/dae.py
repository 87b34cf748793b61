r"""The DAE path: all m joint variables with Lagrange multipliers, reduced to index 1.

With the loop constraints :math:`\Phi(f) = 0` (2 per loop, [m]) the equations of motion of
the open tree (:mod:`models.mechanism.system`) are the index-3 DAE

.. math:: M_f \ddot f + \Phi_f^T \lambda = Q_f - c_f, \qquad \Phi(f) = 0 .

Differentiating the constraint twice, :math:`\Phi_f \ddot f + \Phi_{ff}[\dot f, \dot f] = 0`,
gives an index-1 system solved for :math:`(\ddot f, \lambda)` at every evaluation:

.. math::

    \begin{bmatrix} M_f & \Phi_f^T \\ \Phi_f & 0 \end{bmatrix}
    \begin{bmatrix} \ddot f \\ \lambda \end{bmatrix} =
    \begin{bmatrix} Q_f - c_f \\ -\Phi_{ff}[\dot f, \dot f] - 2\alpha\, \Phi_f \dot f - \beta^2 \Phi \end{bmatrix}

(:math:`\lambda` in N; :math:`\Phi_{ff}[\dot f,\dot f]` is the loops' convective term). The
index-1 form only keeps :math:`\ddot\Phi = 0`: position and velocity errors grow (drift).
Two remedies:

* ``"baumgarte"`` (Baumgarte 1972): the terms with :math:`\alpha, \beta` [1/s] turn the
  constraint into the damped oscillator :math:`\ddot\Phi + 2\alpha\dot\Phi + \beta^2\Phi = 0`;
* ``"projection"``: integrate with :math:`\alpha = \beta = 0` over segments of ``proj_dt`` and
  project the state back onto the manifold after each: :math:`f \leftarrow f - \Phi_f^+ \Phi`
  (Newton, minimum norm) and :math:`\dot f \leftarrow \dot f - \Phi_f^+ \Phi_f \dot f`.

Drift is reported as the largest :math:`|\Phi|` [m] and :math:`|\Phi_f \dot f|` [m/s] over the
output points (for projection: before each projection). The state is ``[f, fd]``; ``q`` is
read from ``f`` (:meth:`~models.mechanism.system.Mechanism.coord_values`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from scipy.integrate import solve_ivp

from models.mechanism.system import Mechanism

__all__ = ["DAE", "DaeRun"]


@dataclass
class DaeRun:
    """A DAE solution: ``t`` [s], joints ``f``/``fd`` (n, m), coordinates ``q`` (n, nq), RHS
    evaluations ``nfev``, ``wall_s`` [s], drift ``drift_pos`` [m] and ``drift_vel`` [m/s]."""

    t: np.ndarray
    f: np.ndarray
    fd: np.ndarray
    q: np.ndarray
    nfev: int
    wall_s: float
    drift_pos: float
    drift_vel: float
    message: str


class DAE:
    """Index-1 DAE of ``mech`` with ``stabilisation`` ``"baumgarte"`` (``alpha``, ``beta`` [1/s])
    or ``"projection"`` (every ``proj_dt`` [s]); see the module docstring."""

    def __init__(self, mech: Mechanism, stabilisation: str = "baumgarte", alpha: float = 0.0, beta: float = 0.0,
                 proj_dt: float = 1e-3) -> None:
        if stabilisation not in ("baumgarte", "projection"):
            raise ValueError(f"stabilisation must be 'baumgarte' or 'projection', got {stabilisation!r}")
        self.mech, self.stabilisation = mech, stabilisation
        self.alpha, self.beta, self.proj_dt = (alpha, beta, proj_dt) if stabilisation == "baumgarte" else (
            0.0, 0.0, proj_dt)
        self.nfev = 0

    def accel(self, f: np.ndarray, fd: np.ndarray, tau: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``fdd`` [rad/s^2] and ``lambda`` [N] (see the module docstring)."""
        self.nfev += 1
        mech = self.mech
        m, k = mech.m, 2 * len(mech.loops)
        Pf = mech.loop_jacobian(f)
        K = np.zeros((m + k, m + k))
        K[:m, :m] = mech.mass_matrix_f(f)
        K[:m, m:] = Pf.T
        K[m:, :m] = Pf
        rhs = np.concatenate((mech.bias_f(f, fd, tau), -mech.loop_convective(f, fd) - 2 * self.alpha * (Pf @ fd)
                              - self.beta ** 2 * mech.loop_residual(f)))
        sol = np.linalg.solve(K, rhs)
        return sol[:m], sol[m:]

    def project(self, f: np.ndarray, fd: np.ndarray, tol: float = 1e-14) -> tuple[np.ndarray, np.ndarray]:
        """The nearest consistent state (minimum-norm Newton on positions, then velocities)."""
        mech = self.mech
        f = f.copy()
        for _ in range(20):
            Pf = mech.loop_jacobian(f)
            step = Pf.T @ np.linalg.solve(Pf @ Pf.T, mech.loop_residual(f))
            f -= step
            if np.max(np.abs(step)) < tol:
                break
        Pf = mech.loop_jacobian(f)
        fd = fd - Pf.T @ np.linalg.solve(Pf @ Pf.T, Pf @ fd)
        return f, fd

    def simulate(self, t_end: float, f0: np.ndarray | None = None, fd0: np.ndarray | None = None,
                 method: str = "DOP853", rtol: float = 1e-10, atol: float = 1e-12, n_out: int = 101,
                 tau: np.ndarray | None = None) -> DaeRun:
        """Integrate from rest (or ``f0, fd0``) at t = 0 to ``t_end`` [s] with ``solve_ivp``."""
        mech = self.mech
        m = mech.m
        if f0 is None:
            f0 = mech.solve(mech.coord_values(mech.f_guess) if mech.q0 is None else mech.q0, mech.f_guess)
        fd0 = np.zeros(m) if fd0 is None else np.asarray(fd0, dtype=float)

        def rhs(t: float, y: np.ndarray) -> np.ndarray:
            return np.concatenate((y[m:], self.accel(y[:m], y[m:], tau)[0]))

        self.nfev = 0
        t_eval = np.linspace(0.0, t_end, n_out)
        start = time.perf_counter()
        y = np.concatenate((f0, fd0))
        if self.stabilisation == "baumgarte":
            sol = solve_ivp(rhs, (0.0, t_end), y, method=method, rtol=rtol, atol=atol, t_eval=t_eval)
            ts, ys, message = sol.t, sol.y.T, sol.message
            drift_y = ys
        else:
            n_seg = max(1, int(np.ceil(t_end / self.proj_dt - 1e-9)))
            edges = np.linspace(0.0, t_end, n_seg + 1)
            pieces, before, message = [], [], ""
            for a, b in zip(edges[:-1], edges[1:]):
                inside = t_eval[(t_eval >= a) & (t_eval < b)]
                sol = solve_ivp(rhs, (a, b), y, method=method, rtol=rtol, atol=atol,
                                t_eval=np.concatenate((inside, [b])))
                message = sol.message
                before.append(sol.y.T)
                pieces.append(sol.y.T[:-1])
                fp, fdp = self.project(sol.y[:m, -1], sol.y[m:, -1])
                y = np.concatenate((fp, fdp))
            pieces.append(y[None, :])
            ys = np.vstack(pieces)
            drift_y = np.vstack(before)
            ts = t_eval
        wall = time.perf_counter() - start
        pos = max(float(np.max(np.abs(mech.loop_residual(r[:m])))) for r in drift_y)
        vel = max(float(np.max(np.abs(mech.loop_jacobian(r[:m]) @ r[m:]))) for r in drift_y)
        q = np.array([mech.coord_values(r[:m]) for r in ys])
        return DaeRun(ts, ys[:, :m], ys[:, m:], q, self.nfev, wall, pos, vel, message)
