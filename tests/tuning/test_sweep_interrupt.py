"""``gaitblocks sweep``: rows reach sweep.csv as they finish, Ctrl+C keeps them, ``--resume`` completes the
sweep with every row exactly once (issue 34 §3, issue 35 §1).

The interrupt tests send a real SIGINT to a sweep in a subprocess once its progress line shows
rows done, then resume it and compare every row with the same sweep run straight through.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.tuning.sweep import SweepCsv, read_csv
from tests.interrupts import Command, last_number

DONE = r"\] (\d+)/\d+ done"
SKIP = {"job_wall_s", "wall_s", "realtime_factor"}  # wall-clock columns differ from run to run


def _same_rows(got: list[dict[str, str]], want: list[dict[str, str]]) -> None:
    assert [r["run"] for r in got] == [r["run"] for r in want]
    for a, b in zip(got, want):
        assert {k: v for k, v in a.items() if k not in SKIP} == {k: v for k, v in b.items() if k not in SKIP}


def _interrupt_then_resume(tmp_path: Path, args: list[str], total: int, wait_rows: int,
                           straight: str | None = None) -> None:
    """SIGINT once ``wait_rows`` rows are done, resume, and compare with an uninterrupted sweep (on the
    executor ``straight`` names, else the same one)."""
    out = tmp_path / "sw"
    cmd = Command("sweep", *args, "--out", str(out))
    seen = int(last_number(DONE, cmd.wait_for(lambda e: (last_number(DONE, e) or 0) >= wait_rows)) or 0)
    on_disk = len(read_csv(out / "sweep.csv"))  # rows are on disk as they finish, before any signal
    assert f"] 0/{total} done, elapsed 00:00" in cmd.err  # the progress line is there from the start
    code, _, err = cmd.interrupt()
    assert code == 130, err
    kept = read_csv(out / "sweep.csv")
    print(f"SIGINT after {seen}/{total} rows shown done ({on_disk} on disk): {len(kept)} kept")
    assert on_disk >= seen and len(kept) >= seen  # every row finished before the signal is kept
    assert len(kept) < total and len({r["run"] for r in kept}) == len(kept)
    assert json.loads((out / "sweep.json").read_text())["interrupted"] is True
    assert "--resume runs the others" in err
    best = json.loads((out / "sweep.json").read_text())["best"]
    if str(total - 1) not in {r["run"] for r in kept}:  # the grid's last value not run: its upper end not reached
        assert "upper" not in best["on_edge"].values() and "(the upper end)" not in err, err

    code, _, err = Command("sweep", *args, "--out", str(out), "--resume").finish()
    assert code == 0, err
    assert f"resuming: {len(kept)} of {total} rows already in" in err
    rows = read_csv(out / "sweep.csv")
    assert [int(r["run"]) for r in rows] == list(range(total))  # the full set, no duplicates
    meta = json.loads((out / "sweep.json").read_text())
    assert meta["runs_done"] == total and meta["runs_resumed"] == len(kept) and meta["interrupted"] is False

    if straight is not None:
        args = list(args)
        args[args.index("--executor") + 1] = straight
    code, _, err = Command("sweep", *args, "--out", str(tmp_path / "straight")).finish()
    assert code == 0, err
    _same_rows(rows, read_csv(tmp_path / "straight" / "sweep.csv"))


@pytest.mark.slow
def test_vectorised_sweep_keeps_finished_batches_and_resumes(tmp_path: Path) -> None:
    """Two threads' batches of 3 then 24 copies: SIGINT once 64 rows are on disk; the batches in flight
    finish too."""
    _interrupt_then_resume(tmp_path, ["--grf", "sneakers", "--param", "pid_hip.kp=400:600:256", "--duration", "0.5",
                                      "--executor", "vectorized", "--workers", "2"], 256, 64)


@pytest.mark.slow
def test_process_sweep_keeps_finished_rows_and_resumes(tmp_path: Path) -> None:
    """Two worker processes on the Python engine (a run of 0.3 s takes about half a second): SIGINT once
    three rows are done; the runs in flight finish and are kept. The rows equal a serial sweep's (the
    process pool against runs in this order, in one process)."""
    _interrupt_then_resume(tmp_path, ["--grf", "sneakers", "--param", "pid_hip.kp=400:600:14", "--duration", "0.3",
                                      "--executor", "process", "--workers", "2", "--engine", "python"], 14, 3,
                           straight="serial")


def test_resume_refuses_another_sweep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sw"
    args = ["sweep", "--grf", "sneakers", "--duration", "0.1", "--executor", "serial", "--out", str(out)]
    assert main([*args, "--param", "pid_hip.kp=100:400:4"]) == 0
    assert main([*args, "--param", "pid_hip.kp=100:500:4", "--resume"]) == 2
    err = capsys.readouterr().err
    assert "has run 1 with pid_hip.kp = 200.0, this sweep has 233.33333333333334: not the same sweep" in err
    assert main([*args, "--param", "pid_hip.kp=100:400:4", "--resume"]) == 0  # nothing left: no run, same rows
    assert [float(r["pid_hip.kp"]) for r in read_csv(out / "sweep.csv")] == [100.0, 200.0, 300.0, 400.0]
    assert "resuming: 4 of 4 rows already in" in capsys.readouterr().err


def test_sweep_csv_appends_and_widens_once(tmp_path: Path) -> None:
    """Rows are appended; a row with a column the header lacks rewrites the file once, wider; a line cut
    short by a crash is dropped on resume."""
    path = tmp_path / "sweep.csv"
    with SweepCsv(path, ["k"]) as sheet:
        sheet.add([{"run": 0, "k": 1.0, "status": "error", "message": "no data", "objective": 1e3}])
        first = path.read_text()
        sheet.add([{"run": 1, "k": 2.0, "status": "error", "message": "", "objective": 1e3}])
        assert path.read_text().startswith(first) and path.read_text().count("\n") == 3  # appended
        sheet.add([{"run": 2, "k": 3.0, "status": "ok", "message": "", "objective": 0.5, "rms_deg.hip_l": 0.25}])
    assert path.read_text().splitlines()[0] == "run,k,status,message,objective,job_wall_s,rms_deg.hip_l"
    rows = read_csv(path)
    assert [r["rms_deg.hip_l"] for r in rows] == ["", "", "0.25"] and rows[0]["message"] == "no data"
    with path.open("a", encoding="utf-8") as fh:
        fh.write("3,4.0,ok,,0.7")  # killed mid-row: no newline
    with SweepCsv(path, ["k"], resume=True) as sheet:
        assert [r["run"] for r in sheet.kept] == ["0", "1", "2"]
        sheet.add([{"run": 3, "k": 4.0, "status": "ok", "message": "", "objective": 0.75, "rms_deg.hip_l": 0.5}])
    assert [(r["run"], r["objective"]) for r in read_csv(path)] == [("0", "1000.0"), ("1", "1000.0"), ("2", "0.5"),
                                                                   ("3", "0.75")]
