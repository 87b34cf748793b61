"""Throughput of tuning runs: gait-cycle simulations per minute on this machine (printed, not asserted).

Measured in one run, side by side:

1. the default walking diagram (``grf_walk.json``, ``default`` preset, bundled ``sneakers``):
   a serial loop of single runs (what a bdsim or PathSim user would write), the
   ``concurrent.futures`` process pool (``gaitblocks sweep --workers K``), and :func:`blocks.batch.run_batch`
   for N = 64 copies -- that diagram has blocks without a vectorised form, so the batch engine
   takes its per-run-process fallback (256 and 1024 copies with ``--full``; they scale linearly);
2. the vectorised batch engine (:class:`blocks.batch.BatchRunner`) on a fully vectorisable diagram
   (five-link dynamics + PD joints + constant foot forces, the same RK4 and dt) for N = 64, 256,
   1024, against a serial loop of single runs of that same diagram.

A "gait-cycle simulation" is one simulated gait cycle: simulated seconds / cycle duration
(120 / cadence of the sneakers set, from a reference run).

Run: ``python benchmarks/batch.py [--full] [--cycles C]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.runs import RunSpec  # noqa: E402
from app.tuning.sweep import run_sweep  # noqa: E402
from app.tuning.worker import run_one  # noqa: E402
from blocks.executors import ProcessExecutor  # noqa: E402


def per_minute(cycles: float, wall: float) -> float:
    return 60.0 * cycles / wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full", action="store_true", help="also N = 256, 1024 on the walking diagram's fallback")
    ap.add_argument("--cycles", type=float, default=1.0, help="gait cycles simulated per run")
    args = ap.parse_args()
    workers = os.cpu_count() or 1
    ref = run_one(RunSpec("sneakers", preset="default", duration=3.0))
    cycle_s = 120.0 / float(ref["cadence_steps_per_min"])
    dur = args.cycles * cycle_s
    print(f"machine: {workers} cores; gait cycle {cycle_s:.3f} s (sneakers, cadence "
          f"{ref['cadence_steps_per_min']:.1f} steps/min); {args.cycles:g} cycle(s) = {dur:.3f} s per run, dt 1 ms RK4")
    spec = [RunSpec("sneakers", (("pid_hip.kp", 800.0 + 50 * i),), preset="default", duration=dur) for i in range(8)]

    print("\n1) default walking diagram (grf_walk.json, default preset)")
    t = time.perf_counter()
    for s in spec[:4]:
        run_one(s)
    serial = per_minute(4 * args.cycles, time.perf_counter() - t)
    print(f"   serial loop of single runs     : {serial:8.1f} gait cycles/min   (1.00x)")
    with ProcessExecutor(workers) as ex:
        t = time.perf_counter()
        run_sweep(spec, ex)
        pool = per_minute(8 * args.cycles, time.perf_counter() - t)
    print(f"   process pool ({workers} workers)       : {pool:8.1f} gait cycles/min   ({pool / serial:.2f}x)")
    from app.runs import build_diagram
    from blocks.batch import run_batch

    d = build_diagram(RunSpec(preset="default"))
    for n in (64, 256, 1024) if args.full else (64,):
        ov = [{"pid_hip.kp": 600.0 + i} for i in range(n)]
        t = time.perf_counter()
        _, path = run_batch(d, ov, ["body.q"], workers=workers, dataset="sneakers", t_end=dur)
        rate = per_minute(n * args.cycles, time.perf_counter() - t)
        print(f"   batch N={n:<5d} ({path:10s})  : {rate:8.1f} gait cycles/min   ({rate / serial:.2f}x)")

    print("\n2) fully vectorisable diagram (five-link dynamics + PD joints), same dt and RK4")
    from blocks import Runner, compile_diagram
    from blocks.batch import BatchRunner
    from tests.tuning.pd_biped import pd_biped_diagram

    d2 = pd_biped_diagram(dur)
    t = time.perf_counter()
    for i in range(4):
        dd = d2.copy()
        dd.set_param("kp.k", -300.0 - i)
        Runner(compile_diagram(dd), logged=["body.q"]).run()
    serial2 = per_minute(4 * args.cycles, time.perf_counter() - t)
    print(f"   serial loop of single runs     : {serial2:8.1f} gait cycles/min   (1.00x)")
    model = compile_diagram(d2)
    for n in (64, 256, 1024):
        t = time.perf_counter()
        BatchRunner(model, [{"kp.k": -300.0 - i} for i in range(n)], ["body.q"]).run()
        rate = per_minute(n * args.cycles, time.perf_counter() - t)
        print(f"   vectorised batch N={n:<5d}      : {rate:8.1f} gait cycles/min   ({rate / serial2:.2f}x)")
    print("\ngoal: >= 500 gait-cycle simulations per minute")


if __name__ == "__main__":
    main()
