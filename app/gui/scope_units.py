"""Display units of the scopes: SI, or normalised to the model's body weight and mass.

``mode = "SI"`` shows every signal in its own unit. ``mode = "BW"`` divides forces by the body
weight and torques by the body mass:

    F [BW] = F [N] / (m g),        tau [N·m/kg] = tau [N·m] / m,

with ``m`` the model's total mass [kg] and ``g = G_EARTH`` [m/s²] (:mod:`models.params`). Other
units are left as they are.
"""

from __future__ import annotations

from models.params import G_EARTH

__all__ = ["UNIT_MODES", "display_unit"]

UNIT_MODES = ("SI", "BW")   # SI; forces in body weights and torques per kg


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
