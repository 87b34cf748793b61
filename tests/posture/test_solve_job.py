"""The background solve the GUI uses: progress, result, cancel."""

from __future__ import annotations

import json
import time
from pathlib import Path

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


def test_cancel_stops_the_solve_and_writes_nothing(tmp_path: Path) -> None:
    job = SolveJob(RunSpec(dataset="sneakers", solve=SolveSpec(nodes=200)), tmp_path / "sol")
    _until(job, lambda ev: any(e.kind == "progress" for e in ev))
    t0 = time.monotonic()
    job.cancel()
    assert time.monotonic() - t0 < 5.0
    assert job.state == "cancelled" and not job.running
    time.sleep(0.2)
    assert not (tmp_path / "sol" / "summary.json").exists()
