"""Presets of the default diagram: named sets of parameter values (``assets/presets/*.json``).

A preset file holds ``{"format": "gaitblocks-preset", "version": 1, "name", "description",
"set": {"block.param": value, ...}, "why": {...}}``. Applying it sets each parameter through
:meth:`Diagram.set_param`, so every value is range-checked by its ``ParamSpec``.

* ``tracking`` (alias ``default``) -- walks by tracking the recording (footprints, trunk curve,
  CoM and stance angles): its posture metrics are inputs, not results;
* ``emergent`` -- the posture the recorded GRF and CoP produce: the posture solver's gait walked by
  the diagram (``SolvedGait``: its torques as feedforward plus a light PD around its own angles);
* ``setpoint`` -- named ``emergent`` until issue 30: footprints where the foot lands, the trunk held
  toward one shared set-point by a ground couple, the estimator and the GRF match in stance;
* ``paper`` -- the paper as published (estimator in stance, PID in swing, its gains).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import assets
from models.errors import UserError

if TYPE_CHECKING:
    from blocks.diagram import Diagram

PRESET_DIR = Path(assets.__file__).resolve().parent / "presets"
#: every ``assets/presets/*.json`` file, by name ("tracking" first: the default one)
PRESETS: tuple[str, ...] = tuple(sorted((p.stem for p in PRESET_DIR.glob("*.json")),
                                        key=lambda n: (n != "tracking", n)))
ALIASES: dict[str, str] = {"default": "tracking"}  # old name -> preset
PRESET_CHOICES: tuple[str, ...] = PRESETS + tuple(ALIASES)


def preset_path(name: str) -> Path:
    return PRESET_DIR / f"{name}.json"


def load_preset(name: str) -> dict[str, Any]:
    """The preset file's content; :class:`UserError` for an unknown name or a malformed file."""
    name = ALIASES.get(name, name)
    if name not in PRESETS:
        raise UserError(f"unknown preset {name!r}; known presets: {', '.join(PRESETS)}")
    path = preset_path(name)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise UserError(f"{path}: cannot read preset: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != "gaitblocks-preset" or not isinstance(data.get("set"), dict):
        raise UserError(f"{path}: not a gaitblocks preset file")
    return data


def apply_preset(diagram: Diagram, name: str) -> Diagram:
    """A copy of ``diagram`` with the preset's parameter values set."""
    out = diagram.copy()
    for ref, value in load_preset(name)["set"].items():
        out.set_param(ref, value)
    return out
