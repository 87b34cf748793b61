"""XY scopes from the signal browser, scope layouts saved in sessions, scopes reused on a recompile."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from app.gui.main_window import MainWindow
from app.gui.scopes.scope_browser import open_browser
from app.gui.scopes.scope_specs import DEG
from app.gui.scopes.scope_xy import XYScope
from app.gui.session.session import SimSession
from blocks.units import column_units
from tests.gui.conftest import drawn, given, run_until

pytestmark = pytest.mark.gui


def _pick(dlg, name: str, col: int) -> None:  # select column ``col`` of ``name`` in the browser
    top = next(dlg.tree.topLevelItem(i) for i in range(dlg.tree.topLevelItemCount())
               if dlg.tree.topLevelItem(i).text(0) == name)
    dlg.tree.setCurrentItem(top.child(col))


def _phase_portrait(qtbot, window: MainWindow) -> XYScope:
    """Left knee angle (y) against its rate (x), built in the browser as a user does."""
    dlg = open_browser(window.scopes, -1)
    qtbot.addWidget(dlg)
    dlg.search.setText("body gamma_l")
    _pick(dlg, "body.qd", 5)
    dlg.x_button.click()
    assert dlg.scope.currentText() == "a new XY plot against body.qd[gamma_l]"
    _pick(dlg, "body.q", 5)
    n = len(window.scopes.scopes)
    assert dlg.add_selected() == ("body.q", 5)
    assert len(window.scopes.scopes) == n + 1
    xy = window.scopes.scopes[-1]
    assert isinstance(xy, XYScope)
    return xy


def test_xy_scope_plots_the_recorded_signals_with_units_live_and_exported(qtbot, window: MainWindow,
                                                                         tmp_path) -> None:
    s = window.session
    run_until(qtbot, window, 0.4)
    xy = _phase_portrait(qtbot, window)
    assert xy.spec.title == "body.q[gamma_l] vs body.qd[gamma_l]"
    assert xy.plot.getAxis("bottom").labelText == "body.qd[gamma_l] [deg/s]"
    assert xy.plot.getAxis("left").labelText == "deg"
    x, y = xy.curves[0].getData()
    np.testing.assert_allclose(x, s.recorded("body.qd")[:, 5] * DEG)
    np.testing.assert_allclose(y, s.recorded("body.q")[:, 5] * DEG)
    assert x.size == s.recorded_time().size > 300
    # live: it follows the run (the last window_s seconds while running, the whole run when paused)
    s.t_end = 1.0
    bar = window.scope_panel.area.verticalScrollBar()  # the new scope is the last: scroll it into view, as
    bar.setValue(bar.maximum())                        # only the scopes in view are refreshed while running
    window.controls.speed.setCurrentIndex(3)          # 1x real time: many frames, every scope refreshed live
    window.run_control.set_running(True)
    qtbot.waitUntil(lambda: xy.refreshed_at > 0, timeout=20000)
    qtbot.waitUntil(lambda: not window.run_control.running, timeout=30000)
    qtbot.waitUntil(lambda: not window.scopes.settling.pending, timeout=5000)   # the scopes take the run a turn each
    x, y = xy.curves[0].getData()
    assert x.size == s.recorded_time().size and s.time == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(y, s.recorded("body.q")[:, 5] * DEG)
    # the cursor is a dot on the curve at the cursor's time
    window.scopes.set_cursor(0.5)
    k = int(round((0.5 - s.runner.t0) / s.dt))
    cx, cy = xy.cursor.getData()
    assert (cx[0], cy[0]) == pytest.approx((s.recorded("body.qd")[k, 5] * DEG, s.recorded("body.q")[k, 5] * DEG))
    # exports: CSV holds the x column then y; PNG and SVG are written
    path = window.scope_panel.export("csv", tmp_path / "scopes.csv")
    with open(path, encoding="utf-8") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    ix = head.index("body.q[gamma_l] vs body.qd[gamma_l]: body.qd[gamma_l] (x) [deg/s]")
    assert head[ix + 1] == "body.q[gamma_l] vs body.qd[gamma_l]: body.q[gamma_l] [deg]"
    col = np.array([float(r[ix]) for r in rows[1:]])
    np.testing.assert_allclose(col, s.recorded("body.qd")[:, 5] * DEG, rtol=1e-12)
    for kind in ("png", "svg"):
        out = window.scope_panel.export(kind, tmp_path / f"scopes.{kind}")
        assert out is not None and out.stat().st_size > 1000


def test_body_weight_units_apply_to_both_axes_of_an_xy_scope(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 0.3)
    grf = s.find("GrfSource", "F")
    assert grf is not None
    window.scopes.add_xy((grf, 0), (grf, 1))          # vertical against fore-aft GRF, left foot
    window.scope_panel.units.setCurrentIndex(1)
    drawn(qtbot, window)
    xy = window.scopes.scopes[-1]
    bw = s.body_weight_n()
    assert (xy.unit, xy.x_unit) == ("BW", "BW")
    x, y = xy.curves[0].getData()
    np.testing.assert_allclose(x, s.recorded(grf)[:, 0] / bw)
    np.testing.assert_allclose(y, s.recorded(grf)[:, 1] / bw)


def test_column_units_of_generalised_coordinates() -> None:
    labels = ("x0", "y0", "alpha", "beta_l")
    assert column_units("m, rad", labels) == ["m", "m", "rad", "rad"]
    assert column_units("N, N, m", ("a", "b", "c"))[2] == "m" and column_units("N*m", ("l", "r"))[1] == "N*m"


def test_scope_layout_is_saved_in_the_session_and_restored(qtbot, window: MainWindow, settings, tmp_path) -> None:
    run_until(qtbot, window, 0.3)
    _phase_portrait(qtbot, window)
    window.scopes.add_signal(1, "kin.com", 1)
    window.scopes.remove_scope(0)
    window.scope_panel.units.setCurrentIndex(1)
    window.scope_panel.xaxis.setCurrentIndex(1)
    drawn(qtbot, window)
    before = window.scopes.specs()
    path = tmp_path / "s.gbsession.json"
    window.files.save_session(path)
    fresh = MainWindow(SimSession(t_end=1.0), settings=settings, hook_exceptions=False)
    qtbot.addWidget(fresh)
    assert [sp.title for sp in fresh.scopes.specs()] != [sp.title for sp in before]
    assert fresh.files.open_path(path)
    assert fresh.scopes.specs() == before
    assert (fresh.scopes.units, fresh.scopes.cycle) == ("BW", True)
    assert fresh.scope_panel.units.currentIndex() == 1 and fresh.scope_panel.xaxis.currentIndex() == 1
    assert isinstance(fresh.scopes.scopes[-1], XYScope) and fresh.scopes.scopes[-1].x_unit == "deg/s"
    # the user's scopes survive a recompile (another preset) on the same signals
    fresh.files.set_preset("setpoint")
    assert fresh.scopes.specs() == before
    fresh.close()


def test_a_recompile_reuses_the_plots_and_shows_the_new_run(qtbot, window: MainWindow) -> None:
    run_until(qtbot, window, 0.3)
    stack = window.scopes
    plots, built = [sc.plot for sc in stack.scopes], stack.built
    window.files.set_preset("setpoint")
    drawn(qtbot, window)                                # the reused scopes redraw one per turn
    assert [sc.plot for sc in stack.scopes] == plots and stack.built == built     # nothing rebuilt
    assert all(c.getData()[0] is None or c.getData()[0].size <= 1 for sc in stack.scopes for c in sc.curves)
    run_until(qtbot, window, 0.3)
    s = window.session
    hip = stack.scopes[0]
    np.testing.assert_allclose(given(hip.curves[0])[1], s.recorded(hip.spec.traces[0].signal)[:, 3] * DEG)
    stack.remove_scope(len(stack.scopes) - 1)          # a different layout builds only what changed
    assert stack.built == built and [sc.plot for sc in stack.scopes] == plots[:-1]


def test_opening_a_file_from_the_menu_compiles_in_the_background(qtbot, window: MainWindow) -> None:
    from app.gui.session.session import DEFAULT_DIAGRAM

    s, gen = window.session, window.session.generation
    assert window.files.open_path(DEFAULT_DIAGRAM, background=True)
    assert window.compiler.busy and s.generation == gen          # returned before compiling
    assert not window.controls.run_action.isEnabled()            # busy: the controls are disabled
    qtbot.waitUntil(lambda: not window.compiler.busy, timeout=30000)
    assert s.generation == gen + 1 and window.controls.run_action.isEnabled()


def test_run_on_a_finished_run_plays_it_back_at_the_chosen_speed(qtbot, window: MainWindow) -> None:
    from app.gui.session.controls import SPEEDS

    run_until(qtbot, window, 1.0)
    s, rc = window.session, window.run_control
    assert s.finished and window.timeline.at_end()
    n, t_end = s.runner.recorder.length, s.time
    window.controls.speed.setCurrentIndex([lab for lab, _ in SPEEDS].index("2×"))
    window.controls.run_action.trigger()                  # the user presses Run
    assert rc.playing and not rc.running and window.controls.run_action.isChecked()
    qtbot.waitUntil(lambda: 0.2 < window.timeline.position() < 0.9, timeout=10000)
    t_shown = float(window.figure.state_text.split("t = ")[1].split(" s")[0])
    lag = 2.0 * 0.1 + 0.05                 # the timeline follows at 10 Hz: up to 0.1 s of wall time at 2x
    assert -0.01 <= t_shown - (window.timeline.position() + s.runner.t0) <= lag   # slider: 10 ms steps
    assert t_shown == pytest.approx(rc._play_t + s.runner.t0, abs=0.001)
    assert s.runner.recorder.length == n and s.time == t_end     # nothing simulated
    qtbot.waitUntil(lambda: not rc.playing, timeout=10000)
    assert window.timeline.at_end() and not window.controls.run_action.isChecked()
    # pausing stops playback where it is
    window.controls.run_action.trigger()
    qtbot.waitUntil(lambda: window.timeline.position() > 0.1, timeout=10000)
    window.controls.run_action.trigger()
    pos = window.timeline.position()
    qtbot.wait(100)
    assert not rc.playing and window.timeline.position() == pos
