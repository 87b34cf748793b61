"""Every executor's ``imap(fn, items, stop=...)``: once ``stop`` is set no further run starts, the runs in
flight finish and their results are still yielded (Ctrl+C keeps what was computed)."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from app.runs import RunSpec
from app.tuning.sweep import run_sweep
from blocks.executors import Executor, ProcessExecutor, VectorizedExecutor

SPECS = [RunSpec("x", (("a.b", float(i)),)) for i in range(12)]
BATCHES: list[int] = []


def _square(spec: RunSpec) -> dict[str, Any]:
    time.sleep(0.05)
    return {"status": "ok", "objective": spec.settings[0][1] ** 2}


def _squares(specs: list[RunSpec], cache: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    BATCHES.append(len(specs))
    assert cache is not None  # one dict shared by the batches of one imap call
    cache["batches"] = cache.get("batches", 0) + 1
    return [{"status": "ok", "objective": s.settings[0][1] ** 2, "batch": cache["batches"]} for s in specs]


_square.batched = _squares  # type: ignore[attr-defined]


def _stop_after(n: int) -> tuple[threading.Event, Any]:
    stop = threading.Event()
    seen: list[int] = []

    def on_row(row: dict[str, Any]) -> None:
        seen.append(int(row["run"]))
        if len(seen) == n:
            stop.set()

    return stop, on_row


def _check(rows: list[dict[str, Any]]) -> None:
    runs = [int(r["run"]) for r in rows]
    assert len(set(runs)) == len(runs) and all(r["objective"] == float(r["run"]) ** 2 for r in rows)


def test_serial_starts_nothing_after_stop() -> None:
    stop, on_row = _stop_after(3)
    out = run_sweep(SPECS, Executor(), cancel=stop, on_row=on_row, fn=_square)
    assert out.interrupted and [r["run"] for r in out.rows] == [0, 1, 2]
    _check(out.rows)


def test_vectorised_finishes_its_batch_and_starts_no_other() -> None:
    """Batches of 1 (an eighth of 8), then 8: stop set at the second row, inside the second batch: that
    batch's eight rows are all kept, no third batch starts."""
    BATCHES.clear()
    stop, on_row = _stop_after(2)
    out = run_sweep(SPECS, VectorizedExecutor(chunk=8), cancel=stop, on_row=on_row, fn=_square)
    assert BATCHES == [1, 8]
    assert out.interrupted and [r["run"] for r in out.rows] == list(range(9))
    assert [r["batch"] for r in out.rows] == [1] + [2] * 8
    _check(out.rows)


SPANS: list[tuple[int, float, float, bool | None]] = []


def _slow_squares(specs: list[RunSpec], cache: dict[str, Any] | None = None,
                  parallel: bool | None = None) -> list[dict[str, Any]]:
    """A batch that takes 0.2 s (sleeping: the GIL is free, as in the compiled step), logged in SPANS."""
    start = time.perf_counter()
    time.sleep(0.2)
    SPANS.append((int(specs[0].settings[0][1]), start, time.perf_counter(), parallel))
    return [{"status": "ok", "objective": s.settings[0][1] ** 2} for s in specs]


def _slow_square(spec: RunSpec) -> dict[str, Any]:
    return _slow_squares([spec])[0]


_slow_square.batched = _slow_squares  # type: ignore[attr-defined]


def test_vectorised_batches_run_on_two_threads_in_order() -> None:
    """Two workers: batches 0 (1 item) and 1 (8 items) run at once, each told to step serially; the
    results still come in item order."""
    SPANS.clear()
    got = list(VectorizedExecutor(2, chunk=8).imap(_slow_square, SPECS))
    assert [i for i, _ in got] == list(range(len(SPECS))) and all(r["objective"] == i ** 2 for i, r in got)
    spans = {first: (a, b) for first, a, b, _ in SPANS}
    assert sorted(spans) == [0, 1, 9]
    assert spans[1][0] < spans[0][1] and spans[0][0] < spans[1][1]  # the first two batches overlapped
    assert {p for *_, p in SPANS} == {False}
    SPANS.clear()
    assert VectorizedExecutor(1, chunk=8).map(_slow_square, SPECS) == [r for _, r in got]
    assert [p for *_, p in SPANS] == [None, None, None]  # one worker: the function's own choice (numba's threads)


def test_vectorised_batch_sizes() -> None:
    """By default a batch holds 32 copies with one worker, 24 on each of several threads (peak memory)."""
    assert [VectorizedExecutor(w).chunk for w in (1, 2, 3, 8)] == [32, 24, 24, 24]
    assert VectorizedExecutor(2)._bounds(40) == [(0, 3), (3, 27), (27, 40)]


def test_vectorised_threads_start_no_batch_after_stop() -> None:
    """Two workers, batches of 1 then 4: stop set at the second row; the batches running then finish
    and are kept (a prefix of the plan), none starts later."""
    SPANS.clear()
    specs = [RunSpec("x", (("a.b", float(i)),)) for i in range(40)]
    stop = threading.Event()
    stopped_at: list[float] = []

    def on_row(row: dict[str, Any]) -> None:
        if int(row["run"]) == 1:
            stopped_at.append(time.perf_counter())
            stop.set()

    out = run_sweep(specs, VectorizedExecutor(2, chunk=4), cancel=stop, on_row=on_row, fn=_slow_square)
    runs = [int(r["run"]) for r in out.rows]
    assert out.interrupted and runs == list(range(len(runs))) and 5 <= len(runs) < len(specs)
    assert all(a < stopped_at[0] for _, a, _, _ in SPANS)
    assert sum(1 if first == 0 else min(4, len(specs) - first) for first, *_ in SPANS) == len(runs)  # kept whole
    _check(out.rows)


def test_process_pool_keeps_the_runs_in_flight() -> None:
    stop, on_row = _stop_after(2)
    with ProcessExecutor(2) as ex:
        out = run_sweep(SPECS, ex, cancel=stop, on_row=on_row, fn=_square)
    # the other worker's run (and the one queued for the pool, already past cancelling) finish and are kept
    assert out.interrupted and 3 <= len(out.rows) < len(SPECS)
    _check(out.rows)


def test_dask_keeps_what_has_finished() -> None:
    """Dask: the tasks finished when ``stop`` is seen are kept, the others cancelled."""
    distributed = pytest.importorskip("dask.distributed")
    from blocks.executors import DaskExecutor

    stop, on_row = _stop_after(2)
    cluster = distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1, dashboard_address=None)
    with distributed.Client(cluster) as client, DaskExecutor(client=client, batches=False) as ex:
        out = run_sweep(SPECS, ex, cancel=stop, on_row=on_row, fn=_square)
    cluster.close()
    assert out.interrupted and 2 <= len(out.rows) < len(SPECS)
    _check(out.rows)
