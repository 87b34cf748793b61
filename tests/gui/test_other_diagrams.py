"""The scopes of a diagram that is not the walking one: its ``Scope`` blocks, not empty walking plots."""

from __future__ import annotations

import numpy as np
from PySide6 import QtWidgets

from app.gui.scopes.scope_specs import block_scopes, default_scopes
from app.gui.session.session import SimSession
from blocks import Diagram, SolverSettings


def _diagram(scope: bool) -> Diagram:
    d = Diagram("ramp_scope", solver=SolverSettings(dt=1e-2, t_end=0.5))
    d.add("src", "Constant", value=(1.0, -2.0))
    d.add("x", "Integrator", x0=(0.0, 0.0), n=2)
    d.connect("src.y", "x.u")
    if scope:
        d.add("position", "Scope", unit="m")
        d.connect("x.y", "position.u")
    return d


def test_a_scope_block_gets_its_scope_and_no_walking_scope_is_shown() -> None:
    s = SimSession(diagram=_diagram(scope=True), preset="", dataset="")
    s.step(30)
    specs = default_scopes(s)
    assert [sp.title for sp in specs] == ["position"]          # no empty hip, knee, torque or trunk plots
    (spec,) = specs
    assert spec.unit == "m" and len(spec.traces) == 2
    assert [tr.col for tr in spec.traces] == [0, 1] and {tr.signal for tr in spec.traces} == {"x.y"}
    y = s.recorded("x.y")
    t = s.recorded_time()
    np.testing.assert_allclose(y[:, 1], -2.0 * t, atol=1e-12)  # the integrated ramp the traces draw


def test_without_scope_blocks_the_first_logged_signals_are_shown() -> None:
    s = SimSession(diagram=_diagram(scope=False), preset="", dataset="")
    assert block_scopes(s) == []
    shown = [sp.title for sp in block_scopes(s, fallback=True)]
    assert shown == s.signal_names()[:4] and shown
    assert [sp.title for sp in default_scopes(s)] == shown


def test_the_window_on_such_a_diagram_greys_out_dataset_and_preset(qtbot, settings) -> None:
    """Datasets and presets configure the walking diagram: for one that reads no recording both boxes
    show a dash and are disabled (they read "sneakers" and "tracking" before); its Scope block's scope
    shows the run."""
    from app.gui.figure.stick_figure import NO_BODY
    from app.gui.main_window import MainWindow
    from app.gui.session.controls import NO_DATA, NO_PRESET
    from tests.gui.conftest import run_until

    win = MainWindow(SimSession(diagram=_diagram(scope=True), preset="", dataset=""), settings=settings)
    qtbot.addWidget(win)
    win.show()
    c = win.controls
    assert (c.dataset.currentText(), c.dataset.isEnabled()) == (NO_DATA, False)
    assert (c.preset.currentText(), c.preset.isEnabled()) == (NO_PRESET, False)
    assert [sp.title for sp in win.scopes.specs()] == ["position"]
    run_until(qtbot, win, 0.3)
    (scope,) = win.scopes.scopes
    t, y = scope.curves[1].xData, scope.curves[1].yData
    assert t[-1] >= 0.29 and np.allclose(y, -2.0 * t, atol=1e-12)
    assert win.status_state.full_text().endswith("diagram ramp_scope")     # not "dataset sneakers · preset "
    assert win.figure.footer.text() == NO_BODY                                # not a biped at the origin
    assert not any(item.isVisible() for item in win.figure._biped_items)
    assert win.figure.header.full_text() == f"t = {win.session.time:.4f} s"    # the time still shown


def test_the_gains_of_a_one_channel_pid_name_no_legs_and_carry_the_blocks_units(qtbot, settings) -> None:
    """A PID of another diagram (one channel, no leg in its name): the Gains tab titles it "PID (block
    pid)", not "Pid PID (left + right, …)", and each box shows its ParamSpec's unit."""
    from app.gui.main_window import MainWindow

    d = Diagram("pid_only", solver=SolverSettings(dt=1e-2, t_end=0.5))
    d.add("ref", "Constant", value=(1.0,))
    d.add("on", "Constant", value=(1.0,))
    d.add("pid", "PID", kp=3.0, ki=0.0, kd=0.0, n=1)
    d.add("plant", "Integrator", x0=(0.0,), n=1)
    for a, b in (("ref.y", "pid.ref"), ("plant.y", "pid.meas"), ("on.y", "pid.enable"), ("ref.y", "pid.track"),
                 ("pid.u", "plant.u")):
        d.connect(a, b)
    win = MainWindow(SimSession(diagram=d, preset="", dataset=""), settings=settings)
    qtbot.addWidget(win)
    heads = [w.text() for w in win.gains.findChildren(QtWidgets.QLabel) if "PID" in w.text()]
    assert heads == ["<b>PID</b> &nbsp;(block <i>pid</i>)"]
    spec = win.session.diagram.param_spec("pid.ki")
    assert win.gains.rows["pid.ki"].box.suffix() == " " + spec.unit.replace("*", "·")
