"""Issue 31 section 1: the solved gait walks in the stepped block diagram (``--preset emergent``).

Whole-system runs of the default diagram on each bundled set, driven by the posture solver's
gait (``RunSpec.solution = None``: the set solved with default settings and cached per dataset
content, :mod:`app.solved`): the solution's torques as feedforward plus a light PD around its
own angles, the diagram's own GRF source, phase detector and floor. Targets, on each set:

* it walks at least 20 gait cycles with status ``ok``;
* its trunk stays within 0.5 deg RMS of the solution's at the same phase;
* the PD's share of the stance joint impulse (``int |tau_pd| / int |tau|`` over the hip and knee of
  the legs in stance) is at most 10 %;
* the residual force and moment verdicts (the diagram's force account) are the solution's or better.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.runs import RunResult, RunSpec, run

BUNDLED = ("sneakers", "barefoot", "high_heels")
DURATION = 26.0  # s: more than 20 cycles of the bundled sets (1.11-1.2 s)
RANK = {"good": 0, "acceptable": 1, "poor": 2}


@pytest.fixture(scope="module")
def runs() -> dict[str, RunResult]:
    return {ds: run(RunSpec(dataset=ds, preset="emergent", duration=DURATION, repeat=True)) for ds in BUNDLED}


def _solution_summary(s: dict[str, Any]) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((Path(s["solution"]["path"]).parent / "summary.json").read_text())
    return summary


@pytest.mark.parametrize("ds", BUNDLED)
def test_walks_20_cycles_ok(runs: dict[str, RunResult], ds: str) -> None:
    s = runs[ds].summary
    assert s["status"] == "ok", s.get("fell_because") or s.get("message")
    assert s["t_end_reached"] == pytest.approx(DURATION, abs=1e-6)
    assert s["cycles_completed"] >= 20


@pytest.mark.parametrize("ds", BUNDLED)
def test_trunk_within_half_a_degree_rms_of_the_solution(runs: dict[str, RunResult], ds: str) -> None:
    held = runs[ds].summary["solved_gait"]
    assert held["trunk_rms_deg"] <= 0.5
    # the figure is the model's trunk against the solution's at the same phase, from the recorded signals
    r = runs[ds].results
    err = np.degrees(r["body.q"][:, 2] - np.reshape(r["solved.trunk"], -1))
    assert held["trunk_rms_deg"] == pytest.approx(float(np.sqrt(np.mean(err ** 2))), rel=1e-12)


@pytest.mark.parametrize("ds", BUNDLED)
def test_pd_share_of_the_stance_impulse_at_most_10_percent(runs: dict[str, RunResult], ds: str) -> None:
    held = runs[ds].summary["solved_gait"]
    assert 0.0 < held["pd_stance_share"] <= 0.10
    # the solution's own torques carry the stance legs
    assert held["ff_stance_share"] >= 0.9


@pytest.mark.parametrize("ds", BUNDLED)
def test_residual_verdicts_at_the_solutions_or_better(runs: dict[str, RunResult], ds: str) -> None:
    s = runs[ds].summary
    sol = _solution_summary(s)["residual"]
    res = s["residual"]
    assert RANK[res["verdict"]] <= RANK[sol["force_verdict"]], res
    assert RANK[res["moment_verdict"]] <= RANK[sol["moment_verdict"]], res["moment"]


@pytest.mark.parametrize("ds", BUNDLED)
def test_summary_names_the_solution_file_and_its_hash(runs: dict[str, RunResult], ds: str) -> None:
    import hashlib

    sol = runs[ds].summary["solution"]
    path = Path(sol["path"])
    assert path.name == "results.npz" and sol["how"] in ("cached", "solved")
    assert sol["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert sol["sha256"] == _solution_summary(runs[ds].summary)["results_sha256"]
    assert runs[ds].summary["labels"]["trunk"] == "solved"


def test_a_second_run_reads_the_cached_solution(runs: dict[str, RunResult]) -> None:
    """The module's runs solved (or found) each set's solution; the next run reads it, solving nothing."""
    r = run(RunSpec(dataset="sneakers", preset="emergent", duration=0.2))
    assert r.summary["solution"]["how"] == "cached"
    assert r.summary["solution"]["sha256"] == runs["sneakers"].summary["solution"]["sha256"]


def test_a_solution_given_by_path_is_the_one_walked(runs: dict[str, RunResult], tmp_path: Path) -> None:
    """``RunSpec.solution`` names a solve output folder: a copy of the cached one walks bit for bit as the
    cached one did, and the summary says it was given."""
    import shutil

    cached = Path(runs["sneakers"].summary["solution"]["path"]).parent
    shutil.copytree(cached, tmp_path / "sol")
    given = run(RunSpec(dataset="sneakers", preset="emergent", duration=2.0, solution=tmp_path / "sol"))
    again = run(RunSpec(dataset="sneakers", preset="emergent", duration=2.0))
    assert given.summary["solution"]["how"] == "given"
    assert given.summary["solution"]["path"] == str(tmp_path / "sol" / "results.npz")
    np.testing.assert_array_equal(given.results["body.q"], again.results["body.q"])


def test_the_walk_reads_no_recorded_posture(runs: dict[str, RunResult], monkeypatch: pytest.MonkeyPatch) -> None:
    """Editing the recording's trunk, hips, knees, CoM and footprints (everything but the GRF and CoP) leaves
    the walk on a given solution bit-identical: no block of the diagram reads them under ``emergent``."""
    from dataclasses import replace

    import blocks.library.datasets
    from grf_data.registry import load_dataset

    ds = load_dataset("sneakers")
    assert ds.q is not None
    q = ds.q.copy()
    q[:, 0] += 0.3                               # CoM and footprints (x)
    q[:, 1] -= 0.05                              # CoM height
    q[:, 2] += np.deg2rad(10.0)                  # trunk
    q[:, 3:5] += np.deg2rad(5.0)                 # hips
    q[:, 5:7] += np.deg2rad(15.0)                # knees
    edited = replace(ds, q=q, angles=q[:, 2:7].copy())
    solution = Path(runs["sneakers"].summary["solution"]["path"]).parent
    spec = RunSpec(dataset="sneakers", preset="emergent", duration=3.0, solution=solution)
    first = run(spec)
    real = blocks.library.datasets.resolve_dataset
    monkeypatch.setattr(blocks.library.datasets, "resolve_dataset", lambda s="": edited if s == "sneakers" else real(s))
    second = run(spec)
    assert second.built.model.ctx.cache["dataset:sneakers"] is edited  # the edited recording was read
    np.testing.assert_array_equal(first.results["body.q"], second.results["body.q"])
    np.testing.assert_array_equal(first.results["contact.corr"], second.results["contact.corr"])
