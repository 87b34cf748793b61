"""What the engine offers the session: bundled datasets, presets, and parameter values of a diagram.

Part of the GUI's engine adapter (:mod:`app.gui.session`); no Qt in this module.
"""

from __future__ import annotations

from typing import Any

from blocks import Diagram

__all__ = ["GAIN_NAMES", "check_preset", "available_datasets", "available_presets", "default_dataset",
           "diagram_value"]

GAIN_NAMES = ("kp", "ki", "kd")


def diagram_value(diagram: Diagram, ref: str) -> Any:
    """Value of ``block.param`` (or item ``block.param[i]``) in the diagram: explicit, else the
    ``ParamSpec`` default (:meth:`blocks.Diagram.value`)."""
    return diagram.value(ref)


def available_datasets() -> list[str]:
    """Bundled and registered dataset names (``grf_data.registry.list_datasets``)."""
    from grf_data.registry import list_datasets

    return [str(d["name"]) for d in list_datasets()]


def default_dataset() -> str:
    from grf_data.registry import DEFAULT_DATASET

    return DEFAULT_DATASET


def available_presets() -> tuple[str, ...]:
    from blocks.library.presets import PRESETS

    return PRESETS


def check_preset(name: str) -> None:
    """Raise the :class:`~models.errors.UserError` of an unknown or unreadable preset (``""``: none);
    the run's build applies it (:func:`app.runs.build_diagram`)."""
    from blocks.library.presets import load_preset

    if name:
        load_preset(name)
