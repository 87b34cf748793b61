"""``--executor vectorized``: sweep rows from one compiled batch equal the rows of single runs."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from functools import partial
from typing import Any

import numpy as np
import pytest

from app.runs import RunSpec
from app.tuning.objective import Objective
from app.tuning.vectorized import default_executor, run_many
from app.tuning.worker import run_one
from blocks.executors import make_executor
from tests.blocks.engine_diagrams import oscillator, unregister

TIMING = {"job_wall_s", "wall_s", "realtime_factor"}

_types = pytest.fixture(scope="module", autouse=True)(unregister)


def _specs() -> list[RunSpec]:
    base = RunSpec(diagram=oscillator(t_end=0.6), preset=None, dataset="sneakers")
    return [base.with_settings(("pid.kp", kp), ("k.k", k)) for kp, k in ((10.0, 0.5), (30.0, -0.2), (55.0, 0.1))]


def _plant_metrics(results: Any, built: Any) -> dict[str, Any]:
    if "mux.y" not in results.signals:
        return {}
    y = results["mux.y"]
    return {"plant_rms": float(np.sqrt(np.mean(y[:, 0] ** 2))), "plant_final": float(y[-1, 0]),
            "samples": int(y.shape[0])}


@pytest.fixture
def plant_metric() -> Iterator[None]:
    from app.run_summary import METRICS, register_metric

    register_metric(_plant_metrics)
    yield
    METRICS.remove(_plant_metrics)


def test_vectorised_rows_equal_single_run_rows(plant_metric: None) -> None:
    specs = _specs()
    assert default_executor(specs[0]) == "vectorized"
    with make_executor("vectorized") as ex:
        got = ex.map(partial(run_one, objective=Objective()), specs)
    for spec, row in zip(specs, got):
        ref = run_one(spec)
        assert row["status"] == ref["status"] == "ok"
        assert set(row) == set(ref)
        for key, value in ref.items():
            if key in TIMING:
                continue
            if isinstance(value, float) and math.isfinite(value):
                assert abs(row[key] - value) <= 1e-9 * (1 + abs(value)), key
            else:
                assert row[key] == value or (value != value and row[key] != row[key]), key
    assert len({round(r["plant_rms"], 9) for r in got}) == 3 and all(r["samples"] == 601 for r in got)
    assert all(r["n_events"] >= 1 for r in got)


def test_a_diagram_without_kernels_runs_one_by_one() -> None:
    from app.runs import default_diagram_path

    # the squeezer runs on solve_ivp: no compiled engine, so no vectorised batch
    spec = RunSpec(diagram=default_diagram_path().with_name("andrews_squeezer.json"), preset=None, duration=0.002)
    assert default_executor(spec) == "process"
    assert default_executor(RunSpec(dataset="sneakers", duration=0.2)) == "vectorized"  # the walking diagram
    assert default_executor(replace(spec, diagram=spec.diagram.with_name("four_bar.json"))) == "vectorized"
    rows = run_many([spec.with_settings(("mech.init", "params"), ("mech.q0", (0.1,)))])
    assert rows[0]["status"] == "ok" and rows[0]["mech.init"] == "params"


def _equal_rows(got: dict[str, Any], ref: dict[str, Any]) -> None:
    assert set(got) == set(ref)
    for key, value in ref.items():
        if key in TIMING:
            continue
        if isinstance(value, float) and math.isfinite(value):
            assert abs(got[key] - value) <= 1e-9 * (1 + abs(value)), (key, got[key], value)
        else:
            assert got[key] == value or (value != value and got[key] != got[key]), (key, got[key], value)


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_walking_sweep_rows_equal_single_runs(engine: str) -> None:
    """The default walking diagram: three copies in one vectorised batch (logging only the metrics'
    signals) give the rows of three single runs, on either engine, to 1e-9."""
    base = RunSpec(dataset="sneakers", preset="tracking", duration=0.6, engine=engine)
    specs = [base.with_settings(("pid_hip.kp", kp), ("pid_knee.kd", kd))
             for kp, kd in ((300.0, 10.0), (650.0, 25.0), (1200.0, 4.0))]
    assert default_executor(specs[0]) == "vectorized"
    with make_executor("vectorized") as ex:
        got = ex.map(partial(run_one, objective=Objective()), specs)
    for spec, row in zip(specs, got):
        _equal_rows(row, run_one(spec))
    assert len({round(r["rms_deg.hip_l"], 9) for r in got}) == 3  # the settings reached each copy
    assert all(r["status"] == "ok" for r in got)


def _count_builds(monkeypatch: pytest.MonkeyPatch) -> list[RunSpec]:
    """The specs ``app.tuning.vectorized`` builds from now on (its ``build`` wrapped)."""
    import app.tuning.vectorized as vectorized

    builds: list[RunSpec] = []
    build = vectorized.build

    def counted(spec: RunSpec) -> Any:
        builds.append(spec)
        return build(spec)

    monkeypatch.setattr(vectorized, "build", counted)
    return builds


def test_batches_of_one_sweep_share_their_base_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three walking specs in batches of one copy: the base run is built once for the three batches
    (it cost about 0.3 s per batch) and every row equals the row of the three in one batch."""
    from blocks.executors import VectorizedExecutor

    base = RunSpec(dataset="sneakers", preset="tracking", duration=0.3)
    specs = [base.with_settings(("pid_hip.kp", kp)) for kp in (300.0, 650.0, 1200.0)]
    fn = partial(run_one, objective=Objective())
    whole = VectorizedExecutor(chunk=3).map(fn, specs)
    builds = _count_builds(monkeypatch)
    single = VectorizedExecutor(chunk=1).map(fn, specs)
    assert len(builds) == 1 and builds[0].settings == ()
    for got, ref in zip(single, whole):
        _equal_rows(got, ref)
    assert len({round(r["rms_deg.hip_l"], 9) for r in single}) == 3 and single[2]["pid_hip.kp"] == 1200.0


def test_batches_on_two_threads_give_the_same_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two workers (batches of 1, 2 and 2 copies on two threads, each stepped serially) give one worker's
    rows to the bit and build the base run the batches share once (its lock)."""
    from blocks.executors import VectorizedExecutor

    base = RunSpec(dataset="sneakers", preset="tracking", duration=0.3)
    specs = [base.with_settings(("pid_hip.kp", kp)) for kp in (300.0, 500.0, 650.0, 900.0, 1200.0)]
    fn = partial(run_one, objective=Objective())
    one = VectorizedExecutor(1, chunk=8).map(fn, specs)
    builds = _count_builds(monkeypatch)
    two = VectorizedExecutor(2, chunk=2).map(fn, specs)
    assert len(builds) == 1
    for got, ref in zip(two, one):
        assert set(got) == set(ref)
        assert all(got[k] == v or (v != v and got[k] != got[k]) for k, v in ref.items() if k not in TIMING)
    assert len({r["rms_deg.hip_l"] for r in two}) == 5 and [r["pid_hip.kp"] for r in two] == [s.settings[0][1]
                                                                                            for s in specs]


def test_the_executor_checks_base_run_is_the_first_batchs() -> None:
    """Without fixed settings, the base run ``default_executor`` builds to check the diagram is the one the
    sweep's first batch starts from (taken once, not built again); with a fixed setting nothing is kept."""
    import app.tuning.vectorized as vectorized

    base = RunSpec(diagram=oscillator(t_end=0.1), preset=None, dataset="sneakers")
    assert default_executor(base) == "vectorized"
    (_, checked), = vectorized._CHECKED
    cache: dict[str, Any] = {}
    rows = run_many([base.with_settings(("pid.kp", 12.0)), base.with_settings(("pid.kp", 40.0))], cache=cache)
    assert cache["built"] is checked and not vectorized._CHECKED and [r["status"] for r in rows] == ["ok", "ok"]
    assert default_executor(base.with_settings(("k.k", 0.3))) == "vectorized" and not vectorized._CHECKED
    other: dict[str, Any] = {}
    run_many([base.with_settings(("pid.kp", 12.0))], cache=other)
    assert other["built"] is not checked  # built anew once the checked one was taken
