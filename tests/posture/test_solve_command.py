"""``gaitblocks solve`` as a user runs it: files, strict JSON, status and exit codes."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from app.cli import main

pytestmark = pytest.mark.slow


def _strict(path: Path) -> dict:
    def no_constant(name: str) -> None:
        raise AssertionError(f"non-standard JSON constant {name} in {path}")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=no_constant)


def test_solve_writes_a_converged_cycle_with_labelled_figures(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "bf"
    assert main(["solve", "--grf", "barefoot", "--nodes", "60", "--out", str(out), "--quiet"]) == 0
    summary = _strict(out / "summary.json")
    assert summary["status"] == "converged" and summary["mode"] == "solve"
    assert summary["labels"]["trunk_deg"] == "solved" and summary["labels"]["cadence_spm"] == "input"
    assert abs(summary["stride_m"]["mean"] - 0.73) < 0.02  # the generator's stride, not read by the solver
    assert summary["residual"]["force_verdict"] == "good"
    with open(out / "results.csv", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[0][:4] == ["time", "x0", "y0", "alpha"] and len(rows) == 61
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("converged: trunk mean") and "residual force" in line


def test_a_grf_that_cannot_carry_the_body_is_no_periodic_gait(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "weak"
    assert main(["solve", "--grf", "sneakers", "--vertical", "0.95", "--nodes", "60", "--out", str(out),
                 "--quiet"]) == 3
    summary = _strict(out / "summary.json")
    assert summary["status"] == "no_periodic_gait"
    assert "impulse" in summary["message"]
    mean_bw = summary["cycles"][0]["residual"]["mean_force_bw"][1]
    assert 0.04 < mean_bw < 0.06  # 5 % of the weight is missing from the recorded vertical force


@pytest.mark.parametrize("argv, text", [
    (["--nodes", "5"], "--nodes"),
    (["--grf", "no_such_set"], "unknown dataset"),
    (["--speed", "fast"], "--speed"),
    (["--cycle", "first"], "--cycle"),
])
def test_bad_options_are_one_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture, argv: list[str],
                                         text: str) -> None:
    assert main(["solve", "--out", str(tmp_path / "x"), "--quiet", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and text in err[0]
