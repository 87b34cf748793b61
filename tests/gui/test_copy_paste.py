"""Copy, paste, duplicate and select-all on the diagram canvas (issue 32 §3): fresh names, the wires
between the copied blocks only, equal parameters, one undo step, the clipboard's JSON, subsystems."""

from __future__ import annotations

import json

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.editing.canvas import DiagramCanvas
from app.gui.editing.canvas_clipboard import MIME_FRAGMENT, release_clipboard
from app.gui.editing.diagram_view import BLOCK, SUBSYSTEM
from app.gui.editing.fragment import PASTE_STEP, read_fragment
from app.gui.session.session import SimSession
from blocks import Diagram
from blocks.settings import SolverSettings
from blocks.subsystems import find

CTRL = QtCore.Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def canvas(qtbot) -> DiagramCanvas:
    """Step -> gain1 (k = 2.5) -> Integrator, compiled, on a 1200 x 700 canvas."""
    d = Diagram("small", solver=SolverSettings(dt=1e-3, t_end=0.2))
    d.add("step1", "Step")
    d.add("gain1", "Gain", k=2.5)
    d.add("integrator1", "Integrator")
    d.connect("step1.y", "gain1.u")
    d.connect("gain1.y", "integrator1.u")
    for i, n in enumerate(d.blocks):
        d.set_position(n, 40.0 + 220.0 * i, 60.0)
    c = DiagramCanvas()
    qtbot.addWidget(c)
    c.resize(1200, 700)
    c.show()
    c.bind(SimSession(d, preset=""))
    return c


def select(c: DiagramCanvas, *names: str) -> None:
    c.scene().clearSelection()
    for n in names:
        c.items_by_name[n].setSelected(True)


def selected(c: DiagramCanvas) -> set[str]:
    return {n for n, i in c.items_by_name.items() if i.isSelected()}


def test_copy_paste_two_wired_blocks_is_one_undo_step(qtbot, canvas: DiagramCanvas) -> None:
    c, ed = canvas, canvas.editor
    before = (list(ed.diagram.blocks), list(ed.diagram.connections))
    select(c, "gain1", "integrator1")
    c.setFocus()
    qtbot.keyClick(c, QtCore.Qt.Key.Key_C, CTRL)          # the keys, as a user presses them
    qtbot.keyClick(c, QtCore.Qt.Key.Key_V, CTRL)
    d = ed.diagram
    assert list(d.blocks) == before[0] + ["gain2", "integrator2"]
    # the wire between the copies, not the one from step1 (an unselected block)
    assert ("gain2.y", "integrator2.u") in d.connections and len(d.connections) == 3
    assert d.value("gain2.k") == d.value("gain1.k") == 2.5
    assert selected(c) == {"gain2", "integrator2"}
    g1, g2 = c.items_by_name["gain1"].pos(), c.items_by_name["gain2"].pos()
    assert (g2.x() - g1.x(), g2.y() - g1.y()) == PASTE_STEP         # beside the original, not on it
    assert ed.undo_stack.count() == 1
    ed.undo_stack.undo()
    assert (list(ed.diagram.blocks), list(ed.diagram.connections)) == before
    assert "gain2" not in c.items_by_name and "gain2" not in ed.diagram.ui["blocks"]
    ed.undo_stack.redo()
    assert list(ed.diagram.blocks) == before[0] + ["gain2", "integrator2"]
    assert ("gain2.y", "integrator2.u") in ed.diagram.connections
    assert ed.diagram.value("gain2.k") == 2.5


def test_a_second_paste_lands_one_step_further(qtbot, canvas: DiagramCanvas) -> None:
    c = canvas
    select(c, "gain1")
    c.clipboard.copy()
    assert c.clipboard.paste() == ["gain2"]
    assert c.clipboard.paste() == ["gain3"]
    p1, p3 = c.items_by_name["gain1"].pos(), c.items_by_name["gain3"].pos()
    assert (p3.x() - p1.x(), p3.y() - p1.y()) == (2 * PASTE_STEP[0], 2 * PASTE_STEP[1])


def test_duplicate_and_select_all(qtbot, canvas: DiagramCanvas) -> None:
    c, ed = canvas, canvas.editor
    QtWidgets.QApplication.clipboard().setText("left alone")
    select(c, "step1", "gain1")
    c.setFocus()
    qtbot.keyClick(c, QtCore.Qt.Key.Key_D, CTRL)
    assert list(ed.diagram.blocks)[-2:] == ["step2", "gain2"] and ("step2.y", "gain2.u") in ed.diagram.connections
    assert selected(c) == {"step2", "gain2"}
    assert QtWidgets.QApplication.clipboard().text() == "left alone"       # duplicate leaves the clipboard
    qtbot.keyClick(c, QtCore.Qt.Key.Key_A, CTRL)
    assert selected(c) == set(ed.diagram.blocks) == {"step1", "gain1", "integrator1", "step2", "gain2"}


def test_clipboard_json_round_trips_between_two_canvases(qtbot, canvas: DiagramCanvas) -> None:
    c = canvas
    select(c, "gain1", "integrator1")
    frag = c.clipboard.copy()
    mime = QtWidgets.QApplication.clipboard().mimeData()
    assert mime.hasFormat(MIME_FRAGMENT)
    text = bytes(mime.data(MIME_FRAGMENT).data()).decode()
    assert read_fragment(text) == frag == json.loads(mime.text())       # plain text holds the same JSON
    assert frag["blocks"] == [{"name": "gain1", "type": "Gain", "params": {"k": 2.5}},
                              {"name": "integrator1", "type": "Integrator", "params": {}}]
    assert frag["connections"] == [{"from": "gain1.y", "to": "integrator1.u"}]
    other = DiagramCanvas()                                  # another window's canvas, an empty diagram
    qtbot.addWidget(other)
    other.bind(SimSession(Diagram("other", solver=SolverSettings(dt=1e-3, t_end=0.2)), preset=""))
    assert other.clipboard.paste() == ["gain1", "integrator1"]   # free names there: kept by the palette's scheme
    assert other.editor.diagram.value("gain1.k") == 2.5
    assert other.editor.diagram.connections == [("gain1.y", "integrator1.u")]
    QtWidgets.QApplication.clipboard().setText("not a fragment")
    assert other.clipboard.paste() == [] and len(other.editor.diagram.blocks) == 2


def test_copy_paste_inside_an_open_subsystem_and_a_copied_subsystem_keeps_its_members(qtbot, canvas) -> None:
    c, ed = canvas, canvas.editor
    sub = ed.group(["gain1", "integrator1"])
    assert sub == "subsystem1"
    c.redraw()
    select(c, sub)
    c.clipboard.copy()
    assert c.clipboard.paste() == ["subsystem2"]
    members = find(ed.diagram, "subsystem2")
    assert members is not None and members["blocks"] == ["gain2", "integrator2"]
    assert ("gain2.y", "integrator2.u") in ed.diagram.connections
    assert c.items_by_name["subsystem2"].node.kind == SUBSYSTEM
    ed.undo_stack.undo()
    assert find(ed.diagram, "subsystem2") is None and "gain2" not in ed.diagram.blocks
    c.open_subsystem(sub)                                     # copy and paste inside the open subsystem
    select(c, "gain1")
    c.clipboard.copy()
    assert c.clipboard.paste() == ["gain2"]
    assert find(ed.diagram, sub)["blocks"] == ["gain1", "integrator1", "gain2"]
    assert c.items_by_name["gain2"].node.kind == BLOCK and selected(c) == {"gain2"}


def test_context_menu_and_keys_are_the_canvas_actions(canvas: DiagramCanvas) -> None:
    texts = [a.text().replace("&", "") for a in canvas.actions() if not a.isSeparator()]
    assert texts[:4] == ["Copy", "Paste", "Duplicate", "Select all blocks"] and "Fit diagram" in texts
    assert canvas.contextMenuPolicy() == QtCore.Qt.ContextMenuPolicy.ActionsContextMenu
    keys = {a.text().replace("&", ""): a.shortcut() for a in canvas.actions()}
    assert keys["Duplicate"] == QtGui.QKeySequence("Ctrl+D") and keys["Fit diagram"] == QtGui.QKeySequence("F")


def test_at_quit_the_copy_stays_on_the_clipboard_as_text(canvas: DiagramCanvas) -> None:
    select(canvas, "gain1")
    frag = canvas.clipboard.copy()
    release_clipboard()                      # what the application's aboutToQuit runs
    mime = QtWidgets.QApplication.clipboard().mimeData()
    assert not mime.hasFormat(MIME_FRAGMENT) and read_fragment(mime.text()) == frag
