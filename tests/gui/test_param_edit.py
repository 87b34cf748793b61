"""Setting a parameter as an undoable edit (app.gui.editing.param_edit): a drag is one undo step, two edits
apart are two; undo and redo reach the run; a bad value is refused and pushes nothing."""

from __future__ import annotations

import pytest
from PySide6 import QtGui

import app.gui.editing.param_edit as param_edit
from app.gui.editing.param_edit import MERGE_S, ParamSetter
from app.gui.session.session import SimSession
from blocks import Diagram
from blocks.settings import SolverSettings


@pytest.fixture
def session() -> SimSession:
    d = Diagram("small", solver=SolverSettings(dt=1e-3, t_end=0.2))
    d.add("step1", "Step")
    d.add("gain1", "Gain", k=1.5)
    d.connect("step1.y", "gain1.u")
    return SimSession(d, preset="")


def test_a_drag_is_one_undo_step_and_edits_apart_are_two(qtbot, session: SimSession,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    monkeypatch.setattr(param_edit.time, "monotonic", lambda: clock[0])
    stack = QtGui.QUndoStack()
    setter = ParamSetter()
    setter.undo_stack = stack
    seen: list[tuple[str, object]] = []
    setter.changed.connect(lambda ref, v: seen.append((ref, v)))
    for k in (2.0, 2.5, 3.0):                        # a drag: 0.1 s apart
        assert setter.set(session, "gain1.k", k) is None
        clock[0] += 0.1
    assert stack.count() == 1
    session.step(1)
    assert session.param_value("gain1.k") == 3.0
    clock[0] += 2 * MERGE_S
    assert setter.set(session, "gain1.k", 4.0) is None   # later: a second step
    assert stack.count() == 2
    stack.undo()
    stack.undo()
    session.step(1)
    assert session.param_value("gain1.k") == 1.5 and seen[-1] == ("gain1.k", 1.5)
    stack.redo()
    session.step(1)
    assert session.param_value("gain1.k") == 3.0
    error = setter.set(session, "gain1.k", "abc")     # refused: nothing pushed, the value in force kept
    assert error is not None and "gain1.k" in error and stack.count() == 2 and stack.index() == 1
    assert setter.set(session, "nothere.k", 1.0) is not None and stack.count() == 2
