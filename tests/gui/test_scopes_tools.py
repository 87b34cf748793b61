"""The scopes' tools as a user drives them: signal browser, remove, units, % gait cycle, exports."""

from __future__ import annotations

import csv
import math

import numpy as np
import pytest
from PySide6 import QtGui

from app.gui.main_window import MainWindow
from app.gui.scopes.scope_browser import open_browser
from app.gui.scopes.scope_cycle import cycle_mean_sd
from app.gui.scopes.scope_specs import DEG
from tests.gui.conftest import drawn, given, run_until

pytestmark = pytest.mark.gui


def _scope(window: MainWindow, title: str):  # the Scope of that title
    return next(sc for sc in window.scopes.scopes if sc.spec.title == title)


def test_browser_filters_by_text_and_adds_the_chosen_signal(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 0.3)
    dlg = open_browser(window.scopes, 1)
    qtbot.addWidget(dlg)
    n_all = sum(len(s.labels(n)) for n in s.signal_names())
    assert len(dlg.visible_columns()) == n_all > 100
    dlg.search.setText("knee r N*m")                         # typed: every word must match
    expected = [(n, c) for n in s.signal_names() for c, lab in enumerate(s.labels(n))
                if "knee" in f"{n}[{lab}]".lower() and "r" in f"{n}[{lab}]".lower() and s.unit(n) == "N*m"]
    assert dlg.visible_columns() == expected and 0 < len(expected) < n_all // 10  # a filter, not everything
    assert ("switch.knee", 1) in expected and ("switch.hip", 1) not in expected
    top = next(dlg.tree.topLevelItem(i) for i in range(dlg.tree.topLevelItemCount())
               if dlg.tree.topLevelItem(i).text(0) == "switch.knee")
    dlg.tree.setCurrentItem(top.child(1))
    assert dlg.scope.currentText() == "Knee flexion γ"
    dlg.add_button.click()
    knee = window.scopes.scopes[1]
    tr = knee.spec.traces[-1]
    assert (tr.signal, tr.col, tr.label) == ("switch.knee", 1, "switch.knee[r]")
    _, y = given(knee.curves[-1])
    np.testing.assert_allclose(y, s.recorded("switch.knee")[:, 1])
    # to a new scope: a search with a single match adds it without a selection
    dlg.search.setText("kin.head y")
    dlg.tree.setCurrentItem(None)
    dlg.scope.setCurrentIndex(dlg.scope.count() - 1)
    n = len(window.scopes.scopes)
    assert dlg.add_selected() == ("kin.head", 1)
    assert len(window.scopes.scopes) == n + 1 and window.scopes.scopes[-1].spec.traces[0].signal == "kin.head"


def test_remove_a_signal_and_a_scope(qtbot, window: MainWindow) -> None:
    run_until(qtbot, window, 0.3)
    stack = window.scopes
    hip = stack.scopes[0]
    labels = [tr.label for tr in hip.spec.traces]
    curve = hip.curves[1]
    stack.remove_trace(0, 1)
    assert [tr.label for tr in stack.scopes[0].spec.traces] == labels[:1] + labels[2:]
    assert curve not in hip.plot.listDataItems()
    titles = [sc.spec.title for sc in stack.scopes]
    stack.remove_scope(1)
    assert [sc.spec.title for sc in stack.scopes] == titles[:1] + titles[2:]
    assert len(stack.ci.items) == len(titles) - 1                  # the plot itself is gone
    assert [tr.label for tr in stack.scopes[0].spec.traces] == labels[:1] + labels[2:]   # others kept


def test_body_weight_units_divide_by_the_models_weight(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 0.5)
    window.scope_panel.units.setCurrentIndex(1)             # "N/BW · N·m/kg"
    drawn(qtbot, window)
    m = float(s.biped_params().total_mass)
    assert m == pytest.approx(55.33, abs=0.01)              # the default model's mass [kg]
    grf = _scope(window, "Vertical GRF")
    assert grf.unit == "BW"
    _, y = given(grf.curves[0])
    np.testing.assert_allclose(y, s.recorded("grf.F")[:, 1] / (m * 9.81))
    assert 0.8 < float(np.max(y)) < 1.4                       # a walking vertical GRF peak, in body weights
    hip = _scope(window, "Hip torque")
    assert hip.unit == "N*m/kg"
    _, y = given(hip.curves[0])
    np.testing.assert_allclose(y, s.recorded("grf_match.tau")[:, 0] / m)  # the torque the body gets
    knee_angle = _scope(window, "Knee flexion γ")
    assert knee_angle.unit == "deg" and knee_angle.factor == 1.0          # angles unchanged
    window.scope_panel.units.setCurrentIndex(0)
    drawn(qtbot, window)
    _, y = given(_scope(window, "Vertical GRF").curves[0])
    np.testing.assert_allclose(y, s.recorded("grf.F")[:, 1])


def test_cycle_mean_sd_on_a_known_signal() -> None:
    dt = 0.01
    t = dt * np.arange(400)
    stance = np.zeros(t.size)
    land = [50, 150, 250, 350]                                # three complete cycles of 100 samples
    for a in land:
        stance[a:a + 60] = 1.0
    y = np.sin(2 * math.pi * (t - 0.5)) + 0.1 * np.arange(t.size) // 100    # offset 0.1 per cycle
    mean, sd, n = cycle_mean_sd(t, stance, y)
    assert n == 3
    cycles = [y[a:a + 101] for a in land[:3]]                 # 100 samples per cycle: 101 points, 1 %
    np.testing.assert_allclose(mean, np.mean(cycles, axis=0), atol=1e-12)
    np.testing.assert_allclose(sd, np.std(cycles, axis=0), atol=1e-12)
    assert mean[0] == pytest.approx((y[50] + y[150] + y[250]) / 3)


def test_percent_cycle_view_shows_the_hand_computed_mean(qtbot, window: MainWindow) -> None:
    s = window.session
    run_until(qtbot, window, 2.5)
    window.scope_panel.xaxis.setCurrentIndex(1)
    drawn(qtbot, window)
    st = s.recorded("phase.stance")[:, 0] > 0.5
    land = [i for i in range(1, st.size) if st[i] and not st[i - 1]]
    assert len(land) >= 2
    beta = s.recorded("body.q")[:, 3] * DEG
    rows = [np.interp(np.linspace(0, 100, 101), np.linspace(0, 100, b - a + 1), beta[a:b + 1])
            for a, b in zip(land[:-1], land[1:])]
    hip = window.scopes.scopes[0]
    x, y = given(hip.curves[0])
    np.testing.assert_allclose(x, np.linspace(0, 100, 101))
    np.testing.assert_allclose(y, np.mean(rows, axis=0))
    assert len(hip.bands.items) == 2                          # L and R solid traces get a band
    # the run was kept when it ended: overlaid, its mean cycle is the same hand-computed mean
    run = window.inspector.store.runs[-1]
    window.inspector.set_ticked(run.key, True)
    drawn(qtbot, window)
    xo, yo = given(window.scopes.scopes[0].overlay.curves[(run.key, 0)])
    np.testing.assert_allclose(xo, np.linspace(0, 100, 101))
    np.testing.assert_allclose(yo, np.mean(rows, axis=0))
    assert "gait cycle" in window.scopes.scopes[-1].plot.getAxis("bottom").labelText


def test_csv_export_covers_the_whole_run_with_units(qtbot, window: MainWindow, tmp_path) -> None:
    s = window.session
    run_until(qtbot, window, 2.0)
    window.scopes.follow, window.scopes.window_s = True, 0.5
    window.scopes.refresh()                                  # the view shows only the last 0.5 s
    x, _ = given(window.scopes.scopes[0].curves[0])
    assert x[0] == pytest.approx(1.5, abs=0.01)
    window.scope_panel.units.setCurrentIndex(1)
    drawn(qtbot, window)
    path = window.scope_panel.export("csv", tmp_path / "scopes.csv")
    assert path is not None
    with open(path, encoding="utf-8") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    assert head[0] == "time [s]"
    assert "Hip flexion β: L [deg]" in head and "Vertical GRF: R [BW]" in head
    assert "Hip torque: L [N·m/kg]" in head
    assert all(h.endswith("]") for h in head)
    assert len(rows) - 1 == s.runner.recorder.length == 2001
    data = np.array(rows[1:], dtype=float)
    np.testing.assert_allclose(data[:, 0], s.recorded_time())
    col = head.index("Vertical GRF: R [BW]")
    np.testing.assert_allclose(data[:, col], s.recorded("grf.F")[:, 3] / s.body_weight_n(), rtol=1e-12)


def test_png_at_a_chosen_width_and_svg(qtbot, window: MainWindow, tmp_path) -> None:
    run_until(qtbot, window, 1.0)
    png = window.scope_panel.export("png", tmp_path / "scopes.png", width=1800)
    assert png is not None
    img = QtGui.QImage(str(png))
    assert img.width() == 1800 and img.height() > 600
    svg = window.scope_panel.export("svg", tmp_path / "scopes.svg")
    assert svg is not None
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and text.count("<path") >= len(window.scopes.scopes)
