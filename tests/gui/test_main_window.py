"""The main window as a user drives it: run, watch, tune a gain mid-run, scrub, save and reload."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.gui.main_window import MainWindow
from app.gui.scopes.scope_specs import DEG
from app.gui.scopes.scope_units import min_span
from app.gui.session.session import SimSession
from models.biped import FiveLinkBiped
from tests.gui.conftest import given, run_until

pytestmark = pytest.mark.gui


def test_run_two_seconds_updates_figure_and_scopes(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 2.0)
    assert s.time == pytest.approx(2.0)
    n = s.runner.recorder.length
    assert n == 2001
    q = s.recorded("body.q")
    # stick figure: the trunk is drawn from the hip to the head of the last recorded pose
    pts = FiveLinkBiped(s.biped_params()).points(q[-1])
    x, y = window.figure.trunk.getData()
    np.testing.assert_allclose([x[0], y[0], x[1], y[1]], [*pts["hip"], *pts["head"]], atol=1e-12)
    assert window.figure.header.full_text().startswith("t = 2.000 s")
    # GRF arrow of a loaded foot: |F| / body weight * 0.45 m
    f = s.recorded("grf.F")[-1]
    side = "l" if f[1] > f[3] else "r"
    i = 0 if side == "l" else 2
    expected = math.hypot(f[i], f[i + 1]) / s.body_weight_n() * window.figure.arrow_m_per_bw
    assert window.figure.arrow_length(side) == pytest.approx(expected, rel=1e-9)
    assert expected > 0.2
    # scopes: the hip scope's first curve is beta_l in degrees over the whole run (paused = full data)
    hip = window.scopes.scopes[0]
    tx, ty = given(hip.curves[0])
    assert tx.size == n and tx[-1] == pytest.approx(2.0)
    np.testing.assert_allclose(ty, q[:, 3] * DEG)
    lo, hi, mean, rms = hip.stats[0]
    assert (lo, hi) == (pytest.approx(q[:, 3].min() * DEG), pytest.approx(q[:, 3].max() * DEG))
    assert rms == pytest.approx(math.sqrt(np.mean((q[:, 3] * DEG) ** 2)))
    assert all("[" in sc.plot.titleLabel.text and "]" in sc.plot.titleLabel.text for sc in window.scopes.scopes)
    assert window.timeline.position() == pytest.approx(2.0)
    assert window.run_control.frames > 0 and "real-time factor" in window.status_rtf.text()


def test_gain_slider_mid_run_takes_effect_at_next_step(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 0.5)
    k = s.tick
    row = window.gains.rows["pid_hip.kp"]
    old_kp = float(s.param_value("pid_hip.kp"))
    row.slider.setValue(row.slider.value() + 30)           # the user drags Kp up (log slider: x 10^0.15)
    new_kp = float(row.box.value())
    assert new_kp == pytest.approx(old_kp * 10 ** 0.15, rel=0.01)
    assert s.param_value("pid_hip.kp") == old_kp            # queued, applied at the next step
    assert s.param_log() == []
    s.t_end = 2.5
    window.run_control.set_running(True)
    window.run_control.frame()  # the next frame
    window.run_control.set_running(False)
    assert s.param_value("pid_hip.kp") == pytest.approx(new_kp)
    log = s.param_log()
    assert [(c["t"], c["name"], c["old"], c["new"]) for c in log] == [(pytest.approx(0.5), "pid_hip.kp", old_kp,
                                                                      pytest.approx(new_kp))]
    # a reference run without the change: identical up to the change, then the P term differs by dKp * e
    ref = SimSession(t_end=2.5)
    ref.step(s.tick)
    u_new, u_old = s.recorded("pid_hip.u"), ref.recorded("pid_hip.u")
    np.testing.assert_array_equal(u_new[:k], u_old[:k])
    e = s.recorded("ref.hip")[k] - s.recorded("meas_hip.y")[k]
    np.testing.assert_allclose(u_new[k] - u_old[k], (new_kp - old_kp) * e, rtol=1e-9, atol=1e-9)
    assert np.max(np.abs(u_new[k:] - u_old[k:])) > 0.2                  # N m: it keeps acting after the step


def test_scrub_timeline_then_resume(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 1.0)
    q_full = s.recorded("body.q").copy()
    window.timeline.slider.setValue(50)                    # 0.50 s
    assert window.figure.header.full_text().startswith("t = 0.500 s")
    pts = FiveLinkBiped(s.biped_params()).points(q_full[500])
    x, y = window.figure.trunk.getData()
    np.testing.assert_allclose([x[0], y[0]], pts["hip"], atol=1e-12)
    cursor = window.scopes.scopes[0]
    assert cursor.cursor.value() == pytest.approx(0.5)
    assert f"L {q_full[500, 3] * DEG:.2f}" in cursor.cursor.label.textItem.toPlainText()
    s.t_end = 0.7
    window.run_control.set_running(True)  # resumes from the scrubbed time (snapshot)
    assert s.runner.recorder.length <= 502
    qtbot.waitUntil(lambda: not window.run_control.running, timeout=10000)
    assert s.time == pytest.approx(0.7)
    np.testing.assert_array_equal(s.recorded("body.q")[:701], q_full[:701])


def test_save_and_reload_session_identical(qtbot, window: MainWindow, tmp_path, settings) -> None:
    s = window.session
    window.gains.set_gain("pid_knee", "kd", 31.5)
    window.canvas.items_by_name["est"].setPos(500.0, 230.0)
    window.controls.speed.setCurrentIndex(2)
    window.show_block("phase")
    path = tmp_path / "a.gbsession.json"
    window.files.save_session(path)
    other = MainWindow(SimSession(t_end=1.0), settings=settings, hook_exceptions=False)
    qtbot.addWidget(other)
    other.show()
    # the offscreen screen (800 px) is narrower than either window's minimum, so each window takes its
    # own minimum width (the chosen speed's text widens the toolbar's): the splitter wants the same width
    other.resize(window.size())
    assert other.files.open_path(path)
    t = other.session
    assert t.to_dict() == s.to_dict()
    assert t.block_positions()["est"] == (500.0, 230.0)
    assert other.canvas.items_by_name["est"].pos().x() == 500.0
    assert t.param_value("pid_knee.kd") == 31.5
    assert other.gains.rows["pid_knee.kd"].box.value() == 31.5
    assert other.view_state() == window.view_state()
    assert other.files.recent_files()[0] == str(path)


def test_malformed_files_show_error_and_keep_session(qtbot, window: MainWindow, tmp_path) -> None:
    s = window.session
    run_until(qtbot, window, 0.2)
    before = (s.dataset, s.runner, s.tick)
    bad_csv = tmp_path / "broken.csv"
    bad_csv.write_text("time,F_lx,F_ly\n0.0,1.0,abc\n", encoding="utf-8")
    assert not window.files.open_path(bad_csv)
    assert "broken.csv" in window.errors.last_text()
    bad_json = tmp_path / "broken.gbsession.json"
    bad_json.write_text('{"format": "gaitblocks-session",\n "version": 1,,}', encoding="utf-8")
    assert not window.files.open_path(bad_json)
    text = window.errors.last_text()
    assert "broken.gbsession.json" in text and "line 2" in text
    assert len(window.errors.dialogs) == 2 and window.errors.dialogs[-1].isVisible()
    assert window.session is s and (s.dataset, s.runner, s.tick) == before
    s.t_end = 1.0
    window.run_control.step_frame()  # the app still works
    assert s.tick == before[2] + 20


def test_a_fall_shows_in_the_validity_panel_status_bar_and_scopes(qtbot, settings) -> None:
    """The paper preset falls at about 0.76 s on sneakers: the window says so instead of 'finished', and
    every time scope's y range holds the walk before the fall, not the tumble after it (run on past the
    fall, Stop at fall off: tests/gui/test_fall_stop.py has the default, a run that ends at the fall)."""
    s = SimSession(dataset="sneakers", preset="paper", t_end=1.5)
    s.stop_at_fall = False
    win = MainWindow(session=s, settings=settings, hook_exceptions=False)
    qtbot.addWidget(win)
    run_until(qtbot, win, 1.5)
    summary = win.run_control.evaluate()
    assert summary["status"] == "fell"
    fell = summary["fell_at_s"]
    assert 0.7 < fell < 1.0
    assert "knee hyperextended" in summary["fell_because"]
    assert win.validity.status.text() == f"FELL at {fell:.2f} s: {summary['fell_because']}"
    assert win.status_state.full_text().startswith("FELL at")      # shown elided to its width
    lines = [sc.fall_line for sc in win.scopes.scopes]
    assert all(line is not None and line.value() == pytest.approx(fell) for line in lines)
    before = int(np.searchsorted(s.recorded_time(), fell, side="right"))
    clipped = 0
    for sc in win.scopes.scopes:
        y0, y1 = sc.plot.getViewBox().viewRange()[1]
        ys = [sc.trace_data(s, tr, 0, s.runner.recorder.length) for tr in sc.spec.traces]
        walk = np.concatenate([y[:before] for y in ys])
        # fitted to the walk; a flat trace (the paper preset's CoP, all 0) gets the unit's least span
        assert y0 <= walk.min() and walk.max() <= y1 and (y1 - y0) < max(1.2 * np.ptp(walk) + 1e-3,
                                                                          1.01 * min_span(sc.unit))
        clipped += any(np.abs(y[before:]).max() > max(abs(y0), abs(y1)) for y in ys)
    assert clipped >= 3  # the tumble leaves the hip, knee and trunk scopes' ranges
    # the force account names the estimator as the only stance torque source
    rows = {win.validity.forces.item(i, 0).text(): win.validity.forces.item(i, 1).text()
            for i in range(win.validity.forces.rowCount())}
    assert rows["estimator"] == "100 %"
    # the speed account: the mean speed up to the fall, from the initial speed and the recorded GRF (no floor)
    acc = summary["speed_account"]
    assert acc["mean_m_s"] == pytest.approx(acc["initial_m_s"] + acc["recorded_grf_m_s"] + acc["residual_m_s"])
    assert abs(acc["residual_m_s"]) < 1e-3
    assert f"Speed account [m/s]: mean speed {acc['mean_m_s']:.3f} m/s" in win.validity.residual.text()
