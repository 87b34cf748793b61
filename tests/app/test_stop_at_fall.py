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


class _Rows:
    """The part of a :class:`blocks.recorder.Recorder` a :class:`FallWatch` reads: rows of ticks 0..n-1."""

    def __init__(self, t: np.ndarray, **signals: np.ndarray) -> None:
        self.length, self.ticks, self._t, self.signals = t.size, np.arange(t.size), t, signals

    def time(self) -> np.ndarray:
        return self._t

    def view(self, name: str) -> np.ndarray:
        return self.signals[name]


def _poses() -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """One ramp past each criterion of :func:`first_fall` (and a pose inside every limit)."""
    from app.walking import FALL_KNEE_RAD
    from tests.app.test_fall_criteria import _ramp, _standing

    out = {}
    for name, col, stop in (("trunk", 2, np.radians(100.0)), ("hip spin", 4, np.radians(270.0)),
                            ("knee folds", 6, 2 * FALL_KNEE_RAD[1]), ("knee hyperextends", 6, 2 * FALL_KNEE_RAD[0]),
                            ("stance shank", 3, -np.radians(120.0)), ("inside", 5, np.radians(65.0))):
        q, hip, stance = _standing()
        q[:, col] = _ramp(stop)
        out[name] = (q, hip, stance)
    q, hip, stance = _standing()
    hip[:, 1] = 0.9 * (1.0 - 0.62 * np.linspace(0.0, 1.0, q.shape[0]))
    out["hip drops"] = (q, hip, stance)
    return out


@pytest.mark.parametrize("name", ["trunk", "hip spin", "knee folds", "knee hyperextends", "stance shank", "inside",
                                  "hip drops"])
def test_the_watch_finds_the_fall_first_fall_finds(name: str) -> None:
    """:class:`FallWatch` screens rows with a cheap superset of the criteria before :func:`first_fall`: it
    misses none, from any first tick."""
    from app.walking import FallWatch, first_fall
    from tests.app.test_fall_criteria import LEG, T

    q, hip, stance = _poses()[name]
    rows = _Rows(T, q=q, hip=hip, stance=stance)
    watch = FallWatch("q", "hip", "stance", LEG)
    for since in (0, 40, 90):
        expect = first_fall(T[since:], q[since:], hip[since:], LEG, stance[since:])
        assert watch.fall_since(rows, since) == expect
    assert (first_fall(T, q, hip, LEG, stance) is None) == (name == "inside")
