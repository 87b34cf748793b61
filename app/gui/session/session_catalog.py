"""What the engine offers the session: bundled datasets, presets, and parameter values of a diagram.

Part of the GUI's engine adapter (:mod:`app.gui.session.session`); no Qt in this module.
"""

from __future__ import annotations

from typing import Any

from blocks import Diagram

__all__ = ["GAIN_NAMES", "SOLVED_GAINS", "available_datasets", "available_presets", "check_preset",
           "default_dataset", "diagram_value", "gain_refs", "solved_gait_blocks"]

GAIN_NAMES = ("kp", "ki", "kd")
#: the gains of a ``SolvedGait`` block's PD around the solution (:mod:`blocks.library.solved_gait`):
#: stiffness [N m/rad] and damping [N m s/rad] of the hips, the knees and the trunk
SOLVED_GAINS = ("kp_hip", "kd_hip", "kp_knee", "kd_knee", "kp_trunk", "kd_trunk")


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


def solved_gait_blocks(diagram: Diagram) -> list[str]:
    """The ``SolvedGait`` blocks that read a solution (``source`` not ``off``, as under the ``emergent``
    preset): their PD acts. A block with ``source = off`` outputs zero, so its gains do nothing."""
    return [n for n, e in diagram.blocks.items() if e.type == "SolvedGait" and diagram.value(f"{n}.source") != "off"]


def gain_refs(diagram: Diagram) -> list[str]:
    """The gains a user tunes (the gain sliders, the Tuning tab): each PID's ``kp, ki, kd`` (and each
    leg's ``[i]`` of a multi-channel PID), then the PD gains of each acting ``SolvedGait`` block."""
    refs: list[str] = []
    for b, e in diagram.blocks.items():
        if e.type == "PID":
            n = int(diagram.value(f"{b}.n"))
            for g in GAIN_NAMES:
                refs.append(f"{b}.{g}")
                refs.extend(f"{b}.{g}[{i}]" for i in range(n) if n > 1)
    refs += [f"{b}.{g}" for b in solved_gait_blocks(diagram) for g in SOLVED_GAINS]
    return refs
