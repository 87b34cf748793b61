"""Dask on a LocalCluster gives the same rows as the process pool."""

from __future__ import annotations

import pytest

from app.runs import RunSpec
from app.tuning.sweep import run_sweep
from blocks.executors import DaskExecutor, ProcessExecutor

distributed = pytest.importorskip("dask.distributed")

VOLATILE = {"job_wall_s", "wall_s", "realtime_factor"}


def test_dask_local_cluster_rows_equal_process_pool() -> None:
    specs = [RunSpec("sneakers", (("pid_hip.kp", kp), ("pid_knee.kd", kd)), duration=0.4)
             for kp in (400.0, 1200.0) for kd in (20.0, 50.0)]
    with ProcessExecutor(2) as ex:
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
