r"""The rolling-foot radius that makes a recorded walk consistent with the model.

A five-link model has no feet: its legs end at a point at knee height minus the shank
length. Human recordings come from people with feet, whose ankles rise in late stance, so
with point feet the reference angles cannot put both feet on the ground in double support
(measured on the shared recordings: 5-6 cm RMS, up to 15 cm). A rolling foot of radius
``R`` (:mod:`models.params`, :mod:`models.biped`) removes most of it. ``R`` is fitted here,
per recording, by linear least squares.

In double support both contacts are on the ground and neither slips, so the contact
coordinates of the two feet (:meth:`FiveLinkBiped.contact_coordinates`) must keep
``eta_l - eta_r = 0`` and ``xi_l - xi_r = const``. Both are *linear* in ``R``::

    eta_l - eta_r = (y_l - y_r) + R (cos th2_l - cos th2_r)
    xi_l - xi_r   = (x_l - x_r) + R ((sin th2_l - th2_l) - (sin th2_r - th2_r))

with ``(x, y)`` the point feet and ``th2`` the shank angles of the reference, all from the
joint angles alone (the base cancels). Stacking both rows over every double-support sample
(the horizontal one minus its mean per double-support window) as ``a + R b`` gives
``R = -(a . b) / (b . b)``, clipped to ``[0, MAX_FRACTION x leg length]``.

Measured (model scaled to each subject): OpenSim subject01 0.435 m (0.46 leg lengths; RMS
inconsistency 5.8 -> 0.8 cm), demotu walk1 0.469 m (0.51 L; 5.3 -> 0.8 cm), walk2 0.488 m
(0.53 L; 6.2 -> 0.9 cm); the bundled synthetic sets, generated for the point-foot model,
give 0. These are larger than the 0.3 L often quoted for the ankle-foot roll-over shape:
the fitted arc also absorbs what the model's missing ankle and foot do in double support.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.biped import FiveLinkBiped
from models.dataset import GaitDataset
from models.params import G_EARTH, BipedParams

__all__ = ["FootFit", "fit_foot_radius", "fixed_foot_radius", "CONTACT_FRACTION", "MAX_FRACTION", "ROLLOVER_FRACTION"]

CONTACT_FRACTION = 0.05  # a foot carrying more than 5 % of body weight is on the ground
MAX_FRACTION = 0.6  # largest radius accepted, in leg lengths
MIN_WINDOW = 4  # samples of a double-support window used in the fit
#: the fixed rolling-foot radius, in leg lengths: the ankle-foot roll-over shape's radius of walking adults
#: (about 0.3 leg lengths; Hansen, Childress & Knox 2004, Clin Biomech 19:407, doi:10.1016/j.clinbiomech.2003.12.001)
ROLLOVER_FRACTION = 0.3


@dataclass(frozen=True)
class FootFit:
    """The fitted radius [m] and the double-support inconsistency [m RMS] before and after."""

    radius: float
    rms_point_foot: float
    rms_fitted: float
    windows: int


def fit_foot_radius(ds: GaitDataset, params: BipedParams) -> FootFit:
    """Least-squares rolling-foot radius for ``ds`` on the model ``params`` (module doc)."""
    angles = ds.reference_angles()
    if angles is None:
        return FootFit(0.0, float("nan"), float("nan"), 0)
    biped = FiveLinkBiped(params.with_foot_radius(0.0))
    q = np.zeros((angles.shape[0], 7))
    q[:, 2:] = angles
    pts = biped.points_batch(q)
    th2 = np.stack([angles[:, 0] - angles[:, 1] + angles[:, 3], angles[:, 0] - angles[:, 2] + angles[:, 4]], axis=1)
    weight = (ds.meta.body_mass_kg or params.total_mass) * G_EARTH
    both = (ds.grf[:, 1] > CONTACT_FRACTION * weight) & (ds.grf[:, 3] > CONTACT_FRACTION * weight)
    idx = np.flatnonzero(both)
    windows = [w for w in np.split(idx, np.flatnonzero(np.diff(idx) > 1) + 1) if w.size >= MIN_WINDOW]
    if not windows:
        return FootFit(0.0, float("nan"), float("nan"), 0)
    roll = np.sin(th2) - th2
    a_rows, b_rows = [], []
    for w in windows:
        a_rows.append(pts["foot_l"][w, 1] - pts["foot_r"][w, 1])
        b_rows.append(np.cos(th2[w, 0]) - np.cos(th2[w, 1]))
        ax = pts["foot_l"][w, 0] - pts["foot_r"][w, 0]
        bx = roll[w, 0] - roll[w, 1]
        a_rows.append(ax - ax.mean())
        b_rows.append(bx - bx.mean())
    a, b = np.concatenate(a_rows), np.concatenate(b_rows)
    bb = float(b @ b)
    radius = -float(a @ b) / bb if bb > 0 else 0.0
    radius = float(np.clip(radius, 0.0, min(MAX_FRACTION * params.leg_length, params.shank.length)))
    return FootFit(radius, float(np.sqrt(np.mean(a**2))), float(np.sqrt(np.mean((a + radius * b) ** 2))), len(windows))


def fixed_foot_radius(ds: GaitDataset, params: BipedParams) -> float:
    """The rolling-foot radius [m] that reads nothing of the recorded posture: ``ROLLOVER_FRACTION``
    leg lengths; 0 (point feet) for a synthetic set (``ds.meta.synthetic``: :mod:`models.gaitgen`
    makes them for the point-foot model). :func:`fit_foot_radius` reads the recorded trunk and
    stance angles, so a preset whose posture is an output uses this one instead."""
    return 0.0 if ds.meta.synthetic else ROLLOVER_FRACTION * params.leg_length
