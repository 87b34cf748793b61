"""``gaitblocks sweep``: grid and CSV complete and correct, failures kept, Ctrl+C keeps finished rows."""

from __future__ import annotations

import json
import math
import threading
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from app.runs import RunSpec
from app.tuning.grid import grid_points, lhs_points, parse_axis
from app.tuning.objective import Objective
from app.tuning.sweep import read_csv, run_sweep
from app.tuning.worker import run_one
from blocks.executors import Executor
from tests.interrupts import Command


def test_axis_grid_and_lhs() -> None:
    a, b = parse_axis("pid_hip.kp=0:800:9"), parse_axis("pid_knee.kd=0:60:7")
    assert a.values == tuple(100.0 * i for i in range(9)) and b.values == tuple(10.0 * i for i in range(7))
    pts = grid_points([a, b])
    assert len(pts) == 63 and pts[0] == {"pid_hip.kp": 0.0, "pid_knee.kd": 0.0}
    assert pts[8] == {"pid_hip.kp": 100.0, "pid_knee.kd": 10.0}  # first axis slowest
    lhs = lhs_points([a, b], 10, seed=3)
    for ax in (a, b):  # one point in each of the 10 strata of every axis
        u = np.array([(p[ax.ref] - ax.lo) / (ax.hi - ax.lo) for p in lhs])
        assert sorted(np.floor(u * 10).astype(int)) == list(range(10))
    assert lhs == lhs_points([a, b], 10, seed=3) and lhs != lhs_points([a, b], 10, seed=4)


def test_sweep_csv_matches_single_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sw"
    code = main(["sweep", "--grf", "sneakers", "--param", "pid_hip.kp=300:1000:2", "--param", "pid_knee.kd=10,40",
                 "--duration", "0.6", "--workers", "2", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "4/4 done" in err and "ETA" in err
    rows = read_csv(out / "sweep.csv")
    assert [(float(r["pid_hip.kp"]), float(r["pid_knee.kd"])) for r in rows] == [
        (300.0, 10.0), (300.0, 40.0), (1000.0, 10.0), (1000.0, 40.0)]
    assert [int(r["run"]) for r in rows] == [0, 1, 2, 3] and all(r["status"] == "ok" for r in rows)
    # row 1 equals an independent `gaitblocks run` with the same parameters
    code = main(["run", "--grf", "sneakers", "--duration", "0.6", "--set", "pid_hip.kp=300",
                 "--set", "pid_knee.kd=40", "--out", str(tmp_path / "single")])
    assert code == 0
    summary = json.loads((tmp_path / "single" / "summary.json").read_text())
    for key in ("hip_l", "knee_r", "trunk"):
        assert float(rows[1][f"rms_deg.{key}"]) == pytest.approx(summary["rms_deg"][key], rel=1e-12)
    assert float(rows[1]["peak_torque_nm_per_kg.knee"]) == pytest.approx(summary["peak_torque_nm_per_kg"]["knee"])
    assert float(rows[1]["steps"]) == 600
    flat = {k: float(v) for k, v in rows[1].items() if k.startswith(("rms_deg", "peak_torque", "stance_"))}
    expect = Objective()({**flat, "status": "ok", "t_end_requested": 0.6, "t_end_reached": 0.6})
    assert float(rows[1]["objective"]) == pytest.approx(expect, rel=1e-12)
    meta = json.loads((out / "sweep.json").read_text())
    best = min(rows, key=lambda r: float(r["objective"]))
    assert meta["best"]["run"] == int(best["run"]) and meta["runs_done"] == 4
    # a 2 x 2 grid: the best lies on an edge of both parameters, and the sweep says so
    sides = {ref: "lower" if float(best[ref]) == lo else "upper" for ref, lo in (("pid_hip.kp", 300.0),
                                                                              ("pid_knee.kd", 10.0))}
    assert meta["best"]["on_edge"] == sides and "edge of the range tried" in err
    assert (out / "heatmap_objective.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_fallen_run_is_kept_and_penalised() -> None:
    row = run_one(RunSpec("sneakers", (("pid_hip.kp", 3.0),), preset="paper", duration=1.2))
    assert row["status"] == "fell" and 0.5 < row["fell_at_s"] < 1.2
    assert row["objective"] == pytest.approx(1000.0 * (2.0 - row["fell_at_s"] / 1.2))


def _fake(spec: RunSpec) -> dict[str, float]:
    if spec.settings[0][1] == 5.0:
        raise KeyboardInterrupt
    return {"status": "ok", "objective": spec.settings[0][1] ** 2}


def test_cancel_flag_and_interrupt_keep_finished_rows() -> None:
    specs = [RunSpec("x", (("a.b", float(i)),)) for i in range(8)]
    cancel = threading.Event()
    seen: list[int] = []

    def on_row(row: dict[str, float]) -> None:
        seen.append(int(row["run"]))
        if len(seen) == 3:
            cancel.set()

    out = run_sweep(specs, Executor(), cancel=cancel, on_row=on_row, fn=_fake)
    assert out.interrupted and [r["objective"] for r in out.rows] == [0.0, 1.0, 4.0] and out.total == 8
    out = run_sweep(specs, Executor(), fn=_fake)  # Ctrl+C during run 5
    assert out.interrupted and [r["run"] for r in out.rows] == [0, 1, 2, 3, 4]


def test_sigint_stops_cleanly_and_writes_finished_rows(tmp_path: Path) -> None:
    out = tmp_path / "sw"
    # one run at a time on the Python engine, so the sweep is still going when the signal comes
    # (a vectorised batch finishes all 12 within a second)
    cmd = Command("sweep", "--grf", "sneakers", "--param", "pid_hip.kp=300:1000:12", "--duration", "2.0",
                  "--workers", "1", "--out", str(out), "--executor", "serial", "--engine", "python")
    cmd.wait_for(lambda err: "2/12 done" in err, timeout=60)
    code, stdout, err = cmd.interrupt(timeout=60)
    assert code == 130, stdout + err
    rows = read_csv(out / "sweep.csv")
    assert 2 <= len(rows) < 12
    assert [float(r["pid_hip.kp"]) for r in rows] == pytest.approx([300 + i * 700 / 11 for i in range(len(rows))])
    assert all(r["status"] == "ok" and math.isfinite(float(r["objective"])) for r in rows)
    assert json.loads((out / "sweep.json").read_text())["interrupted"] is True
