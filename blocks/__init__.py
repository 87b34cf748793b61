"""Block-diagram engine (no Qt): block contract, diagrams, compile, runner, registry, recorder.

Typical use::

    from blocks import Diagram, compile_diagram, Runner
    d = Diagram.load("assets/diagrams/grf_walk.json")
    runner = Runner(compile_diagram(d))
    results = runner.run(2.0)              # or: for t in runner.step(10): ...
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from blocks.diagram import Diagram, SolverSettings
    from blocks.recorder import Recorder, Results
    from blocks.registry import ParameterRegistry
    from blocks.runner import Runner, Snapshot

# name -> submodule: imported on first use, so ``import blocks`` stays light (PEP 562)
_WHERE = {
    "CompiledModel": "compile", "compile_diagram": "compile",
    "BLOCK_TYPES": "core", "AlgebraicLoopError": "core", "Block": "core", "BlockError": "core",
    "CompileContext": "core", "DiagramError": "core", "Params": "core", "ParamSpec": "core", "PortSpec": "core",
    "SimulationError": "core",
    "Diagram": "diagram", "SolverSettings": "diagram",
    "Recorder": "recorder", "Results": "recorder", "ParameterRegistry": "registry",
    "Runner": "runner", "Snapshot": "runner",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(importlib.import_module(f"blocks.{_WHERE[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'blocks' has no attribute {name!r}")

__all__ = ["AlgebraicLoopError", "BLOCK_TYPES", "Block", "BlockError", "CompileContext", "CompiledModel",
           "Diagram", "DiagramError", "ParamSpec", "ParameterRegistry", "Params", "PortSpec",
           "Recorder", "Results", "Runner", "SimulationError", "Snapshot", "SolverSettings", "compile_diagram"]
