"""Display units of the scopes and the signal browser: SI, or normalised to the model's body weight and mass.

One conversion for both (so they agree): a signal's SI unit (``blocks.units``) is shown as

* angles in degrees: ``rad`` -> ``deg`` (and ``rad/s`` -> ``deg/s``), values times ``180/pi``
  (:func:`angle_unit`);
* ``mode = "BW"``: forces divided by the body weight and torques by the body mass,

      F [BW] = F [N] / (m g),        tau [N·m/kg] = tau [N·m] / m,

  with ``m`` the model's total mass [kg] and ``g = G_EARTH`` [m/s²] (:mod:`models.params`);
  other units are left as they are (:func:`display_unit`);
* written with a middle dot, ``N*m`` -> ``N·m`` (:func:`pretty`); a dimensionless signal (flags,
  codes) reads ``1``.
"""

from __future__ import annotations

import math

from blocks.units import column_units
from models.params import G_EARTH

__all__ = ["MIN_SPAN", "UNIT_MODES", "angle_unit", "column_display", "display_unit", "pretty"]

UNIT_MODES = ("SI", "BW")   # SI; forces in body weights and torques per kg
DEG = 180.0 / math.pi
#: the least y span of a scope, per display unit (``-``: any other), so that a flat or noise-only
#: trace reads 0 on a small round range (min_span)
MIN_SPAN = {"deg": 0.1, "deg/s": 1.0, "cm": 0.1, "m": 0.001, "m/s": 0.01, "N": 0.1, "BW": 0.001,
            "N·m": 0.01, "N·m/kg": 0.001, "1": 0.1, "-": 1e-3}


def angle_unit(unit: str) -> tuple[str, float]:
    """``(unit, scale)``: radians shown in degrees (``rad/s`` -> ``deg/s``, scale ``180/pi``); any
    other unit unchanged (scale 1; an unknown unit, ``""``, reads ``-``)."""
    u = unit.strip()
    if u.split("/")[0] == "rad":
        return u.replace("rad", "deg", 1), DEG
    return u or "-", 1.0


def display_unit(unit: str, mode: str, mass_kg: float) -> tuple[str, float]:
    """``(label, factor)``: the unit shown for a signal in ``unit`` and the factor its SI values are
    multiplied by. ``mass_kg`` is the model's total mass [kg]."""
    u = unit.strip()
    if mode == "BW" and mass_kg > 0:
        if u == "N":
            return "BW", 1.0 / (mass_kg * G_EARTH)
        if u in ("N*m", "N·m"):
            return "N*m/kg", 1.0 / mass_kg
    return unit, 1.0


def min_span(unit: str) -> float:
    """The least y span of a scope in display unit ``unit`` (:data:`MIN_SPAN`)."""
    return MIN_SPAN.get(pretty(unit), MIN_SPAN["-"])


def pretty(unit: str) -> str:
    """``unit`` as shown: ``N*m`` -> ``N·m``."""
    return unit.replace("*", "·")


def column_display(unit: str, labels: tuple[str, ...], col: int, mode: str = "SI",
                   mass_kg: float = 0.0) -> tuple[str, float]:
    """``(shown unit, factor)`` of column ``col`` of a signal in SI ``unit``, as a scope shows it:
    degrees for radians, then the ``mode`` (:func:`display_unit`), with a middle dot."""
    u, scale = angle_unit(column_units(unit, labels)[col])
    shown, factor = display_unit(u, mode, mass_kg)
    return pretty(shown), scale * factor
