"""Editing without error dialogs (issue 32 §3): palette add -> click -> wire -> set a parameter -> undo
-> redo -> copy, paste, duplicate on the default diagram in the window, with the error dialog
watched: it never opens.

The three bugs this drives: a click or double-click on a block not compiled yet raised
``KeyError: 'gain1'``; after Undo removed a block the Block parameters panel still showed it and its
slider raised "no block 'gain1'"; a "Not compiled: ... not connected" message stayed in the status
bar for 20 s after the diagram compiled."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6 import QtCore

import app.gui.session.errors as errors_module
import app.gui.session.run_control as run_control_module
from app.gui.editing.canvas import DiagramCanvas
from tests.gui.test_diagram_editing import LEFT, drag_wire, palette_add

CTRL = QtCore.Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def dialogs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Every error dialog the window would open: ``(title, text)``, none shown."""
    seen: list[tuple[str, str]] = []
    real = errors_module.show_error

    def watch(parent: Any, title: str, text: str, *args: Any, **kwargs: Any) -> Any:
        seen.append((title, text))
        return real(parent, title, text, *args, **kwargs)

    monkeypatch.setattr(errors_module, "show_error", watch)
    monkeypatch.setattr(run_control_module, "show_error", watch)
    return seen


def click_block(qtbot, c: DiagramCanvas, name: str, double: bool = False) -> None:
    """Click (or double-click) block ``name`` where it shows and no port is near (a palette add may
    land over another block: in the default diagram, gain1's centre lies on grf.cop)."""
    item = c.items_by_name[name]
    r = c.mapFromScene(item.sceneBoundingRect()).boundingRect()
    at = next(p for p in (QtCore.QPoint(x, y) for y in range(r.top() + 4, r.bottom() - 4, 4)
                          for x in range(r.left() + 10, r.right() - 10, 4))
              if c.viewport().rect().contains(p) and c._port_at(p) is None
              and (hit := c.itemAt(p)) is not None and (hit is item or hit.parentItem() is item))
    qtbot.mouseClick(c.viewport(), LEFT, pos=at)
    if double:
        qtbot.mouseDClick(c.viewport(), LEFT, pos=at)


def zoom_in_top_left(c: DiagramCanvas, zoom: float = 0.7) -> None:
    """Zoom in to ``zoom`` on the diagram's top left, as a user does to work on it (the canvas opens
    with the whole diagram fitted: in the offscreen window, too small to hit a port reliably)."""
    rect = c.scene().itemsBoundingRect()
    c.resetTransform()
    c.scale(zoom, zoom)
    view = c.viewport().rect()
    c.centerOn(rect.left() + view.width() / (2 * zoom), rect.top() + view.height() / (2 * zoom))
    c.fitted = False            # zoomed in (as the wheel does): a resize keeps the view


def copy_paste_duplicate(qtbot, window: Any, gain: str) -> None:
    """Ctrl+C, Ctrl+V and Ctrl+D on ``gain`` (the copies' inputs are open: they do not compile), then
    undo both: the compiled diagram is back, and no dialog opened."""
    c, idle = window.canvas, lambda: not window.compiler.busy and not window.canvas.editor.pending
    before = list(c.editor.diagram.blocks)
    c.scene().clearSelection()
    c.items_by_name[gain].setSelected(True)
    c.setFocus()
    qtbot.keyClick(c, QtCore.Qt.Key.Key_C, CTRL)
    qtbot.keyClick(c, QtCore.Qt.Key.Key_V, CTRL)
    qtbot.waitUntil(idle, timeout=240000)
    (pasted,) = [n for n, i in c.items_by_name.items() if i.isSelected()]
    assert pasted not in before and c.editor.diagram.blocks[pasted].type == "Gain"
    assert "not connected" in window.statusBar().currentMessage() and c.items_by_name[pasted].error
    qtbot.keyClick(c, QtCore.Qt.Key.Key_D, CTRL)
    qtbot.waitUntil(idle, timeout=240000)
    (dup,) = [n for n, i in c.items_by_name.items() if i.isSelected()]
    assert list(c.editor.diagram.blocks) == [*before, pasted, dup]
    c.editor.undo_stack.undo()
    c.editor.undo_stack.undo()
    qtbot.waitUntil(idle, timeout=240000)
    assert list(c.editor.diagram.blocks) == before and c.editor.error is None


def test_add_click_wire_set_undo_redo_opens_no_dialog(qtbot, window, dialogs: list[tuple[str, str]]) -> None:
    s, c, panel, bar = window.session, window.canvas, window.params, window.statusBar()
    idle = lambda: not window.compiler.busy  # noqa: E731
    zoom_in_top_left(c)
    gain = palette_add(qtbot, window.diagram_pane, "Gain")
    assert c.editor.pending and not c.isEnabled()    # the canvas waits for the compile
    qtbot.waitUntil(idle, timeout=240000)  # a new structure compiles: minutes on a loaded machine
    assert "not connected" in bar.currentMessage()   # the edit did not compile: gain1 is not in the run
    assert gain not in s.diagram.blocks
    click_block(qtbot, c, gain)                      # the panel names it, no KeyError
    assert panel.block == gain and "not compiled yet" in panel.title.text() and not panel.editors
    click_block(qtbot, c, gain, double=True)         # no dialog of a block the run does not have
    assert window.side.currentWidget() is panel and panel.block == gain
    drag_wire(qtbot, c, "phase.phase", f"{gain}.u")  # ... until its input is wired
    qtbot.waitUntil(idle, timeout=240000)  # a new structure compiles: minutes on a loaded machine
    assert c.editor.error is None and gain in s.diagram.blocks
    assert bar.currentMessage() == ""                # the stale "Not compiled" message is gone
    assert f"{gain}.k" in panel.editors              # the panel now edits the compiled block
    click_block(qtbot, c, gain)
    box = panel.editors[f"{gain}.k"]
    box.setValue(2.5)
    assert dict(s.spec.settings)[f"{gain}.k"] == 2.5   # applied at the next step
    c.editor.undo_stack.undo()                       # the parameter: one undoable edit
    assert dict(s.spec.settings)[f"{gain}.k"] == 1.0 and box.value() == 1.0
    c.editor.undo_stack.undo()                       # the wire: does not compile, gain1 still runs
    qtbot.waitUntil(idle, timeout=240000)  # a new structure compiles: minutes on a loaded machine
    c.editor.undo_stack.undo()                       # the block
    qtbot.waitUntil(idle, timeout=240000)  # a new structure compiles: minutes on a loaded machine
    assert gain not in s.diagram.blocks and gain not in c.items_by_name
    assert panel.block == "" and not panel.editors and not panel.sliders   # not a stale panel
    c.editor.undo_stack.redo()
    c.editor.undo_stack.redo()
    qtbot.waitUntil(idle, timeout=240000)  # a new structure compiles: minutes on a loaded machine
    assert gain in s.diagram.blocks and c.editor.error is None
    copy_paste_duplicate(qtbot, window, gain)
    click_block(qtbot, c, gain)
    slider, _ = panel.sliders[f"{gain}.k"]
    slider.setValue(slider.value() + 50)
    # a block dialog that outlives its block (undone under it) says so instead of raising
    dlg = window.block_dialog(gain)
    assert dlg is not None
    c.editor.undo_stack.undo()                       # the slider's change
    c.editor.undo_stack.undo()
    qtbot.waitUntil(idle, timeout=240000)  # a new structure compiles: minutes on a loaded machine
    c.editor.undo_stack.undo()
    qtbot.waitUntil(idle, timeout=240000)  # a new structure compiles: minutes on a loaded machine
    assert gain not in s.diagram.blocks
    slider, _ = dlg.panel.sliders[f"{gain}.k"]
    slider.setValue(slider.value() + 50)
    assert "no longer in the diagram" in dlg.panel.status.text()
    dlg.close()
    assert dialogs == [] and window.errors.dialogs == []
