"""Runs, Compare and Tuning views that read at a glance (issue 32 §5) and the Compare tab's default
preset (issue 31 §3): the run list's columns and widths, distinct overlay colours named in the scope
legends, ±SD bands and a legend apart from the curves, the key columns of the metrics table, the
tuning warning for a best run on the edge and the heat map ticked at the swept values."""

from __future__ import annotations

import itertools
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from PySide6 import QtCore

from app.defaults import COMPARE_PRESET
from app.gui.fit_screen import fit_geometry
from app.gui.main_window import MainWindow
from app.gui.runs.compare_view import SIM_TAB, CompareView
from app.gui.runs.run_inspector import COLUMNS, NAME_MIN_CHARS
from app.gui.runs.run_store import RUN_COLOURS, run_style
from app.gui.runs.tuning_plot import MAX_LABELS, swept_ticks
from app.tuning.service import best_on_edge, best_row
from tests.gui.conftest import drawn, run_until

LIVE = ("#1f77b4", "#e8710a")      # the live run's left and right leg colours


def _lab(colour: str) -> np.ndarray:
    """CIELAB (D65 white) of an sRGB ``#rrggbb``."""
    rgb = np.array([int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    rgb = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = m @ rgb / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _delta_e(a: str, b: str) -> float:
    return float(np.linalg.norm(_lab(a) - _lab(b)))


def test_the_overlay_colours_are_a_distinct_qualitative_palette() -> None:
    assert _delta_e("#000000", "#ffffff") == pytest.approx(100.0, abs=0.1)      # the measure itself
    pairs = min(_delta_e(a, b) for a, b in itertools.combinations(RUN_COLOURS, 2))
    live = min(_delta_e(a, b) for a in RUN_COLOURS for b in LIVE)
    print(f"overlay colours: min Delta E {pairs:.1f} between runs, {live:.1f} to the live legs")
    assert len(set(RUN_COLOURS)) == len(RUN_COLOURS) == 10
    assert pairs >= 35.0 and live >= 35.0
    assert max(_lab(c)[0] for c in RUN_COLOURS) <= 65.0                          # visible on white
    assert [run_style(k) for k in (1, 2, 3)] == list(RUN_COLOURS[:3])            # run 1 takes the first


def test_the_run_list_names_dataset_and_preset_and_the_scopes_name_the_runs(qtbot, window: MainWindow) -> None:
    fit_geometry(window, QtCore.QRect(0, 0, 1366, 768), QtCore.QSize(1366, 768))
    ins = window.inspector
    window.side.setCurrentWidget(ins)
    run_until(qtbot, window, 0.3)                            # run 1: kept at its end
    window.files.set_preset("setpoint")                      # a compile
    run_until(qtbot, window, 0.3)                            # run 2
    assert [ins.table.headerItem().text(i) for i in range(ins.table.columnCount())] == list(COLUMNS)
    rows = [[ins.table.topLevelItem(i).text(c) for c in range(len(COLUMNS))] for i in range(2)]
    assert [r[:3] for r in rows] == [["run 1", window.session.dataset, "tracking"],
                                     ["run 2", window.session.dataset, "setpoint"]]
    assert rows[0][3] == "0.30 s" and rows[0][4].startswith("ok")
    qtbot.waitUntil(lambda: ins.table.viewport().width() > 0)
    # the name column keeps its characters at 1366 x 768 (it was squeezed to the tick box)
    print(f"run list at 1366 x 768: name column {ins.table.columnWidth(0)} px of {ins.table.viewport().width()} px")
    assert ins.table.columnWidth(0) >= ins.table.fontMetrics().averageCharWidth() * NAME_MIN_CHARS + 30
    assert ins.table.horizontalScrollBar().maximum() == 0      # the five columns fit: no sideways scrolling
    r1, r2 = ins.store.runs
    ins.set_ticked(r1.key, True)
    ins.set_ticked(r2.key, True)
    drawn(qtbot, window)
    for sc in window.scopes.scopes:
        if sc.overlay.curves:
            assert sc.overlay.legend_names() == ["run 1", "run 2"]
            samples = [sc.overlay.entries[r.key].opts["pen"].color().name() for r in (r1, r2)]
            assert samples == [r1.colour, r2.colour]
    ins.rename(r2.key, "setpoint, stiffer knee")             # a rename shows in the legends (cut to fit)
    hip = window.scopes.scopes[0]
    assert hip.overlay.legend_names() == ["run 1", "setpoint, sti…"]
    ins.set_ticked(r1.key, False)
    drawn(qtbot, window)
    assert hip.overlay.legend_names() == ["setpoint, sti…"]
    labels = [label.text for _, label in hip.legend.items]
    assert "run 1" not in labels                              # its legend entry went with its curves


def _results(names: list[str], sd: float = 2.0) -> list[Any]:
    pct = np.linspace(0, 100, 101)
    out = []
    for i, n in enumerate(names):
        cyc: dict[str, Any] = {"pct": pct, "n_cycles": np.array([5 + i])}
        for key, base in (("trunk_deg", 3.0), ("knee_l_deg", 30.0), ("knee_r_deg", 31.0), ("grf_ly_bw", 1.0)):
            cyc[key] = base + i + np.sin(pct / 100 * 2 * np.pi)
            cyc[f"{key}_sd"] = np.full(101, sd * (i + 1))
        cyc["rec_trunk_deg"] = cyc["trunk_deg"] + 0.5
        out.append(SimpleNamespace(name=n, summary={"status": "ok"}, cycle=cyc))
    return out


def test_compare_draws_sd_bands_and_a_legend_apart_from_the_curves(qtbot) -> None:
    view = CompareView(compare_fn=lambda *a, **k: [], table_fn=lambda r: [["condition"]] + [[x.name] for x in r])
    qtbot.addWidget(view)
    view.show()
    results = _results(["barefoot", "sneakers"])
    view.show_results(results)
    plots = view.plots
    for key, plot in view.plot_items.items():
        assert plot.legend is None                           # no legend inside a plot
        assert len(plots.bands[key]) == 2 and len(plots.means[key]) == 2
        for r, band in zip(results, plots.bands[key]):
            lo, hi = band.curves[0].yData, band.curves[1].yData
            np.testing.assert_allclose(hi - lo, 2 * r.cycle[f"{key}_sd"])
            np.testing.assert_allclose((hi + lo) / 2, r.cycle[key])
    assert len(plots.recorded["trunk_deg"]) == 2 and not plots.recorded["grf_ly_bw"]
    text = plots.legend.text()
    assert "barefoot" in text and "(5 cycles)" in text and "sneakers" in text and "(6 cycles)" in text
    assert "± 1 SD" in text and "dashed: the recording" in text
    assert plots.legend.geometry().bottom() <= plots.view.geometry().top()   # above the plots, not on them
    # the same conditions again (a new run): new data in the same items
    items = [id(x) for k in view.plot_items for x in (*plots.bands[k], *plots.means[k])]
    again = _results(["barefoot", "sneakers"], sd=0.5)
    view.show_results(again)
    assert [id(x) for k in view.plot_items for x in (*plots.bands[k], *plots.means[k])] == items
    lo, hi = plots.bands["knee_l_deg"][1].curves
    np.testing.assert_allclose(hi.yData - lo.yData, 2 * again[1].cycle["knee_l_deg_sd"])
    path = plots.bands["knee_l_deg"][1].path().boundingRect()   # the band's path follows its curves
    assert path.height() == pytest.approx(float(np.ptp(np.r_[lo.yData, hi.yData])), rel=1e-6)
    view.show_results(_results(["barefoot"]))                    # other conditions: items made anew
    assert len(plots.means["trunk_deg"]) == 1 and "sneakers" not in plots.legend.text()


def test_compare_shows_the_key_columns_and_the_rest_on_request(qtbot) -> None:
    from app.compare_report import metrics_table

    results = [SimpleNamespace(name=n, summary={"status": "ok", "trunk_deg": {"min": 1.0, "max": 4.0},
                                                "recording": {"trunk_deg": {"min": 1.5, "max": 4.5}}},
                               cycle={}) for n in ("barefoot", "sneakers")]
    view = CompareView(compare_fn=lambda *a, **k: [], table_fn=lambda r: metrics_table(r, "emergent"))
    qtbot.addWidget(view)
    view.show_results(results)
    header = view.table_rows()[0]
    assert len(header) == 19 and view.table_rows() == metrics_table(results, "emergent")   # all kept
    shown = view.visible_columns()
    assert shown == ["condition", "status", "trunk min [deg] (solved)", "trunk max [deg] (solved)",
                     "knee range [deg] (solved)", "stride [m] (solved)", "CoM height [m] (solved)",
                     "cadence [steps/min] (input)", "residual force; moment"]
    assert view.table.horizontalHeaderItem(2).text() == "trunk min\n[deg] (solved)"   # two lines
    view.all_columns.setChecked(True)
    assert view.visible_columns() == header
    view.all_columns.setChecked(False)
    assert len(view.visible_columns()) == 9


def test_compare_defaults_to_the_solved_gait_and_can_run_the_simulation_tab(qtbot, window: MainWindow) -> None:
    calls: list[tuple[str, Any]] = []

    def fake(specs, preset="", duration=None, progress=None, cancel=None, base=None):
        calls.append((preset, base))
        return _results(list(specs))

    cmp = window.compare
    cmp.compare_fn = fake
    assert cmp.preset.currentText() == COMPARE_PRESET == "emergent"
    assert window.session.preset == "tracking"               # the simulation tab's own default differs
    with qtbot.waitSignal(cmp.done, timeout=10000):
        cmp.start(["sneakers"])
    assert calls[-1] == (COMPARE_PRESET, None)              # the default diagram with emergent, as the CLI
    window.session.set_param("pid_hip.kp", 5.0)
    cmp.preset.setCurrentText(SIM_TAB)
    with qtbot.waitSignal(cmp.done, timeout=10000):
        cmp.start(["sneakers"])
    preset, base = calls[-1]
    assert base is not None and base.preset == "tracking" and ("pid_hip.kp", 5.0) in base.settings


def _sweep_rows(xs: list[float], ys: list[float], best: tuple[float, float]) -> list[dict[str, Any]]:
    points = itertools.product(xs, ys)
    return [{"run": i, "a.kp": x, "a.kd": y, "status": "ok", "objective": 1.0 + abs(x - best[0]) + abs(y - best[1])}
            for i, (x, y) in enumerate(points)]


def test_best_on_edge_of_a_grid_and_of_a_range() -> None:
    xs, ys = [1.0, 2.0, 3.0], [10.0, 20.0, 30.0]
    inside = _sweep_rows(xs, ys, (2.0, 20.0))
    assert best_on_edge(inside, ["a.kp", "a.kd"], best_row(inside)) == {}
    edge = _sweep_rows(xs, ys, (3.0, 20.0))
    assert best_on_edge(edge, ["a.kp", "a.kd"], best_row(edge)) == {"a.kp": "upper"}
    corner = _sweep_rows(xs, ys, (1.0, 10.0))
    assert best_on_edge(corner, ["a.kp", "a.kd"], best_row(corner)) == {"a.kp": "lower", "a.kd": "lower"}
    fell = [dict(r, status="fell") if r["a.kp"] == 3.0 else r for r in edge]   # the edge run fell
    assert best_on_edge(fell, ["a.kp", "a.kd"], best_row(fell)) == {}          # best now at kp = 2: inside
    ranges = {"a.kp": (0.0, 100.0)}
    assert best_on_edge([], ["a.kp"], {"a.kp": 99.0}, ranges) == {"a.kp": "upper"}
    assert best_on_edge([], ["a.kp"], {"a.kp": 50.0}, ranges) == {}


def test_the_tuning_tab_warns_of_an_edge_and_ticks_the_heat_map(qtbot, window: MainWindow) -> None:
    panel = window.tuning
    panel.mode.setCurrentIndex(0)
    panel.refs, panel._ranges = ["a.kp", "a.kd"], None
    xs, ys = [100.0, 250.0, 400.0, 550.0], [5.0, 10.0, 15.0]
    panel._on_finished({"rows": _sweep_rows(xs, ys, (550.0, 10.0))})
    assert panel.edge.isVisibleTo(panel) and "a.kp = 550 (the upper end)" in panel.edge.text()
    assert "a.kd" not in panel.edge.text()
    assert panel.plot.image is not None
    ticks = panel.plot.plot.getAxis("bottom")._tickLevels
    assert [v for v, _ in ticks[0]] == xs and [s for _, s in ticks[0]] == ["100", "250", "400", "550"]
    assert [v for v, _ in panel.plot.plot.getAxis("left")._tickLevels[0]] == ys
    panel._on_finished({"rows": _sweep_rows(xs, ys, (250.0, 10.0))})
    assert not panel.edge.isVisibleTo(panel) and panel.edge.text() == ""


def test_swept_ticks_label_at_most_a_few_values() -> None:
    values = list(np.linspace(0.0, 1.0, 25))
    major, minor = swept_ticks(values)
    assert len(major) <= MAX_LABELS + 1 and major[0][0] == 0.0 and major[-1][0] == 1.0
    assert sorted(v for v, _ in major + minor) == pytest.approx(values)
    assert all(label == "" for _, label in minor) and all(label for _, label in major)
