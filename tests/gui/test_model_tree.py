"""The model explorer, fit on open and the minimap (issue 32 §3): the tree follows edits and undo item by
item, selects on the canvas and back, sets parameters through the panel's undoable edit; the diagram
fits its pane when opened or entered; the minimap pans the view and is not redrawn on ticks."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

from app.gui.editing.canvas import DiagramCanvas
from app.gui.editing.diagram_pane import DiagramPane
from app.gui.editing.model_tree import ModelTree, value_text
from app.gui.editing.param_edit import ParamSetter
from app.gui.main_window import MainWindow
from app.gui.session.session import SimSession
from blocks import Diagram
from blocks.settings import SolverSettings
from tests.gui.test_diagram_editing import LEFT, palette_add


def idle(win: MainWindow) -> bool:
    return not win.compiler.busy and not win.canvas.editor.pending


def whole_diagram_visible(c: DiagramCanvas) -> bool:
    box = c.mapFromScene(c.scene().itemsBoundingRect()).boundingRect()
    return c.viewport().rect().contains(box)


def test_tree_shows_a_palette_add_and_loses_it_on_undo_item_by_item(qtbot) -> None:
    p = DiagramPane(DiagramCanvas())
    qtbot.addWidget(p)
    p.resize(1000, 600)
    p.show()
    p.canvas.bind(SimSession(Diagram("small", solver=SolverSettings(dt=1e-3, t_end=0.2)), preset=""))
    tree = ModelTree(ParamSetter())
    qtbot.addWidget(tree)
    tree.bind(p.canvas)
    step = palette_add(qtbot, p, "Step")
    kept = tree.blocks[step]
    gain = palette_add(qtbot, p, "Gain")
    assert set(tree.blocks) == {step, gain} and tree.blocks[gain].text(1) == "Gain"
    assert tree.blocks[step] is kept                      # an add leaves the other items as they were
    tree.tree.expandItem(tree.blocks[gain])               # its parameters, with value and unit
    assert tree.params[f"{gain}.k"].text(1) == "1"
    p.canvas.editor.undo_stack.undo()
    assert set(tree.blocks) == {step} and tree.blocks[step] is kept and f"{gain}.k" not in tree.params
    assert tree.root.childCount() == 1
    p.canvas.editor.undo_stack.redo()
    assert set(tree.blocks) == {step, gain}
    settings = {tree.settings.child(i).text(0) for i in range(tree.settings.childCount())}
    assert "solver" in settings


def test_tree_selects_on_the_canvas_and_edits_through_the_undoable_setter(qtbot, window: MainWindow) -> None:
    c, tree, s = window.canvas, window.tree, window.session
    window.side.setCurrentWidget(tree)
    assert set(tree.blocks) == set(s.diagram.blocks) and "stabilisers" in tree.subs
    assert tree.blocks["trunk"].parent() is tree.subs["stabilisers"]       # grouped by subsystem
    tree.select("trunk")                                  # a block inside a subsystem: opened, selected
    assert c.editor.level == "stabilisers" and c.items_by_name["trunk"].isSelected()
    assert window.params.block == "trunk" and window.side.currentWidget() is tree
    c.open_subsystem(None)
    c.clipboard.select(["grf"])                           # the canvas's selection selects in the tree
    assert tree.blocks["grf"].isSelected() and not tree.blocks["trunk"].isSelected()
    ref = next(r for r in s.param_specs("pid_hip") if s.param_specs("pid_hip")[r].tunable and r.startswith("kp"))
    ref = f"pid_hip.{ref}"
    tree.tree.expandItem(tree.blocks["pid_hip"])
    item = tree.params[ref]
    old = s.diagram.value(ref)
    new = tuple(2 * v for v in old) if isinstance(old, tuple) else 2 * old
    item.setText(1, ", ".join(f"{v:g}" for v in new) if isinstance(new, tuple) else f"{new:g}")   # an edit
    s.step(1)
    assert s.param_value(ref) == new and dict(s.spec.settings)[ref] == new   # the compiled run has it
    window.show_block("pid_hip")
    c.editor.undo_stack.undo()                            # the same undo stack as the canvas's edits
    s.step(1)
    assert s.param_value(ref) == old and s.diagram.value(ref) == old
    assert tree.params[ref].text(1) == value_text(old)    # the tree follows the undo
    item.setText(1, "not a number")                       # refused: the value in force stays, said why
    assert s.param_value(ref) == old and "cannot read" in tree.status.text()
    syncs, paints = tree.syncs, c.minimap.paints
    for _ in range(5):                                    # ticks: neither the tree nor the minimap redraws
        window.run_control.step_frame()
        qtbot.wait(20)
    assert tree.syncs == syncs and c.minimap.paints == paints


def test_the_diagram_fits_its_pane_on_open_and_on_entering_a_subsystem(qtbot, window: MainWindow,
                                                                        tmp_path: Path) -> None:
    c = window.canvas
    qtbot.waitUntil(lambda: whole_diagram_visible(c), timeout=5000)
    assert c.minimap.isHidden()                           # the whole diagram shows: no minimap
    path = tmp_path / "walk.json"
    window.session.save_diagram(path)
    c.scale(3.0, 3.0)
    assert not whole_diagram_visible(c)
    assert window.files.open_path(path, background=True)
    qtbot.waitUntil(lambda: idle(window), timeout=240000)
    assert whole_diagram_visible(c)
    c.open_subsystem("stabilisers")
    assert whole_diagram_visible(c)
    c.open_subsystem(None)
    c.scale(2.0, 2.0)
    c.setFocus()
    qtbot.keyClick(c, QtCore.Qt.Key.Key_F)                # the fit key
    assert whole_diagram_visible(c)


@pytest.mark.parametrize("where", [(0.2, 0.3), (0.8, 0.7)])
def test_minimap_click_pans_the_view(qtbot, window: MainWindow, where: tuple[float, float]) -> None:
    c = window.canvas
    c.scale(3.0, 3.0)
    m = c.minimap
    qtbot.waitUntil(m.isVisible, timeout=2000)            # part of the diagram is out of view
    assert c.viewport().geometry().contains(m.geometry()) and m.width() <= 200
    at = QtCore.QPoint(int(m.width() * where[0]), int(m.height() * where[1]))
    aim = m.to_scene(QtCore.QPointF(at))
    before = m.visible_rect().center()
    qtbot.mouseClick(m, LEFT, pos=at)
    centre = m.visible_rect().center()
    assert (centre - before).manhattanLength() > 20       # the view moved ...
    seen = m.visible_rect()                               # ... to the point clicked (as far as the scene allows)
    assert seen.contains(aim) and abs(centre.x() - aim.x()) < 0.25 * seen.width() + 1
    corner = c.viewport().geometry().bottomRight()       # the map stays in the corner as the view scrolls
    assert c.viewport().geometry().contains(m.geometry())
    assert (corner - m.geometry().bottomRight()).manhattanLength() < 20
    QtWidgets.QApplication.processEvents()
