"""Signal widths on the canvas (issue 32 §3): a vector wire shows its width from the last compile,
drawn thicker; the label follows an undoable rewiring to a source of another width, and hides with
the View menu's toggle; an inherited width reads "inherit (w)" in the parameter panel."""

from __future__ import annotations

import pytest
from PySide6 import QtCore, QtWidgets

from app.gui.editing.canvas import DiagramCanvas
from app.gui.editing.model_tree import ModelTree
from app.gui.editing.param_edit import ParamSetter
from app.gui.editing.param_panel import ParamPanel
from app.gui.main_window import MainWindow
from app.gui.session.session import SimSession
from blocks import Diagram
from blocks.settings import SolverSettings
from blocks.spec import INHERIT


def small() -> Diagram:
    """Constant(2) -> Gain (width inherited) -> Scope, a 3-wide Constant aside, and a 1-wide Step -> Scope."""
    d = Diagram("widths", solver=SolverSettings(dt=1e-3, t_end=0.5))
    for name, type_name, params, xy in (("c2", "Constant", {"value": (1.0, 2.0)}, (0, 0)),
                                        ("c3", "Constant", {"value": (1.0, 2.0, 3.0)}, (0, 120)),
                                        ("g", "Gain", {"k": 2.0}, (230, 0)),
                                        ("sc", "Scope", {}, (460, 0)),
                                        ("st", "Step", {}, (0, 240)),
                                        ("sc1", "Scope", {}, (230, 240))):
        d.add(name, type_name, **params)
        d.set_position(name, *xy)
    d.connect("c2.y", "g.u")
    d.connect("g.y", "sc.u")
    d.connect("st.y", "sc1.u")
    return d


@pytest.fixture
def canvas(qtbot) -> DiagramCanvas:
    c = DiagramCanvas()
    qtbot.addWidget(c)
    c.resize(900, 600)
    c.show()
    c.bind(SimSession(small(), preset=""))
    return c


def test_a_vector_wire_shows_its_width_and_follows_an_undoable_rewiring(canvas: DiagramCanvas) -> None:
    vec, scalar = canvas.wire("g.y", "sc.u"), canvas.wire("st.y", "sc1.u")
    assert (vec.dims.text(), vec.dims.isVisible()) == ("2", True)
    assert not scalar.dims.isVisible()
    assert vec.pen().widthF() > scalar.pen().widthF()
    editor = canvas.editor
    editor.delete([], [("c2.y", "g.u")])            # does not compile (g.u open): the last widths stay
    assert editor.error is not None and canvas.wire("g.y", "sc.u").dims.text() == "2"
    assert editor.wire("c3.y", "g.u") and editor.error is None
    assert canvas.wire("g.y", "sc.u").dims.text() == "3" and canvas.wire("c3.y", "g.u").dims.text() == "3"
    editor.undo_stack.undo()
    editor.undo_stack.undo()                        # c2 wired back
    assert editor.error is None and canvas.wire("g.y", "sc.u").dims.text() == "2"


def test_the_toggle_hides_the_widths(canvas: DiagramCanvas) -> None:
    vec, scalar = canvas.wire("g.y", "sc.u"), canvas.wire("st.y", "sc1.u")
    canvas.set_show_widths(False)
    assert not vec.dims.isVisible() and vec.pen().widthF() == scalar.pen().widthF()
    canvas.set_show_widths(True)
    assert vec.dims.isVisible() and vec.pen().widthF() > scalar.pen().widthF()


def test_the_panel_shows_an_inherited_width_and_sets_it_back_to_inherit(qtbot, canvas: DiagramCanvas) -> None:
    s = canvas.session
    assert s is not None
    panel = ParamPanel()
    qtbot.addWidget(panel)
    panel.show_block(s, "g")
    box = panel.editors["g.n"]
    assert isinstance(box, QtWidgets.QSpinBox) and box.text() == "inherit (2)"
    box.setValue(2)                                  # explicit 2: recompiled, no longer inherited
    assert s.diagram.value("g.n") == 2 and "g" not in s.model.inherited
    box.setValue(0)                                  # back to inherit
    assert s.diagram.value("g.n") == INHERIT and s.model.inherited["g"].width == 2


def test_the_model_tree_reads_inherit(qtbot, canvas: DiagramCanvas) -> None:
    tree = ModelTree(ParamSetter())
    qtbot.addWidget(tree)
    tree.bind(canvas)
    tree.tree.expandItem(tree.blocks["g"])
    assert tree.params["g.n"].text(1) == "inherit" and tree.params["g.k"].text(1) == "2"


def test_the_view_menu_toggle_is_on_by_default_and_saved_with_the_view(qtbot, settings: QtCore.QSettings) -> None:
    win = MainWindow(SimSession(small(), preset=""), settings=settings)
    qtbot.addWidget(win)
    win.show()
    view = next(a.menu() for a in win.menuBar().actions() if a.text() == "&View")
    toggle = next(a for a in view.actions() if a.text() == "Signal &widths")
    assert toggle is win.signal_widths and toggle.isChecked() and win.view_state()["signal_widths"] is True
    toggle.trigger()
    assert not win.canvas.wire("g.y", "sc.u").dims.isVisible() and win.view_state()["signal_widths"] is False
    win.apply_view({"signal_widths": True})      # a session file's view
    assert toggle.isChecked() and win.canvas.wire("g.y", "sc.u").dims.isVisible()
    # the source's width changed by an undoable parameter edit (compiled in the background), then undone
    assert win.param_setter.set(win.session, "c2.value", (1.0, 2.0, 3.0)) is None
    qtbot.waitUntil(lambda: win.canvas.wire("g.y", "sc.u").dims.text() == "3", timeout=120000)
    win.canvas.editor.undo_stack.undo()
    qtbot.waitUntil(lambda: win.canvas.wire("g.y", "sc.u").dims.text() == "2", timeout=120000)
    assert win.session.model.widths["g.y"] == 2
    win.errors.close_all()
    win.close()


def test_a_width_mismatch_outlines_both_ends(canvas: DiagramCanvas) -> None:
    editor = canvas.editor
    total = editor.add_block("Sum", 230, 120)
    assert editor.wire("c2.y", f"{total}.u1")            # u2 still open
    assert editor.wire("c3.y", f"{total}.u2")
    assert editor.error == (f"width mismatch: {total}.u2 is 2 wide but c3.y gives 3 "
                            f"({total}.n = 2 is inherited from c2.y)")
    assert "u2" in editor.error_sites[total] and editor.error_sites["c3"] == {"y"}
    assert canvas.items_by_name[total].error == editor.error
