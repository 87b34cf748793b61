"""The walking step against its floor (issue 35 §4): thread-CPU µs per RK4 step of the dynamics alone
and of the compiled project step under each preset, in one process, interleaved, with the load.

Run: ``.venv/bin/python benchmarks/engine_floor.py [--repeats 5]`` (also the last section of
``benchmarks/engine.py``). Prints figures; asserts nothing.

* **dynamics alone**: four :func:`models._eom_numba.forward_dynamics_into` calls (one RK4 step's
  derivatives) in a compiled loop, on a walking state;
* **project step, PRESET**: the compiled engine stepping the default diagram under that preset on the
  bundled sneakers (``Runner.advance`` of 2,000 ticks after a warm-up; thread CPU, so the other
  engineers' processes on this shared machine count less than in wall time).

Each figure is the median of ``--repeats`` rounds, the variants taking turns within a round, and the
least of them (``min``: on this shared machine the medians of two invocations spread by 10-40 %, the minima
of 15 rounds by a few per cent; compare invocations of two checkouts by it); ``x real time`` is
``dt / step`` (dt = 1 ms) of the median. Targets: >= 300x for ``tracking`` and >= 200x for the presets
``gaitblocks compare`` uses.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TICKS = 2000
PRESETS = ("tracking", "emergent", "paper")


def _dynamics_round() -> Callable[[], float]:
    import numpy as np

    from models import _eom_numba as nb
    from models.biped import BipedParams
    from models.jit import njit

    @njit(cache=False)
    def loop(p, q, qd, tau, grf, mz, out, n):
        acc = 0.0
        for _ in range(n):
            for _s in range(4):
                q[0] += 1e-12  # a new state each call: nothing to hoist
                nb.forward_dynamics_into(p, q, qd, tau, grf, mz, out)
                acc += out[2]
        return acc

    p = BipedParams.paper().as_array()
    q = np.array([0.0, 0.95, 0.05, 0.3, -0.2, 0.2, 0.4])
    args = (p, q, np.full(7, 0.5), np.array([20.0, -10.0, 5.0, 3.0]), np.array([0.0, 400.0, 0.0, 150.0]),
            np.zeros(2), np.zeros(7))
    loop(*args, 10)

    def one() -> float:
        start = time.thread_time()
        loop(*args, 100_000)
        return (time.thread_time() - start) / 100_000 * 1e6

    return one


def _step_round(preset: str) -> Callable[[], float]:
    from app.runs import RunSpec, build

    built = build(RunSpec(dataset="sneakers", duration=10.0, preset=preset, engine="compiled"))
    runner = built.runner
    runner.advance(10)
    snap = runner.snapshot()

    def one() -> float:
        runner.restore(snap)
        start = time.thread_time()
        runner.advance(TICKS)
        return (time.thread_time() - start) / TICKS * 1e6

    return one


def floor_rows(repeats: int = 5) -> list[str]:
    """The table's lines (module docstring)."""
    variants = {"dynamics alone (4 derivative calls)": _dynamics_round()}
    variants |= {f"project step, {p}": _step_round(p) for p in PRESETS}
    got: dict[str, list[float]] = {k: [] for k in variants}
    loads = []
    for _ in range(repeats):
        loads.append(os.getloadavg()[0])
        for name, fn in variants.items():
            got[name].append(fn())
    lines = [f"the step at its floor: thread CPU per RK4 step, median of {repeats} interleaved rounds, "
             f"load {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} cores",
             f"  {'variant':40s} {'us/step':>8s} {'min':>6s} {'x real time':>12s}"]
    for name, v in got.items():
        us = statistics.median(v)
        lines.append(f"  {name:40s} {us:8.2f} {min(v):6.2f} {1000.0 / us:11.0f}x")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    print("\n".join(floor_rows(parser.parse_args().repeats)))


if __name__ == "__main__":
    main()
