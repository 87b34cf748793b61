"""``gaitblocks run`` and Ctrl+C: what was computed is kept (issue 34 §3).

A real SIGINT is sent to a run in a subprocess once its progress line shows simulated time done;
the run must write its results up to then, ``summary.json`` with status ``interrupted``, and exit
130. A second test sends SIGINT to this process while a compiled run steps in it.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from tests.interrupts import Command, last_number

PROGRESS = r"run: t = ([0-9.]+) of"


@pytest.mark.slow
def test_sigint_keeps_the_run_so_far(tmp_path: Path) -> None:
    """The Python engine steps at about 1x real time: an 8 s run is interrupted once 2 s are done."""
    out = tmp_path / "out"
    cmd = Command("run", "--engine", "python", "--duration", "8", "--out", str(out))
    seen = last_number(PROGRESS, cmd.wait_for(lambda e: (last_number(PROGRESS, e) or 0.0) >= 2.0))
    assert seen is not None
    code, stdout, stderr = cmd.interrupt()
    assert code == 130, stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "interrupted"
    reached = summary["t_end_reached"]
    print(f"SIGINT after {seen:.3f} s simulated (progress line): kept {reached:.3f} s of 8 s")
    assert seen <= reached < 8.0  # all the work done before the signal is kept, and the run was cut
    assert summary["t_end_requested"] == 8.0
    assert summary["steps"] == round(reached / 0.001)
    with np.load(out / "results.npz") as z:
        t, q = z["t"], z["body.q"]
    assert t[-1] == pytest.approx(reached) and t.size == summary["steps"] + 1
    assert np.isfinite(q).all() and q.shape == (t.size, 7)
    rows = (out / "results.csv").read_text().splitlines()
    assert len(rows) == t.size + 1  # header + one row per recorded tick
    assert summary["cycles_completed"] >= 1  # metrics over what was computed
    first = stdout.splitlines()[0]
    assert first.startswith(f"interrupted at t = {reached:.3f} s of 8.000 s (Ctrl+C); results and metrics up to then; "
                            f"{summary['steps']} steps")


@pytest.mark.usefixtures("default_sigint")
def test_sigint_between_compiled_slices_keeps_the_run_so_far(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The compiled engine steps in slices of about 0.2 s of wall time: a SIGINT sent to this process
    0.1 s after a 200 s run starts stepping stops it at the end of its slice, well before the end."""
    import app.commands.run as run_command

    out = tmp_path / "out"
    main(["run", "--duration", "0.2", "--no-csv", "--out", str(tmp_path / "warm")])  # compile or load first
    simulate = run_command.simulate
    timer = threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT))

    def simulate_and_signal(built: object, stop: object) -> object:
        timer.start()
        return simulate(built, stop)  # type: ignore[arg-type]

    monkeypatch.setattr(run_command, "simulate", simulate_and_signal)
    original = signal.getsignal(signal.SIGINT)
    code = main(["run", "--duration", "200", "--repeat-cycles", "--no-csv", "--record-every", "10",
                 "--out", str(out)])
    timer.join()
    assert signal.getsignal(signal.SIGINT) is original  # the run's handler is gone again
    assert code == 130, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "interrupted" and 1.0 < summary["t_end_reached"] < 150.0
    with np.load(out / "results.npz") as z:
        assert z["t"][-1] == pytest.approx(summary["t_end_reached"], abs=1e-9)
