"""The compiled engine against the Python one: first-ever compile and warm start, per-step cost and
real-time factor on three diagrams, a vectorised batch, and the profile of one compiled tick.

Part of ``benchmarks/engine.py`` (run that; this module prints when called from it).
"""

from __future__ import annotations

import cProfile
import os
import pstats
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from blocks import Runner, compile_diagram


def _per_step(model: Any, engine: str, ticks: int) -> tuple[float, str]:
    r = Runner(model, engine=engine, capacity=ticks + 2)
    r.advance(10)  # warm: compile or load the cache outside the timing
    start = time.perf_counter()
    r.advance(ticks)
    return (time.perf_counter() - start) / ticks * 1e6, r.status


def _engines_on(title: str, model: Any, ticks: int) -> tuple[float, float | None]:
    """Print and return the real-time factors ``(python, compiled or None)``."""
    from blocks.codegen import missing_kernels

    print(f"\n{title}: {len(model.blocks)} blocks, RK4, dt = {model.dt * 1e3:g} ms, {ticks} ticks")
    py, st = _per_step(model, "python", ticks)
    print(f"  python   {py:8.2f} us per step -> {model.dt * 1e6 / py:8.1f}x real time ({st})")
    missing = missing_kernels(model)
    if missing:
        print(f"  compiled not available: no kernels for {', '.join(missing)}")
        return model.dt * 1e6 / py, None
    co, st = _per_step(model, "compiled", ticks)
    print(f"  compiled {co:8.2f} us per step -> {model.dt * 1e6 / co:8.1f}x real time ({st}); "
          f"{py / co:.1f}x faster than python")
    return model.dt * 1e6 / py, model.dt * 1e6 / co


CHILD = """
import sys, time
t = time.perf_counter()
sys.path.insert(0, {root!r})
from blocks import Runner, compile_diagram
from tests.blocks.engine_diagrams import oscillator
r = Runner(compile_diagram(oscillator(t_end=0.1)), engine="compiled")
r.run()
print(time.perf_counter() - t)
"""


def _cold_warm() -> None:
    root = str(Path(__file__).resolve().parents[1])
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "GAITBLOCKS_CACHE": cache, "NUMBA_CACHE_DIR": cache}
        times = []
        for _ in range(2):
            out = subprocess.run([sys.executable, "-c", CHILD.format(root=root)], env=env, capture_output=True,
                                 text=True, check=True)
            times.append(float(out.stdout.strip().splitlines()[-1]))
    print(f"\ncompiled engine, 14-block generic diagram (tests/blocks/engine_diagrams.py), whole process "
          f"after imports:\n  first-ever compile {times[0]:6.2f} s    warm start (cache) {times[1]:6.2f} s")


def _profile(model: Any, ticks: int) -> None:
    r = Runner(model, engine="python")
    r.advance(10)
    prof = cProfile.Profile()
    prof.enable()
    r.advance(ticks)
    prof.disable()
    st = pstats.Stats(prof)
    rows = sorted(st.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:4]  # type: ignore[attr-defined]
    total = sum(v[2] for v in st.stats.values())  # type: ignore[attr-defined]
    parts = ", ".join(f"{fn[2]} {v[2] / total:.0%}" for fn, v in rows)
    print(f"  profile of the python step (own time): {parts}")


def _generic_batch(diagram_fn: Callable[[float], Any], n: int = 256, t_end: float = 1.2) -> None:
    from blocks.batch import BatchRunner

    model = compile_diagram(diagram_fn(t_end))
    ov = [{"k.k": 0.1 + 1e-3 * i} for i in range(n)]
    BatchRunner(model, ov[:2], ["mux.y"]).run(0.01)
    start = time.perf_counter()
    res = BatchRunner(model, ov, ["mux.y"]).run()
    wall = time.perf_counter() - start
    single = Runner(model, engine="compiled", logged=["mux.y"])
    s0 = time.perf_counter()
    single.run()
    one = time.perf_counter() - s0
    print(f"  compiled batch N={n} x {t_end} s: {wall:6.3f} s ({wall / n * 1e3:.2f} ms per copy, "
          f"{res.status.count('ok')} ok); one compiled single run {one * 1e3:.2f} ms")


def _step_profile(built: Any, step_us: float) -> list[str]:
    """Cost of each block's kernels in one compiled RK4 tick: each kernel timed from a compiled loop
    on the live inputs (``benchmarks/block_kernels.py``), times its calls per tick (output: 1 major
    + 3 RK4 stages for a minor block, 1 + 2 for a minor block without inputs and states
    (:mod:`blocks.codegen`), or 1/ticks for a sampled block; derivative: 4; update: 1/ticks)."""
    from benchmarks.block_kernels import compiled_cost, kernel_cases

    runner = Runner(built.model, engine="python")
    runner.advance(300)
    m = runner.model
    costs: dict[str, float] = {}
    kinds: dict[str, str] = {}
    for b, label, kern, _cb, kargs, _ in kernel_cases(runner):
        every = m.ticks[b.name]
        time_only = not m.inputs[b.name] and not m.x_slot[b.name][1] and not m.z_slot[b.name][1]
        minor_calls = 3.0 if time_only else 4.0  # a time-only block keeps its stage-2 outputs at stage 3
        calls = {"output": (minor_calls if b.name in m.minor else 1.0) / every, "derivative": 4.0,
                 "update": 1.0 / every}[label]
        costs[b.name] = costs.get(b.name, 0.0) + calls * compiled_cost(kern, kargs, 20000) * 1e6
        kinds[b.name] = b.type_name
    total = sum(costs.values())
    lines = [f"profile of one compiled tick of {built.diagram.name} ({len(m.blocks)} blocks, RK4, t = "
             f"{runner.time:.2f} s): kernels {total:.2f} us of a measured {step_us:.2f} us step "
             f"({total / step_us:.0%}); the rest: the step's own loop (views, sum checks, recording, RK4 sums) "
             "and the spread between the two timings"]
    for name, us in sorted(costs.items(), key=lambda kv: -kv[1]):
        if us >= 0.005:
            lines.append(f"  {name:16s} {kinds[name]:22s} {us:7.3f} us  {us / step_us:5.1%}")
    return lines
