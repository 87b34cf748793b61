"""Block-diagram engine (no Qt): block contract, diagrams, compile, runner, registry, recorder.

Typical use::

    from blocks import Diagram, compile_diagram, Runner
    d = Diagram.load("assets/diagrams/grf_walk.json")
    runner = Runner(compile_diagram(d))
    results = runner.run(2.0)              # or: for t in runner.step(10): ...
"""

from __future__ import annotations

from blocks.compile import CompiledModel, compile_diagram
from blocks.core import (
    BLOCK_TYPES,
    AlgebraicLoopError,
    Block,
    BlockError,
    CompileContext,
    DiagramError,
    Params,
    ParamSpec,
    PortSpec,
    SimulationError,
)
from blocks.diagram import Diagram, ModelSettings, SolverSettings
from blocks.recorder import Recorder, Results
from blocks.registry import ParameterRegistry
from blocks.runner import Runner, Snapshot

__all__ = ["AlgebraicLoopError", "BLOCK_TYPES", "Block", "BlockError", "CompileContext", "CompiledModel",
           "Diagram", "DiagramError", "ModelSettings", "ParamSpec", "ParameterRegistry", "Params", "PortSpec",
           "Recorder", "Results", "Runner", "SimulationError", "Snapshot", "SolverSettings", "compile_diagram"]
