"""Virtual subsystems: named groups of a diagram's blocks, drawn as one block (as Simulink's virtual subsystems).

A subsystem is purely a grouping of the drawing. It lives in the diagram's UI fields, which the
engine never reads::

    "ui": {"subsystems": [{"name": "stabilisers", "blocks": ["contact", "trunk", ...],
                           "x": px, "y": px}]}          # x, y: its place when collapsed (scene px)

The compiler sees the flat blocks and wires, so grouping or ungrouping changes no result, by
construction. A diagram file of version 3 without the field has no subsystems; a reader that
does not know the field ignores it (``ui`` is free-form), so the file version is unchanged.

Rules (checked on load, :func:`check`): a subsystem has at least one block, every member is a
block of the diagram, a block belongs to at most one subsystem (subsystems do not nest), and a
subsystem's name is an identifier that names no block and no other subsystem.

Collapsed, a subsystem's ports are the signals wired across its boundary (:func:`boundary`):
one input per outside signal read inside (fan-out inside shares it), one output per inside
signal read outside, each named by the signal (``"block.port"``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from blocks.spec import DiagramError

__all__ = ["SUBSYSTEMS", "Boundary", "boundary", "check", "find", "group", "owners", "subsystems", "ungroup"]

SUBSYSTEMS = "subsystems"   # the key in Diagram.ui


class Diagram(Protocol):
    """What these functions read of a :class:`blocks.diagram.Diagram`: its blocks by name, its wires
    ``(source "block.port", destination "block.port")`` and its free-form ``ui`` fields."""

    ui: dict[str, Any]

    @property
    def blocks(self) -> Mapping[str, Any]: ...

    @property
    def connections(self) -> Sequence[tuple[str, str]]: ...


@dataclass(frozen=True)
class Boundary:
    """The signals crossing a subsystem's boundary, in wiring order: ``inputs`` are outside
    signals read inside, ``outputs`` inside signals read outside (each ``"block.port"``)."""

    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


def subsystems(d: Diagram) -> list[dict[str, Any]]:
    """The diagram's subsystems (the ``ui.subsystems`` list itself; empty if none)."""
    subs = d.ui.get(SUBSYSTEMS, [])
    return subs if isinstance(subs, list) else []


def find(d: Diagram, name: str) -> dict[str, Any] | None:
    return next((s for s in subsystems(d) if s.get("name") == name), None)


def owners(d: Diagram) -> dict[str, str]:
    """``{block: subsystem}`` for every grouped block."""
    return {b: s["name"] for s in subsystems(d) for b in s["blocks"]}


def check(d: Diagram) -> None:
    """Raise :class:`DiagramError` naming the first broken rule of ``ui.subsystems`` (see module doc)."""
    subs = d.ui.get(SUBSYSTEMS, [])
    if not isinstance(subs, list):
        raise DiagramError("ui.subsystems must be a list")
    seen: dict[str, str] = {}
    names: set[str] = set()
    for i, s in enumerate(subs):
        where = f"ui.subsystems[{i}]"
        if not isinstance(s, dict) or set(s) - {"name", "blocks", "x", "y"} or not {"name", "blocks"} <= set(s):
            raise DiagramError(f"{where} must be an object with name, blocks and optionally x, y")
        name = s["name"]
        if not isinstance(name, str) or not name.isidentifier():
            raise DiagramError(f"{where}.name must be an identifier, got {name!r}")
        if name in d.blocks or name in names:
            kind = "block" if name in d.blocks else "subsystem"
            raise DiagramError(f"{where}: the name '{name}' is already a {kind}")
        names.add(name)
        for key in ("x", "y"):
            if key in s and (isinstance(s[key], bool) or not isinstance(s[key], (int, float))):
                raise DiagramError(f"{where}.{key} must be a number [px]")
        members = s["blocks"]
        if not isinstance(members, list) or not members:
            raise DiagramError(f"{where} (subsystem '{name}'): 'blocks' must be a non-empty list of block names")
        for b in members:
            if b not in d.blocks:
                raise DiagramError(f"subsystem '{name}': no block '{b}' in the diagram")
            if b in seen:
                raise DiagramError(f"block '{b}' is in subsystems '{seen[b]}' and '{name}'; a block belongs to one")
            seen[b] = name


def group(d: Diagram, name: str, members: list[str], x: float, y: float) -> None:
    """Group ``members`` (ungrouped blocks, kept in diagram order) into subsystem ``name`` at ``(x, y)`` [px]."""
    owned = owners(d)
    for b in members:
        if b not in d.blocks:
            raise DiagramError(f"cannot group: no block '{b}'")
        if b in owned:
            raise DiagramError(f"cannot group: block '{b}' is already in subsystem '{owned[b]}'")
    entry = {"name": name, "blocks": [b for b in d.blocks if b in set(members)], "x": float(x), "y": float(y)}
    trial = copy.deepcopy(d.ui)
    trial.setdefault(SUBSYSTEMS, []).append(entry)
    old, d.ui = d.ui, trial
    try:
        check(d)
    except DiagramError:
        d.ui = old
        raise


def ungroup(d: Diagram, name: str) -> tuple[int, dict[str, Any]]:
    """Remove subsystem ``name`` (its blocks stay); returns its index and entry (for an undo)."""
    subs = subsystems(d)
    i = next((k for k, s in enumerate(subs) if s["name"] == name), None)
    if i is None:
        raise DiagramError(f"no subsystem '{name}'")
    entry = subs.pop(i)
    if not subs:
        d.ui.pop(SUBSYSTEMS, None)
    return i, entry


def boundary(d: Diagram, name: str) -> Boundary:
    """The signals crossing subsystem ``name``'s boundary (see :class:`Boundary`)."""
    s = find(d, name)
    if s is None:
        raise DiagramError(f"no subsystem '{name}'")
    inside = set(s["blocks"])
    ins: dict[str, None] = {}
    outs: dict[str, None] = {}
    for a, b in d.connections:
        a_in, b_in = a.split(".")[0] in inside, b.split(".")[0] in inside
        if b_in and not a_in:
            ins[a] = None
        elif a_in and not b_in:
            outs[a] = None
    return Boundary(tuple(ins), tuple(outs))
