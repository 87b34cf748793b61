"""Bringing the canvas's scene up to date with what it should show, item by item.

:meth:`~app.gui.editing.canvas.DiagramCanvas.redraw` computes the picture of the level shown
(:func:`~app.gui.editing.diagram_view.level_view`: nodes, wires, positions, the compile error
and the blocks and ports it names) and hands it to :func:`sync_scene`, which changes only what
differs from the picture drawn last:

* a node that appeared (a palette add, an undone delete) gets a new :class:`BlockItem`; a node
  that vanished loses its item; a node whose box changed (ports, title) is drawn again;
* an item whose position changed is moved (without recording a move: no undo entry);
* error outlines are set or cleared on the items whose error changed;
* the wires are built again only when the wire list changed, else rerouted; the signal widths of
  the last compile (``widths``) are set on the wires kept.

A palette add used to clear and rebuild the whole scene (the default diagram's top level, 17
nodes and 49 wires: 21-23 ms of GUI-thread CPU at load 5.6, twice per add: once when the edit is
drawn, once when the compile error arrives); it now adds one item (the whole add, with its two
diagram copies, 9-14 ms). :func:`build_scene` draws from scratch (the first picture, or another level).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.gui.editing.canvas_items import BlockItem, WireItem
from app.gui.editing.diagram_view import BLOCK, SUBSYSTEM, Node, Wire, split_ref

if TYPE_CHECKING:
    from app.gui.editing.canvas import DiagramCanvas

__all__ = ["Picture", "build_scene", "place", "sync_scene"]


@dataclass
class Picture:
    """What the canvas shows: the ``level`` (``None``: the top), its ``nodes`` and ``wires``, the
    saved positions ``pos`` [scene px], the compile ``error`` and the ports it names per block
    (``sites``), and the width of every signal the last compile resolved (``widths``, shown when
    ``show_widths``)."""

    level: str | None
    nodes: dict[str, Node]
    wires: list[Wire]
    pos: dict[str, tuple[float, float]]
    error: str | None
    sites: dict[str, set[str]]
    widths: dict[str, int] = field(default_factory=dict)
    show_widths: bool = True


def place(p: Picture) -> dict[str, tuple[float, float]]:
    """Every node's position [scene px]: its saved one, else a row of six per 200 px under the
    placed nodes (170 px apart) in diagram order; inports and outports get theirs later
    (:meth:`DiagramCanvas._place_boundary`), here they sit at the row's next slot."""
    below = max((y for _, y in p.pos.values()), default=-100.0) + 160.0
    out: dict[str, tuple[float, float]] = {}
    unplaced = 0
    for name, node in p.nodes.items():
        if name in p.pos:
            out[name] = p.pos[name]
        else:
            out[name] = (40.0 + 200.0 * (unplaced % 6), below + 170.0 * (unplaced // 6))
            unplaced += int(node.kind in (BLOCK, SUBSYSTEM))
    return out


def _error_of(p: Picture, name: str) -> tuple[str | None, set[str]]:
    return (p.error, p.sites[name]) if name in p.sites else (None, set())


def _build_wires(canvas: DiagramCanvas, p: Picture) -> None:
    sources = list(dict.fromkeys(w.src for w in p.wires))
    fanout = {src: sum(1 for w in p.wires if w.src == src) for src in sources}
    seen: set[str] = set()
    for wv in p.wires:
        w = WireItem(canvas, wv.src, wv.dst, sources.index(wv.src), fanout[wv.src], wv.signal, wv.conns,
                     lane_first=wv.src not in seen and p.nodes[split_ref(wv.src)[0]].kind == BLOCK,
                     width=p.widths.get(wv.signal, 0), first=wv.src not in seen)
        seen.add(wv.src)
        canvas.scene().addItem(w)
        canvas.wires.append(w)


def build_scene(canvas: DiagramCanvas, p: Picture) -> None:
    """Clear the scene and draw picture ``p`` from scratch."""
    canvas.scene().clear()
    canvas._wiring = None
    canvas.items_by_name, canvas.wires = {}, []
    for name, xy in place(p).items():
        item = BlockItem(canvas, p.nodes[name])
        item.setPos(*xy)
        canvas.scene().addItem(item)
        canvas.items_by_name[name] = item
    canvas._place_boundary(p.nodes, p.wires)
    _build_wires(canvas, p)
    for name, item in canvas.items_by_name.items():
        if name in p.sites:
            item.set_error(*_error_of(p, name))


def sync_scene(canvas: DiagramCanvas, old: Picture, new: Picture) -> None:
    """Change the scene from showing ``old`` to showing ``new`` (the same level): only the items
    that differ are added, removed, moved or restyled (module docstring)."""
    scene = canvas.scene()
    gone = [n for n in old.nodes if n not in new.nodes or old.nodes[n] != new.nodes[n]]
    for name in gone:
        dead = canvas.items_by_name.pop(name)
        if canvas._wiring is not None and canvas._wiring[0].block is dead:
            scene.removeItem(canvas._wiring[1])
            canvas._wiring = None
        scene.removeItem(dead)
    at = place(new)
    items: dict[str, BlockItem] = {}
    for name, node in new.nodes.items():
        kept = canvas.items_by_name.get(name)
        item = kept if kept is not None else BlockItem(canvas, node)
        if kept is None:
            scene.addItem(item)
        if (item.pos().x(), item.pos().y()) != at[name]:
            item.setPos(*at[name])
        items[name] = item
    canvas.items_by_name = items            # in the new diagram order
    above: BlockItem | None = None          # stacked in diagram order, as drawn from scratch (the later on top)
    for name in reversed(list(items)):
        if name not in old.nodes or name in gone:
            if above is not None:
                items[name].stackBefore(above)
        above = items[name]
    canvas._place_boundary(new.nodes, new.wires)
    for name, item in items.items():
        err, ports = _error_of(new, name)
        if (item.error, item.error_ports) != (err, ports):
            item.set_error(err, ports)
    if new.wires != old.wires:
        for w in canvas.wires:
            scene.removeItem(w)
        canvas.wires = []
        _build_wires(canvas, new)
    elif (new.widths, new.show_widths) != (old.widths, old.show_widths):
        for w in canvas.wires:
            w.set_width(new.widths.get(w.signal, 0))
