"""Parametric gait generator: synthetic walking the five-link model can reproduce exactly.

Kinematics come first (feet, CoM, trunk angle, legs by inverse kinematics); the ground reaction
forces then follow from :meth:`models.biped.FiveLinkBiped.inverse_dynamics` with the stance
foot pinned and double support shared smoothly (:mod:`models.gaitgen.cycle`).
``python -m models.gaitgen`` rewrites the bundled ``grf_data/{barefoot,sneakers,high_heels}``.
"""

from __future__ import annotations

from models.gaitgen.cycle import CycleModel, CycleSolution
from models.gaitgen.params import CONDITIONS, GENERATOR_VERSION, GaitParams

__all__ = ["CONDITIONS", "GENERATOR_VERSION", "CycleModel", "CycleSolution", "GaitParams"]
