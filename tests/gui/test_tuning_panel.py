"""The tuning panel: a sweep and an optimisation of the session's run, cancel, best.json, apply."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest

from app.cli import main
from app.gui.main_window import MainWindow
from app.gui.runs.tuning_panel import TuningPanel
from app.tuning.service import best_row

pytestmark = pytest.mark.gui

HIP, KNEE = "pid_hip.kp", "pid_knee.kp[0]"


def _run(qtbot, panel: TuningPanel, timeout_ms: int = 120000) -> None:
    with qtbot.waitSignal(panel.done, timeout=timeout_ms):
        panel.start()
    assert not panel.running


def test_four_point_sweep_from_the_panel_and_apply_best(qtbot, window: MainWindow) -> None:
    s, panel = window.session, window.tuning
    s.set_param("pid_knee.kd", 33.0)             # a change made in the GUI belongs to the base spec
    panel.configure(0, [(HIP, 500.0, 1500.0, 2), (KNEE, 600.0, 1200.0, 2)], duration=1.5, workers=1)
    _run(qtbot, panel)
    rows = panel.rows
    assert len(rows) == 4 and panel.table.rowCount() == 4
    assert sorted((r[HIP], r[KNEE]) for r in rows) == sorted(itertools.product((500.0, 1500.0), (600.0, 1200.0)))
    assert all(r["pid_knee.kd"] == 33.0 for r in rows)
    assert all(math.isfinite(r["objective"]) for r in rows)
    ok = [r for r in rows if r["status"] == "ok"]
    assert ok, [r["message"] for r in rows]
    best = min(ok, key=lambda r: r["objective"])
    assert panel.best == {HIP: best[HIP], KNEE: best[KNEE]}
    assert panel.table.item(rows.index(best), 0).font().bold()
    assert panel.plot.image is not None and panel.plot.bar is not None   # a heat map for two parameters
    assert panel.apply_best()
    s.step(1)
    assert s.param_value(HIP) == best[HIP]
    assert s.param_value(KNEE) == best[KNEE] and s.param_value("pid_knee.kp[1]") == 800.0  # right leg kept
    assert ("pid_knee.kp[0]", best[KNEE]) in s.spec.settings
    assert window.gains.rows["pid_knee.kp[0]"].box.value() == best[KNEE]  # the gain panel follows
    window.param_setter.undo_stack.undo()           # "apply best" is one undo step: both gains go back
    s.step(1)
    assert s.param_value(HIP) == 1000.0 and s.param_value("pid_knee.kp[0]") == 800.0


def test_optimisation_convergence_and_save_best(qtbot, window: MainWindow, tmp_path: Path) -> None:
    panel = window.tuning
    panel.configure(1, [(HIP, 300.0, 3000.0, 1)], duration=1.0, budget=4, workers=0)
    _run(qtbot, panel)
    assert len(panel.rows) == 4 and panel.table.rowCount() == 4
    best = best_row(panel.rows)
    assert best is not None and panel.best == {HIP: best[HIP]}
    assert panel.rows[0][HIP] == 1000.0                   # the search starts at the session's value
    panel.save_best(tmp_path / "best.json")
    assert json.loads((tmp_path / "best.json").read_text()) == {"set": {HIP: best[HIP]}}


def test_load_cli_best_json_and_apply(qtbot, window: MainWindow, tmp_path: Path) -> None:
    out = tmp_path / "tune"
    assert main(["tune", "--grf", "sneakers", "--duration", "0.5", "--budget", "3", "--param", "pid_hip.kd[1]",
                 "--executor", "serial", "--workers", "1", "--out", str(out)]) == 0
    written = json.loads((out / "best.json").read_text())["set"]
    assert set(written) == {"pid_hip.kd[1]"}
    s, panel = window.session, window.tuning
    s.set_param("pid_hip.kd", 5.0)
    panel.load_best(out / "best.json")
    assert panel.best == written and panel.apply_btn.isEnabled()
    assert panel.apply_best()
    s.step(1)
    assert s.param_value("pid_hip.kd") == (5.0, written["pid_hip.kd[1]"])


def test_bad_best_json_is_reported_not_applied(qtbot, window: MainWindow, tmp_path: Path) -> None:
    f = tmp_path / "best.json"
    f.write_text(json.dumps({"set": {"pid_hip.kp": -3}}))
    window.tuning.load_best(f)
    assert window.tuning.best is None and "below the minimum" in window.tuning.status.text()


def test_cancel_stops_a_sweep_early(qtbot, window: MainWindow) -> None:
    panel = window.tuning
    panel.configure(0, [(HIP, 500.0, 1500.0, 4), ("pid_hip.kd", 20.0, 80.0, 4)], duration=2.0, workers=0)
    panel.start()
    qtbot.waitUntil(lambda: len(panel.rows) >= 1, timeout=60000)
    with qtbot.waitSignal(panel.done, timeout=60000):
        panel.cancel()
    assert panel.interrupted and 1 <= len(panel.rows) < 16
    assert "cancelled" in panel.status.text()


def test_fell_or_failed_rows_are_never_best() -> None:
    rows = [{"run": 0, "status": "fell", "objective": 0.1}, {"run": 1, "status": "failed", "objective": 0.05},
            {"run": 2, "status": "ok", "objective": 0.9}, {"run": 3, "status": "ok", "objective": math.nan}]
    assert best_row(rows) == rows[2]
    assert best_row(rows[:2]) is None
