"""The gain panel's link left/right: linked sliders move both legs, unlinked L/R sliders one leg."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore

from app.gui.editing.gain_panel import GainPanel
from app.gui.main_window import MainWindow
from app.gui.session.session import SimSession
from tests.blocks.test_per_leg_gains import symmetric_pid


def _panel(qtbot, settings: QtCore.QSettings) -> tuple[GainPanel, SimSession]:
    s = SimSession(symmetric_pid(kp=300.0), apply=False)
    panel = GainPanel(settings)
    qtbot.addWidget(panel)
    panel.bind(s)
    return panel, s


def _u(s: SimSession) -> np.ndarray:
    return np.asarray(s.latest("pid.u"))


def test_linked_slider_moves_both_legs_unlinked_one(qtbot, settings: QtCore.QSettings) -> None:
    panel, s = _panel(qtbot, settings)
    assert panel.link.isEnabled() and panel.link.isChecked()
    assert set(panel.rows) == {"pid.kp", "pid.ki", "pid.kd"}
    row = panel.rows["pid.kp"]
    row.slider.setValue(row.slider.value() + 40)            # linked: one slider, both legs
    s.step(3)
    u = _u(s)
    assert u[0] == u[1] and abs(u[0] - 30.0) > 1.0           # moved away from 300 N m/rad * 0.1 rad
    panel.link.setChecked(False)                              # unlinked: L and R rows
    assert {"pid.kp[0]", "pid.kp[1]"} <= set(panel.rows) and "pid.kp" not in panel.rows
    left = panel.rows["pid.kp[0]"]
    right_before = panel.rows["pid.kp[1]"].box.value()
    left.box.setValue(750.0)
    s.step(3)
    u = _u(s)
    assert u[0] == 75.0 and u[1] == right_before * 0.1 and u[0] != u[1]
    assert s.diagram.value("pid.kp") == (750.0, right_before)
    assert ("pid.kp[0]", 750.0) in s.spec.settings          # compare / tuning runs see it
    panel.link.setChecked(True)                               # linking copies the left value to both
    s.step(3)
    u = _u(s)
    assert u[0] == u[1] == 75.0 and panel.rows["pid.kp"].box.value() == 750.0


def test_a_diagram_with_per_leg_gains_opens_unlinked(qtbot, settings: QtCore.QSettings) -> None:
    s = SimSession(symmetric_pid(kp=[200.0, 400.0]), apply=False)
    panel = GainPanel(settings)
    qtbot.addWidget(panel)
    panel.bind(s)
    assert not panel.link.isChecked()
    assert panel.rows["pid.kp[0]"].box.value() == 200.0 and panel.rows["pid.kp[1]"].box.value() == 400.0


def test_main_window_left_only_hip_gain(qtbot, window: MainWindow) -> None:
    """In the default diagram, a left-only hip gain reaches the engine while the right keeps the preset's."""
    g, s = window.gains, window.session
    kp = float(s.param_value("pid_hip.kp"))
    g.link.setChecked(False)
    g.rows["pid_hip.kp[0]"].box.setValue(2 * kp)
    s.step(1)
    assert s.param_value("pid_hip.kp") == (2 * kp, kp)
    assert g.rows["pid_hip.kp[1]"].box.value() == kp


def test_gain_changes_are_undoable_and_a_link_is_one_step(qtbot, settings: QtCore.QSettings) -> None:
    """With the window's setter, a gain slider's change is an undo step: undo puts the old gain back in
    the run and on the slider; linking legs that differ (two gains reset at once) is one step."""
    from PySide6 import QtGui

    from app.gui.editing.param_edit import ParamSetter

    s = SimSession(symmetric_pid(kp=300.0), apply=False)
    setter = ParamSetter()
    setter.undo_stack = QtGui.QUndoStack()
    panel = GainPanel(settings, setter=setter)
    qtbot.addWidget(panel)
    panel.bind(s)
    setter.changed.connect(lambda ref, v: panel.sync())
    panel.rows["pid.kp"].box.setValue(500.0)
    s.step(3)
    assert _u(s)[0] == 50.0 and setter.undo_stack.count() == 1
    setter.undo_stack.undo()
    s.step(3)
    assert _u(s)[0] == 30.0 and panel.rows["pid.kp"].box.value() == 300.0
    panel.link.setChecked(False)
    panel.rows["pid.kp[1]"].box.setValue(600.0)
    panel.rows["pid.kd[1]"].box.setValue(9.0)
    n = setter.undo_stack.count()
    panel.link.setChecked(True)                               # both gains back to the left leg's: one step
    assert setter.undo_stack.count() == n + 1 and s.diagram.value("pid.kp") == 300.0
    setter.undo_stack.undo()
    assert s.diagram.value("pid.kp") == (300.0, 600.0)
