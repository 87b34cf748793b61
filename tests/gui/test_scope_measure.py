"""Measuring on the scopes: Δ cursors, values on hover, y linked by unit, a signal dropped from the
browser, units that agree between browser and scopes, a flat trace on a sensible axis, the difference
of two runs."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore, QtGui

from app.gui.main_window import MainWindow
from app.gui.scopes.scope_browser import open_browser
from app.gui.scopes.scope_diff import DiffDialog, difference
from app.gui.scopes.scope_drop import SIGNAL_MIME, decode_ref
from app.gui.scopes.scope_measure import HOVER_PX
from app.gui.scopes.scope_units import DEG
from tests.gui.conftest import drawn, run_until

pytestmark = pytest.mark.gui


def _scope(window: MainWindow, title: str):
    return next(sc for sc in window.scopes.scopes if sc.spec.title == title)


def test_delta_cursor_reads_the_data_difference(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 1.0)
    stack = window.scopes
    stack.set_cursor(0.31)
    window.scope_panel.delta_action.setChecked(True)         # B appears 0.2 s after A
    assert stack.delta_on and stack.cursor_b_t == pytest.approx(0.51)
    stack.set_delta(True, 0.874)
    knee = _scope(window, "Knee flexion γ")
    ka, kb = stack.tick_of(0.31), stack.tick_of(0.874)
    assert s.recorded_time()[ka] == pytest.approx(0.31) and s.recorded_time()[kb] == pytest.approx(0.874)
    q = s.recorded("body.q")
    want = {"L": (q[kb, 5] - q[ka, 5]) * DEG, "R": (q[kb, 6] - q[ka, 6]) * DEG}
    got = dict(knee.delta.deltas)
    assert got["L"] == pytest.approx(want["L"], rel=1e-12) and got["R"] == pytest.approx(want["R"], rel=1e-12)
    assert abs(want["L"]) > 1.0                                # a real change, not zero against zero
    text = knee.delta.line.label.textItem.toPlainText()
    assert text.startswith("Δt=0.564 s") and f"ΔL {want['L']:.4g}" in text and text.endswith("deg")
    # dragging B (a user moves the line) updates every scope; A moving does too
    knee.delta.line.setValue(0.6)
    assert stack.cursor_b_t == pytest.approx(0.6)
    grf = _scope(window, "Vertical GRF")
    k6 = stack.tick_of(0.6)
    assert dict(grf.delta.deltas)["R"] == pytest.approx(s.recorded("grf.F")[k6, 3] - s.recorded("grf.F")[ka, 3])
    window.scope_panel.units.setCurrentIndex(1)              # a rebind (body-weight units) keeps B
    drawn(qtbot, window)
    grf = _scope(window, "Vertical GRF")
    assert grf.delta.line.isVisible() and grf.delta.line.value() == pytest.approx(0.6)
    assert dict(grf.delta.deltas)["R"] == pytest.approx((s.recorded("grf.F")[k6, 3] - s.recorded("grf.F")[ka, 3])
                                                        / s.body_weight_n())
    window.scope_panel.delta_action.setChecked(False)
    assert not any(sc.delta.line.isVisible() for sc in stack.scopes if sc.delta is not None)


def test_hover_reads_the_curve_value(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 1.0)
    stack = window.scopes
    stack.resize(900, 1000)
    qtbot.wait(50)
    hip = _scope(window, "Hip torque")
    vb = hip.plot.getViewBox()
    k = 612
    t, y = s.recorded_time()[k], s.recorded("switch.tau")[k, 1]          # the right hip's applied torque
    px = vb.mapViewToScene(QtCore.QPointF(t, y))
    stack.scene().sigMouseMoved.emit(px + QtCore.QPointF(0.0, 3.0))     # 3 px below the curve
    assert stack.hover.reading is not None
    label, t_read, v = stack.hover.reading
    assert label == "R" and t_read == pytest.approx(t) and v == pytest.approx(y, rel=1e-12)
    assert f"{v:.4g} N·m" in stack.hover.text.textItem.toPlainText()
    values = [c.yData[k] for c in hip.curves]
    lo, hi = vb.viewRange()[1]
    y_far = max(np.linspace(lo, hi, 60)[3:-3], key=lambda c: min(abs(c - v) for v in values))
    px_per_unit = vb.sceneBoundingRect().height() / (hi - lo)
    assert min(abs(y_far - v) for v in values) * px_per_unit > HOVER_PX + 1     # no curve within reach
    stack.scene().sigMouseMoved.emit(vb.mapViewToScene(QtCore.QPointF(t, y_far)))
    assert stack.hover.reading is None


def test_y_link_by_unit(qtbot, window: MainWindow) -> None:
    run_until(qtbot, window, 0.6)
    hip, knee = _scope(window, "Hip torque"), _scope(window, "Knee torque")
    grf = _scope(window, "Vertical GRF")
    window.scope_panel.link_action.setChecked(True)
    hip.plot.setYRange(-7.0, 9.0, padding=0)
    assert knee.plot.getViewBox().viewRange()[1] == pytest.approx([-7.0, 9.0])
    assert grf.plot.getViewBox().viewRange()[1] != pytest.approx([-7.0, 9.0])        # another unit: not linked
    window.scope_panel.link_action.setChecked(False)
    hip.plot.setYRange(-3.0, 3.0, padding=0)
    assert knee.plot.getViewBox().viewRange()[1] != pytest.approx([-3.0, 3.0])


def test_drag_a_signal_from_the_browser_onto_a_plot(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 0.3)
    stack = window.scopes
    stack.resize(900, 1000)
    qtbot.wait(50)
    dlg = open_browser(stack)
    qtbot.addWidget(dlg)
    dlg.search.setText("meas_knee")
    top = dlg.tree.topLevelItem(next(i for i in range(dlg.tree.topLevelItemCount())
                                     if dlg.tree.topLevelItem(i).text(0) == "meas_knee.y"))
    assert top.text(1) == "deg" and top.child(1).text(1) == "deg"          # units as the scopes show them
    mime = dlg.tree.mimeData([top.child(1)])
    assert decode_ref(mime) == ("meas_knee.y", 1) and mime.hasFormat(SIGNAL_MIME)
    knee = _scope(window, "Knee flexion γ")
    index = stack.scopes.index(knee)
    centre = stack.mapFromScene(knee.plot.getViewBox().sceneBoundingRect().center())
    move = QtCore.Qt.DropAction.CopyAction
    for ev in (QtGui.QDragEnterEvent(centre, move, mime, QtCore.Qt.MouseButton.LeftButton,
                                     QtCore.Qt.KeyboardModifier.NoModifier),
               QtGui.QDropEvent(QtCore.QPointF(centre), move, mime, QtCore.Qt.MouseButton.LeftButton,
                                QtCore.Qt.KeyboardModifier.NoModifier)):
        QtCore.QCoreApplication.sendEvent(stack.viewport(), ev)
        assert ev.isAccepted()
    assert stack.scopes[index].spec.traces[-1].signal == "meas_knee.y"
    _, y = stack.scopes[index].curves[-1].getData()
    np.testing.assert_allclose(y, s.recorded("meas_knee.y")[:, 1] * DEG)    # the knee angle, in degrees
    np.testing.assert_allclose(s.recorded("meas_knee.y")[:, 1], s.recorded("body.q")[:, 6])


def test_every_signal_has_a_unit_and_browser_and_scopes_agree(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 0.1)
    assert [n for n in s.signal_names() if not s.unit(n)] == []
    assert (s.unit("meas_hip.y"), s.unit("swing_mux.y"), s.unit("mz_sum.y"), s.unit("phase.stance")) == \
        ("rad", "N*m", "N*m", "1")
    dlg = open_browser(window.scopes)
    qtbot.addWidget(dlg)
    units = {dlg.tree.topLevelItem(i).text(0): dlg.tree.topLevelItem(i).text(1)
             for i in range(dlg.tree.topLevelItemCount())}
    assert units["switch.hip"] == "N·m" and units["ref.rates"] == "deg/s" and units["body.q"] == "m, deg"
    for sc in window.scopes.scopes:
        for tr in sc.spec.traces:
            labels = s.labels(tr.signal)
            top = next(dlg.tree.topLevelItem(i) for i in range(dlg.tree.topLevelItemCount())
                       if dlg.tree.topLevelItem(i).text(0) == tr.signal)
            assert top.child(tr.col).text(1) == sc.unit.replace("*", "·") or sc.unit == "cm", (tr.label, labels)


def test_an_all_zero_trace_reads_zero_on_a_sensible_axis(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 0.5)
    zero = next((n, c) for n in s.signal_names() for c in range(len(s.labels(n)))
                if s.unit(n) == "N*m" and not np.any(s.recorded(n)[:, c] if s.recorded(n).ndim > 1 else s.recorded(n)))
    stack = window.scopes
    stack.add_signal(-1, *zero)
    sc = stack.scopes[-1]
    stack.resize(900, 1400)
    sc.plot.getViewBox().autoRange()
    lo, hi = sc.plot.getViewBox().viewRange()[1]
    assert 0.01 <= hi - lo <= 1.0 and lo == pytest.approx(-hi)             # around 0, at least MIN_SPAN["N·m"]
    noisy = stack.scopes[-1].curves[0]
    noisy.setData(noisy.xData, 5e-8 * np.sin(np.arange(noisy.xData.size)))  # CoP-like noise
    sc.plot.getViewBox().autoRange()
    lo, hi = sc.plot.getViewBox().viewRange()[1]
    assert hi - lo == pytest.approx(0.01, rel=0.01)                          # not a ±5e-08 axis
    ticks = sc.plot.getAxis("left").tickValues(lo, hi, 300)
    values = [v for _, vs in ticks for v in vs]
    assert 0.0 in values and min(abs(v) for v in values if v) > 1e-4       # "0" among round ticks


def test_difference_of_two_runs_with_a_tolerance_band(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 0.8)                            # run 1 ends at t_end: kept
    q1 = np.array(s.recorded("body.q"))
    window.run_control.reset()
    qtbot.waitUntil(lambda: not window.compiler.busy, timeout=30000)
    s = window.session
    ref = next(r for r in window.gains.rows if "hip" in r and "kp" in r)
    s.set_param(ref, 0.1 * float(s.param_value(ref)))        # a softer hip PID
    run_until(qtbot, window, 0.8)
    q2 = np.array(s.recorded("body.q"))
    dlg = DiffDialog(window.scopes, window, lambda: list(window.inspector.store.runs))
    qtbot.addWidget(dlg)
    assert [dlg.run_b.itemText(i) for i in range(dlg.run_b.count())] == ["live run", "run 1", "run 2"]
    dlg.run_b.setCurrentIndex(1)
    dlg.trace.setCurrentIndex(next(i for i in range(dlg.trace.count()) if dlg.trace.itemText(i) == "Hip flexion β: R"))
    want = (q2[:, 4] - q1[:, 4]) * DEG
    tol = 0.5 * float(np.abs(want).max())                    # half the largest difference: some samples outside
    dlg.tol.setValue(tol)
    res = dlg.diff
    assert res is not None and res.t.size == q1.shape[0]
    np.testing.assert_allclose(res.d, want, atol=1e-9)       # same time grid: no interpolation
    assert np.abs(want).max() > 1e-3                          # the runs differ
    assert res.share_outside == pytest.approx(np.mean(np.abs(want) > res.tol)) and 0.0 < res.share_outside < 1.0
    assert f"{100 * res.share_outside:.1f} % of {q1.shape[0]} samples outside" in dlg.summary.text()
    dlg.run_b.setCurrentIndex(0)                             # the live run against itself
    assert dlg.diff is not None and not dlg.diff.d.any() and dlg.diff.share_outside == 0.0


def test_difference_interpolates_b_onto_a() -> None:
    ta, tb = np.linspace(0, 1, 11), np.linspace(-0.5, 0.75, 6)
    res = difference(ta, 2 * ta, tb, tb, tol=0.2)
    np.testing.assert_allclose(res.t, ta[ta <= 0.75])
    np.testing.assert_allclose(res.d, res.t)                                # 2t - t
    assert res.max_abs == pytest.approx((0.7, 0.7)) and res.outside.sum() == 5
