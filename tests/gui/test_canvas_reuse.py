"""The canvas keeps its items when a compile brings the same picture (a dataset or preset change,
the same diagram file), and draws again when the picture changed (structure, a structural
parameter changing ports, positions, an undone move): only what changed, item by item
(tests/gui/test_canvas_incremental.py compares each edit with a canvas drawn from scratch)."""

from __future__ import annotations

from app.gui.editing.canvas import DiagramCanvas
from app.gui.session.session import SimSession


def test_same_picture_keeps_the_items_a_changed_one_redraws(qtbot) -> None:
    canvas = DiagramCanvas()
    qtbot.addWidget(canvas)
    s = SimSession(t_end=0.2)
    canvas.bind(s)
    items = dict(canvas.items_by_name)
    s.set_preset("setpoint")                 # another compile, same blocks and wires
    canvas.bind(s)
    assert all(canvas.items_by_name[n] is it for n, it in items.items())
    other = SimSession(t_end=0.2, preset="paper")      # a new session with the same diagram
    canvas.bind(other)
    assert all(canvas.items_by_name[n] is it for n, it in items.items())
    name = next(iter(canvas.items_by_name))
    x0, y0 = canvas.items_by_name[name].pos().x(), canvas.items_by_name[name].pos().y()
    canvas.editor.move({name: (x0, y0)}, {name: (x0 + 40.0, y0)})
    assert canvas.items_by_name[name].pos().x() == x0 + 40.0
    canvas.editor.undo_stack.undo()           # back: drawn where the diagram says
    canvas.redraw()
    assert canvas.items_by_name[name].pos().x() == x0
    canvas.editor.delete(["est"], [])         # another structure: its item and wires go, the others stay
    assert "est" not in canvas.items_by_name and not any("est." in w.src + w.dst for w in canvas.wires)
    assert all(canvas.items_by_name[n] is it for n, it in items.items() if n != "est")
