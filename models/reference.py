"""The full reference motion of a dataset and its inverse-dynamics torques.

A dataset gives the joint angles ``[alpha, beta_l, beta_r, gamma_l, gamma_r]`` and the GRF;
the trunk-CoM position ``(x0, y0)`` is known only for synthetic data (``GaitDataset.q``).
:func:`reference_state` completes it:

* ``GaitDataset.q`` when present;
* otherwise the base follows from the *anchor foot* -- the foot carrying the larger vertical
  force -- held where it was when it became the anchor, on the ground ``y = 0``::

      (x0, y0) = footprint - p_contact(angles; x0 = y0 = 0)

  (a foot that does not slip: the point foot, or with a rolling foot the contact coordinates
  ``(xi, eta)`` of :meth:`FiveLinkBiped.contact_coordinates`, so the arc rolls; the footprint
  of a new anchor foot is where the current reconstruction puts it at the switch, its height
  set to 0).

Rates and accelerations are central differences (``numpy.gradient``) after an optional
zero-lag Butterworth low-pass (:func:`models.filters.lowpass2`), in m/s, rad/s, m/s^2, rad/s^2.

:func:`reference_torques` is the inverse dynamics of that motion under the (mass-scaled)
recorded GRF: ``tau = (M qdd - coriolis - gravity - J^T F)[beta, gamma rows]`` in N m, with
the ``(x0, y0, alpha)`` rows as the residual -- the part of the motion the GRF does not
explain (:meth:`FiveLinkBiped.inverse_dynamics`).
"""

from __future__ import annotations

import numpy as np

from models.biped import FiveLinkBiped
from models.dataset import GaitDataset
from models.filters import lowpass2


def _lowpass(x: np.ndarray, fs: float, cutoff_hz: float | None) -> np.ndarray:
    if not cutoff_hz or cutoff_hz <= 0 or cutoff_hz >= 0.5 * fs or x.shape[0] < 16:
        return x
    return lowpass2(x, cutoff_hz, fs)


def base_from_anchor_foot(angles: np.ndarray, grf: np.ndarray, biped: FiveLinkBiped) -> np.ndarray:
    """``(N, 2)`` trunk-CoM path that keeps the loaded foot where it landed (module doc)."""
    n = angles.shape[0]
    q0 = np.zeros((n, 7))
    q0[:, 2:] = angles
    rel = biped.contact_coordinates(q0).reshape(n, 2, 2)  # (N, 2 feet, 2) contact relative to base
    base = np.zeros((n, 2))
    anchor = 0 if grf[0, 1] >= grf[0, 3] else 1
    footprint = np.array([0.0, 0.0])
    for i in range(n):
        other = 1 - anchor
        if grf[i, 2 * other + 1] > grf[i, 2 * anchor + 1]:
            new_foot = base[i - 1] + rel[i, other] if i else rel[i, other]
            footprint = np.array([new_foot[0], 0.0])
            anchor = other
        base[i] = footprint - rel[i, anchor]
    return base


def reference_state(ds: GaitDataset, biped: FiveLinkBiped, filter_hz: float | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(Q, QD, QDD)`` of the reference motion, each ``(N, 7)`` (module doc)."""
    angles = ds.reference_angles()
    if angles is None:
        raise ValueError(f"dataset {ds.name!r} has no reference joint angles")
    fs = ds.rate_hz
    if ds.q is not None:
        Q = np.array(ds.q, dtype=float)
    else:
        Q = np.zeros((angles.shape[0], 7))
        Q[:, 2:] = angles
        Q[:, :2] = base_from_anchor_foot(angles, ds.grf, biped)
    Q = _lowpass(Q, fs, filter_hz)
    QD = np.gradient(Q, ds.t, axis=0)
    QDD = np.gradient(QD, ds.t, axis=0)
    return Q, QD, QDD


def reference_torques(ds: GaitDataset, biped: FiveLinkBiped, grf_scale: float = 1.0,
                      filter_hz: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(tau (N, 4), residual (N, 3))`` of the reference motion under ``grf_scale * grf``."""
    Q, QD, QDD = reference_state(ds, biped, filter_hz)
    tau, residual = biped.inverse_dynamics(Q, QD, QDD, grf_scale * ds.grf)
    return np.asarray(tau), np.asarray(residual)
