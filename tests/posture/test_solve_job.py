"""The background solve the GUI uses: progress, result, cancel."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from app.posture import SolveSpec
from app.runs import RunSpec
from app.solve_job import SolveJob

pytestmark = pytest.mark.slow


def _until(job: SolveJob, done: object, limit_s: float = 240.0) -> list:
    events, t0 = [], time.monotonic()
    while time.monotonic() - t0 < limit_s:
        events += job.poll()
        if done(events):
            return events
        time.sleep(0.05)
    raise AssertionError(f"job did not get there in {limit_s} s: {[e.kind for e in events][-5:]}")


def test_a_background_solve_reports_progress_and_writes_its_folder(tmp_path: Path) -> None:
    job = SolveJob(RunSpec(dataset="barefoot", solve=SolveSpec(nodes=50)), tmp_path / "sol")
    events = _until(job, lambda ev: any(e.kind in ("done", "error") for e in ev))
    progress = [e for e in events if e.kind == "progress"]
    assert events[-1].kind == "done", events[-1].message
    assert len(progress) >= 10 and [e.stage for e in progress][0] == "kinematic"
    assert job.state == "done"
    summary = json.loads((tmp_path / "sol" / "summary.json").read_text())
    assert summary["status"] == "converged" and events[-1].summary["status"] == "converged"
    rec = np.load(tmp_path / "sol" / "recording.npz")
    assert rec["angles"].shape == (50, 5) and np.isfinite(rec["angles"]).all()   # the trial's own angles at the nodes


def test_cancel_stops_the_solve_and_writes_nothing(tmp_path: Path) -> None:
    job = SolveJob(RunSpec(dataset="sneakers", solve=SolveSpec(nodes=200)), tmp_path / "sol")
    _until(job, lambda ev: any(e.kind == "progress" for e in ev))
    t0 = time.monotonic()
    job.cancel()
    assert time.monotonic() - t0 < 5.0
    assert job.state == "cancelled" and not job.running
    time.sleep(0.2)
    assert not (tmp_path / "sol" / "summary.json").exists()


def test_the_job_solves_the_trunk_com_sensitivity_warm_started_after_the_base(tmp_path: Path) -> None:
    job = SolveJob(RunSpec(dataset="barefoot", solve=SolveSpec(nodes=50)), tmp_path / "sol",
                   sensitivity=(-0.01, 0.01))
    events = _until(job, lambda ev: any(e.kind in ("done", "error") for e in ev))
    assert events[-1].kind == "done", events[-1].message
    assert events[0].kind == "plan"
    assert job.stages == ("kinematic", "anchored", "free", "trunk CoM -1 cm", "trunk CoM +1 cm")
    stages = [e.stage for e in events if e.kind == "progress"]
    # warm-started: each shifted case is one stage after the base's three
    assert stages.index("trunk CoM -1 cm") > stages.index("free")
    assert stages[-1] == "trunk CoM +1 cm"
    sens = json.loads((tmp_path / "sol" / "summary.json").read_text())["sensitivity"]
    assert [c["shift_m"] for c in sens["cases"]] == [-0.01, 0.01]
    assert all(c["status"] == "converged" for c in sens["cases"])
    base = events[-1].summary["trunk_mean_deg"]["mean"]
    assert sens["base_trunk_mean_deg"] == base
    lo, hi = (c["trunk_mean_deg"] for c in sens["cases"])
    assert lo != base and hi != base       # the CoM shift moved the solved trunk
    assert sens["trunk_mean_deg_per_cm"] == pytest.approx((hi - lo) / 2.0, rel=1e-12)
