r"""An initial vertical CoM velocity that the recorded GRF can carry.

Why: on a recorded GRF the CoM height is a double integrator that nothing steers: with the
floor adding nothing beyond the recording,

.. math:: y(t) = y_0 + v_{y0}\,(t - t_0) + \int_{t_0}^{t}\!\int_{t_0}^{t'} (F_y / m - g)\,dt''\,dt'

so an initial vertical velocity ``v_y0`` that differs from the one the GRF implies by ``dv`` drifts
the height by ``dv`` metres per second. The reference's own ``v_y0`` is measured through the
five-link model, not the subject's true CoM; and when the kinematics come from another recording
(``--grf A --kinematics B``) it belongs to another GRF altogether. Measured (reference against
this module's value): high-heels GRF under sneakers kinematics +0.04 against -0.088 m/s
(the body rose 4.6 cm within 0.2 s and the stance knee hyperextended); subject01 -0.093 against
-0.101 m/s; barefoot +0.010 against +0.003 m/s.

:func:`periodic_vertical_velocity` is the ``v_y0`` under which the recorded GRF keeps the
mean height over whole gait cycles, i.e. the CoM returns to its height after them
(``t_a``, ``t_b``: the first and last heel strike of one foot within ``[t_0, t_1]``; the
biped block takes the recording from the run's start to its end)::

    v_y0 = -(1 / (t_b - t_a)) int_{t_a}^{t_b} v(t) dt,     v(t) = int_{t_0}^{t} (F_y / m - g) dt'

It reads only the GRF (total vertical force ``F_y`` [N] of both feet, body mass ``m`` [kg]).

:func:`with_com_velocity` gives the body that velocity by changing only the stance leg: its hip
and knee rates and the base velocity, such that the stance foot's contact point keeps its
velocity and the CoM gets ``v_com`` (4 linear equations in 4 unknowns; the rows are linear in
``qd``, so they are read column by column from the contact and CoM velocities of unit rates).
The stance leg extends or flexes to raise or lower the body; the trunk and the other leg keep
their rates.
"""

from __future__ import annotations

import numpy as np

from models.biped import FiveLinkBiped
from models.phase_warp import gait_events

__all__ = ["periodic_vertical_velocity", "with_com_velocity"]


def _whole_cycles(t: np.ndarray, grf: np.ndarray, t0: float, t1: float) -> tuple[float, float] | None:
    """First and last heel strike in ``[t0, t1]`` of the foot whose strikes span the longest time."""
    spans = []
    for kind in ("L_on", "R_on"):
        strikes = [te for te, k in gait_events(t, grf) if k == kind and t0 <= te <= t1]
        if len(strikes) >= 2:
            spans.append((strikes[-1] - strikes[0], strikes[0], strikes[-1]))
    return max(spans)[1:] if spans else None


def periodic_vertical_velocity(t: np.ndarray, grf: np.ndarray, mass: float, g: float, t0: float,
                               t1: float) -> float | None:
    """``v_y0`` [m/s] (module docstring) for the GRF ``grf`` (n, 4) [N] sampled at ``t`` [s], over the
    run ``[t0, t1]`` [s]; None when the run holds no whole gait cycle (fewer than two strikes of a foot)."""
    span = _whole_cycles(t, grf, t0, t1)
    if span is None or mass <= 0.0:
        return None
    from scipy.integrate import cumulative_trapezoid, trapezoid  # here: 0.44 s of every run's start at the top

    keep = (t >= t0) & (t <= t1)
    tt = t[keep]
    v = cumulative_trapezoid((grf[keep, 1] + grf[keep, 3]) / mass - g, tt, initial=0.0)
    ta, tb = span
    grid = np.concatenate([[ta], tt[(tt > ta) & (tt < tb)], [tb]])
    return float(-trapezoid(np.interp(grid, tt, v), grid) / (tb - ta))


def with_com_velocity(biped: FiveLinkBiped, q: np.ndarray, qd: np.ndarray, side: int,
                      v_com: np.ndarray) -> np.ndarray:
    """``qd'`` (7,) [m/s, rad/s]: ``qd`` with the base velocity and the hip and knee rates of leg ``side``
    (0 left, 1 right) changed so that the CoM has the velocity ``v_com`` (2,) [m/s] and the contact point
    of that foot keeps its velocity (module docstring). ValueError near a straight stance knee, where
    the leg cannot change its length."""
    q = np.asarray(q, dtype=np.float64)
    qd = np.asarray(qd, dtype=np.float64)

    def rows(rate: np.ndarray) -> np.ndarray:
        return np.concatenate([biped.feet_state(q, rate)[4 * side + 2: 4 * side + 4], biped.com_state(q, rate)[2:4]])

    free = [0, 1, 3 + side, 5 + side]  # x, y, beta_side, gamma_side
    a = np.column_stack([rows(np.eye(7)[j]) for j in free])
    target = rows(qd)
    target[2:4] = v_com
    if np.linalg.cond(a) > 1e6:
        raise ValueError(f"the stance knee is too straight to change the CoM velocity (cond {np.linalg.cond(a):.1e})")
    out = qd.copy()
    out[free] += np.linalg.solve(a, target - rows(qd))
    return out
