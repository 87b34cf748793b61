"""Planar constrained multibody dynamics (seed 003, Ehsani: empirically-based multibody dynamics).

Modules: :mod:`~models.mechanism.geometry` (point kinematics in joint variables),
:mod:`~models.mechanism.system` (bodies, loops, coordinates, forces),
:mod:`~models.mechanism.manifold` (f(q) with gradient and Hessian: projection, pre-model,
numerical differentiation), :mod:`~models.mechanism.embedded` (minimal-coordinate ODE),
:mod:`~models.mechanism.dae` (index-1 DAE with Baumgarte or projection),
:mod:`~models.mechanism.classical` (absolute-coordinate kinematic analysis, for validation),
:mod:`~models.mechanism.library` (four-bar, five-bar, Andrews' squeezer).
"""

from models.mechanism.embedded import Embedded, make_manifold
from models.mechanism.library import MECHANISMS, build
from models.mechanism.manifold import NumericalDiff, PreModel, Projection
from models.mechanism.system import ConstraintError, Mechanism

__all__ = ["ConstraintError", "Embedded", "MECHANISMS", "Mechanism", "NumericalDiff", "PreModel", "Projection",
           "build", "make_manifold"]
