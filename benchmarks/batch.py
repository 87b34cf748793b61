"""Throughput of tuning runs: gait-cycle simulations per minute on this machine (printed, not asserted).

Measured in one run, side by side, on the default walking diagram (``grf_walk.json``, ``default``
preset, bundled ``sneakers``, dt 1 ms RK4), each run one gait cycle long, ``pid_hip.kp`` varied:

1. ``gaitblocks sweep --executor vectorized`` (the default for this diagram): the sweep loop
   (:func:`app.tuning.sweep.run_sweep`) on :class:`blocks.executors.VectorizedExecutor` with one worker
   thread per core, so the N copies in compiled batches (:class:`blocks.batch.BatchRunner`: an eighth of
   ``max(N, 1024)`` first, then the rest; the batches on their threads at once), then each copy summarised
   into its row; N = 256 (and 64, 1024 with ``--full``). Its split: build + pack, stepping (summed over
   the threads), summaries;
2. ``--executor process``: the same sweep on the ``concurrent.futures`` pool, one compiled single
   run per spec (``--process-n`` specs, 64 by default; the rate does not depend on N: each run is
   independent);
3. a serial loop of single runs in this process (what a bdsim or PathSim user would write).

The pools and the compiled step are warmed up before timing (the first-ever compile is
``benchmarks/engine.py``'s figure). A "gait-cycle simulation" is one simulated gait cycle:
simulated seconds / cycle duration (120 / cadence of the sneakers set, from a reference run).
Goal (issue 19): >= 5,000 per minute at N = 256 on 2 cores.

Run: ``python benchmarks/batch.py [--full] [--n 256] [--process-n 64] [--cycles C]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.runs import RunSpec
from app.tuning.objective import Objective
from app.tuning.sweep import run_sweep
from app.tuning.worker import run_one
from blocks.executors import Executor, ProcessExecutor, VectorizedExecutor

GOAL = 5000.0


def per_minute(cycles: float, wall: float) -> float:
    return 60.0 * cycles / wall


def specs(n: int, dur: float) -> list[RunSpec]:
    return [RunSpec("sneakers", (("pid_hip.kp", 500.0 + 2.0 * i),), preset="default", duration=dur) for i in range(n)]


def timed_sweep(items: list[RunSpec], ex: Executor) -> tuple[float, list[dict[str, Any]]]:
    fn = partial(run_one, objective=Objective())
    start = time.perf_counter()
    out = run_sweep(items, ex, fn=fn)
    return time.perf_counter() - start, out.rows


def measure(n: int = 256, process_n: int = 64, cycles: float = 1.0, full: bool = False,
            echo: bool = True) -> dict[str, float]:
    """Print the figures (module docstring); return gait cycles per minute by executor
    (``vectorized`` at ``n``, ``process``, ``serial``)."""
    say = print if echo else (lambda *a, **k: None)
    workers = os.cpu_count() or 1
    ref = run_one(RunSpec("sneakers", preset="default", duration=3.0))
    cycle_s = 120.0 / float(ref["cadence_steps_per_min"])
    dur = cycles * cycle_s
    say(f"machine: {workers} cores; gait cycle {cycle_s:.3f} s (sneakers, cadence "
        f"{ref['cadence_steps_per_min']:.1f} steps/min); {cycles:g} cycle(s) = {dur:.3f} s per run, dt 1 ms RK4")
    out: dict[str, float] = {}
    vec = VectorizedExecutor(workers, chunk=max(n, 1024))
    timed_sweep(specs(2, dur), vec)  # load the compiled step (compile: first time ever)
    say("\nsweep of the default walking diagram, rows as `gaitblocks sweep` writes them")
    for m in ((64, n, 1024) if full else (n,)):
        wall, rows = timed_sweep(specs(m, dur), vec)
        rate = per_minute(m * cycles, wall)
        stepping = sum(float(r["wall_s"]) for r in rows)  # per copy: the batch's stepping / N
        ok = sum(r["status"] == "ok" for r in rows)
        say(f"  vectorized N={m:<5d}: {wall:6.2f} s -> {rate:8.0f} gait cycles/min ({ok}/{m} ok; stepping "
            f"{stepping:.2f} s, build + pack + summaries {wall - stepping:.2f} s)")
        if m == n:
            out["vectorized"] = rate
    with ProcessExecutor(workers) as ex:
        timed_sweep(specs(workers, dur), ex)  # start the workers, load the step in each
        wall, rows = timed_sweep(specs(process_n, dur), ex)
    out["process"] = per_minute(process_n * cycles, wall)
    say(f"  process ({workers} workers), {process_n} runs: {wall:6.2f} s -> {out['process']:8.0f} gait cycles/min")
    k = 8
    wall, _ = timed_sweep(specs(k, dur), Executor())
    out["serial"] = per_minute(k * cycles, wall)
    say(f"  serial loop, {k} runs      : {wall:6.2f} s -> {out['serial']:8.0f} gait cycles/min")
    say(f"  vectorized / process: {out['vectorized'] / out['process']:.1f}x; goal >= {GOAL:.0f} gait cycles/min at "
        f"N = {n}: {'met' if out['vectorized'] >= GOAL else 'MISSED'}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="also N = 64 and 1024")
    ap.add_argument("--n", type=int, default=256, help="copies in the vectorised sweep (default 256)")
    ap.add_argument("--process-n", type=int, default=64, help="runs on the process executor (default 64)")
    ap.add_argument("--cycles", type=float, default=1.0, help="gait cycles simulated per run")
    args = ap.parse_args()
    measure(args.n, args.process_n, args.cycles, args.full)


if __name__ == "__main__":
    main()
