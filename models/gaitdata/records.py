"""What each importer returns before the trial is put on one time base.

``ForceRecord`` carries both feet's GRF already in the models.biped convention (x forward,
y up, the force of the ground *on* the foot, N); ``KinematicsRecord`` carries the reference
angles ``[alpha, beta_l, beta_r, gamma_l, gamma_r]`` in rad. Both keep the source rate, the
columns they came from and the warnings raised on the way, for ``gaitblocks data info``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class ForceRecord:
    """Both feet's GRF on the source time base.

    Attributes
    ----------
    t : (N,) s, strictly increasing.
    grf : (N, 4) N, ``[F_lx, F_ly, F_rx, F_ry]``, models.biped convention.
    cop_x : (N, 2) m along the walking direction ``[left, right]`` (NaN off the ground), or None.
    units : force unit declared by the file (``N``, ``BW`` or ``N/kg``); ``N`` when undeclared.
    footfalls : plate files only: ``{"plate", "foot", "first", "last"}`` per contact (0-based samples).
    subject : what the file says of its subject: ``mass_kg`` [kg], ``height_m`` [m] and where each was
        read (``mass_source``, ``height_source``); empty when it says nothing.
    """

    t: np.ndarray
    grf: np.ndarray
    path: str
    fmt: str
    rate_hz: float
    cop_x: np.ndarray | None = None
    channels: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    units: str = "N"
    footfalls: list[dict[str, Any]] = field(default_factory=list)
    subject: dict[str, Any] = field(default_factory=dict)


@dataclass
class KinematicsRecord:
    """Reference angles on the source time base.

    Attributes
    ----------
    t : (N,) s.
    angles : (N, 5) rad ``[alpha, beta_l, beta_r, gamma_l, gamma_r]`` (models.biped convention).
    heels : optional ``{"l": (N, 3), "r": (N, 3)}`` heel (or ankle) marker positions in m,
        in the lab frame of the file, used to tell which foot stood on which force plate.
    soles : optional ``{"l": (N, 2, 2), "r": ...}`` heel and toe markers ``[heel, toe] x
        [forward, up]`` in m, used to find contacts no force plate saw
        (:mod:`models.gaitdata.offplate`).
    toes : optional ``{"l": (N, 3), "r": ...}`` toe (or ankle) marker positions in m, lab frame
        (with ``heels``: plate-to-foot assignment, :mod:`models.gaitdata.feet`).
    height_m : body height estimated from the leg markers (:mod:`models.gaitdata.subject`), or None.
    subject : what the file says of its subject (as :attr:`ForceRecord.subject`).
    """

    t: np.ndarray
    angles: np.ndarray
    path: str
    fmt: str
    rate_hz: float
    channels: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    heels: dict[str, np.ndarray] | None = None
    soles: dict[str, np.ndarray] | None = None
    toes: dict[str, np.ndarray] | None = None
    height_m: float | None = None
    subject: dict[str, Any] = field(default_factory=dict)
