"""Diagram editing as a user does it: palette, drops, wiring by mouse, undo/redo, compile errors, save + CLI run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from app.cli import main
from app.gui.editing.canvas import DiagramCanvas
from app.gui.editing.diagram_pane import DiagramPane
from app.gui.editing.palette import MIME_BLOCK
from app.gui.session.session import SimSession
from blocks import Diagram
from blocks.settings import SolverSettings

LEFT = QtCore.Qt.MouseButton.LeftButton


@pytest.fixture
def pane(qtbot) -> DiagramPane:
    """An empty 1 s diagram (dt 1 ms) in the palette + canvas pane."""
    session = SimSession(Diagram("small", solver=SolverSettings(dt=1e-3, t_end=1.0)), preset="")
    p = DiagramPane(DiagramCanvas())
    qtbot.addWidget(p)
    p.resize(1000, 600)
    p.show()
    p.canvas.bind(session)
    return p


def palette_add(qtbot, p: DiagramPane, type_name: str) -> str:
    """Search the palette and double-click the first hit; returns the new block's name."""
    p.library.search.setText(type_name)
    assert p.library.visible_types()[0] == type_name
    before = set(p.canvas.editor.diagram.blocks)
    tree = p.library.tree
    item = tree.findItems(type_name, QtCore.Qt.MatchFlag.MatchExactly | QtCore.Qt.MatchFlag.MatchRecursive)[0]
    centre = tree.visualItemRect(item).center()
    qtbot.mouseClick(tree.viewport(), LEFT, pos=centre)
    qtbot.mouseDClick(tree.viewport(), LEFT, pos=centre)
    (new,) = set(p.canvas.editor.diagram.blocks) - before
    return new


def drop_block(p: DiagramPane, type_name: str, at: QtCore.QPoint) -> None:
    """Drop a palette entry's drag data on the canvas viewport at ``at``."""
    tree = p.library.tree
    item = tree.findItems(type_name, QtCore.Qt.MatchFlag.MatchExactly | QtCore.Qt.MatchFlag.MatchRecursive)[0]
    mime = tree.mimeData([item])
    assert mime.hasFormat(MIME_BLOCK)
    vp = p.canvas.viewport()
    for cls in (QtGui.QDragEnterEvent, QtGui.QDragMoveEvent):
        QtWidgets.QApplication.sendEvent(vp, cls(at, QtCore.Qt.DropAction.CopyAction, mime, LEFT,
                                                 QtCore.Qt.KeyboardModifier.NoModifier))
    QtWidgets.QApplication.sendEvent(vp, QtGui.QDropEvent(QtCore.QPointF(at), QtCore.Qt.DropAction.CopyAction, mime,
                                                          LEFT, QtCore.Qt.KeyboardModifier.NoModifier))


def port_point(c: DiagramCanvas, ref: str, is_input: bool) -> QtCore.QPoint:
    block, port = ref.split(".")
    item = c.items_by_name[block].ports[(port, is_input)]
    return c.mapFromScene(item.sceneBoundingRect().center())


def drag_wire(qtbot, c: DiagramCanvas, src: str, dst: str) -> None:
    """Press on output ``src``, move, release on input ``dst`` (real mouse events on the viewport)."""
    a, b = port_point(c, src, False), port_point(c, dst, True)
    qtbot.mousePress(c.viewport(), LEFT, pos=a)
    qtbot.mouseMove(c.viewport(), pos=(a + b) / 2)
    qtbot.mouseMove(c.viewport(), pos=b)
    qtbot.mouseRelease(c.viewport(), LEFT, pos=b)


def build_step_gain_integrator(qtbot, p: DiagramPane) -> tuple[str, str, str]:
    c = p.canvas
    step = palette_add(qtbot, p, "Step")
    c.editor.diagram.blocks  # noqa: B018
    drop_block(p, "Gain", QtCore.QPoint(500, 150))
    (gain,) = [n for n, e in c.editor.diagram.blocks.items() if e.type == "Gain"]
    drop_block(p, "Integrator", QtCore.QPoint(750, 300))
    (integ,) = [n for n, e in c.editor.diagram.blocks.items() if e.type == "Integrator"]
    drag_wire(qtbot, c, f"{step}.y", f"{gain}.u")
    drag_wire(qtbot, c, f"{gain}.y", f"{integ}.u")
    return step, gain, integ


def test_palette_search_filters_the_registry(pane: DiagramPane) -> None:
    pane.library.search.setText("integr")
    assert pane.library.visible_types() == ["Integrator"]
    pane.library.search.setText("")
    assert {"Step", "Gain", "PID", "FiveLinkDynamics", "Scope"} <= set(pane.library.visible_types())


def test_build_wire_run_save_and_cli_runs_it_identically(qtbot, pane: DiagramPane, tmp_path: Path) -> None:
    c = pane.canvas
    step, gain, integ = build_step_gain_integrator(qtbot, pane)
    assert [e.type for e in c.editor.diagram.blocks.values()] == ["Step", "Gain", "Integrator"]
    assert c.editor.diagram.connections == [(f"{step}.y", f"{gain}.u"), (f"{gain}.y", f"{integ}.u")]
    assert c.editor.error is None
    s = c.session
    assert s is not None and list(s.diagram.blocks) == [step, gain, integ]
    # the drop position is saved (scene px) and the block is drawn there
    gx, gy = s.block_positions()[gain]
    assert c.items_by_name[gain].pos() == QtCore.QPointF(gx, gy)
    s.set_param(f"{step}.t_step", 0.2)
    s.set_param(f"{gain}.k", 2.5)
    # a later edit keeps the parameters set since: tap the integrator with a scope
    scope = palette_add(qtbot, pane, "Scope")
    drag_wire(qtbot, c, f"{integ}.y", f"{scope}.u")
    assert s.diagram.value(f"{gain}.k") == 2.5 and (f"{integ}.y", f"{scope}.u") in s.diagram.connections
    s.step(10**6)
    assert s.finished and s.error is None
    final = float(s.latest(f"{integ}.y")[0])
    assert final == pytest.approx(2.5 * 0.8, abs=5e-3)   # integral of 2.5 from t = 0.2 s to 1 s
    path = tmp_path / "saved.json"
    s.save_diagram(path)
    assert json.loads(path.read_text())["ui"]["blocks"][gain] == {"x": gx, "y": gy}
    out = tmp_path / "run"
    assert main(["run", "--diagram", str(path), "--out", str(out)]) == 0
    cli = np.load(out / "results.npz")
    key = next(k for k in cli.files if k.startswith(f"{integ}.y"))
    assert float(np.ravel(cli[key])[-1]) == final
    summary = json.loads((out / "summary.json").read_text())
    assert summary["t_end_reached"] == s.summary()["t_end_reached"]


def test_undo_redo_restore_blocks_and_wires_exactly(qtbot, pane: DiagramPane) -> None:
    c = pane.canvas
    step, gain, integ = build_step_gain_integrator(qtbot, pane)
    d = c.editor.diagram
    built = (list(d.blocks), list(d.connections), dict(d.ui["blocks"]))
    # delete the middle block: its two wires go with it
    c.items_by_name[gain].setSelected(True)
    qtbot.keyClick(c.viewport(), QtCore.Qt.Key.Key_Delete)
    d = c.editor.diagram
    assert list(d.blocks) == [step, integ] and d.connections == []
    c.editor.undo_stack.undo()
    d = c.editor.diagram
    assert (list(d.blocks), list(d.connections), dict(d.ui["blocks"])) == built
    assert list(c.session.diagram.blocks) == built[0]          # the session runs the restored diagram
    c.editor.undo_stack.redo()
    assert list(c.editor.diagram.blocks) == [step, integ]
    c.editor.undo_stack.undo()
    # delete one wire, then undo: it is back at its index
    c.wire(f"{step}.y", f"{gain}.u").setSelected(True)
    c.delete_selected()
    assert c.editor.diagram.connections == [(f"{gain}.y", f"{integ}.u")]
    c.editor.undo_stack.undo()
    assert c.editor.diagram.connections == built[1]
    # a move by mouse is one undo step
    item = c.items_by_name[integ]
    start = c.mapFromScene(item.sceneBoundingRect().center() + QtCore.QPointF(0, -20))
    qtbot.mousePress(c.viewport(), LEFT, pos=start)
    qtbot.mouseMove(c.viewport(), pos=start + QtCore.QPoint(60, 40))
    qtbot.mouseRelease(c.viewport(), LEFT, pos=start + QtCore.QPoint(60, 40))
    moved = c.editor.diagram.ui["blocks"][integ]
    assert moved != built[2][integ]
    c.editor.undo_stack.undo()
    assert c.editor.diagram.ui["blocks"][integ] == built[2][integ]
    assert c.items_by_name[integ].pos() == QtCore.QPointF(built[2][integ]["x"], built[2][integ]["y"])
    # everything undone: the empty diagram again
    while c.editor.undo_stack.canUndo():
        c.editor.undo_stack.undo()
    assert c.editor.diagram.blocks == {} and c.editor.diagram.connections == []
    while c.editor.undo_stack.canRedo():
        c.editor.undo_stack.redo()
    assert (list(c.editor.diagram.blocks), c.editor.diagram.connections) == built[:2]


def test_refused_fan_in_shows_a_message_and_changes_nothing(qtbot, pane: DiagramPane) -> None:
    c = pane.canvas
    step, gain, integ = build_step_gain_integrator(qtbot, pane)
    before = (list(c.editor.diagram.blocks), list(c.editor.diagram.connections), c.editor.undo_stack.count())
    generation = c.session.generation
    with qtbot.waitSignal(c.editor.message) as msg:
        drag_wire(qtbot, c, f"{step}.y", f"{integ}.u")     # integ.u is already driven by gain.y
    assert "fan-in" in msg.args[0] and f"{integ}.u" in msg.args[0]
    assert (list(c.editor.diagram.blocks), list(c.editor.diagram.connections), c.editor.undo_stack.count()) == before
    assert c.session.generation == generation                # no recompile


def test_compile_error_marks_the_block_and_keeps_the_session(qtbot, pane: DiagramPane) -> None:
    c = pane.canvas
    step, gain, integ = build_step_gain_integrator(qtbot, pane)
    s = c.session
    running = list(s.diagram.blocks)
    with qtbot.waitSignal(c.editor.failed) as failed:
        drop_block(pane, "Gain", QtCore.QPoint(500, 420))   # a second gain, its input left open
    (gain2,) = set(c.editor.diagram.blocks) - set(running)
    assert gain2 in failed.args[0] and "not connected" in failed.args[0]
    assert c.editor.error_sites == {gain2: {"u"}}
    assert c.items_by_name[gain2].error is not None and c.items_by_name[gain2].pen().color().name() == "#d62728"
    assert c.items_by_name[gain].error is None
    assert "not connected" in c.items_by_name[gain2].toolTip()
    assert list(s.diagram.blocks) == running                 # the last diagram that compiled still runs
    assert s.step(100) == 100
    # an algebraic loop: gain2 -> gain2 (direct feedthrough) names the block
    drag_wire(qtbot, c, f"{gain2}.y", f"{gain2}.u")
    assert "algebraic loop" in (c.editor.error or "")
    assert set(c.editor.error_sites) == {gain2}
    c.editor.undo_stack.undo()                               # back to the open input
    c.editor.undo_stack.undo()                               # and to the diagram that compiles
    assert c.editor.error is None and list(s.diagram.blocks) == running
    assert all(item.error is None for item in c.items_by_name.values())


def test_main_window_edit_menu_and_status_bar(qtbot, window) -> None:
    """In the window on the default diagram: an unconnected block is reported in the status bar and
    outlined, the run goes on on the last diagram that compiled; Edit > Undo removes the block."""
    from tests.gui.conftest import run_until

    s, c = window.session, window.canvas
    running = list(s.diagram.blocks)
    pane = window.diagram_pane
    new = palette_add(qtbot, pane, "Gain")
    assert c.editor.pending and window.compiler.busy          # compiled in the background worker
    qtbot.waitUntil(lambda: not window.compiler.busy, timeout=60000)
    assert new == "gain1" and new in c.items_by_name and c.items_by_name[new].error is not None
    assert "gain1" in window.statusBar().currentMessage() and "not connected" in window.statusBar().currentMessage()
    assert list(s.diagram.blocks) == running
    run_until(qtbot, window, 0.05)
    assert s.time >= 0.05 - 1e-9 and s.error is None
    edit = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    undo = next(a for a in edit.actions() if a.text().startswith("&Undo"))
    assert undo.isEnabled() and undo.shortcut().toString() == "Ctrl+Z"
    undo.trigger()
    qtbot.waitUntil(lambda: not window.compiler.busy, timeout=60000)
    assert list(c.editor.diagram.blocks) == running and "gain1" not in c.items_by_name
    assert c.editor.error is None and not c.editor.pending
