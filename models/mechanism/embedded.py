r"""The empirically-based (embedded) method: forward dynamics in minimal coordinates (Ehsani 2023, §4).

With the joint variables as functions of the generalized coordinates
(:mod:`models.mechanism.manifold`),

.. math::

    \dot f = F \dot q, \qquad \ddot f = F \ddot q + H[\dot q, \dot q],
    \qquad \delta f = F\, \delta q ,

the virtual work of the open tree (:mod:`models.mechanism.system`) vanishes for every
:math:`\delta q`, which gives the ODE in the nq coordinates alone (Ehsani §4-3, Eqs. 144-195):

.. math::

    \underbrace{F^T M_f F}_{M(q)\ [kg\,m^2]} \ddot q
      = F^T \left( Q_f - c_f - M_f\, H[\dot q, \dot q] \right) \quad [N\,m].

No Lagrange multipliers, no drift: the constraints hold to the accuracy of ``f(q)`` (exact
to the Newton tolerance with :class:`~models.mechanism.manifold.Projection`, to the spline
error with :class:`~models.mechanism.manifold.PreModel`). The state is ``[q, qd]``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from models.mechanism.manifold import NumericalDiff, PreModel, Projection, hessian_term
from models.mechanism.system import Mechanism

__all__ = ["Embedded", "EmbeddedRun", "make_manifold"]


def make_manifold(mech: Mechanism, method: str = "projection", step: float = 0.01) -> Projection | PreModel:
    """``"projection"`` (exact solve each evaluation) or ``"spline"`` (pre-modelled, ``step``)."""
    if method == "projection":
        return Projection(mech)
    if method == "spline":
        return PreModel(mech, step=step)
    raise ValueError(f"unknown embedded method {method!r}: use 'projection' or 'spline'")


@dataclass
class EmbeddedRun:
    """A solution: times ``t`` [s], ``q``/``qd`` (n, nq), joints ``f``/``fd`` (n, m), RHS
    evaluations ``nfev``, wall time ``wall_s`` [s], the solver's ``status``/``message``."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    f: np.ndarray
    fd: np.ndarray
    nfev: int
    wall_s: float
    message: str


class Embedded:
    """Minimal-coordinate dynamics of ``mech`` on a manifold model (see module docstring).

    Newton's starting guess (a guess only: the result is the converged root) is, for 1-dof
    mechanisms, a coarse pre-model (``guide``, step 0.05): that keeps a fast crank on its branch
    whatever the step between evaluations. Otherwise it is the ``guess`` passed to
    :meth:`joints`/:meth:`accel` (the block passes its discrete state: a pure function of its
    state), else the last solved ``f`` (``simulate``).
    """

    def __init__(self, mech: Mechanism, manifold: Projection | PreModel | NumericalDiff | None = None,
                 guide: PreModel | None = None) -> None:
        self.mech = mech
        self.manifold = manifold if manifold is not None else Projection(mech)
        if guide is None and mech.nq == 1 and not isinstance(self.manifold, PreModel):
            guide = PreModel(mech, step=0.05)
        self.guide = guide
        self._last = mech.f_guess.copy()
        self.nfev = 0

    @property
    def needs_guess(self) -> bool:
        """True when Newton starts from a given (or the last) solution: no guide, exact solve."""
        return self.guide is None and not isinstance(self.manifold, PreModel)

    def joints(self, q: np.ndarray, guess: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``f, F, H`` at ``q``; ``guess``: Newton's start (class docstring), else the last solution."""
        q = np.atleast_1d(np.asarray(q, dtype=float))
        if self.guide is not None and self.guide is not self.manifold:
            return self.manifold.evaluate(q, self.guide.value(q))
        if guess is not None:
            return self.manifold.evaluate(q, guess)
        f, F, H = self.manifold.evaluate(q, self._last)
        self._last = f
        return f, F, H

    def mass_matrix(self, q: np.ndarray) -> np.ndarray:
        f, F, _ = self.joints(q)
        return F.T @ self.mech.mass_matrix_f(f) @ F

    def accel(self, q: np.ndarray, qd: np.ndarray, tau: np.ndarray | None = None,
              guess: np.ndarray | None = None) -> np.ndarray:
        """``qdd`` [rad/s^2 or m/s^2] at state ``(q, qd)`` with driving torques ``tau`` [N m]."""
        self.nfev += 1
        qd = np.atleast_1d(np.asarray(qd, dtype=float))
        f, F, H = self.joints(q, guess)
        mech = self.mech
        Mf = mech.mass_matrix_f(f)
        fd = F @ qd
        rhs = F.T @ (mech.bias_f(f, fd, tau) - Mf @ hessian_term(H, qd))
        return np.linalg.solve(F.T @ Mf @ F, rhs)

    def state_joints(self, q: np.ndarray, qd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``f, fd`` of a state."""
        f, F, _ = self.joints(q)
        return f, F @ np.atleast_1d(qd)

    def energy(self, q: np.ndarray, qd: np.ndarray) -> float:
        f, fd = self.state_joints(q, qd)
        return self.mech.energy(f, fd)

    def simulate(self, t_end: float, q0: np.ndarray | None = None, qd0: np.ndarray | None = None,
                 method: str = "DOP853", rtol: float = 1e-10, atol: float = 1e-12, n_out: int = 101,
                 tau: np.ndarray | None = None) -> EmbeddedRun:
        """Integrate from ``t = 0`` to ``t_end`` [s] with ``scipy.integrate.solve_ivp``."""
        mech = self.mech
        q0 = np.atleast_1d(np.asarray(q0 if q0 is not None else mech.q0 if mech.q0 is not None
                                      else mech.coord_values(mech.f_guess), dtype=float))
        qd0 = np.atleast_1d(np.asarray(qd0 if qd0 is not None else mech.qd0 if mech.qd0 is not None
                                       else np.zeros(mech.nq), dtype=float))
        nq = mech.nq

        def rhs(t: float, y: np.ndarray) -> np.ndarray:
            return np.concatenate((y[nq:], self.accel(y[:nq], y[nq:], tau)))

        self.nfev = 0
        f_start = self._last = self.manifold.evaluate(q0, self._last)[0]
        t_eval = np.linspace(0.0, t_end, n_out)
        from scipy.integrate import solve_ivp  # at need: 0.5 s of every start otherwise

        start = time.perf_counter()
        sol = solve_ivp(rhs, (0.0, t_end), np.concatenate((q0, qd0)), method=method, rtol=rtol, atol=atol,
                        t_eval=t_eval)
        wall = time.perf_counter() - start
        nfev = self.nfev
        self._last = f_start
        q, qd = sol.y[:nq].T, sol.y[nq:].T
        fs = np.array([self.state_joints(a, b) for a, b in zip(q, qd)])
        return EmbeddedRun(sol.t, q, qd, fs[:, 0], fs[:, 1], nfev, wall, sol.message)
