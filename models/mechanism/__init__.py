"""Planar constrained multibody dynamics: Ehsani's empirically-based method, and a DAE path to check it.

The method (equations of motion of a closed-loop system as an ODE in its generalized coordinates,
the dependent joint variables ``f(q)`` with their gradient and Hessian) is that of

    Ehsani H. (2023). "Empirically-based Multibody Dynamics for Modeling the Human Body
    Musculoskeletal System". arXiv:2307.10597 [physics.app-ph]. An English translation of part
    of the author's PhD dissertation (in Farsi), "Developing an EMG-driven model for the human
    shoulder considering the shoulder rhythm", Amirkabir University of Technology, 2016.

"Ehsani 2023, §3-4" and "Ehsani, Eq. 121" in this package's docstrings refer to that paper.

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
