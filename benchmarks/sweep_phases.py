"""Where a whole ``gaitblocks sweep`` spends its time: wall and thread CPU per phase, in one process.

Runs ``app.cli.main(["sweep", ...])`` in this process (the same command as
``benchmarks/sweep_command.py``: the walking diagram, ``sneakers``, ``pid_hip.kp`` swept over N runs of one
gait cycle, the default executor) with timers wrapped around its parts. Each phase's time is *exclusive*:
a phase called inside another (the stepping inside ``BatchRunner.run``) is taken out of the outer one.
Per phase: the calls, the wall seconds summed over threads, and the thread CPU seconds
(``time.thread_time``: the CPU of the calling thread only, so what other processes take on a shared
machine does not count). ``imports`` is the time to import the command's modules (``app.cli`` and
``app.commands.sweep``) before the timers start; ``other`` is the rest of the main thread's time (argument
parsing, ``sweep.json``, the progress line). The load average is printed before and after.

Run: ``python benchmarks/sweep_phases.py [--n 1000] [--duration 1.112] [--workers K]`` (``PYTHONPATH=DIR``
measures another checkout: the phases it lacks read 0). Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

# phase name -> (module, attribute path) wrapped; the order is the report's
PHASES: list[tuple[str, str, str]] = [
    ("spec (arguments, dataset check, diagram)", "app.commands.sweep", "spec_from_args"),
    ("executor check (a Python-engine build)", "app.commands.sweep", "resolve_executor"),
    ("plan (grid, specs)", "app.commands.sweep", "sweep_specs"),
    ("base run build (once)", "app.tuning.vectorized", "_build_base"),
    ("batch set-up (BatchRunner.__init__)", "blocks.batch", "BatchRunner.__init__"),
    ("batch set-up, a thread's runner reused (BatchRunner.reset)", "blocks.batch", "BatchRunner.reset"),
    ("compiled step load (CompiledEngine.warm)", "blocks.compiled", "CompiledEngine.warm"),
    ("kernel addresses (blocks.compiled.address)", "blocks.compiled", "address"),
    ("stepping (CompiledEngine.advance)", "blocks.compiled", "CompiledEngine.advance"),
    ("record reshape, status, events (BatchRunner.run)", "blocks.batch", "BatchRunner.run"),
    ("per-copy Results (run_many)", "app.tuning.vectorized", "run_many"),
    ("summaries (summarise_batch)", "app.tuning.vectorized", "summarise_batch"),
    ("rows (summary_row)", "app.tuning.vectorized", "summary_row"),
    ("sweep.csv (SweepCsv.add)", "app.tuning.sweep", "SweepCsv.add"),
]


class Timers:
    """Exclusive wall and thread-CPU time per phase and thread (a stack per thread)."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = defaultdict(float)
        self.cpu: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)
        self.main_cpu = 0.0  # the phases' CPU on the main thread
        self.first: dict[str, float] = {}  # perf_counter of each phase's first call
        self.local = threading.local()
        self.lock = threading.Lock()

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*a: Any, **kw: Any) -> Any:
            stack = self.local.__dict__.setdefault("stack", [])
            frame = [0.0, 0.0]  # the time of the phases called inside: taken out of this one
            stack.append(frame)
            self.first.setdefault(name, time.perf_counter())
            w0, c0 = time.perf_counter(), time.thread_time()
            try:
                return fn(*a, **kw)
            finally:
                dw, dc = time.perf_counter() - w0, time.thread_time() - c0
                stack.pop()
                if stack:
                    stack[-1][0] += dw
                    stack[-1][1] += dc
                with self.lock:
                    self.wall[name] += dw - frame[0]
                    self.cpu[name] += dc - frame[1]
                    self.calls[name] += 1
                    if threading.current_thread() is threading.main_thread():
                        self.main_cpu += dc - frame[1]
        timed.__wrapped__ = fn  # type: ignore[attr-defined]
        return timed


def install(timers: Timers) -> None:
    import importlib

    for name, module, attr in PHASES:
        owner: Any = importlib.import_module(module)
        *path, last = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        if hasattr(owner, last):  # an older checkout may lack a part (BatchRunner.reset): its row stays 0
            setattr(owner, last, timers.wrap(name, getattr(owner, last)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="runs (default 1000)")
    ap.add_argument("--duration", type=float, default=1.112, help="simulated seconds per run (one gait cycle)")
    ap.add_argument("--workers", type=int, default=None, help="--workers of the sweep (default: its own)")
    a = ap.parse_args()
    load0 = os.getloadavg()
    w0, c0 = time.perf_counter(), time.process_time()
    import app.cli
    import app.commands.sweep  # the command's own imports, timed here

    imports = time.perf_counter() - w0, time.process_time() - c0
    timers = Timers()
    install(timers)
    with tempfile.TemporaryDirectory(prefix="gb_phases_") as tmp:
        argv = ["sweep", "--grf", "sneakers", "--param", f"pid_hip.kp=400:600:{a.n}", "--duration",
                f"{a.duration:.6f}", "--out", str(Path(tmp) / "out")]
        argv += ["--workers", str(a.workers)] if a.workers else []
        err, sys.stderr = sys.stderr, open(os.devnull, "w")  # the progress line
        m0, mc0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
        try:
            code = app.cli.main(argv)
        finally:
            sys.stderr.close()
            sys.stderr = err
        wall, main_cpu, cpu = time.perf_counter() - m0, time.thread_time() - mc0, time.process_time() - p0
    if code != 0:
        raise SystemExit(f"sweep exited {code}")
    print(f"N = {a.n}, {a.duration} s a run; load average before {load0[0]:.2f}, after {os.getloadavg()[0]:.2f} "
          f"({os.cpu_count()} cores)")
    print(f"{'phase':<60s} {'calls':>6s} {'wall s':>8s} {'thread CPU s':>13s}")
    print(f"{'imports (before the timers)':<60s} {1:6d} {imports[0]:8.3f} {imports[1]:13.3f}")
    for name, _, _ in PHASES:
        print(f"{name:<60s} {timers.calls[name]:6d} {timers.wall[name]:8.3f} {timers.cpu[name]:13.3f}")
    print(f"{'other (main thread: parsing, sweep.json, ...)':<60s} {'':6s} {'':8s} {main_cpu - timers.main_cpu:13.3f}")
    first_row = timers.first.get(PHASES[-1][0])
    if first_row is not None:
        print(f"first row written {first_row - m0 + imports[0]:.3f} s after the imports began")
    total = imports[0] + wall
    print(f"whole: {total:.3f} s wall, {imports[1] + cpu:.3f} s CPU (every thread), "
          f"{(imports[1] + cpu) / total:.2f} cores; {60.0 * a.n / total:,.0f} gait cycles/min in process "
          "(without the interpreter's own start)")


if __name__ == "__main__":
    main()
