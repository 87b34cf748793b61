"""Where runs execute: this process, a ``concurrent.futures`` process pool, or a Dask cluster.

The one executor abstraction of the project: ``compare``, ``sweep``, ``tune`` (:mod:`app.runs`
specs) and :func:`blocks.batch.run_batch` (diagram copies) all map their jobs over it.

Every executor offers

* ``imap(fn, items, stop=None)`` -- a generator of ``(index, result)`` in completion order; closing
  it (or a ``KeyboardInterrupt``) cancels the runs not started yet. Once ``stop`` (a
  ``threading.Event``) is set, no further run starts, the runs in flight finish, and their results
  are still yielded before the generator ends: what was computed is kept (a batch of copies in the
  vectorised executor, at most one run per worker in a pool; on Dask, which does not tell a running
  task from a queued one, the tasks finished by then, the others are cancelled);
* ``map(fn, items)`` -- results in item order (``scipy.optimize.differential_evolution`` uses it
  as its ``workers`` argument);
* ``close()``; executors are context managers.

``fn`` must be importable by the worker (a module-level function such as
:func:`app.tuning.worker.run_one`). Pool workers ignore SIGINT so that Ctrl+C reaches only the
main process; its handler (``gaitblocks sweep``: :class:`app.interrupt.SigintFlag`) sets ``stop``.

Dask: ``DaskExecutor(scheduler="tcp://host:8786")`` connects to a running scheduler; without an
address it starts a ``dask.distributed.LocalCluster`` of ``workers`` single-threaded processes;
``DaskExecutor(client=...)`` uses a client made by the caller (tests use an in-process cluster).
Every Dask worker needs gaitblocks (and the dataset files named by ``--grf``) installed.
A function offering a vectorised form (``fn.batched``, see :class:`VectorizedExecutor`) runs on Dask
as batches: the items are split into one batch per worker (at most ``chunk`` items each), and each
batch is one task running N copies in one compiled engine (:func:`app.tuning.vectorized.run_many`).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Generator, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from types import TracebackType
from typing import Any

from models.errors import UserError

__all__ = ["Executor", "SerialExecutor", "ProcessExecutor", "DaskExecutor", "VectorizedExecutor", "make_executor",
           "EXECUTORS", "THREADED_START_METHOD"]

EXECUTORS = ("serial", "process", "dask", "vectorized")

#: how a process that runs other threads (the GUI) starts its worker processes (:class:`ProcessExecutor`)
THREADED_START_METHOD = "spawn"


class Executor:
    """Base class: the serial executor (runs in this process, in order)."""

    name = "serial"
    workers = 1

    def imap(self, fn: Callable[[Any], Any], items: Sequence[Any],
             stop: threading.Event | None = None) -> Generator[tuple[int, Any], None, None]:
        for i, item in enumerate(items):
            if stop is not None and stop.is_set():
                return
            yield i, fn(item)

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        items = list(items)
        out: list[Any] = [None] * len(items)
        for i, res in self.imap(fn, items):
            out[i] = res
        return out

    def close(self) -> None:
        """Release workers."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


SerialExecutor = Executor


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class ProcessExecutor(Executor):
    """``concurrent.futures.ProcessPoolExecutor`` with ``workers`` processes, started by
    ``start_method`` (default the platform's: ``fork`` on Linux).

    A process running other threads must ask for :data:`THREADED_START_METHOD` (the GUI does, for
    Compare and Tuning): a forked child has a copy of the parent's memory but only the forking
    thread, so a lock another thread held at that instant stays locked in the child for ever. The
    GUI's background compile holds numba's compiler lock for the whole compile (10-25 s the first
    time); a child forked meanwhile blocks on its first compile or cache load, and the parent waits
    for its result for ever (docs/gui-threads.md)."""

    name = "process"

    def __init__(self, workers: int, start_method: str | None = None) -> None:
        import multiprocessing

        self.workers = max(1, int(workers))
        ctx = multiprocessing.get_context(start_method) if start_method else None
        self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_ignore_sigint, mp_context=ctx)

    def imap(self, fn: Callable[[Any], Any], items: Sequence[Any],
             stop: threading.Event | None = None) -> Generator[tuple[int, Any], None, None]:
        futures: dict[Future[Any], int] = {self._pool.submit(fn, item): i for i, item in enumerate(items)}
        pending = set(futures)
        try:
            while pending:
                done, pending = wait(pending, timeout=0.1 if stop is not None else None,
                                     return_when=FIRST_COMPLETED)
                if stop is not None and stop.is_set():
                    for f in pending:
                        f.cancel()  # the runs not started; those in flight finish and are kept
                    pending = {f for f in pending if not f.cancelled()}
                for f in sorted(done, key=futures.__getitem__):
                    yield futures[f], f.result()
        finally:
            for f in pending:
                f.cancel()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _batched(fn: Callable[[Any], Any]) -> tuple[Callable[..., list[Any]] | None, dict[str, Any]]:
    """``(fn.batched, keywords)``: the vectorised form of ``fn`` (or of a ``functools.partial``'s
    function, with the partial's keywords), or ``(None, {})``."""
    target = getattr(fn, "func", fn)
    return getattr(target, "batched", None), dict(getattr(fn, "keywords", None) or {})


class DaskExecutor(Executor):
    """Runs on a ``dask.distributed`` cluster (module docstring)."""

    name = "dask"

    def __init__(self, scheduler: str | None = None, workers: int = 1, client: Any = None, batches: bool = True,
                 chunk: int = 256) -> None:
        self.batches, self.chunk = bool(batches), max(1, int(chunk))
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise UserError("--executor dask needs the dask extra: pip install 'gaitblocks[dask]'") from None
        self._own = client is None
        self._cluster: Any = None
        if client is not None:
            self.client = client
        elif scheduler:
            try:
                self.client = Client(scheduler, timeout="10s")
            except OSError as exc:
                raise UserError(f"--scheduler {scheduler}: cannot reach the Dask scheduler: {exc}") from None
        else:
            self._cluster = LocalCluster(n_workers=max(1, int(workers)), threads_per_worker=1,
                                         dashboard_address=None)
            self.client = Client(self._cluster)
        self.workers = max(1, len(self.client.scheduler_info().get("workers", {})))

    def imap(self, fn: Callable[[Any], Any], items: Sequence[Any],
             stop: threading.Event | None = None) -> Generator[tuple[int, Any], None, None]:
        from dask.distributed import as_completed

        items = list(items)
        batched, kw = _batched(fn)
        if batched is not None and self.batches and len(items) > 1:
            size = min(self.chunk, -(-len(items) // self.workers))
            starts = list(range(0, len(items), size))
            futs = [self.client.submit(batched, items[s: s + size], pure=False, **kw) for s in starts]
        else:
            starts = []
            futs = self.client.map(fn, items, pure=False)
        index = {f.key: i for i, f in enumerate(futs)}
        left = set(index)
        try:
            for f in as_completed(futs):
                finished = [f]
                if stop is not None and stop.is_set():  # keep what has finished, cancel the rest
                    finished = [g for g in futs if g.key in left and g.done()]
                for g in finished:
                    left.discard(g.key)
                    if starts:
                        for j, res in enumerate(g.result()):
                            yield starts[index[g.key]] + j, res
                    else:
                        yield index[g.key], g.result()
                if stop is not None and stop.is_set():
                    return
        finally:
            pending = [f for f in futs if f.key in left]
            if pending:
                self.client.cancel(pending)

    def close(self) -> None:
        if self._own:
            self.client.close()
            if self._cluster is not None:
                self._cluster.close()


#: copies a batch of :class:`VectorizedExecutor` holds by default with one worker
CHUNK = 32
#: ... and with several worker threads (two batches of 24 in flight: 4.97-5.00 s and 254-264 MB for a 1000-run
#: sweep, against 5.01-5.20 s and 294-304 MB with 32, 5.14-5.46 s and 231-240 MB with 16; quiet, 2026-11-28)
THREAD_CHUNK = 24


def _unless_stopped(stop: threading.Event | None, batched: Callable[..., list[Any]], items: list[Any],
                    kw: dict[str, Any]) -> list[Any] | None:
    """``batched(items, **kw)``, or None when ``stop`` was set before a thread took the batch."""
    return None if stop is not None and stop.is_set() else batched(items, **kw)


class VectorizedExecutor(Executor):
    """Runs the items in batches of ``chunk`` through one vectorised call when the function offers one:
    ``fn.batched(items, **keywords)`` (on ``fn`` or, for a ``functools.partial``, on ``fn.func``),
    returning one result per item (:func:`app.tuning.vectorized.run_many`: N copies of a diagram in the
    compiled engine, :class:`blocks.batch.BatchRunner`). Other functions run serially, in order.

    ``workers`` batches run at once, each on its own thread (``workers`` = 1: in the calling thread),
    stepped serially (``fn.batched(..., parallel=False)``): the compiled step releases the GIL, so one
    batch steps while another is set up or summarised (numpy and Python, under the GIL), and the cores
    stay busy through the whole sweep, where numba's threads (``prange`` over one batch's copies) left
    one core idle during every summary. One batch more than ``workers`` waits in the queue, so a thread
    never waits for the caller to take rows. Results are yielded in item order.

    ``chunk`` copies a batch; by default :data:`CHUNK` (32) with one worker, :data:`THREAD_CHUNK` (24) with
    several (the whole sweep's wall time and peak RSS against 16 and 32 are measured there). A batch of 32
    one-cycle walking runs takes about half a second on 2 cores (measured once under load: stepping 9.3 us
    per copy-step at 64 copies, 14-15 us at 128 and 256, benchmarks/batch.py-style in one process; 16, 32
    and 64 copies cost about the same CPU per copy, stepping and summary, 7.1-8.2 ms a one-cycle copy at
    load 4-6, 8 copies 8.4-9.2; the rows are the same whatever the batch), so the rows reach ``sweep.csv``
    and the progress line
    twice a second or so, Ctrl+C (``stop``) waits for at most the batches in flight, and their record
    buffers (copies x ticks x metric signals, held twice while the summary's signal-major copy is made:
    :meth:`blocks.batch.BatchRunner.run`) stay small. The first batch is an eighth of ``chunk`` (3 or 4
    copies), so the first rows come soon whatever the runs' length.
    A set ``stop`` starts no further batch (a queued one is dropped); the batches running finish and
    their results are yielded. ``fn.batched`` takes ``cache``, a dict that lives for one ``imap`` call
    (one sweep), for what its batches share (the base run they all start from; it must be safe to share
    between threads)."""

    name = "vectorized"

    def __init__(self, workers: int = 1, chunk: int | None = None) -> None:
        self.workers = max(1, int(workers))
        self.chunk = max(1, int(chunk)) if chunk is not None else CHUNK if self.workers == 1 else THREAD_CHUNK

    def _bounds(self, n: int) -> list[tuple[int, int]]:
        """``(start, end)`` of each batch: an eighth of ``chunk`` first, then ``chunk`` each."""
        out, start, size = [], 0, max(1, self.chunk // 8)
        while start < n:
            out.append((start, min(n, start + size)))
            start, size = start + size, self.chunk
        return out

    def imap(self, fn: Callable[[Any], Any], items: Sequence[Any],
             stop: threading.Event | None = None) -> Generator[tuple[int, Any], None, None]:
        batched, kw = _batched(fn)
        if batched is None:
            yield from super().imap(fn, items, stop)
            return
        items = list(items)
        shared: dict[str, Any] = {}  # what the batches of this call share (fn.batched's ``cache``)
        bounds = self._bounds(len(items))
        if self.workers == 1 or len(bounds) == 1:
            for start, end in bounds:
                if stop is not None and stop.is_set():
                    return
                for j, res in enumerate(batched(items[start:end], cache=shared, **kw)):
                    yield start + j, res
            return
        yield from self._threaded(batched, {**kw, "cache": shared, "parallel": False}, items, bounds, stop)

    def _threaded(self, batched: Callable[..., list[Any]], kw: dict[str, Any], items: list[Any],
                  bounds: list[tuple[int, int]],
                  stop: threading.Event | None) -> Generator[tuple[int, Any], None, None]:
        """The batches on ``workers`` threads, ``workers`` + 1 submitted at a time, yielded in order. A batch
        a thread takes once ``stop`` is set returns None at once (:func:`_unless_stopped`): none starts after
        it, whenever the caller looks."""
        from collections import deque
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(self.workers, thread_name_prefix="gaitblocks-batch")
        queue: deque[tuple[int, Future[list[Any] | None]]] = deque()
        nxt = 0
        try:
            while True:
                stopped = stop is not None and stop.is_set()
                while not stopped and nxt < len(bounds) and len(queue) <= self.workers:
                    start, end = bounds[nxt]
                    queue.append((start, pool.submit(_unless_stopped, stop, batched, items[start:end], kw)))
                    nxt += 1
                if stopped:  # the batches not started are dropped; those running finish and are kept
                    queue = deque((s, f) for s, f in queue if not f.cancel())
                if not queue:
                    return
                start, fut = queue.popleft()
                rows = fut.result()
                for j, res in enumerate(rows or ()):  # None: not started, ``stop`` was set first
                    yield start + j, res
        finally:
            for _, f in queue:
                f.cancel()
            pool.shutdown(wait=False, cancel_futures=True)


def make_executor(kind: str, workers: int = 1, scheduler: str | None = None,
                  start_method: str | None = None) -> Executor:
    """``serial`` | ``process`` | ``dask`` | ``vectorized`` (``process`` with one worker runs serially,
    in this process; ``start_method`` as in :class:`ProcessExecutor`)."""
    if kind == "vectorized":
        if scheduler:
            raise UserError("--scheduler needs --executor dask")
        return VectorizedExecutor(workers)
    if kind == "dask":
        return DaskExecutor(scheduler, workers)
    if scheduler:
        raise UserError("--scheduler needs --executor dask")
    if kind == "process" and workers > 1:
        return ProcessExecutor(workers, start_method)
    if kind in ("serial", "process"):
        return Executor()
    raise UserError(f"unknown executor {kind!r}; known: {', '.join(EXECUTORS)}")
