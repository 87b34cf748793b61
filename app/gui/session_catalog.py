"""What the engine offers the session: bundled datasets, presets, and parameter values of a diagram.

Part of the GUI's engine adapter (:mod:`app.gui.session`); no Qt in this module.
"""

from __future__ import annotations

from typing import Any

from blocks import Diagram
from models.errors import UserError

__all__ = ["GAIN_NAMES", "apply_preset", "available_datasets", "available_presets", "default_dataset",
           "diagram_value"]

GAIN_NAMES = ("kp", "ki", "kd")


def diagram_value(diagram: Diagram, ref: str) -> Any:
    """Value of ``block.param`` in the diagram: explicit, else the ``ParamSpec`` default."""
    block, param = ref.split(".")
    return diagram.blocks[block].params.get(param, diagram.param_spec(ref).default)


def _registry() -> Any:
    from blocks.datasets import dataset_registry

    return dataset_registry()


def available_datasets() -> list[str]:
    """Bundled dataset names (``grf_data.registry.list_datasets``), or the built-in demo."""
    reg = _registry()
    if reg is None:
        return ["demo"]
    try:
        names = [str(d["name"]) for d in reg.list_datasets()]
    except (AttributeError, KeyError, TypeError):
        names = []
    return names or ["demo"]


def default_dataset() -> str:
    from blocks.datasets import default_dataset_name

    return default_dataset_name()


def available_presets() -> tuple[str, ...]:
    try:
        from blocks.presets import PRESETS
    except ImportError:
        return ("default", "paper")
    return tuple(PRESETS)


def apply_preset(diagram: Diagram, name: str) -> Diagram:
    """``blocks.presets.apply_preset`` when it exists; without it, or for ``name = ""``, the
    diagram is used as is."""
    if not name:
        return diagram.copy()
    try:
        from blocks.presets import apply_preset as _apply
    except ImportError:
        if name not in available_presets():
            raise UserError(f"unknown preset {name!r}; known: {', '.join(available_presets())}") from None
        return diagram.copy()
    result: Diagram = _apply(diagram, name)
    return result
