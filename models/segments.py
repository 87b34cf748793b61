"""Body-segment parameter tables (typed in, with their sources) and segment scaling.

Winter's table (Winter DA, *Biomechanics and Motor Control of Human Movement*, 4th ed.,
Wiley 2009, Table 4.1, after Dempster 1955), as tabulated in Duarte's BMC
``BSP_DempsterWinter.txt``: mass as a fraction of body mass, centre of mass from the
proximal end as a fraction of segment length, radius of gyration about the centre of mass
as a fraction of segment length.

==============  ===============  ======  =========  ==========
segment         definition       mass    CoM prox   rg (CoM)
==============  ===============  ======  =========  ==========
hand            WJC-KNU2         0.006   0.506      0.297
forearm         EJC-STYL         0.016   0.430      0.303
upper_arm       SJC-EJC          0.028   0.436      0.322
forearm_hand    EJC-STYL         0.022   0.682      0.468
foot            LMAL-MT2         0.0145  0.500      0.475
leg (shank)     KJC-MMAL         0.0465  0.433      0.302
thigh           GTR-KJC          0.100   0.433      0.323
foot_leg        KJC-MMAL         0.061   0.606      0.416
hat             GTR-SJC          0.678   0.626      0.496
==============  ===============  ======  =========  ==========

Segment lengths as fractions of body height (Winter 2009, Fig. 4.1, Drillis & Contini):
thigh 0.245 (greater trochanter 0.530 H to knee 0.285 H), leg 0.246 (knee to ankle
0.039 H), foot length 0.152, upper arm 0.186, forearm 0.146, hand 0.108. Duarte's two-link
arm ("Multibody dynamics of simple biomechanical models", BMC notebook) uses upper arm
0.188 H and forearm + hand 0.253 H; :data:`DUARTE_ARM_LENGTHS` keeps his numbers so the
example reproduces his figure.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SegmentFractions:
    """Anthropometric fractions of one segment.

    Parameters
    ----------
    mass : float
        Segment mass / body mass [-].
    com : float
        Distance proximal joint -> CoM / segment length [-].
    gyration : float
        Radius of gyration about the CoM / segment length [-].
    """

    mass: float
    com: float
    gyration: float


WINTER: dict[str, SegmentFractions] = {
    "hand": SegmentFractions(0.006, 0.506, 0.297),
    "forearm": SegmentFractions(0.016, 0.430, 0.303),
    "upper_arm": SegmentFractions(0.028, 0.436, 0.322),
    "forearm_hand": SegmentFractions(0.022, 0.682, 0.468),
    "foot": SegmentFractions(0.0145, 0.500, 0.475),
    "leg": SegmentFractions(0.0465, 0.433, 0.302),
    "thigh": SegmentFractions(0.100, 0.433, 0.323),
    "foot_leg": SegmentFractions(0.061, 0.606, 0.416),
    "hat": SegmentFractions(0.678, 0.626, 0.496),
}

WINTER_LENGTHS: dict[str, float] = {
    "thigh": 0.245, "leg": 0.246, "foot": 0.152, "upper_arm": 0.186, "forearm": 0.146, "hand": 0.108,
}

DUARTE_ARM_LENGTHS: dict[str, float] = {"upper_arm": 0.188, "forearm_hand": 0.253}


@dataclass(frozen=True)
class Segment:
    """A rigid segment scaled to a subject.

    Attributes
    ----------
    length : float
        Proximal-to-distal joint length [m].
    com : float
        Proximal joint to CoM distance [m].
    mass : float
        Mass [kg].
    inertia : float
        Moment of inertia about the CoM [kg m^2], ``m (rg l)^2``.
    """

    length: float
    com: float
    mass: float
    inertia: float


def scale_segment(fractions: SegmentFractions, length: float, body_mass: float) -> Segment:
    """Absolute parameters of a segment of ``length`` [m] on a body of ``body_mass`` [kg]."""
    if not (length > 0 and body_mass > 0):
        raise ValueError(f"segment length and body mass must be > 0, got {length!r} m, {body_mass!r} kg")
    mass = fractions.mass * body_mass
    return Segment(length, fractions.com * length, mass, mass * (fractions.gyration * length) ** 2)
