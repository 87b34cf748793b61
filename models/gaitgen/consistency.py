r"""Checks that a dataset's GRF and kinematics belong together for the five-link model.

* :func:`com_from_grf`: the whole-body CoM implied by the GRF,
  ``c(t) = c(0) + c'(0) t + int_0^t int_0^s (sum_k F_k / m - g e_y) du ds``
  (trapezoidal double integral), started from the kinematic CoM and its velocity; compare it
  with ``points_batch(q)["com"]`` (the stance foot is pinned in the kinematics).
* :func:`forward_replay`: integrate ``FiveLinkBiped.forward_dynamics`` open loop, driven by the
  dataset's GRF and inverse-dynamics torques (linear interpolation between samples, classic RK4),
  from ``q(0), qd(0)``; the error to the recorded ``q`` grows because the open-loop biped is unstable.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import cumulative_trapezoid

from models.biped import FiveLinkBiped


def com_from_grf(t: np.ndarray, grf: np.ndarray, q: np.ndarray, biped: FiveLinkBiped) -> tuple[np.ndarray, np.ndarray]:
    """``(com_grf, com_kin)``, each ``(N, 2)`` [m]."""
    com_kin = biped.points_batch(q)["com"]
    dt = t[1] - t[0]
    v0 = (com_kin[1] - com_kin[0]) / dt - 0.5 * dt * ((grf[0, [0, 1]] + grf[0, [2, 3]]) / biped.total_mass
                                                      - np.array([0.0, biped.params.g]))
    acc = (grf[:, [0, 1]] + grf[:, [2, 3]]) / biped.total_mass - np.array([0.0, biped.params.g])
    vel = v0 + cumulative_trapezoid(acc, t, axis=0, initial=0.0)
    pos = com_kin[0] + cumulative_trapezoid(vel, t, axis=0, initial=0.0)
    return pos, com_kin


def forward_replay(t: np.ndarray, q: np.ndarray, qd0: np.ndarray, tau: np.ndarray, grf: np.ndarray,
                   biped: FiveLinkBiped, duration: float) -> tuple[np.ndarray, np.ndarray]:
    """``(times, q_sim)``: RK4 with the sample spacing as step over ``duration`` s."""
    dt = t[1] - t[0]
    steps = int(round(duration / dt))

    def inputs(k: int, half: bool) -> tuple[np.ndarray, np.ndarray]:
        if not half:
            return tau[k], grf[k]
        return 0.5 * (tau[k] + tau[k + 1]), 0.5 * (grf[k] + grf[k + 1])

    x = np.concatenate([q[0], qd0])
    out = np.empty((steps + 1, 7))
    out[0] = q[0]

    def f(state: np.ndarray, u: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        return np.concatenate([state[7:], biped.forward_dynamics(state[:7], state[7:], u[0], u[1])])

    for k in range(steps):
        u0, um, u1 = inputs(k, False), inputs(k, True), inputs(k + 1, False)
        k1 = f(x, u0)
        k2 = f(x + 0.5 * dt * k1, um)
        k3 = f(x + 0.5 * dt * k2, um)
        k4 = f(x + dt * k3, u1)
        x = x + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        out[k + 1] = x[:7]
    return t[: steps + 1], out
