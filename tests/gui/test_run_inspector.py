"""The run inspector as a user drives it: runs kept, overlaid, renamed, deleted; slider changes marked."""

from __future__ import annotations

import numpy as np
import pytest

from app.gui.main_window import MainWindow
from app.gui.runs.run_store import KeptRun, RunStore
from app.gui.scopes.scope_specs import DEG
from tests.gui.conftest import drawn, given, run_until

pytestmark = pytest.mark.gui


def _kp_row(window: MainWindow) -> tuple[str, object]:
    """The first proportional-gain slider of the gain panel (hip PID)."""
    return next((ref, row) for ref, row in window.gains.rows.items() if "hip" in ref and "kp" in ref)


def test_store_caps_the_runs_and_says_which_were_dropped() -> None:
    store = RunStore(cap=3)
    for _ in range(5):
        k = store.next_key()
        store.add(KeptRun(k, f"run {k}", "ok", np.arange(3.0), {"x": np.arange(3.0) * k}))
    assert [r.name for r in store.runs] == ["run 3", "run 4", "run 5"]
    assert "'run 1'" in store.note and "'run 2'" in store.note
    assert store.get(4).signals["x"][2] == 8.0
    assert len({r.colour for r in store.runs}) == 3          # one colour per run


def test_two_runs_with_different_gains_are_kept_and_overlaid(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 1.0)                            # run 1 ends at t_end: kept
    q1 = np.array(s.recorded("body.q"))
    ins = window.inspector
    assert [r.name for r in ins.store.runs] == ["run 1"]
    window.run_control.reset()                               # run 1 already kept: not again
    qtbot.waitUntil(lambda: not window.compiler.busy, timeout=30000)   # Reset compiles in the worker
    s = window.session
    assert len(ins.store.runs) == 1
    ref, _ = _kp_row(window)
    s.set_param(ref, 0.1 * float(s.param_value(ref)))        # a softer hip PID from the start
    run_until(qtbot, window, 1.0)
    q2 = np.array(s.recorded("body.q"))
    assert [r.name for r in ins.store.runs] == ["run 1", "run 2"]
    r1, r2 = ins.store.runs
    np.testing.assert_array_equal(r1.signals["body.q"], q1)
    np.testing.assert_array_equal(r2.signals["body.q"], q2)
    # the runs differ (measured 0.07 deg at most in 1 s: the tracking preset's PID acts in swing only)
    assert np.abs(q1[:, 3:5] - q2[:, 3:5]).max() * DEG > 0.02
    assert r2.changes and r2.changes[0]["name"] == ref
    for r in (r1, r2):
        ins.set_ticked(r.key, True)
        drawn(qtbot, window)
    assert [r.key for r in ins.ticked()] == [r1.key, r2.key]
    hip = window.scopes.scopes[0]                            # hip flexion: L, L ref, R, R ref
    for r, q in ((r1, q1), (r2, q2)):
        x, y = given(hip.overlay.curves[(r.key, 0)])
        np.testing.assert_allclose(x, r.t)
        np.testing.assert_allclose(y, q[:, 3] * DEG)
        _, y_r = given(hip.overlay.curves[(r.key, 2)])
        np.testing.assert_allclose(y_r, q[:, 4] * DEG)
    pens = {hip.overlay.curves[(r.key, 0)].opts["pen"].color().name() for r in (r1, r2)}
    assert pens == {r1.colour, r2.colour} and len(pens) == 2
    n_overlays = sum(len(sc.overlay.curves) for sc in window.scopes.scopes)
    assert n_overlays == 2 * sum(not tr.dashed for sc in window.scopes.scopes for tr in sc.spec.traces)
    assert (r1.key, 1) not in hip.overlay.curves            # the reference (dashed) is not overlaid
    # unticking one run removes its curves; the other keeps its colour
    ins.set_ticked(r1.key, False)
    drawn(qtbot, window)
    assert all(k[0] != r1.key for sc in window.scopes.scopes for k in sc.overlay.curves)
    assert hip.overlay.curves[(r2.key, 0)].opts["pen"].color().name() == r2.colour


def test_rename_and_delete(qtbot, window: MainWindow) -> None:
    run_until(qtbot, window, 0.3)                            # ends at t_end: kept
    ins = window.inspector
    assert len(ins.store.runs) == 1 and ins.keep() is None  # not twice at the same length
    run = ins.store.runs[0]
    ins.set_ticked(run.key, True)
    drawn(qtbot, window)
    ins.rename(run.key, "stiff hip")
    assert ins.store.get(run.key).name == "stiff hip"
    assert ins.table.topLevelItem(0).text(0) == "stiff hip"
    assert window.scopes.scopes[0].overlay.curves
    ins.table.topLevelItem(0).setSelected(True)
    ins.delete_button.click()
    drawn(qtbot, window)
    assert ins.store.runs == [] and ins.table.topLevelItemCount() == 0
    assert all(not sc.overlay.curves for sc in window.scopes.scopes)


def test_a_slider_change_during_a_run_is_marked_at_its_time(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 0.5)
    t_moved = s.time
    ref, row = _kp_row(window)
    row.slider.setValue(row.slider.value() + 30)            # the user drags Kp up while paused at 0.5 s
    new = float(row.box.value())
    run_until(qtbot, window, 1.0)
    log = s.param_log()
    assert [c["name"] for c in log] == [ref]
    assert log[0]["t"] == pytest.approx(t_moved, abs=s.dt)
    for sc in window.scopes.scopes:
        assert len(sc.markers.lines) == 1
        line = sc.markers.lines[0]
        assert line.value() == pytest.approx(t_moved, abs=s.dt)
        assert ref in line.label.toPlainText()
        assert f"{new:.4g}" in line.label.toPlainText()
    # the kept run remembers the change
    assert window.inspector.store.runs[-1].changes[0]["t"] == pytest.approx(t_moved, abs=s.dt)


def test_a_compile_keeps_the_run_it_replaces(qtbot, window: MainWindow) -> None:
    s = window.session
    s.step(300)                                              # paused mid-run, not finished
    window.run_control.update_views()
    n = s.runner.recorder.length
    q = np.array(s.recorded("body.q"))
    window.files.set_preset("setpoint")                      # a compile: a new runner
    ins = window.inspector
    assert len(ins.store.runs) == 1
    run = ins.store.runs[0]
    assert run.t.size == n == 301
    np.testing.assert_array_equal(run.signals["body.q"], q)
    assert "preset tracking" in run.detail
    assert window.session.runner.recorder.length == 1       # the new run starts at t0
