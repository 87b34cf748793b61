"""Keyboard and sliders (issue 32 §7): Space, → and R act in the diagram and the stick figure only, so
a focused slider or check box keeps its keys; gain sliders are logarithmic and Shift drags finely."""

from __future__ import annotations

import math

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.editing.fine_slider import FINE, FineSlider
from app.gui.editing.gain_panel import GainPanel
from app.gui.main_window import MainWindow
from app.gui.session.session import SimSession

KEY = QtCore.Qt.Key
SHIFT = QtCore.Qt.KeyboardModifier.ShiftModifier
NONE = QtCore.Qt.KeyboardModifier.NoModifier


def focus(qtbot, w: QtWidgets.QWidget) -> None:
    w.activateWindow()
    w.setFocus(QtCore.Qt.FocusReason.OtherFocusReason)
    qtbot.waitUntil(w.hasFocus, timeout=2000)


def test_arrow_on_a_focused_slider_moves_it_and_does_not_step(qtbot, window: MainWindow) -> None:
    s = window.session
    row = window.gains.rows["pid_hip.kp"]
    tick, pos, kp = s.tick, row.slider.value(), s.diagram.value("pid_hip.kp")
    focus(qtbot, row.slider)
    qtbot.keyClick(row.slider, KEY.Key_Right)
    assert s.tick == tick                                    # no simulation step ...
    assert row.slider.value() == pos + row.slider.singleStep()   # ... the slider moved
    assert s.diagram.value("pid_hip.kp") > kp
    check = window.gains.link
    focus(qtbot, check)
    was = check.isChecked()
    qtbot.keyClick(check, KEY.Key_Space)
    assert check.isChecked() != was and not window.run_control.running   # ticked, not run
    assert s.tick == tick
    qtbot.keyClick(window.figure.controls.ghost, KEY.Key_R)
    assert s.tick == tick


def test_the_keys_act_in_the_diagram_and_the_figure(qtbot, window: MainWindow) -> None:
    s = window.session
    for widget in (window.canvas, window.figure.plot):
        focus(qtbot, widget)
        tick = s.tick
        qtbot.keyClick(widget, KEY.Key_Right)
        assert s.tick > tick                                 # stepped one frame
        qtbot.keyClick(widget, KEY.Key_Space)
        assert window.run_control.running
        qtbot.keyClick(widget, KEY.Key_Space)
        assert not window.run_control.running


def _handle_centre(slider: QtWidgets.QSlider) -> QtCore.QPointF:
    opt = QtWidgets.QStyleOptionSlider()
    slider.initStyleOption(opt)
    rect = slider.style().subControlRect(QtWidgets.QStyle.ComplexControl.CC_Slider, opt,
                                         QtWidgets.QStyle.SubControl.SC_SliderHandle, slider)
    return QtCore.QPointF(rect.center())


def _send(slider: QtWidgets.QSlider, kind: QtCore.QEvent.Type, at: QtCore.QPointF,
          mods: QtCore.Qt.KeyboardModifier) -> None:
    left = QtCore.Qt.MouseButton.LeftButton
    button = QtCore.Qt.MouseButton.NoButton if kind == QtCore.QEvent.Type.MouseMove else left
    buttons = QtCore.Qt.MouseButton.NoButton if kind == QtCore.QEvent.Type.MouseButtonRelease else left
    event = QtGui.QMouseEvent(kind, at, slider.mapToGlobal(at), button, buttons, mods)
    QtWidgets.QApplication.sendEvent(slider, event)


def drag(slider: QtWidgets.QSlider, dx: float, mods: QtCore.Qt.KeyboardModifier) -> None:
    """Press on the handle, move ``dx`` px in 5 moves, release: mouse events as Qt delivers them."""
    at = _handle_centre(slider)
    _send(slider, QtCore.QEvent.Type.MouseButtonPress, at, mods)
    for k in range(1, 6):
        _send(slider, QtCore.QEvent.Type.MouseMove, at + QtCore.QPointF(dx * k / 5, 0.0), mods)
    _send(slider, QtCore.QEvent.Type.MouseButtonRelease, at + QtCore.QPointF(dx, 0.0), mods)


@pytest.fixture
def kp_row(window: MainWindow):
    row = window.gains.rows["pid_hip.kp"]
    assert isinstance(row.slider, FineSlider)
    return row


def test_gain_sliders_are_logarithmic(qtbot, settings: QtCore.QSettings) -> None:
    """Equal slider travel multiplies the gain by equal factors, over the whole range 0.1 ... 1e4 (the gain
    panel alone, bound to a session as the window binds it: no window needed)."""
    panel = GainPanel(settings)
    qtbot.addWidget(panel)
    panel.bind(SimSession(t_end=0.1))
    m = panel.rows["pid_hip.kp"].smap
    ratios = [m.value(p + 100) / m.value(p) for p in (1, 200, 500, 800)]
    assert ratios == pytest.approx([ratios[0]] * 4, rel=1e-9)
    assert ratios[0] == pytest.approx(10 ** 0.5)              # 5 decades over 1000 steps
    assert m.value(1000) == pytest.approx(1e4) and m.value(0) == 0.0


def test_shift_drags_a_tenth_as_fast(kp_row, window: MainWindow) -> None:
    s, slider = window.session, kp_row.slider
    factor = {}
    for mods in (NONE, SHIFT):
        before = s.diagram.value("pid_hip.kp")
        drag(slider, -25.0, mods)                              # down: the default Kp lies near the top
        factor[mods] = s.diagram.value("pid_hip.kp") / before
    assert factor[NONE] < 1 / 1.5                              # a plain 25 px drag: a coarse change
    # the same 25 px with Shift: a tenth of the travel, so the tenth root of the factor (4-digit rounding)
    assert math.log(factor[SHIFT]) == pytest.approx(FINE * math.log(factor[NONE]), rel=0.15)
    assert factor[NONE] ** 0.2 < factor[SHIFT] < 1.0       # measured: /5.19 plain, /1.17 with Shift (188 px slider)
    # Shift let go mid-drag: the drag goes on from where the handle is, at the normal rate
    pos = slider.value()
    at = _handle_centre(slider)
    _send(slider, QtCore.QEvent.Type.MouseButtonPress, at, SHIFT)
    _send(slider, QtCore.QEvent.Type.MouseMove, at - QtCore.QPointF(20.0, 0.0), SHIFT)
    mid = slider.value()
    _send(slider, QtCore.QEvent.Type.MouseMove, at - QtCore.QPointF(30.0, 0.0), NONE)
    _send(slider, QtCore.QEvent.Type.MouseButtonRelease, at - QtCore.QPointF(30.0, 0.0), NONE)
    per_px = slider.steps_per_px()
    assert 0 < slider.value() < mid < pos                      # in range: no end stop reached
    assert mid - pos == pytest.approx(-20.0 * per_px * FINE, abs=1)
    assert slider.value() - mid == pytest.approx(-10.0 * per_px, abs=1)
