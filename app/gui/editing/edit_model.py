"""Editing operations on a :class:`~blocks.Diagram` for the diagram editor (no Qt in this module).

Each operation changes the diagram in place and returns what its undo needs, so the undo
commands (:mod:`app.gui.editing.edit_commands`) restore the block and wire lists exactly, in their
original order (the order breaks ties in the evaluation order and is the order saved).
:func:`error_sites` finds the blocks and ports a compile error message names.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from typing import Any

from blocks import Diagram
from blocks.diagram import BlockEntry
from blocks.subsystems import SUBSYSTEMS, subsystems

__all__ = ["RemovedBlock", "error_sites", "insert_block", "remove_block", "remove_wire", "insert_wire",
           "unique_name"]


def unique_name(diagram: Diagram, type_name: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """``type_name`` in lower case with the first free number: ``Gain`` -> ``gain1``, ``gain2`` ...
    (free: naming no block or subsystem of ``diagram`` and nothing in ``taken``)."""
    base = re.sub(r"\W", "", type_name).lower() or "block"
    if not base[0].isalpha():
        base = "b" + base
    i = 1
    taken = set(taken) | set(diagram.blocks) | {sub["name"] for sub in subsystems(diagram)}
    while f"{base}{i}" in taken:
        i += 1
    return f"{base}{i}"


@dataclass
class RemovedBlock:
    """A block taken out of a diagram, with its index, wires (index, src, dst), logged signals,
    position and subsystem membership."""

    entry: BlockEntry
    index: int
    wires: list[tuple[int, str, str]] = field(default_factory=list)
    logged: list[tuple[int, str]] = field(default_factory=list)
    position: dict[str, float] | None = None
    group: tuple[int, int, dict[str, Any] | None] | None = None   # (subsystem index, member index, entry if emptied)


def _touches(ref: str, name: str) -> bool:
    return ref.split(".")[0] == name


def remove_block(diagram: Diagram, name: str) -> RemovedBlock:
    """Take block ``name`` out with every wire to or from it, its logged signals and its position."""
    names = list(diagram.blocks)
    entry = diagram.blocks.pop(name)
    wires = [(i, a, b) for i, (a, b) in enumerate(diagram.connections) if _touches(a, name) or _touches(b, name)]
    diagram.connections = [(a, b) for a, b in diagram.connections if not (_touches(a, name) or _touches(b, name))]
    logged = [(i, s) for i, s in enumerate(diagram.logged) if _touches(s, name)]
    diagram.logged = [s for s in diagram.logged if not _touches(s, name)]
    pos = diagram.ui.get("blocks", {}).pop(name, None)
    group = None
    subs = subsystems(diagram)
    for i, sub in enumerate(subs):
        if name in sub["blocks"]:
            j = sub["blocks"].index(name)
            group = (i, j, copy.deepcopy(sub) if len(sub["blocks"]) == 1 else None)
            sub["blocks"].remove(name)
            if not sub["blocks"]:   # its last block: the subsystem goes too
                del subs[i]
                if not subs:
                    diagram.ui.pop(SUBSYSTEMS, None)
    return RemovedBlock(copy.deepcopy(entry), names.index(name), wires, logged, copy.deepcopy(pos), group)


def insert_block(diagram: Diagram, removed: RemovedBlock) -> None:
    """Undo :func:`remove_block`: the block back at its index, its wires and logged signals at theirs."""
    items = list(diagram.blocks.items())
    items.insert(removed.index, (removed.entry.name, copy.deepcopy(removed.entry)))
    diagram.blocks = dict(items)
    for i, a, b in removed.wires:
        diagram.connections.insert(i, (a, b))
    for i, s in removed.logged:
        diagram.logged.insert(i, s)
    if removed.position is not None:
        diagram.ui.setdefault("blocks", {})[removed.entry.name] = dict(removed.position)
    if removed.group is not None:
        i, j, whole = removed.group
        subs = diagram.ui.setdefault(SUBSYSTEMS, [])
        if whole is not None:
            subs.insert(i, copy.deepcopy(whole))
        else:
            subs[i]["blocks"].insert(j, removed.entry.name)


def remove_wire(diagram: Diagram, src: str, dst: str) -> int:
    """Remove the wire ``src -> dst``; returns its index (for :func:`insert_wire`)."""
    i = diagram.connections.index((src, dst))
    del diagram.connections[i]
    return i


def insert_wire(diagram: Diagram, index: int, src: str, dst: str) -> None:
    diagram.connections.insert(index, (src, dst))


_PORT = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\.([A-Za-z_]\w*)(?![\w(])")
_QUOTED_BLOCK = re.compile(r"block '([A-Za-z_]\w*)'(?:[^:]*?: input '(\w+)')?")


def error_sites(message: str, diagram: Diagram) -> dict[str, set[str]]:
    """Blocks (and their ports, possibly none) a compile or block error names: ``{block: {port, ...}}``.

    Reads the engine's messages (:mod:`blocks.compile`): ``block 'g' (Gain): input 'u' is not
    connected``, ``algebraic loop: a.y → b.u → b.y → a.y``, ``width mismatch: b.u is 3 wide but a.y gives 2``."""
    sites: dict[str, set[str]] = {}
    for m in _QUOTED_BLOCK.finditer(message):
        if m.group(1) in diagram.blocks:
            sites.setdefault(m.group(1), set()).update({m.group(2)} if m.group(2) else set())
    for m in _PORT.finditer(message):
        if m.group(1) in diagram.blocks:
            sites.setdefault(m.group(1), set()).add(m.group(2))
    return sites

