"""Compiling many cached numba functions on several cores at once: worker processes that only fill
numba's disk cache, while this process compiles its own share.

numba compiles one function at a time per process (a global compiler lock), and a compile is mostly Python, so
one process uses one core. :func:`compile_all` splits the functions to compile into independent groups
(:func:`groups`) and hands them out, largest first, to this process and to ``workers`` worker processes
(:func:`models.jit_cores.worker_count`): new interpreters (:data:`WORKER`), never forked (the GUI compiles on
a thread, docs/gui-threads.md Rule 1), and not multiprocessing's spawned children either, which would first
run again the main module of a script that lacks a ``__main__`` guard (the whole simulation). A worker takes
the run's ``sys.path``, imports each function's module, compiles it for the given argument types and so writes
numba's cache (:class:`models.jit_cache.FingerprintCache`); it returns nothing. This process then loads the
workers' machine code from that cache (tens of ms each) where it would have compiled it: the same source,
options and CPU give the same index key (:func:`models.jit_cache.has_machine_code`) and the same machine code,
so the results do not change.

Why it stays right:

* **Groups.** A compile of a caller compiles its non-inlined callees in the same process (numba types the
  callee, compiles and caches it). Functions that share a callee, and every signature of one function,
  are one group, compiled by one process: no function of the scan is compiled by two processes at once,
  so none races on one function's index (numba numbers a function's data files per index; two writers
  of different signatures could leave an index naming the other's file:
  :class:`models.jit_cache.FingerprintCache` checks the signature it loads, and a mismatch is a miss). A
  callee the scan misses (reached other than by a global name), or a warm-up (``after``) that the run
  reaches first, may be compiled twice: a waste, never a wrong result.
* **A lost entry costs a compile, never a wrong result.** numba writes each index and data file under a
  temporary name and moves it into place; a missing or unreadable entry is a miss, and this process
  then compiles the function itself when it first calls it.
* **Same fingerprint.** A worker whose fingerprint (:func:`models.jit_cache.fingerprint`) differs from
  this process's (a file edited in between) compiles nothing: its entries would not load here.
* **Same caches.** A worker inherits the environment (``$GAITBLOCKS_CACHE``,
  ``$GAITBLOCKS_KERNEL_PATH``); numba's cache folder is passed as this process's numba saw it
  (``NUMBA_CACHE_DIR``, read once at import).
* **A failed worker fails nothing.** A worker that cannot start, dies, reports an error or is still
  busy :data:`WAIT_S` after this process finished its share leaves its groups to this process, which
  compiles them as without workers; :attr:`Report.note` says so.
"""

from __future__ import annotations

import importlib
import os
import pickle
import subprocess
import sys
import threading
import time
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.jit_cores import worker_count

__all__ = ["WAIT_S", "WORKER", "Report", "compile_all", "compile_size", "groups"]

#: how long [s] this process waits for a worker's group once its own share is done, before compiling it here
WAIT_S = 300.0

#: how a worker is started: ``python`` and these arguments (:func:`_main`; a plain process, not a
#: multiprocessing child, which would run the main module of a script without a ``__main__`` guard again)
WORKER = ("-c", "from models.jit_parallel import _main; _main()")
_ROOT = Path(__file__).resolve().parent.parent  # holds models/: on the worker's path before it reads the run's

#: a function to compile: its dispatcher and positional argument types (numba types)
Call = tuple[Any, tuple[Any, ...]]


@dataclass
class Report:
    """What :func:`compile_all` did: groups compiled ``here`` and by the ``workers`` (``elsewhere``),
    the wall time [s] from the start to the last worker's last group, and a ``note`` when a worker failed."""

    here: int = 0
    elsewhere: int = 0
    workers: int = 0
    workers_wall_s: float = 0.0
    note: str = ""


# ----------------------------------------------------------------------------- the groups
def _is_dispatcher(v: Any) -> bool:
    return isinstance(getattr(v, "py_func", None), types.FunctionType) and hasattr(v, "targetoptions")


def _referenced(disp: Any) -> list[Any]:
    """The dispatchers ``disp``'s source names: module globals (``f``) and module attributes (``mod.f``)."""
    py = disp.py_func
    names: set[str] = set()
    codes = [py.__code__]
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
    out = []
    for name in sorted(names):
        v = py.__globals__.get(name)
        if isinstance(v, types.ModuleType):
            out += [getattr(v, n) for n in sorted(names) if _is_dispatcher(getattr(v, n, None))]
        elif _is_dispatcher(v):
            out.append(v)
    return out


def _closure(disp: Any) -> tuple[list[Any], int]:
    """The non-inlined dispatchers that compiling ``disp`` compiles (itself first), and a size for the
    compile's cost: the bytecode of ``disp`` and of everything it inlines or calls."""
    compiled, size, seen, todo = [disp], 0, {id(disp)}, [disp]
    while todo:
        d = todo.pop()
        size += len(d.py_func.__code__.co_code)
        for c in _referenced(d):
            if id(c) not in seen:
                seen.add(id(c))
                todo.append(c)
                if c.targetoptions.get("inline", "never") == "never":
                    compiled.append(c)
    return compiled, size


def groups(calls: Sequence[Call]) -> list[list[Call]]:
    """``calls`` in independent groups (module docstring), largest first by bytecode size: calls of one
    dispatcher, and calls whose compiles share a non-inlined callee, are in one group."""
    parent: dict[int, int] = {}

    def find(i: int) -> int:
        while parent.setdefault(i, i) != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    sizes = []
    for disp, _ in calls:
        compiled, size = _closure(disp)
        sizes.append(size)
        for c in compiled[1:]:
            parent[find(id(c))] = find(id(disp))
    out: dict[int, list[int]] = {}
    for j, (disp, _) in enumerate(calls):
        out.setdefault(find(id(disp)), []).append(j)
    ordered = sorted(out.values(), key=lambda js: -sum(sizes[j] for j in js))
    return [[calls[j] for j in js] for js in ordered]


def compile_size(group: Sequence[Call]) -> int:
    """The bytecode size [bytes] of what compiling ``group`` compiles or inlines (each dispatcher's own code and
    that of everything it calls, :func:`_closure`): the measure of a compile's cost that :func:`groups` orders by."""
    return sum(_closure(disp)[1] for disp in {id(d): d for d, _ in group}.values())


# ----------------------------------------------------------------------------- compiling
def _compile(disp: Any, flat: tuple[Any, ...]) -> None:
    """Compile (or load from the cache) ``disp`` for positional argument types ``flat``, as a call from
    compiled code does (keyword folding, ``*args`` packed)."""
    disp.get_call_template(flat, {})


def _resolve(module: str, qualname: str) -> Any:
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _named(group: list[Call]) -> list[tuple[str, str, tuple[Any, ...]]] | None:
    """``group`` as ``(module, qualname, types)`` a worker can import, or None if one of its dispatchers is
    not reachable by name (a function made inside another, a module not importable by its name)."""
    out = []
    for disp, flat in group:
        py = disp.py_func
        try:
            if _resolve(py.__module__, py.__qualname__) is not disp:
                return None
        except Exception:
            return None
        out.append((py.__module__, py.__qualname__, tuple(flat)))
    return out


class _Pickles:
    """One end of a worker's pipes: objects pickled one after another (``recv`` raises EOFError at the end)."""

    def __init__(self, read: Any, write: Any) -> None:
        self._read, self._write = read, write

    def send(self, obj: Any) -> None:
        pickle.dump(obj, self._write, protocol=pickle.HIGHEST_PROTOCOL)
        self._write.flush()

    def recv(self) -> Any:
        return pickle.load(self._read)

    def close(self) -> None:
        self._write.close()


def _main() -> None:
    """A worker process (:data:`WORKER`): :func:`_serve` over its stdin and stdout, after taking the run's
    ``sys.path``, numba cache folder and fingerprint from the first message; its own prints go to stderr."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    conn = _Pickles(sys.stdin.buffer, out)
    path, numba_cache, fingerprint = conn.recv()
    sys.path[:] = path
    _serve(conn, numba_cache, fingerprint)


def _serve(conn: Any, numba_cache: str | None, fingerprint: str) -> None:
    """A worker: compile each group it is sent (a list) until it is sent the warm-ups to run last (a tuple of
    ``"module:function"`` names, called without arguments, errors ignored: the run compiles what it needs)."""
    if numba_cache:
        os.environ["NUMBA_CACHE_DIR"] = numba_cache
    from models.jit_cache import fingerprint as own

    if own() != fingerprint:
        conn.send(("stale", "a file of the compiled code changed after this run read it"))
        return
    conn.send(("ready", ""))
    while True:
        group = conn.recv()
        if not isinstance(group, list):
            conn.close()
            for name in group:
                try:
                    module, _, function = name.partition(":")
                    getattr(importlib.import_module(module), function)()
                except Exception:  # a warm-up only
                    pass
            return
        try:
            for module, qualname, flat in group:
                _compile(_resolve(module, qualname), flat)
        except Exception as exc:  # reported; this process compiles the group itself
            conn.send(("failed", f"{type(exc).__name__}: {exc}"))
        else:
            conn.send(("done", ""))


class _Queue:
    """The groups still to compile, taken largest first by this process and the workers' feeders."""

    def __init__(self, todo: list[list[Call]], after: Sequence[str] = ()) -> None:
        self._todo, self._after, self._lock = list(todo), list(after), threading.Lock()
        self.elsewhere = 0

    def after(self) -> tuple[str, ...]:
        """The warm-ups left for a worker to run once the groups are out (all of them, to the first asking)."""
        with self._lock:
            out, self._after = tuple(self._after), []
            return out

    def take(self) -> list[Call] | None:
        with self._lock:
            return self._todo.pop(0) if self._todo else None

    def done(self) -> None:
        """A worker compiled a group."""
        with self._lock:
            self.elsewhere += 1


def _feed(proc: Any, conn: Any, first: Any, queue: _Queue, report: Report, lost: list[list[Call]], start: float,
          notes: list[str]) -> None:
    """Thread: send a worker ``first``, then hand it groups as it asks; a group it fails or dies on goes to
    ``lost``."""
    busy: list[Call] | None = None
    try:
        conn.send(first)
        while True:
            kind, text = conn.recv()
            if kind == "done":
                queue.done()
            elif kind in ("failed", "stale"):
                notes.append(text)
                if busy is not None:
                    lost.append(busy)
            if kind == "stale":
                return
            busy = None
            while busy is None:
                group = queue.take()
                if group is None:  # the worker's last job: the warm-ups (not waited for)
                    conn.send(queue.after())
                    return
                named = _named(group)
                if named is None:
                    lost.append(group)  # not importable by name: this process compiles it
                else:
                    busy = group
                    conn.send(named)
    except (EOFError, OSError, pickle.UnpicklingError):  # the worker died (or never started)
        try:
            proc.wait(5.0)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        notes.append(f"a compile worker ended (exit code {proc.returncode})")
        if busy is not None:
            lost.append(busy)
    finally:
        report.workers_wall_s = max(report.workers_wall_s, time.perf_counter() - start)


_EXITING: list[Any] = []  # workers told to stop, not yet reaped


def _reap() -> None:
    """Reap the workers of :data:`_EXITING` that have exited (one still running when this process exits
    finishes its warm-ups alone)."""
    for proc in list(_EXITING):
        if proc.poll() is not None:
            _EXITING.remove(proc)


def compile_all(calls: Sequence[Call], workers: int | None = None,
                on_note: Callable[[str], None] | None = None, after: Sequence[str] = ()) -> Report:
    """Compile every ``(dispatcher, argument types)`` of ``calls`` here or into numba's disk cache by
    ``workers`` worker processes (default :func:`models.jit_cores.worker_count`), and return when all are compiled or
    cached. Afterwards a call (or :func:`_compile`) here loads the workers' results from the cache.
    ``on_note(text)`` hears of a worker that failed (its groups are compiled here). ``after``: warm-ups
    (``"module:function"``, called without arguments) that the first worker out of groups runs before it
    exits, while this process goes on: code the run needs later, compiled into the cache meanwhile (with
    no worker, nothing runs them)."""
    todo = groups([c for c in calls if _is_dispatcher(c[0])])
    n = worker_count(len(todo)) if workers is None else max(min(workers, len(todo) - 1), 0)
    report = Report(workers=n)
    if n == 0:
        return report
    from numba.core import config

    from models.jit_cache import fingerprint

    _reap()
    start = time.perf_counter()
    cache = getattr(config, "CACHE_DIR", "")  # NUMBA_CACHE_DIR as numba read it (not in its stubs)
    first = (list(sys.path), cache or None, fingerprint())
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(_ROOT), os.environ.get("PYTHONPATH", "")])}
    queue, feeders, procs = _Queue(todo, after), [], []
    lost: list[list[Call]] = []
    notes: list[str] = []
    for _ in range(n):
        try:
            proc = subprocess.Popen([sys.executable, *WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    env=env)
        except OSError as exc:  # no process could be started: compile here
            notes.append(f"no compile worker ({type(exc).__name__}: {exc})")
            break
        conn = _Pickles(proc.stdout, proc.stdin)
        procs.append((proc, conn))
        feeder = threading.Thread(target=_feed, args=(proc, conn, first, queue, report, lost, start, notes),
                                  daemon=True)
        feeder.start()
        feeders.append(feeder)
    while (group := queue.take()) is not None:
        for disp, flat in group:
            _compile(disp, flat)
        report.here += 1
    deadline = time.monotonic() + WAIT_S
    for feeder in feeders:
        feeder.join(max(deadline - time.monotonic(), 0.0))
    for (proc, conn), feeder in zip(procs, feeders):
        if feeder.is_alive():  # still compiling after WAIT_S: its group is compiled here
            notes.append(f"a compile worker was still busy after {WAIT_S:.0f} s")
            proc.kill()
            feeder.join()
        try:
            conn.close()
        except OSError:  # it died
            pass
        if proc.stdout is not None:
            proc.stdout.close()
        _EXITING.append(proc)  # told to stop: it exits by itself (its warm-ups, then about 0.4 s), not waited for
    _reap()
    report.elsewhere = queue.elsewhere
    if lost or notes:
        report.note = "; ".join(dict.fromkeys(notes))
        if lost:
            report.note += f"; {len(lost)} group(s) compiled here instead"
        if on_note is not None:
            on_note(report.note)
    for group in lost:  # left by a worker: compiled here, as without workers
        for disp, flat in group:
            _compile(disp, flat)
        report.here += 1
    return report
