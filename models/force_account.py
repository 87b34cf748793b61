r"""An account of every force and torque that acts on the model, and the residual verdict.

Why: the model walks on a *recorded* GRF. Whatever else acts on it is not in the
recording, and a reader must see how large it is. This module turns the time series of a
run into that account; it knows nothing of blocks or diagrams (the app gathers the series).

Sources (arrays on the run's time base ``t`` [s], ``n`` samples):

* ``recorded_grf`` (n, 4) N ``[F_lx, F_ly, F_rx, F_ry]``: the recorded GRF as applied;
* ``contact_correction`` (n, 4) N: the ground's force beyond the recording;
* joint torques (n, 4) N m ``[hip_l, hip_r, knee_l, knee_r]``, each already zero where
  the source does not act: ``estimator``, ``joint_feedback``, ``trunk_balance``,
  ``feedforward``, ``stance_damping``, ``grf_match`` (any subset);
* ``ground_moment`` (n, 2) N m: the CoP/ankle moment on each stance shank.

For a force source: ``rms_n``, ``peak_n`` (norm of the per-sample vector over both feet's
components, summed per axis first, i.e. the net external force) and the same divided by
body weight (``_bw``). For a torque source: ``rms_nm``, ``peak_nm`` over all four joints
and per kg (``_nm_per_kg``). Stance-leg joint impulse share: for each torque source,

.. math:: \text{share}_k = \frac{\int \sum_{j \in \text{stance}} |\tau_{k,j}|\,dt}
                                {\sum_m \int \sum_{j \in \text{stance}} |\tau_{m,j}|\,dt}

over the joints of legs in stance (hip and knee of each stance leg).

Residual (after OpenSim's RRA guidance, Hicks, Uchida, Seth, Rajagopal & Delp 2015,
J Biomech Eng 137(2):020905: a residual force below 5 % of the peak external force is good,
5-10 % acceptable, above that poor): the *net* contact correction per axis (both feet
summed; in double support the feet may also push on each other, which is internal),
its RMS and peak, against the peak magnitude of the recorded resultant GRF. The verdict
uses the larger of the two axes' RMS ratios; the peaks are reported beside it.

Residual moment (``residual.moment``, when the contact points and the CoM are given): the
moment about the whole-body CoM of everything that is not in the recording, the contact
correction at each foot's contact point and the ground moments (CoP shifts)::

    M_res = sum_feet (p_contact - p_com) x F_corr + sum_feet m_z        [N m, ccw +]

RMS and peak, per kg, and against ``peak external force x mean CoM height`` (the same
guidance reads a residual moment below 1 % of that as good: ``moment_verdict`` is ``good``
or ``poor``). A correction moved from a force into a CoP shift shows here.

Speed account (``speed_account``): where the mean forward speed of the run comes from. The
only external horizontal forces are the recorded GRF and the contact correction (a ground
moment is a couple), so Newton's second law for the whole-body CoM, integrated twice over the
window ``[t_0, T]`` (``D = T - t_0``), splits the mean speed exactly::

    v_mean = (x_c(T) - x_c(t_0)) / D
           = v_0 + 1/(m D) int (T - u) F_rec,x(u) du + 1/(m D) int (T - u) F_corr,x(u) du

``v_0`` [m/s] is the CoM's speed at ``t_0`` (an initial condition), the second term what the
recording adds to it, the third what the forces beyond the recording add. The third term is
what the measured mean speed leaves after the first two (Newton: nothing else acts), because
the contact correction sampled once per tick misses much of a landing impact, which changes
within the step: ``residual_sampled_m_s`` is the same term from those samples, and the
difference is what the samples miss. The height account (``height_account``) splits the
CoM's mean height over the window the same way, with gravity in the recorded term::

    y_mean = y_c(t_0) + v_y0 D / 2 + 1/(m D) int (T - u)^2 / 2 (F_rec,y(u) - m g) du + (residual)

Stride in steady walking is ``v_mean`` times the cycle time, which the recorded
GRF sets: so a stride that differs between two runs differs through these terms, and the
account says which.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from models.batched import DROP, per_copy

__all__ = ["GOOD", "GOOD_MOMENT", "ACCEPTABLE", "force_account", "residual", "residual_moment", "speed_account",
           "height_account", "verdict", "force_account_batch", "residual_batch", "speed_account_batch",
           "height_account_batch"]

GOOD, ACCEPTABLE = 0.05, 0.10  # residual / peak external force (Hicks et al. 2015)
GOOD_MOMENT = 0.01  # residual moment / (peak external force x CoM height) (Hicks et al. 2015)

# The ``*_batch`` forms take every series with a leading copy axis, ``(G, n, ...)``, and return the
# same dicts with a ``(G,)`` array (or a list of G texts) at each leaf (:mod:`models.batched`); the
# single forms are the batch of one.


def verdict(ratio: float) -> str:
    """``good`` (<= 5 %), ``acceptable`` (<= 10 %) or ``poor``; ``poor`` for a non-finite ratio."""
    if not np.isfinite(ratio):
        return "poor"
    return "good" if ratio <= GOOD else "acceptable" if ratio <= ACCEPTABLE else "poor"


def _rms(a: np.ndarray) -> np.ndarray:
    """(G,) root mean square of each copy's samples ``a[j]``, taken flat in C order as ``a[j]`` alone would
    be (0 without samples)."""
    return np.sqrt(np.mean((a ** 2).reshape(a.shape[0], -1), axis=-1)) if a[0].size else np.zeros(a.shape[0])


def _peak(a: np.ndarray) -> np.ndarray:
    """(G,) max ``|a[j]|`` of each copy (0 without samples)."""
    return np.abs(a).max(axis=tuple(range(1, a.ndim))) if a[0].size else np.zeros(a.shape[0])


def _net(f: np.ndarray) -> np.ndarray:
    """(..., n, 2) net external force of both feet ``[F_x, F_y]``."""
    return f[..., 0:2] + f[..., 2:4]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` where ``den > 0``, else inf."""
    return np.divide(num, den, out=np.full(np.shape(num), np.inf), where=den > 0)


def _force_entry(f: np.ndarray, weight: float) -> dict[str, np.ndarray]:
    mag = np.linalg.norm(_net(f), axis=-1)
    rms, peak = _rms(mag), _peak(mag)
    return {"rms_n": rms, "peak_n": peak, "rms_bw": rms / weight, "peak_bw": peak / weight}


def _torque_entry(tau: np.ndarray, mass: float) -> dict[str, np.ndarray]:
    rms, peak = _rms(tau), _peak(tau)
    return {"rms_nm": rms, "peak_nm": peak, "rms_nm_per_kg": rms / mass, "peak_nm_per_kg": peak / mass}


def residual_moment(correction: np.ndarray, contact: np.ndarray, com: np.ndarray,
                    ground_moment: np.ndarray | None) -> np.ndarray:
    """``M_res`` (..., n) [N m, ccw +] of the module docstring: ``contact`` (..., n, 4) ``[x_l, y_l, x_r, y_r]``
    m, ``com`` (..., n, 2) m, ``correction`` (..., n, 4) N, ``ground_moment`` (..., n, 2) N m or None."""
    m = np.zeros(correction.shape[:-1])
    for s in (0, 1):
        dx, dy = contact[..., 2 * s] - com[..., 0], contact[..., 2 * s + 1] - com[..., 1]
        m += dx * correction[..., 2 * s + 1] - dy * correction[..., 2 * s]
    if ground_moment is not None:
        m += ground_moment.sum(axis=-1)
    return m


def residual_batch(recorded: np.ndarray, correction: np.ndarray, moment: np.ndarray | None = None,
                   com_height: np.ndarray | None = None, mass: float | None = None) -> dict[str, Any]:
    """:func:`residual` of ``G`` copies: ``recorded``, ``correction`` (G, n, 4), ``moment`` (G, n),
    ``com_height`` (G,) m. A copy whose ``com_height`` is 0 has no ``moment`` keys (as :func:`residual`)."""
    peak_ext = _peak(np.linalg.norm(_net(recorded), axis=-1))
    net = _net(correction)
    out: dict[str, Any] = {"peak_external_n": peak_ext}
    ratios = []
    for i, axis in enumerate(("x", "y")):
        rms, peak = _rms(net[..., i]), _peak(net[..., i])
        r = _ratio(rms, peak_ext)
        ratios.append(r)
        out[axis] = {"rms_n": rms, "peak_n": peak, "rms_fraction": r, "peak_fraction": _ratio(peak, peak_ext)}
    out["fraction"] = np.where(ratios[1] > ratios[0], ratios[1], ratios[0])  # max(x, y) as Python takes it
    out["verdict"] = [verdict(r) for r in out["fraction"].tolist()]
    if moment is not None and com_height is not None and mass:
        scale = peak_ext * com_height
        rms, peak = _rms(moment), _peak(moment)
        frac = _ratio(rms, scale)
        entry = {"rms_nm": rms, "peak_nm": peak, "rms_nm_per_kg": rms / mass, "peak_nm_per_kg": peak / mass,
                 "rms_fraction": frac, "peak_fraction": _ratio(peak, scale)}
        moments = per_copy(entry, frac.size)
        given = [bool(h) for h in np.asarray(com_height).tolist()]
        out["moment"] = [m if ok else DROP for m, ok in zip(moments, given, strict=True)]
        out["moment_verdict"] = [("good" if f <= GOOD_MOMENT else "poor") if ok else DROP
                                 for f, ok in zip(frac.tolist(), given, strict=True)]
    return out


def residual(recorded: np.ndarray, correction: np.ndarray, moment: np.ndarray | None = None,
             com_height: float | None = None, mass: float | None = None) -> dict[str, Any]:
    """The residual of the module docstring: per-axis RMS and peak [N and fraction] and the verdict;
    with ``moment`` (:func:`residual_moment`), ``com_height`` [m] and ``mass`` [kg] the residual moment too."""
    if moment is None or not com_height:
        return per_copy(residual_batch(recorded[None], correction[None]), 1)[0]
    return per_copy(residual_batch(recorded[None], correction[None], moment[None], np.array([com_height]), mass),
                    1)[0]


def force_account_batch(t: np.ndarray, stance: np.ndarray, mass: float, g: float, recorded: np.ndarray,
                        correction: np.ndarray | None, torques: Mapping[str, np.ndarray],
                        ground_moment: np.ndarray | None = None) -> dict[str, Any]:
    """:func:`force_account` of ``G`` copies on one time base ``t`` (n,): every other series (G, n, ...)."""
    weight = mass * g
    out: dict[str, Any] = {"recorded_grf": _force_entry(recorded, weight)}
    if correction is not None:
        out["contact_correction"] = _force_entry(correction, weight)
    dt = np.diff(t, append=t[-1]) if t.size else t
    leg_mask = np.repeat(np.asarray(stance, dtype=bool), 2, axis=-1)[..., [0, 2, 1, 3]]  # hip_l hip_r knee_l knee_r
    impulses = {}
    for name, tau in torques.items():
        out[name] = _torque_entry(tau, mass)
        impulses[name] = np.sum(np.abs(np.where(leg_mask, tau, 0.0)).sum(axis=-1) * dt, axis=-1)
    if ground_moment is not None:
        out["ground_moment"] = _torque_entry(ground_moment, mass)
    total = sum(impulses.values(), np.zeros(stance.shape[0]))
    out["stance_joint_impulse_share"] = {k: np.divide(v, total, out=np.zeros_like(total), where=total > 0)
                                         for k, v in impulses.items()}
    out["stance_joint_impulse_nms"] = total
    return out


def force_account(t: np.ndarray, stance: np.ndarray, mass: float, g: float, recorded: np.ndarray,
                  correction: np.ndarray | None, torques: Mapping[str, np.ndarray],
                  ground_moment: np.ndarray | None = None) -> dict[str, Any]:
    """``actuation`` of ``summary.json`` (module docstring); ``stance`` (n, 2) bool ``[l, r]``."""
    one = force_account_batch(t, np.asarray(stance)[None], mass, g, recorded[None],
                              None if correction is None else correction[None],
                              {k: v[None] for k, v in torques.items()},
                              None if ground_moment is None else ground_moment[None])
    return per_copy(one, 1)[0]


def _lever_integral(t: np.ndarray, f: np.ndarray, power: int = 1) -> np.ndarray:
    """``int_{t_0}^{T} (T - u)^power / power! f(u) du`` by the trapezoid rule, per copy of ``f`` (..., n)."""
    y = (t[-1] - t) ** power * f / (2.0 if power == 2 else 1.0)
    return np.sum(0.5 * (y[..., 1:] + y[..., :-1]) * np.diff(t), axis=-1)


def speed_account_batch(t: np.ndarray, com_x: np.ndarray, v0: np.ndarray, recorded: np.ndarray,
                        correction: np.ndarray | None, mass: float) -> dict[str, Any]:
    """:func:`speed_account` of ``G`` copies: ``com_x`` (G, n), ``v0`` (G,), forces (G, n, 4)."""
    span = float(t[-1] - t[0])
    mean = (com_x[:, -1] - com_x[:, 0]) / span
    rec = _lever_integral(t, _net(recorded)[..., 0]) / (mass * span)
    sampled = (_lever_integral(t, _net(correction)[..., 0]) / (mass * span) if correction is not None
               else np.zeros_like(mean))
    return {"mean_m_s": mean, "initial_m_s": v0, "recorded_grf_m_s": rec, "residual_m_s": mean - v0 - rec,
            "residual_sampled_m_s": sampled, "window_s": span}


def speed_account(t: np.ndarray, com_x: np.ndarray, v0: float, recorded: np.ndarray,
                  correction: np.ndarray | None, mass: float) -> dict[str, float]:
    """The speed account of the module docstring [m/s]: ``t`` (n,) s, the CoM's ``com_x`` (n,) m, its
    speed ``v0`` at ``t[0]`` m/s, ``recorded`` and ``correction`` (n, 4) N ``[F_lx, F_ly, F_rx, F_ry]``, ``mass`` kg."""
    return per_copy(speed_account_batch(t, com_x[None], np.array([float(v0)]), recorded[None],
                                        None if correction is None else correction[None], mass), 1)[0]


def height_account_batch(t: np.ndarray, com_y: np.ndarray, vy0: np.ndarray, recorded: np.ndarray,
                         correction: np.ndarray | None, mass: float, g: float) -> dict[str, Any]:
    """:func:`height_account` of ``G`` copies: ``com_y`` (G, n), ``vy0`` (G,), forces (G, n, 4)."""
    span = float(t[-1] - t[0])
    mean = np.sum(0.5 * (com_y[:, 1:] + com_y[:, :-1]) * np.diff(t), axis=-1) / span
    initial = com_y[:, 0] + vy0 * span / 2.0
    rec = _lever_integral(t, _net(recorded)[..., 1] - mass * g, 2) / (mass * span)
    sampled = (_lever_integral(t, _net(correction)[..., 1], 2) / (mass * span) if correction is not None
               else np.zeros_like(mean))
    return {"mean_m": mean, "initial_m": initial, "recorded_grf_m": rec, "residual_m": mean - initial - rec,
            "residual_sampled_m": sampled, "window_s": span}


def height_account(t: np.ndarray, com_y: np.ndarray, vy0: float, recorded: np.ndarray,
                   correction: np.ndarray | None, mass: float, g: float) -> dict[str, float]:
    """The height account of the module docstring [m]: as :func:`speed_account` for the CoM height
    ``com_y`` (n,) m, its vertical speed ``vy0`` at ``t[0]`` m/s and gravity ``g`` m/s^2."""
    return per_copy(height_account_batch(t, com_y[None], np.array([float(vy0)]), recorded[None],
                                         None if correction is None else correction[None], mass, g), 1)[0]
