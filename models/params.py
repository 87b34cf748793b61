"""Segment parameters of the planar five-link biped.

Two sources are offered:

* :meth:`BipedParams.paper` -- Table 1 of Luxman & Zielinska (2017): the subject's model,
  55.33 kg in total, uniform cylinders (CoM at mid-length, ``J = m l**2 / 12``).
* :meth:`BipedParams.scaled` -- the same uniform-rod model scaled to a subject's mass and
  height with Dempster/Winter fractions (Winter, *Biomechanics and Motor Control of Human
  Movement*, 4th ed., 2009, Table 4.1 and Fig. 4.1):

  ======  ======================  =========================================================
  link    mass fraction of body   length fraction of height
  ======  ======================  =========================================================
  trunk   0.68 (HAT, 0.678)       0.470 (greater trochanter 0.530 H to vertex 1.000 H)
  thigh   0.10 (thigh, 0.100)     0.245 (greater trochanter 0.530 H to knee 0.285 H)
  shank   0.06 (leg+foot, 0.061)  0.285 (knee 0.285 H to the ground: point foot)
  ======  ======================  =========================================================

  The mass fractions are the paper's rounding of Winter's HAT / thigh / leg+foot values
  (``shared/data/demotu-BMC/BSP_DempsterWinter.txt``); they add up to 1.  With the paper's
  subject (1.66 m) the lengths come out within 1 % of Table 1 (trunk 0.780 m vs 0.788 m).

``foot_radius`` [m] gives each shank a massless *rolling foot*: a circular arc of radius
``R`` rigidly fixed to the shank, its centre on the shank axis ``R`` above the shank's end
(the model's foot point). ``R = 0`` is the paper's point foot. A rolling foot is the
classical effective foot of walking models (McGeer 1990, *Int J Robot Res* 9:62; the human
"roll-over shape" of Hansen, Childress & Knox 2004, *J Biomech* 37:1467);
:mod:`models.footfit` fits its radius to a recording. The equations it changes are in
:mod:`models.biped` (the foot force acts at the rolling contact point).

Units: metres, kilograms, kg m**2, m s**-2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

G_EARTH = 9.81  # m s^-2, fixed for the whole project

MASS_FRACTIONS = {"trunk": 0.68, "thigh": 0.10, "shank": 0.06}
LENGTH_FRACTIONS = {"trunk": 0.470, "thigh": 0.245, "shank": 0.285}


@dataclass(frozen=True)
class LinkParams:
    """One rigid link.

    Parameters
    ----------
    length : float
        Joint-to-joint length ``l`` [m] (trunk: hip to head).
    com : float
        Distance ``r`` from the proximal joint to the link CoM [m] (trunk: from the hip up).
    mass : float
        Link mass ``m`` [kg].
    inertia : float
        Moment of inertia ``J`` about the link's own CoM [kg m^2].
    """

    length: float
    com: float
    mass: float
    inertia: float

    def validate(self, name: str) -> None:
        for field in ("length", "com", "mass", "inertia"):
            value = getattr(self, field)
            if not math.isfinite(value):
                raise ValueError(f"{name}.{field} must be finite, got {value!r}")
        if self.length <= 0:
            raise ValueError(f"{name}.length must be > 0 m, got {self.length!r}")
        if self.mass <= 0:
            raise ValueError(f"{name}.mass must be > 0 kg, got {self.mass!r}")
        if self.inertia <= 0:
            raise ValueError(f"{name}.inertia must be > 0 kg m^2, got {self.inertia!r}")
        if not 0 <= self.com <= self.length:
            raise ValueError(
                f"{name}.com (r = {self.com!r} m) must lie on the link, within [0, l = {self.length!r} m]"
            )

    @classmethod
    def uniform_rod(cls, length: float, mass: float) -> LinkParams:
        """A uniform slender rod: ``r = l/2``, ``J = m l^2 / 12``."""
        return cls(length=length, com=0.5 * length, mass=mass, inertia=mass * length**2 / 12.0)


@dataclass(frozen=True)
class BipedParams:
    """Parameters of the five-link biped (both legs identical).

    ``trunk.com`` is ``r0``, measured from the hip *up* to the trunk CoM; ``foot_radius``
    [m] is the rolling foot's radius (0 = point foot; module doc).
    """

    trunk: LinkParams
    thigh: LinkParams
    shank: LinkParams
    g: float = G_EARTH
    foot_radius: float = 0.0

    def __post_init__(self) -> None:
        for name in ("trunk", "thigh", "shank"):
            getattr(self, name).validate(name)
        if not math.isfinite(self.g) or self.g < 0:
            raise ValueError(f"gravity g must be finite and >= 0 m/s^2, got {self.g!r}")
        if not math.isfinite(self.foot_radius) or not 0.0 <= self.foot_radius <= self.shank.length:
            raise ValueError(f"foot_radius must lie in [0, shank length {self.shank.length:.3f}] m, "
                             f"got {self.foot_radius!r}")

    @classmethod
    def paper(cls) -> BipedParams:
        """Table 1 of Luxman & Zielinska (2017); 55.33 kg in total."""
        return cls(
            trunk=LinkParams(length=0.788, com=0.394, mass=37.63, inertia=1.9483),
            thigh=LinkParams(length=0.406, com=0.203, mass=5.53, inertia=0.076),
            shank=LinkParams(length=0.473, com=0.236, mass=3.32, inertia=0.0619),
        )

    @classmethod
    def scaled(cls, mass: float, height: float) -> BipedParams:
        """Uniform-rod model of a subject of ``mass`` [kg] and ``height`` [m] (see module doc)."""
        if not (math.isfinite(mass) and mass > 0):
            raise ValueError(f"body mass must be a positive number of kg, got {mass!r}")
        if not (math.isfinite(height) and height > 0):
            raise ValueError(f"body height must be a positive number of m, got {height!r}")
        if not (10.0 <= mass <= 400.0):
            raise ValueError(f"body mass {mass} kg is outside the plausible human range 10-400 kg")
        if not (0.5 <= height <= 2.6):
            raise ValueError(f"body height {height} m is outside the plausible human range 0.5-2.6 m")
        def rod(name: str) -> LinkParams:
            return LinkParams.uniform_rod(LENGTH_FRACTIONS[name] * height, MASS_FRACTIONS[name] * mass)

        return cls(trunk=rod("trunk"), thigh=rod("thigh"), shank=rod("shank"))

    def with_gravity(self, g: float) -> BipedParams:
        return replace(self, g=g)

    def with_foot_radius(self, radius: float) -> BipedParams:
        """The same body with a rolling foot of ``radius`` [m] (0 = point foot)."""
        return replace(self, foot_radius=float(radius))

    @property
    def total_mass(self) -> float:
        """Whole-body mass [kg]: trunk + 2 thighs + 2 shanks."""
        return self.trunk.mass + 2.0 * (self.thigh.mass + self.shank.mass)

    @property
    def leg_length(self) -> float:
        """Hip-to-foot length of a straight leg [m]."""
        return self.thigh.length + self.shank.length

    def as_array(self) -> np.ndarray:
        """Flat vector ``[l0, r0, m0, J0, l1, r1, m1, J1, l2, r2, m2, J2, g, R]`` used by the kernels."""
        values: list[float] = []
        for link in (self.trunk, self.thigh, self.shank):
            values += [link.length, link.com, link.mass, link.inertia]
        values += [self.g, self.foot_radius]
        return np.array(values, dtype=np.float64)

    def to_dict(self) -> dict[str, object]:
        return {
            name: {
                "length_m": link.length,
                "com_m": link.com,
                "mass_kg": link.mass,
                "inertia_kgm2": link.inertia,
            }
            for name, link in (("trunk", self.trunk), ("thigh", self.thigh), ("shank", self.shank))
        } | {"g": self.g, "foot_radius_m": self.foot_radius, "total_mass_kg": self.total_mass}
