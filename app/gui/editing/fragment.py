"""Diagram fragments for copy, paste and duplicate (no Qt in this module).

A *fragment* is what Copy puts on the clipboard: a JSON object holding the selected blocks in the
diagram format's own dicts (``{"name", "type", "params"}``, as :meth:`blocks.Diagram.to_dict`
writes them), the wires *between* them (``{"from", "to"}``; a wire to a block left out is
dropped), their positions and any copied subsystem (``ui.blocks``, ``ui.subsystems``)::

    {"format": "gaitblocks-fragment", "version": 1, "blocks": [...], "connections": [...],
     "ui": {"blocks": {name: {"x": px, "y": px}}, "subsystems": [{"name", "blocks", "x", "y"}]}}

Pasting (:func:`plan_paste`) renames every block the way the palette names a new one
(:func:`~app.gui.editing.edit_model.unique_name`: ``gain1`` -> ``gain2``, the first free number)
and every subsystem likewise (``subsystem1``), and shifts every position by ``k`` times
:data:`PASTE_STEP` with the smallest ``k >= 1`` that puts no pasted node where a node of the
diagram already stands, so a copy never hides its original (a second paste lands one step further).
Pasted into an open subsystem, the blocks join it; subsystems do not nest, so a copied
subsystem's blocks join it as plain blocks there.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from app.gui.editing.edit_model import unique_name
from blocks import Diagram
from blocks.subsystems import SUBSYSTEMS, find, owners, subsystems

__all__ = ["FRAGMENT_FORMAT", "PASTE_STEP", "Pasted", "apply_paste", "cut_fragment", "fragment_text",
           "plan_paste", "read_fragment"]

FRAGMENT_FORMAT = "gaitblocks-fragment"
FRAGMENT_VERSION = 1
PASTE_STEP = (30.0, 30.0)   # the shift of a pasted copy from its original [scene px]
SAME_SPOT_PX = 2.0           # two nodes closer than this (in x and y) stand on the same spot [scene px]


def cut_fragment(d: Diagram, blocks: list[str], subs: list[str] | None = None,
                 positions: dict[str, tuple[float, float]] | None = None) -> dict[str, Any]:
    """The fragment of ``blocks`` and of subsystems ``subs`` (with all their members) of ``d``.

    ``positions`` ``{name: (x, y)}`` [scene px] overrides the saved ones (the canvas's items)."""
    subs = list(subs or [])
    members = {b for s in subs for b in (find(d, s) or {"blocks": []})["blocks"]}
    names = [n for n in d.blocks if n in set(blocks) | members]
    part = Diagram(d.name)
    part.blocks = {n: copy.deepcopy(d.blocks[n]) for n in names}
    chosen = set(names)
    wires = [(a, b) for a, b in d.connections if a.split(".")[0] in chosen and b.split(".")[0] in chosen]
    saved = d.ui.get("blocks", {})
    pos = {n: {"x": float(saved[n]["x"]), "y": float(saved[n]["y"])} for n in names if n in saved}
    for n, (x, y) in (positions or {}).items():
        if n in chosen:
            pos[n] = {"x": float(x), "y": float(y)}
    groups = []
    for s in subs:
        entry = copy.deepcopy(find(d, s))
        if entry is not None:
            if s in (positions or {}):
                entry["x"], entry["y"] = (float(v) for v in positions[s])  # type: ignore[index]
            groups.append(entry)
    return {"format": FRAGMENT_FORMAT, "version": FRAGMENT_VERSION, "blocks": part.to_dict()["blocks"],
            "connections": [{"from": a, "to": b} for a, b in wires],
            "ui": {"blocks": pos, SUBSYSTEMS: groups}}


def read_fragment(text: str) -> dict[str, Any]:
    """The fragment in ``text`` (JSON); raises ``ValueError`` if it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a diagram fragment: {exc.msg}") from None
    if not isinstance(data, dict) or data.get("format") != FRAGMENT_FORMAT:
        raise ValueError("not a gaitblocks diagram fragment")
    if data.get("version") != FRAGMENT_VERSION:
        raise ValueError(f"diagram fragment version {data.get('version')} (this program reads {FRAGMENT_VERSION})")
    if not isinstance(data.get("blocks"), list) or not isinstance(data.get("connections"), list):
        raise ValueError("a diagram fragment needs 'blocks' and 'connections' lists")
    return data


@dataclass
class Pasted:
    """A fragment renamed for one diagram: ``blocks`` (format dicts), ``connections``, ``positions``
    [scene px], ``subsystems`` (entries to add), ``level`` (the open subsystem the blocks join, or
    ``None``) and ``shown`` (the pasted nodes drawn at that level, to select)."""

    blocks: list[dict[str, Any]]
    connections: list[tuple[str, str]]
    positions: dict[str, tuple[float, float]]
    subsystems: list[dict[str, Any]] = field(default_factory=list)
    level: str | None = None
    shown: list[str] = field(default_factory=list)


def _spots(d: Diagram, level: str | None) -> list[tuple[float, float]]:
    """Where the nodes drawn at ``level`` stand [scene px]."""
    owner = owners(d)
    saved = d.ui.get("blocks", {})
    out = [(float(p["x"]), float(p["y"])) for n, p in saved.items() if owner.get(n) == level]
    if level is None:
        out += [(float(s["x"]), float(s["y"])) for s in subsystems(d) if "x" in s and "y" in s]
    return out


def plan_paste(d: Diagram, frag: dict[str, Any], level: str | None = None) -> Pasted:
    """``frag`` renamed and shifted for pasting into ``d`` at ``level`` (module docstring)."""
    taken: set[str] = set()
    rename: dict[str, str] = {}
    for b in frag["blocks"]:
        rename[b["name"]] = new = unique_name(d, b["type"], taken)
        taken.add(new)
    groups = [s for s in frag.get("ui", {}).get(SUBSYSTEMS, []) if level is None]
    sub_rename: dict[str, str] = {}
    for s in groups:
        sub_rename[s["name"]] = new = unique_name(d, "subsystem", taken)
        taken.add(new)
    grouped = {b for s in groups for b in s["blocks"]}
    old_pos = {n: (float(p["x"]), float(p["y"])) for n, p in frag.get("ui", {}).get("blocks", {}).items()}
    top = {n: xy for n, xy in old_pos.items() if n not in grouped}
    top.update({s["name"]: (float(s.get("x", 0.0)), float(s.get("y", 0.0))) for s in groups})
    spots = _spots(d, level)
    def hides(k: int) -> bool:   # a node shifted k steps would stand where one stands
        return any(abs(x + k * PASTE_STEP[0] - sx) < SAME_SPOT_PX and abs(y + k * PASTE_STEP[1] - sy) < SAME_SPOT_PX
                   for x, y in top.values() for sx, sy in spots)

    k = 1
    while k < 100 and hides(k):
        k += 1
    dx, dy = k * PASTE_STEP[0], k * PASTE_STEP[1]
    blocks = [{**copy.deepcopy(b), "name": rename[b["name"]]} for b in frag["blocks"]]

    def ref(r: str) -> str:
        node, port = r.split(".", 1)
        return f"{rename[node]}.{port}"

    wires = [(ref(c["from"]), ref(c["to"])) for c in frag["connections"]
             if c["from"].split(".")[0] in rename and c["to"].split(".")[0] in rename]
    new_subs: list[dict[str, Any]] = [
        {"name": sub_rename[s["name"]], "blocks": [rename[b] for b in s["blocks"] if b in rename],
         "x": float(s.get("x", 0.0)) + dx, "y": float(s.get("y", 0.0)) + dy} for s in groups]
    shown = [rename[b["name"]] for b in frag["blocks"] if b["name"] not in grouped] + [str(s["name"]) for s in new_subs]
    return Pasted(blocks, wires, {rename[n]: (x + dx, y + dy) for n, (x, y) in old_pos.items() if n in rename},
                  new_subs, level, shown)


def apply_paste(d: Diagram, p: Pasted) -> None:
    """Add ``p`` to ``d`` in place: the blocks (parameters checked), wires, positions and subsystems.
    Raises ``UserError`` (an unknown type, a bad parameter) having added only part: try a copy first."""
    for b in p.blocks:
        d.add(b["name"], b["type"], **b.get("params", {}))
    for name, (x, y) in p.positions.items():
        d.set_position(name, x, y)
    for src, dst in p.connections:
        d.connect(src, dst)
    if p.subsystems:
        d.ui.setdefault(SUBSYSTEMS, []).extend(copy.deepcopy(p.subsystems))
    inside = find(d, p.level) if p.level is not None else None
    if inside is not None:
        inside["blocks"].extend(b["name"] for b in p.blocks)


def fragment_text(frag: dict[str, Any]) -> str:
    """The fragment as the JSON text put on the clipboard."""
    return json.dumps(frag, indent=1, ensure_ascii=False, allow_nan=False)
