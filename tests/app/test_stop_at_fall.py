"""A run stops at a fall by default (issue 32 §1): ``gaitblocks run`` ends ``FALL_MARGIN_S`` after the
first fall; ``--continue-after-fall`` runs on to the end, with the same fall and the same metrics."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from app.runs import RunSpec, run
from app.walking import FALL_MARGIN_S


def _cli(out: Path, *extra: str) -> dict:
    assert main(["run", "--grf", "sneakers", "--preset", "paper", "--duration", "2", "--no-csv", "--out", str(out),
                 *extra]) == 3  # fell
    return json.loads((out / "summary.json").read_text())


def test_the_cli_stops_at_a_fall_unless_told_to_continue(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stopped = _cli(tmp_path / "stop")
    assert "stopped at the fall" in capsys.readouterr().out
    whole = _cli(tmp_path / "on", "--continue-after-fall")
    assert "stopped at the fall" not in capsys.readouterr().out
    assert stopped["status"] == whole["status"] == "fell"
    assert stopped["fell_at_s"] == whole["fell_at_s"] == pytest.approx(0.76, abs=0.02)
    assert stopped["fell_because"] == whole["fell_because"]
    assert stopped["t_end_reached"] == pytest.approx(stopped["fell_at_s"] + FALL_MARGIN_S, abs=1e-9)
    assert whole["t_end_reached"] == pytest.approx(2.0)
    assert stopped["rms_deg"] == whole["rms_deg"]  # the metrics were always cut at the fall
    with np.load(tmp_path / "stop" / "results.npz") as z:
        t = z["t"]
    assert t[-1] == pytest.approx(stopped["t_end_reached"])


def test_the_run_service_stops_at_a_fall_and_a_walk_runs_whole() -> None:
    fell = run(RunSpec("sneakers", preset="paper", duration=2.0))
    assert fell.summary["status"] == "fell" and fell.results.t[-1] < 1.0
    on = run(RunSpec("sneakers", preset="paper", duration=2.0, stop_at_fall=False))
    assert on.results.t[-1] == pytest.approx(2.0)
    walk = run(RunSpec("sneakers", preset="tracking", duration=1.5))
    assert walk.summary["status"] == "ok" and walk.results.t[-1] == pytest.approx(1.5)
