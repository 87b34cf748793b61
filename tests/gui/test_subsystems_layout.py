"""Virtual subsystems and auto-layout as a user drives them: group, open, back, ungroup, undo;
auto-layout without overlaps, left to right; a grouped diagram runs as before (CLI, bit for bit)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from app.cli import main
from app.gui.editing.canvas import DiagramCanvas
from app.gui.editing.diagram_pane import DiagramPane
from app.gui.editing.diagram_view import BLOCK, SUBSYSTEM
from app.gui.session.session import SimSession
from blocks import Diagram
from blocks.library.default_diagram import STABILISERS
from blocks.settings import SolverSettings
from blocks.subsystems import boundary
from tests.gui.test_diagram_editing import drag_wire, drop_block, palette_add

LEFT = QtCore.Qt.MouseButton.LeftButton


@pytest.fixture
def walk(qtbot) -> DiagramPane:
    """The default diagram (0.3 s) in the palette + canvas pane."""
    p = DiagramPane(DiagramCanvas())
    qtbot.addWidget(p)
    p.resize(1400, 800)
    p.show()
    p.canvas.bind(SimSession(t_end=0.3))
    return p


def empty_pane(qtbot) -> DiagramPane:
    """An empty diagram (0.2 s) in the palette + canvas pane."""
    p = DiagramPane(DiagramCanvas())
    qtbot.addWidget(p)
    p.resize(1200, 700)
    p.show()
    p.canvas.bind(SimSession(Diagram("small", solver=SolverSettings(dt=1e-3, t_end=0.2)), preset=""))
    return p


def double_click(qtbot, c: DiagramCanvas, name: str) -> None:
    item = c.items_by_name[name]
    c.centerOn(item)
    qtbot.wait(QtWidgets.QApplication.doubleClickInterval() + 50)   # not taken as part of an earlier one
    qtbot.mouseDClick(c.viewport(), LEFT, pos=c.mapFromScene(item.sceneBoundingRect().center()))
    qtbot.waitUntil(lambda: c.editor.level == name, timeout=2000)


def overlaps(c: DiagramCanvas) -> list[tuple[str, str]]:
    rects = {n: i.sceneBoundingRect() for n, i in c.items_by_name.items()}
    names = list(rects)
    return [(a, b) for k, a in enumerate(names) for b in names[k + 1:] if rects[a].intersects(rects[b])]


def on_cycle(c: DiagramCanvas, src_node: str, dst_node: str) -> bool:
    """Whether ``dst_node`` reaches ``src_node`` along the wires shown (so the wire closes a loop)."""
    succ: dict[str, set[str]] = {}
    for w in c.wires:
        succ.setdefault(w.src.split(".", 1)[0], set()).add(w.dst.split(".", 1)[0])
    seen, todo = {dst_node}, [dst_node]
    while todo:
        for n in succ.get(todo.pop(), ()):
            if n not in seen:
                seen.add(n)
                todo.append(n)
    return src_node in seen


def check_left_to_right(c: DiagramCanvas) -> int:
    """Every wire runs left to right unless it closes a loop; returns the number of feedback wires."""
    feedback = 0
    for w in c.wires:
        a, b = w.src.split(".", 1)[0], w.dst.split(".", 1)[0]
        if c.items_by_name[a].sceneBoundingRect().right() < c.items_by_name[b].sceneBoundingRect().left():
            continue
        assert on_cycle(c, a, b), f"{w.src} -> {w.dst} runs right to left but closes no loop"
        feedback += 1
    return feedback


def test_default_diagram_shows_the_stabilisers_collapsed_with_signal_named_ports(walk: DiagramPane) -> None:
    c = walk.canvas
    d = c.editor.diagram
    assert "stabilisers" in c.items_by_name and not set(STABILISERS) & set(c.items_by_name)
    item = c.items_by_name["stabilisers"]
    b = boundary(d, "stabilisers")
    assert item.inputs == list(b.inputs) and "body.q" in b.inputs and "swing_mux.y" in b.inputs
    assert item.outputs == list(b.outputs) and {"contact.F", "mz_sum.y", "trunk.tau"} <= set(b.outputs)
    assert [lab.text() for (p, inp), lab in item.port_labels.items() if not inp] == list(b.outputs)
    # every connection is drawn once: inside the subsystem, or by a wire of the top level
    inside = set(STABILISERS)
    drawn = [conn for w in c.wires for conn in w.conns]
    crossing = [(a, z) for a, z in d.connections if not {a.split(".")[0], z.split(".")[0]} <= inside]
    assert sorted(drawn) == sorted(crossing)
    # one wire from body.q into the subsystem, although body.q feeds 6 of its blocks
    (into,) = [w for w in c.wires if w.src == "body.q" and w.dst == "stabilisers.body.q"]
    assert len(into.conns) == sum(1 for a, z in d.connections if a == "body.q" and z.split(".")[0] in inside) > 1
    # signal names on wires, junction dots on fan-outs
    (grf,) = [w for w in c.wires if w.src == "grf.F"][:1]
    assert grf.label.isVisible() and grf.label.text() == "grf.F"
    assert grf.fanout > 1 and grf.dot.isVisible()


def test_open_back_group_ungroup_undo(qtbot, walk: DiagramPane) -> None:
    c = walk.canvas
    s = c.session
    assert s is not None
    generation = s.generation
    double_click(qtbot, c, "stabilisers")
    assert c.editor.level == "stabilisers" and c._crumb.isVisible()
    assert set(STABILISERS) <= set(c.items_by_name) and "body" not in c.items_by_name
    # the inports stand for the outside signals, left of the blocks they feed
    ins = [i for i in c.items_by_name.values() if i.node.kind == "Inport"]
    assert sorted(i.node.signal for i in ins) == sorted(boundary(s.diagram, "stabilisers").inputs)
    left = min(c.items_by_name[b].sceneBoundingRect().left() for b in STABILISERS)
    assert all(i.sceneBoundingRect().right() < left for i in ins)
    qtbot.mouseClick(c._crumb.button, LEFT)
    assert c.editor.level is None and not c._crumb.isVisible() and "stabilisers" in c.items_by_name
    # group three blocks with Ctrl+G
    for name in ("pid_hip", "pid_knee", "swing_mux"):
        c.items_by_name[name].setSelected(True)
    c.setFocus()
    qtbot.keyClick(c, QtCore.Qt.Key.Key_G, QtCore.Qt.KeyboardModifier.ControlModifier)
    assert "subsystem1" in c.items_by_name and "pid_hip" not in c.items_by_name
    assert s.diagram.ui["subsystems"][1]["blocks"] == ["pid_hip", "pid_knee", "swing_mux"]  # the session's too
    assert c.items_by_name["subsystem1"].outputs == ["swing_mux.y"]
    double_click(qtbot, c, "subsystem1")
    assert c.editor.level == "subsystem1" and {"pid_hip", "pid_knee", "swing_mux"} <= set(c.items_by_name)
    qtbot.keyClick(c, QtCore.Qt.Key.Key_Escape)
    assert c.editor.level is None
    # ungroup the stabilisers (selected, Ctrl+Shift+G), then undo both steps, then redo
    c.scene().clearSelection()
    c.items_by_name["stabilisers"].setSelected(True)
    qtbot.keyClick(c, QtCore.Qt.Key.Key_G, QtCore.Qt.KeyboardModifier.ControlModifier
                   | QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert set(STABILISERS) <= set(c.items_by_name) and "stabilisers" not in c.items_by_name
    stack = c.editor.undo_stack
    stack.undo()
    assert "stabilisers" in c.items_by_name and "subsystem1" in c.items_by_name
    stack.undo()
    assert "subsystem1" not in c.items_by_name and "pid_hip" in c.items_by_name
    assert [x["name"] for x in s.diagram.ui["subsystems"]] == ["stabilisers"]
    stack.redo()
    assert "subsystem1" in c.items_by_name
    assert s.generation == generation   # grouping never recompiles nor restarts the run


def test_grouping_inside_a_subsystem_is_refused(qtbot, walk: DiagramPane) -> None:
    c = walk.canvas
    c.open_subsystem("stabilisers")
    c.items_by_name["trunk"].setSelected(True)
    with qtbot.waitSignal(c.editor.message) as msg:
        c.group_selected()
    assert "do not nest" in msg.args[0] and c.editor.undo_stack.count() == 0


def test_deleting_a_subsystem_deletes_its_blocks_and_undo_restores_it(qtbot) -> None:
    p = empty_pane(qtbot)
    c = p.canvas
    step = palette_add(qtbot, p, "Step")
    drop_block(p, "Gain", QtCore.QPoint(500, 150))
    drop_block(p, "Scope", QtCore.QPoint(750, 300))
    gain, scope = (n for n in c.editor.diagram.blocks if n != step)
    drag_wire(qtbot, c, f"{step}.y", f"{gain}.u")
    drag_wire(qtbot, c, f"{gain}.y", f"{scope}.u")
    before = c.editor.diagram.to_dict()
    for n in (step, gain):
        c.items_by_name[n].setSelected(True)
    name = c.group_selected()
    assert name == "subsystem1" and c.items_by_name[name].outputs == [f"{gain}.y"]
    # a wire dragged from the subsystem's output port starts at the block inside
    drop_block(p, "Scope", QtCore.QPoint(750, 500))
    scope2 = list(c.editor.diagram.blocks)[-1]
    sub = c.items_by_name[name]
    c.centerOn(sub)
    a = c.mapFromScene(sub.ports[(f"{gain}.y", False)].sceneBoundingRect().center())
    b = c.mapFromScene(c.items_by_name[scope2].ports[("u", True)].sceneBoundingRect().center())
    qtbot.mousePress(c.viewport(), LEFT, pos=a)
    qtbot.mouseMove(c.viewport(), pos=b)
    qtbot.mouseRelease(c.viewport(), LEFT, pos=b)
    assert c.editor.diagram.connections[-1] == (f"{gain}.y", f"{scope2}.u")
    c.wire(f"{name}.{gain}.y", f"{scope2}.u").setSelected(True)
    c.delete_selected()
    assert (f"{gain}.y", f"{scope2}.u") not in c.editor.diagram.connections
    c.items_by_name[scope2].setSelected(True)
    c.delete_selected()
    c.scene().clearSelection()
    c.items_by_name[name].setSelected(True)
    c.delete_selected()
    assert list(c.editor.diagram.blocks) == [scope] and "subsystems" not in c.editor.diagram.ui
    while c.editor.undo_stack.canUndo():
        c.editor.undo_stack.undo()
    stack_start = c.editor.diagram.to_dict()
    assert stack_start["blocks"] == [] and stack_start["connections"] == []
    while c.editor.undo_stack.canRedo():
        c.editor.undo_stack.redo()
    assert list(c.editor.diagram.blocks) == [scope] and "subsystems" not in c.editor.diagram.ui
    c.editor.undo_stack.undo()   # undo the delete: blocks, wires and the subsystem come back
    restored = c.editor.diagram.to_dict()
    assert restored["blocks"] == before["blocks"] and restored["connections"] == before["connections"]
    assert restored["ui"]["subsystems"][0]["blocks"] == [step, gain]


def test_auto_layout_default_diagram_top_and_inside_and_undo(qtbot, walk: DiagramPane) -> None:
    c = walk.canvas
    ui = c.editor.diagram.ui
    for level in (None, "stabilisers"):
        c.open_subsystem(level)
        # scramble: every block stacked at the origin, then auto-layout
        for n, item in c.items_by_name.items():
            if item.node.kind in (BLOCK, SUBSYSTEM):
                c.editor.set_position(n, 0.0, 0.0)
        c.redraw()
        assert overlaps(c)
        scrambled = {n: dict(v) for n, v in ui["blocks"].items()}
        c.edit_actions[3].trigger()   # Edit > Auto-layout diagram
        assert overlaps(c) == [], level
        feedback = check_left_to_right(c)
        assert feedback < len(c.wires) / 3
        c.editor.undo_stack.undo()
        assert {n: dict(v) for n, v in c.editor.diagram.ui["blocks"].items()} == scrambled
        c.editor.undo_stack.redo()
        assert overlaps(c) == []
    # the session's diagram holds the layout too (saved with it)
    s = c.session
    assert s is not None and s.diagram.ui["blocks"]["trunk"] == c.editor.diagram.ui["blocks"]["trunk"]


def test_auto_layout_of_a_palette_built_diagram(qtbot) -> None:
    p = empty_pane(qtbot)
    c = p.canvas
    names = {}
    for t, (x, y) in (("Step", (1000, 500)), ("Sum", (760, 80)), ("Gain", (520, 420)), ("Integrator", (300, 120)),
                      ("Scope", (60, 380))):   # dropped right to left
        drop_block(p, t, QtCore.QPoint(x, y))
        names[t] = list(c.editor.diagram.blocks)[-1]
    step, total, gain, integ, scope = names.values()
    drag_wire(qtbot, c, f"{step}.y", f"{total}.u1")
    drag_wire(qtbot, c, f"{total}.y", f"{gain}.u")
    drag_wire(qtbot, c, f"{gain}.y", f"{integ}.u")
    drag_wire(qtbot, c, f"{integ}.y", f"{scope}.u")
    drag_wire(qtbot, c, f"{integ}.y", f"{total}.u2")   # the loop closes through the integrator
    assert c.editor.error is None
    for n in names.values():   # and stacked on each other
        c.editor.set_position(n, 100.0, 100.0)
    c.redraw()
    assert overlaps(c)
    c.auto_layout()
    assert overlaps(c) == []
    assert check_left_to_right(c) == 1   # only integ -> sum.u2 runs back
    x = {n: c.items_by_name[n].pos().x() for n in names.values()}
    assert x[step] < x[total] < x[gain] < x[integ] < x[scope]


def test_grouped_diagram_saved_runs_identically_with_the_cli(qtbot, walk: DiagramPane, tmp_path: Path) -> None:
    c = walk.canvas
    s = c.session
    assert s is not None
    plain = tmp_path / "before.json"
    s.save_diagram(plain)
    c.items_by_name["stabilisers"].setSelected(True)
    c.ungroup_selected()
    for name in ("phase", "est", "pid_hip"):
        c.items_by_name[name].setSelected(True)
    c.group_selected()
    c.auto_layout()
    grouped = tmp_path / "grouped.json"
    s.save_diagram(grouped)
    saved = json.loads(grouped.read_text())
    assert [x["blocks"] for x in saved["ui"]["subsystems"]] == [["phase", "est", "pid_hip"]]
    assert Diagram.load(grouped).to_json() == grouped.read_text()   # save -> load -> save identical
    results = {}
    for path in (plain, grouped):
        out = tmp_path / path.stem
        assert main(["run", "--diagram", str(path), "--out", str(out), "--duration", "0.3", "--no-csv"]) == 0
        results[path.stem] = (np.load(out / "results.npz"), json.loads((out / "summary.json").read_text()))
    (a, sa), (b, sb) = results["before"], results["grouped"]
    assert a.files == b.files and all(np.array_equal(a[k], b[k], equal_nan=True) for k in a.files)
    for key in ("status", "t_end_reached", "steps", "rms_deg", "fell_at_s"):
        assert sa[key] == sb[key]


def test_grouping_survives_a_preset_change_and_a_session_file(qtbot, walk: DiagramPane, tmp_path: Path) -> None:
    c = walk.canvas
    s = c.session
    assert s is not None
    for name in ("pid_hip", "pid_knee"):
        c.items_by_name[name].setSelected(True)
    c.group_selected()
    s.set_preset("paper")   # a recompile from the loaded diagram keeps the UI fields
    c.bind(s)
    assert [x["name"] for x in s.diagram.ui["subsystems"]] == ["stabilisers", "subsystem1"]
    assert "subsystem1" in c.items_by_name and "pid_hip" not in c.items_by_name
    path = tmp_path / "session.json"
    s.save(path)
    saved = json.loads(path.read_text())["diagram"]["ui"]["subsystems"]
    assert saved[1]["blocks"] == ["pid_hip", "pid_knee"]


def test_rename_a_subsystem_open_and_undo(qtbot, walk: DiagramPane) -> None:
    c = walk.canvas
    c.open_subsystem("stabilisers")
    c.rename_selected("balance")   # the open one
    assert c.editor.level == "balance" and "<b>balance</b>" in c._crumb.path.text()
    assert [x["name"] for x in c.session.diagram.ui["subsystems"]] == ["balance"]  # type: ignore[union-attr]
    with qtbot.waitSignal(c.editor.message) as msg:
        c.rename_selected("body")   # a block's name
    assert "already a block" in msg.args[0] and c.editor.level == "balance"
    c.editor.undo_stack.undo()
    assert c.editor.level == "stabilisers"
