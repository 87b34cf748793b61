"""The block library: block types by family, and the walking library's diagram sections,
presets, datasets and default diagram (``presets``, ``datasets``, ``default_diagram``).

Importing this package is light; :mod:`blocks.library.catalog` registers every block type
(the engine imports it by name, :data:`blocks.core.LIBRARIES`). A public name of a family is also
reached here (``from blocks.library import PID``), the families imported in order until one
exports it (PEP 562).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

#: the modules of this package that define block types or diagram sections (each registers its own)
FAMILIES = ("analysis", "ankle", "biped", "control", "estimator", "floor", "generic", "grf_match", "mechanism", "phase",
            "settings", "solved_gait", "sources", "walking")


def __getattr__(name: str) -> Any:
    if name.startswith("_") or importlib.util.find_spec(f"{__name__}.{name}") is not None:
        raise AttributeError(name)  # a submodule or a private name: left to the import system
    for family in FAMILIES:
        module = importlib.import_module(f"blocks.library.{family}")
        if name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            globals()[name] = value
            return value
    raise AttributeError(f"module 'blocks.library' has no attribute {name!r}")
