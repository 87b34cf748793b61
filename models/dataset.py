"""One walking trial, as the simulator consumes it.

A :class:`GaitDataset` holds, on one uniform time base:

* the GRF of both feet, ``grf`` (N, 4) = ``[F_lx, F_ly, F_rx, F_ry]`` in N, world frame
  (x forward, y up), the force of the ground *on* each foot;
* optionally the centre of pressure along x of each foot, ``cop_x`` (N, 2) in m
  (NaN where the foot is off the ground);
* optionally the reference joint trajectories ``angles`` (N, 5) in rad,
  ``[alpha, beta_l, beta_r, gamma_l, gamma_r]`` in the :mod:`models.biped` convention;
* optionally the full reference state ``q`` (N, 7) (with the trunk CoM position), from
  which the initial conditions are taken;
* metadata (:class:`DatasetMeta`).

Importers (``models.gaitdata``) and the bundled-dataset registry (``grf_data``) build it;
the GRF-source and reference blocks read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

ANGLE_NAMES = ("alpha", "beta_l", "beta_r", "gamma_l", "gamma_r")
GRF_COLUMNS = ("F_lx", "F_ly", "F_rx", "F_ry")
KINEMATICS_FROM = "kinematics_from"  # DatasetMeta.extra key: the recording the joint angles come from, if not this one


@dataclass(frozen=True)
class DatasetMeta:
    """What is known about the trial. Unknown numbers are ``None``."""

    name: str
    body_mass_kg: float | None = None
    height_m: float | None = None
    speed_m_s: float | None = None
    footwear: str | None = None
    source: str = ""
    licence: str = ""
    synthetic: bool = False
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name, "body_mass_kg": self.body_mass_kg, "height_m": self.height_m,
            "speed_m_s": self.speed_m_s, "footwear": self.footwear, "source": self.source,
            "licence": self.licence, "synthetic": self.synthetic, "notes": self.notes, **self.extra,
        }


@dataclass(frozen=True)
class GaitDataset:
    """A walking trial on one uniform time base (see module doc for shapes and units)."""

    t: np.ndarray
    grf: np.ndarray
    meta: DatasetMeta
    angles: np.ndarray | None = None
    q: np.ndarray | None = None
    cop_x: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = self.t.shape[0]
        if self.t.ndim != 1 or n < 2:
            raise ValueError(f"dataset {self.meta.name!r}: time must be 1-D with at least 2 samples")
        if self.grf.shape != (n, 4):
            raise ValueError(f"dataset {self.meta.name!r}: grf must be ({n}, 4), got {self.grf.shape}")
        if self.angles is not None and self.angles.shape != (n, 5):
            raise ValueError(f"dataset {self.meta.name!r}: angles must be ({n}, 5), got {self.angles.shape}")
        if self.q is not None and self.q.shape != (n, 7):
            raise ValueError(f"dataset {self.meta.name!r}: q must be ({n}, 7), got {self.q.shape}")
        if self.cop_x is not None and self.cop_x.shape != (n, 2):
            raise ValueError(f"dataset {self.meta.name!r}: cop_x must be ({n}, 2), got {self.cop_x.shape}")

    @property
    def name(self) -> str:
        return self.meta.name

    @property
    def dt(self) -> float:
        return float((self.t[-1] - self.t[0]) / (self.t.shape[0] - 1))

    @property
    def rate_hz(self) -> float:
        return 1.0 / self.dt

    @property
    def duration(self) -> float:
        return float(self.t[-1] - self.t[0])

    def reference_angles(self) -> np.ndarray | None:
        """``[alpha, beta_l, beta_r, gamma_l, gamma_r]`` (N, 5) in rad, from ``angles`` or ``q``."""
        if self.angles is not None:
            return self.angles
        if self.q is not None:
            return self.q[:, 2:7]
        return None

    def crop(self, start: float | None = None, end: float | None = None) -> GaitDataset:
        """The samples with ``start <= t <= end`` (seconds on this dataset's clock)."""
        lo = self.t[0] if start is None else start
        hi = self.t[-1] if end is None else end
        keep = (self.t >= lo - 1e-9) & (self.t <= hi + 1e-9)
        if keep.sum() < 2:
            raise ValueError(f"dataset {self.name!r}: crop [{lo}, {hi}] s keeps fewer than 2 samples "
                             f"(data spans {self.t[0]:.3f}-{self.t[-1]:.3f} s)")

        def cut(a: np.ndarray | None) -> np.ndarray | None:
            return None if a is None else a[keep]

        return replace(self, t=self.t[keep], grf=self.grf[keep], angles=cut(self.angles), q=cut(self.q),
                       cop_x=cut(self.cop_x))
