"""What keeps the window's flows free of long freezes (issue 32 §2), checked structurally: the
gaps themselves are measured by ``benchmarks/gui_flow_gaps.py``, never asserted here."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pyqtgraph as pg
import pytest

from app.gui.main_window import MainWindow
from app.gui.runs import run_inspector
from app.gui.runs.compare_view import CompareView
from app.gui.scopes.scope_math import SAMPLES_PER_PX, step_corners
from app.gui.scopes.scope_overlay import MERGE_S, ChangeMarkers, merge_changes
from app.gui.session import session_reading
from blocks.runner import Runner
from tests.gui.conftest import drawn, given, run_until

pytestmark = pytest.mark.gui


def test_stance_corners_draw_the_same_polyline_with_few_points() -> None:
    rng = np.random.default_rng(3)
    t = 0.001 * np.arange(5000)
    flag = np.repeat(rng.integers(0, 2, 40).astype(float), 125)       # 40 held values, changes between
    x, y = step_corners(t, flag)
    changes = int(np.count_nonzero(np.diff(flag)))
    assert changes > 10 and x.size <= 4 * changes + 2
    np.testing.assert_array_equal(np.interp(t, x, y), flag)           # the same line at every sample
    assert step_corners(t[:2], flag[:2])[0].size == 2


def test_time_scope_curves_are_peak_downsampled_to_the_pixel_columns(qtbot, window: MainWindow) -> None:
    run_until(qtbot, window, 2.5)
    window.run_control.set_running(False)
    hip = window.scopes.scopes[0]
    curve = hip.curves[0]
    assert curve.opts["autoDownsample"] and curve.opts["downsampleMethod"] == "peak"
    assert curve.opts["autoDownsampleFactor"] == SAMPLES_PER_PX
    n = given(curve)[0].size
    assert n == window.session.recorded_time().size
    shown = curve.getData()[0]
    width = hip.plot.getViewBox().width()
    # about two points (a column's min and max) per pixel column; pyqtgraph's default kept all 2501
    assert 0 < width < n / 3 and shown.size <= 2.5 * width


def test_the_end_of_a_run_summarises_once_and_copies_no_log(qtbot, window: MainWindow,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    copies: list[bool] = []
    results = Runner.results

    def spy_results(self: Runner, copy: bool = True) -> Any:
        copies.append(copy)
        return results(self, copy=copy)

    monkeypatch.setattr(Runner, "results", spy_results)
    calls: list[str] = []
    for module in (session_reading, run_inspector):
        real = module.summarise
        monkeypatch.setattr(module, "summarise",
                            lambda r, b, real=real, m=module.__name__: (calls.append(m), real(r, b))[1])
    window.session.t_end = 0.3
    window.run_control.set_running(True)
    qtbot.waitUntil(lambda: not window.run_control.running, timeout=30000)
    assert calls == [] and window.inspector.store.runs == []        # evaluated in the next event-loop turn
    qtbot.waitUntil(lambda: window.run_control.ending is None, timeout=5000)
    assert len(window.inspector.store.runs) == 1
    assert calls == ["app.gui.session.session_reading"] and copies == [False]   # one summary, on views of the log
    assert window.inspector.store.runs[0].status == window.validity.status.text()   # the one summary, shown twice


def test_overlays_and_unit_switches_update_the_curves_in_place(qtbot, window: MainWindow) -> None:
    ins = window.inspector
    for _ in range(2):
        run_until(qtbot, window, 2.5)                               # complete cycles for the % cycle view
        window.run_control.reset()
        qtbot.waitUntil(lambda: not window.compiler.busy, timeout=30000)
    r1, r2 = ins.store.runs
    ins.set_ticked(r1.key, True)
    drawn(qtbot, window)
    hip = window.scopes.scopes[0]
    first = hip.overlay.curves[(r1.key, 0)]
    _, y_si = given(first)
    plots, built = [sc.plot for sc in window.scopes.scopes], window.scopes.built
    ins.set_ticked(r2.key, True)
    drawn(qtbot, window)
    assert hip.overlay.curves[(r1.key, 0)] is first and (r2.key, 0) in hip.overlay.curves
    grf = next(sc for sc in window.scopes.scopes if "GRF" in sc.spec.title)
    grf_curve = grf.overlay.curves[(r1.key, 0)]
    _, grf_si = given(grf_curve)
    window.scope_panel.units.setCurrentIndex(1)                      # forces in body weights
    drawn(qtbot, window)
    assert [sc.plot for sc in window.scopes.scopes] == plots and window.scopes.built == built
    assert grf.overlay.curves[(r1.key, 0)] is grf_curve and grf.unit == "BW"
    np.testing.assert_allclose(given(grf_curve)[1], grf_si * grf.factor)
    window.scope_panel.xaxis.setCurrentIndex(1)                      # % gait cycle
    drawn(qtbot, window)
    assert [sc.plot for sc in window.scopes.scopes] == plots and window.scopes.built == built
    assert hip.overlay.curves[(r1.key, 0)] is first and given(first)[0][-1] == pytest.approx(100.0)
    window.scope_panel.xaxis.setCurrentIndex(0)
    drawn(qtbot, window)
    np.testing.assert_allclose(given(first)[1], y_si)                 # degrees either way
    ins.set_ticked(r1.key, False)
    drawn(qtbot, window)
    assert (r1.key, 0) not in hip.overlay.curves and first not in hip.plot.listDataItems()


def test_a_slider_drag_is_one_marker_whose_label_follows_the_drag(qtbot) -> None:
    plot = pg.PlotItem()
    markers = ChangeMarkers(plot)
    drag = [{"t": 1.0 + 0.025 * k, "name": "pid_hip.kp", "old": 100.0 + k, "new": 101.0 + k} for k in range(40)]
    for k in range(1, len(drag) + 1):                                # the live refresh sees the log grow
        markers.show(drag[:k])
        if k == 1:
            line = markers.lines[0]
    assert markers.lines == [line] and line.value() == pytest.approx(1.0)
    assert "140" in line.label.toPlainText() and "40 steps" in line.toolTip()
    later = drag + [{"t": 1.0 + 0.025 * 39 + 2 * MERGE_S, "name": "pid_hip.kp", "old": 140.0, "new": 90.0},
                    {"t": 3.0, "name": "pid_knee.kd", "old": 1.0, "new": 2.0}]
    markers.show(later)
    assert len(markers.lines) == 3 and markers.lines[0] is line
    assert [m["count"] for m in merge_changes(later)] == [40, 1, 1]


def test_compare_results_are_drawn_one_plot_per_event_loop_turn(qtbot) -> None:
    view = CompareView(compare_fn=lambda *a, **k: [], table_fn=lambda rs: [["condition"]] + [[r.name] for r in rs])
    qtbot.addWidget(view)
    pct = np.linspace(0.0, 100.0, 101)
    results = [SimpleNamespace(name=n, cycle={"pct": pct, "trunk_deg": pct * 0 + i, "knee_l_deg": pct,
                                              "knee_r_deg": pct, "grf_ly_bw": pct})
               for i, n in enumerate(("barefoot", "sneakers"))]
    with qtbot.waitSignal(view.done, timeout=5000):
        view._on_finished(results)
        drawn = [key for key, p in view.plot_items.items() if p.listDataItems()]
        assert len(drawn) == 1 and view.table.rowCount() == 0        # the rest in the next turns
    assert all(len(p.listDataItems()) == 2 for p in view.plot_items.values())
    assert view.table_rows() == [["condition"], ["barefoot"], ["sneakers"]]
