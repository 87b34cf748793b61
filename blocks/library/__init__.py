"""The block library: block types by family, and the walking library's diagram sections,
presets, datasets and default diagram (``presets``, ``datasets``, ``default_diagram``).

Importing this package is light; :mod:`blocks.library.catalog` registers every block type
(the engine imports it by name, :data:`blocks.core.LIBRARIES`). A block class is also reached
here by name (``from blocks.library import PID``), its module imported on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {  # name -> module of this package
    "AnkleBalance": "ankle", "BipedKinematics": "biped", "Constant": "generic", "DataSettings": "settings",
    "FeedbackEnable": "walking", "FiveLinkDynamics": "biped", "Footprints": "floor", "Function": "generic",
    "Gain": "generic", "GrfMatch": "grf_match", "GrfSource": "sources", "GroundContact": "walking",
    "Integrator": "generic", "JointReactions": "analysis", "ModelSettings": "settings", "Mux": "generic",
    "NetTorqueEstimator": "estimator", "PID": "control", "PhaseDetector": "phase",
    "PlanarMechanism": "mechanism", "ReferenceMotion": "walking", "ReferenceSource": "sources",
    "Scope": "generic", "Selector": "generic", "SolvedGait": "solved_gait", "StanceDamping": "floor",
    "StateSpace": "generic", "Step": "generic", "Sum": "generic", "TorqueDecomposition": "analysis",
    "TorqueSwitch": "control", "TrunkBalance": "walking", "UnitDelay": "generic",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(f"blocks.library.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'blocks.library' has no attribute {name!r}")


__all__ = sorted(_WHERE)
