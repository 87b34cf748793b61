"""The canvas draws an edit item by item (issue 32 §2: a palette add rebuilt the whole scene).

Each edit is compared with a canvas that draws the same editor state from scratch: the same
blocks at the same places with the same error outlines, and the same wires along the same paths.
The blocks an edit did not touch keep their items. No compile runs: the editor's background
compiler is replaced by one that never answers (the edit stays pending) or that fails with the
engine's "not connected" message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6 import QtCore

from app.gui.editing.canvas import BlockItem, DiagramCanvas
from app.gui.session.session import SimSession
from models.errors import UserError


def signature(c: DiagramCanvas) -> tuple[Any, ...]:
    """What a canvas shows: blocks (position, box, error, red ports), wires (ends, lane, path), how
    many items, the blocks' stacking order (which one a click on overlapping blocks picks)."""
    blocks = sorted((n, round(i.pos().x(), 3), round(i.pos().y(), 3), i.rect().width(), i.rect().height(),
                     i.error, tuple(sorted(i.error_ports))) for n, i in c.items_by_name.items())
    wires = sorted((w.src, w.dst, w.lane, w.fanout, w.named, w.dot.isVisible(),
                    tuple((round(w.path().elementAt(k).x, 3), round(w.path().elementAt(k).y, 3))
                          for k in range(w.path().elementCount())))
                   for w in c.wires)
    on_scene = sum(1 for it in c.scene().items() if it.parentItem() is None)
    stacked = [it.name for it in c.scene().items(QtCore.Qt.SortOrder.AscendingOrder) if isinstance(it, BlockItem)]
    return blocks, wires, on_scene, stacked


def from_scratch(qtbot, c: DiagramCanvas) -> tuple[Any, ...]:
    """The signature of a new canvas drawing ``c``'s editor state (diagram, level, error)."""
    fresh = DiagramCanvas()
    qtbot.addWidget(fresh)
    ed, src = fresh.editor, c.editor
    ed.diagram, ed.level, ed.error, ed.error_sites = src.diagram, src.level, src.error, src.error_sites
    fresh.redraw()
    return signature(fresh)


def never(plan: Any, done: Callable[[Any], None], failed: Callable[[Exception], None]) -> None:
    """A background compiler that never answers: the edit stays pending, drawn."""


def test_each_edit_draws_what_a_new_canvas_draws_and_keeps_the_untouched_items(qtbot) -> None:
    c = DiagramCanvas()
    qtbot.addWidget(c)
    c.resize(1200, 800)
    c.bind(SimSession(t_end=0.2))
    ed = c.editor
    ed.background = never
    before = dict(c.items_by_name)
    wires_before = list(c.wires)
    assert signature(c) == from_scratch(qtbot, c)

    gain = c.add_at_centre("Gain")                      # a palette add: one item more, nothing redrawn
    assert set(c.items_by_name) == set(before) | {gain}
    assert all(c.items_by_name[n] is it for n, it in before.items()) and c.wires == wires_before
    assert signature(c) == from_scratch(qtbot, c)

    message = f"block '{gain}' (Gain): input 'u' is not connected"
    ed.background = lambda plan, done, failed: failed(UserError(message))
    ed.undo_stack.undo()
    ed.undo_stack.redo()                                 # the compile fails: the new block outlined in red
    item = c.items_by_name[gain]
    assert item.error is not None and "not connected" in item.error and item.error_ports == {"u"}
    assert all(c.items_by_name[n] is it for n, it in before.items())
    assert signature(c) == from_scratch(qtbot, c)

    ed.background = never
    src = next(w.src for w in c.wires)
    assert ed.wire(src, f"{gain}.u")                     # a wire: the wires drawn again, the blocks kept
    assert item is c.items_by_name[gain]
    assert any(w.dst == f"{gain}.u" for w in c.wires)
    assert signature(c) == from_scratch(qtbot, c)

    victim = next(n for n in before if any(w.dst.startswith(n + ".") for w in c.wires))
    shown = c._drawn
    assert shown is not None
    ed.delete([victim], [])                              # a delete: its item and wires go
    assert victim not in c.items_by_name and not any(victim in (w.src + w.dst) for w in c.wires)
    now = c._drawn
    assert now is not None
    same = [n for n in before if n in now.nodes and now.nodes[n] == shown.nodes[n]]   # a subsystem fed by
    assert len(same) >= len(before) - 2 and all(c.items_by_name[n] is before[n] for n in same)  # it changes ports
    assert signature(c) == from_scratch(qtbot, c)
    ed.undo_stack.undo()
    assert signature(c) == from_scratch(qtbot, c)

    x, y = c.items_by_name[gain].pos().x(), c.items_by_name[gain].pos().y()
    ed.move({gain: (x, y)}, {gain: (x + 300.0, y + 50.0)})   # a move: placed, wires rerouted
    assert (c.items_by_name[gain].pos().x(), c.items_by_name[gain].pos().y()) == (x + 300.0, y + 50.0)
    assert signature(c) == from_scratch(qtbot, c)

    group = ed.group([gain, victim])                     # a subsystem: two boxes become one
    assert group is not None and gain not in c.items_by_name and group in c.items_by_name
    assert signature(c) == from_scratch(qtbot, c)
    c.open_subsystem(group)                              # another level: drawn from scratch
    assert set(c.items_by_name) >= {gain, victim}
    assert signature(c) == from_scratch(qtbot, c)
    c.add_at_centre("Gain")                              # inside: the in/outports placed again
    assert signature(c) == from_scratch(qtbot, c)
