"""Dask on a LocalCluster gives the same rows as the serial executor (tests/tuning/test_sweep_interrupt.py
holds the process pool to the same rows)."""

from __future__ import annotations

import pytest

from app.runs import RunSpec
from app.tuning.sweep import run_sweep
from blocks.executors import DaskExecutor, SerialExecutor

distributed = pytest.importorskip("dask.distributed")

VOLATILE = {"job_wall_s", "wall_s", "realtime_factor"}


def test_dask_local_cluster_rows_equal_serial_runs() -> None:
    specs = [RunSpec("sneakers", (("pid_hip.kp", kp), ("pid_knee.kd", kd)), duration=0.4)
             for kp in (400.0, 1200.0) for kd in (20.0, 50.0)]
    with SerialExecutor() as ex:  # spawning a pool here cost two processes' imports and step loads
        pool = run_sweep(specs, ex).rows
    cluster = distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1, dashboard_address=None)
    with distributed.Client(cluster) as client, DaskExecutor(client=client) as ex:
        dask_rows = run_sweep(specs, ex).rows
    cluster.close()
    assert len(pool) == len(dask_rows) == 4
    for a, b in zip(pool, dask_rows):
        assert set(a) == set(b)
        for key in set(a) - VOLATILE:
            va, vb = a[key], b[key]
            assert va == vb or (va != va and vb != vb), key  # equal, or both NaN
    assert len({r["objective"] for r in pool}) == 4


def test_dask_runs_a_vectorised_sweep_as_one_task_per_worker() -> None:
    """The walking diagram vectorises: 6 specs on 2 Dask workers are 2 tasks of 3 copies each, and
    their rows equal single runs' to 1e-9."""
    from app.tuning.worker import run_one

    specs = [RunSpec("sneakers", (("pid_hip.kp", kp),), duration=0.4) for kp in (300.0, 500.0, 700.0, 900.0,
                                                                                1100.0, 1300.0)]
    cluster = distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None)
    with distributed.Client(cluster) as client, DaskExecutor(client=client) as ex:
        assert ex.workers == 2
        with distributed.get_task_stream(client) as ts:
            rows = run_sweep(specs, ex).rows
    cluster.close()
    assert len(ts.data) == 2
    assert [r["pid_hip.kp"] for r in rows] == [s.settings[0][1] for s in specs]
    for spec, row in zip(specs, rows):
        ref = run_one(spec)
        assert row["status"] == ref["status"]
        for key in set(ref) - VOLATILE:
            a, b = row[key], ref[key]
            if isinstance(b, float) and b == b:
                assert abs(a - b) <= 1e-9 * (1 + abs(b)), key
            else:
                assert a == b or (a != a and b != b), key
    assert len({round(r["objective"], 9) for r in rows}) == 6
