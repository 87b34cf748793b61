"""The block library's catalogue: importing it registers every block type (one module per
family) and the walking library's diagram sections (:mod:`blocks.library.settings`).

The engine imports it by name at the first look-up of a block type or section
(:data:`blocks.core.LIBRARIES`); nothing of the engine imports it.
"""

from __future__ import annotations

from blocks.library.analysis import JointReactions, TorqueDecomposition
from blocks.library.ankle import AnkleBalance
from blocks.library.biped import BipedKinematics, FiveLinkDynamics
from blocks.library.control import PID, TorqueSwitch
from blocks.library.estimator import NetTorqueEstimator
from blocks.library.floor import Footprints, StanceDamping
from blocks.library.generic import (
    Constant,
    Function,
    Gain,
    Integrator,
    Mux,
    Scope,
    Selector,
    StateSpace,
    Step,
    Sum,
    UnitDelay,
)
from blocks.library.grf_match import GrfMatch
from blocks.library.mechanism import PlanarMechanism
from blocks.library.phase import PhaseDetector
from blocks.library.settings import DataSettings, ModelSettings
from blocks.library.solved_gait import SolvedGait
from blocks.library.sources import GrfSource, ReferenceSource
from blocks.library.walking import FeedbackEnable, GroundContact, ReferenceMotion, TrunkBalance

__all__ = ["AnkleBalance", "BipedKinematics", "Constant", "DataSettings", "FeedbackEnable", "FiveLinkDynamics",
           "Footprints", "Function", "Gain", "GrfMatch", "GrfSource", "GroundContact", "Integrator",
           "JointReactions", "ModelSettings", "Mux", "NetTorqueEstimator", "PID", "PhaseDetector", "PlanarMechanism",
           "ReferenceMotion", "ReferenceSource", "Scope", "Selector", "SolvedGait", "StanceDamping", "StateSpace",
           "Step", "Sum", "TorqueDecomposition", "TorqueSwitch", "TrunkBalance", "UnitDelay"]
