"""Engine overhead against PathSim and bdsim, and the default diagram's real-time factor.

Run: ``.venv/bin/python benchmarks/engine.py`` (peers from the ``bench`` extra:
``pip install -e '.[bench]'``). Prints figures; asserts nothing.

Two diagrams, built the same way in each engine, dt = 1 ms:

* **PID + plant**: step reference -> sum (r - y) -> PID (linear state space with filtered
  derivative, 2 states, as PathSim's ``PID``) -> second-order plant ``w^2/(s^2 + 2 z w s + w^2)``
  -> feedback; 4 blocks.
* **gain chain**: unit step source -> 25 gains -> integrator; 27 blocks (the integrator makes
  every gain part of the continuous right-hand side, so no engine can skip them).

Overhead per block per step = wall time / (steps x blocks). Ours and PathSim use fixed-step
RK4; bdsim only integrates with ``scipy.integrate.solve_ivp``, so it runs RK45 with
``max_step = dt`` (about 6 right-hand-side calls per step instead of 4). The final values
are printed as a check that the engines computed the same thing (bdsim's is its last state).
Ours runs twice: the Python engine (block callbacks) and the compiled engine (one generated numba
step, :mod:`blocks.compiled`).

Then the compiled engine itself: first-ever compile and warm start (each in a fresh process, with
an empty and then the filled cache), per-step cost of both engines on the default walking diagram
and the PD-biped test diagram (or the blocks still lacking kernels), a profile line of the Python
step, and N = 256 copies in one compiled batch against the process executor, in gait cycles per
minute. ``--quick`` skips the peers and the batch.

Last, the rows of issue 19's Targets table that are not GUI rows, in one table: single-run real-time
factor (python, compiled), the sweep at N = 256 (``benchmarks/batch.py``: vectorised against the
process executor), overhead per block-step against the peers, ``gaitblocks run --duration 10`` as a
whole warm command (median of 5 fresh processes), the peak RSS of a 60 s run
(``benchmarks/memory.py``), and the profile of one compiled tick (each block's kernels timed in a
compiled loop, ``benchmarks/block_kernels.py``). ``--write-docs`` puts that table and profile into
``docs/benchmarks.md`` between its markers.
"""

from __future__ import annotations

import contextlib
import cProfile
import io
import os
import pstats
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from app.runs import RunSpec, build
from blocks import Diagram, Runner, compile_diagram
from blocks.diagram import SolverSettings

DT = 1e-3
KP, KI, KD, FMAX = 2.0, 1.0, 0.1, 100.0
WN, ZETA = 10.0, 0.3
N_GAINS = 25
PID_A = ((-FMAX, 0.0), (0.0, 0.0))
PID_B = ((FMAX,), (1.0,))
PID_C = ((-KD * FMAX, KI),)
PID_D = ((KP + KD * FMAX,),)
PLANT_A = ((0.0, 1.0), (-WN * WN, -2 * ZETA * WN))
PLANT_B = ((0.0,), (WN * WN,))
PLANT_C = ((1.0, 0.0),)


def _flat(m: tuple[tuple[float, ...], ...]) -> tuple[float, ...]:
    return tuple(v for row in m for v in row)


def ours_pid(t_end: float) -> tuple[float, int, int, float]:
    d = Diagram("pid", solver=SolverSettings(dt=DT, t_end=t_end))
    d.add("ref", "Step", t_step=0.0)
    d.add("err", "Sum", signs="+-")
    d.add("pid", "StateSpace", n=2, a=_flat(PID_A), b=_flat(PID_B), c=_flat(PID_C), d=_flat(PID_D), x0=(0.0, 0.0))
    d.add("plant", "StateSpace", n=2, a=_flat(PLANT_A), b=_flat(PLANT_B), c=_flat(PLANT_C), d=(0.0,), x0=(0.0, 0.0))
    d.connect("ref.y", "err.u1")
    d.connect("err.y", "pid.u")
    d.connect("pid.y", "plant.u")
    d.connect("plant.y", "err.u2")
    d.log("plant.y")
    return _time_ours(d, t_end, "plant.y")


def ours_chain(t_end: float) -> tuple[float, int, int, float]:
    d = Diagram("chain", solver=SolverSettings(dt=DT, t_end=t_end))
    d.add("src", "Step", t_step=0.0)
    prev = "src.y"
    for i in range(N_GAINS):
        d.add(f"g{i}", "Gain", k=1.0 + 1e-3 * i)
        d.connect(prev, f"g{i}.u")
        prev = f"g{i}.y"
    d.add("int", "Integrator")
    d.connect(prev, "int.u")
    d.log("int.y")
    return _time_ours(d, t_end, "int.y")


ENGINE = ["python"]  # which engine the "ours" rows use (main switches it)


def _time_ours(d: Diagram, t_end: float, sig: str) -> tuple[float, int, int, float]:
    runner = Runner(compile_diagram(d), capacity=int(t_end / DT) + 2, engine=ENGINE[0])
    start = time.perf_counter()
    res = runner.run(t_end)
    wall = time.perf_counter() - start
    return wall, res.stats["steps"], len(d.blocks), float(res[sig][-1])


def pathsim_pid(t_end: float) -> tuple[float, int, int, float]:
    from pathsim import Connection, Simulation
    from pathsim.blocks import PID, Adder, Constant, Scope, StateSpace
    from pathsim.solvers import RK4

    ref, err = Constant(1.0), Adder("+-")
    pid = PID(Kp=KP, Ki=KI, Kd=KD, f_max=FMAX)
    plant = StateSpace(np.array(PLANT_A), np.array(PLANT_B), np.array(PLANT_C), np.zeros((1, 1)))
    scope = Scope()
    blocks = [ref, err, pid, plant, scope]
    conns = [Connection(ref, err[0]), Connection(plant, err[1], scope), Connection(err, pid), Connection(pid, plant)]
    sim = Simulation(blocks, conns, dt=DT, Solver=RK4, log=False)
    start = time.perf_counter()
    sim.run(duration=t_end, adaptive=False)
    wall = time.perf_counter() - start
    _, data = scope.read()
    return wall, int(round(t_end / DT)), 4, float(np.asarray(data)[0][-1])


def pathsim_chain(t_end: float) -> tuple[float, int, int, float]:
    from pathsim import Connection, Simulation
    from pathsim.blocks import Amplifier, Constant, Integrator, Scope
    from pathsim.solvers import RK4

    src = Constant(1.0)
    gains = [Amplifier(1.0 + 1e-3 * i) for i in range(N_GAINS)]
    integ, scope = Integrator(0.0), Scope()
    chain = [src, *gains, integ]
    conns = [Connection(a, b) for a, b in zip(chain[:-1], chain[1:])] + [Connection(integ, scope)]
    sim = Simulation([*chain, scope], conns, dt=DT, Solver=RK4, log=False)
    start = time.perf_counter()
    sim.run(duration=t_end, adaptive=False)
    wall = time.perf_counter() - start
    _, data = scope.read()
    return wall, int(round(t_end / DT)), len(chain), float(np.asarray(data)[0][-1])


def _bdsim() -> Any:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        import bdsim

        return bdsim.BDSim(banner=False, animation=False, graphics=False, progress=False)


def bdsim_pid(t_end: float) -> tuple[float, int, int, float]:
    sim = _bdsim()
    bd = sim.blockdiagram()
    ref, err = bd.STEP(T=0.0), bd.SUM("+-")
    pid = bd.LTI_SS(np.array(PID_A), np.array(PID_B), np.array(PID_C), np.array(PID_D))
    plant = bd.LTI_SS(np.array(PLANT_A), np.array(PLANT_B), np.array(PLANT_C))
    bd.connect(ref, err[0])
    bd.connect(plant, err[1])
    bd.connect(err, pid)
    bd.connect(pid, plant)
    return _time_bdsim(sim, bd, t_end, 4)


def bdsim_chain(t_end: float) -> tuple[float, int, int, float]:
    sim = _bdsim()
    bd = sim.blockdiagram()
    chain = [bd.STEP(T=0.0), *[bd.GAIN(1.0 + 1e-3 * i) for i in range(N_GAINS)], bd.INTEGRATOR(x0=0.0)]
    for a, b in zip(chain[:-1], chain[1:]):
        bd.connect(a, b)
    return _time_bdsim(sim, bd, t_end, len(chain))


def _time_bdsim(sim: Any, bd: Any, t_end: float, n_blocks: int) -> tuple[float, int, int, float]:
    with contextlib.redirect_stdout(io.StringIO()):
        bd.compile(report=False)
        start = time.perf_counter()
        out = sim.run(bd, T=t_end, dt=DT, max_step=DT, solver="RK45")
        wall = time.perf_counter() - start
    return wall, int(round(t_end / DT)), n_blocks, float(np.ravel(out.x[-1])[-1])


def _report(name: str, fn: Callable[[float], tuple[float, int, int, float]], t_end: float) -> float | None:
    try:
        fn(min(t_end, 0.05))  # warm-up (imports, caches)
        wall, steps, nb, last = fn(t_end)
    except Exception as exc:  # a peer library that will not install or run is reported, not faked
        print(f"  {name:<8} not measured: {type(exc).__name__}: {str(exc).splitlines()[0][:120]}")
        return None
    per = wall / (steps * nb) * 1e6
    print(f"  {name:<8} {steps:6d} steps x {nb:2d} blocks in {wall:7.3f} s -> {per:7.2f} us per block per step"
          f"  (final value {last:.6g})")
    return per


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


def _batch(model_fn: Callable[[], Any], ref: str, values: list[float], cycles_per_run: float) -> None:
    from app.tuning.sweep import run_sweep  # noqa: F401  (imported for the process executor's workers)
    from blocks.batch import BatchRunner, _single, blockers
    from blocks.executors import ProcessExecutor

    d, kw = model_fn()
    model = compile_diagram(d, **kw)
    bad = blockers(model)
    n = len(values)
    if bad:
        print(f"  vectorised batch not available: no kernels for {', '.join(bad)}")
    else:
        BatchRunner(model, [{ref: values[0]}], ["body.q"]).run(min(model.ctx.t_end, 0.01))  # compile outside
        start = time.perf_counter()
        res = BatchRunner(model, [{ref: v} for v in values], ["body.q"]).run()
        wall = time.perf_counter() - start
        print(f"  compiled batch N={n}: {wall:6.2f} s -> {n * cycles_per_run / wall * 60:9.0f} gait cycles/min "
              f"({res.status.count('ok')} ok)")
    m = min(n, 8)
    jobs = [(d, {ref: v}, ["body.q"], kw) for v in values[:m]]
    with ProcessExecutor(os.cpu_count() or 1) as ex:
        ex.map(_single, jobs[:1])
        start = time.perf_counter()
        ex.map(_single, jobs)
        wall = time.perf_counter() - start
    print(f"  process executor ({os.cpu_count()} workers), {m} runs: {m * cycles_per_run / wall * 60:9.0f} "
          "gait cycles/min")


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
    + 3 RK4 stages for a minor block, or 1/ticks for a sampled block; derivative: 4; update: 1/ticks)."""
    from benchmarks.block_kernels import compiled_cost, kernel_cases

    runner = Runner(built.model, engine="python")
    runner.advance(300)
    m = runner.model
    costs: dict[str, float] = {}
    kinds: dict[str, str] = {}
    for b, label, kern, _cb, kargs, _ in kernel_cases(runner):
        every = m.ticks[b.name]
        calls = {"output": (4.0 if b.name in m.minor else 1.0) / every, "derivative": 4.0,
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


def _warm_command(runs: int = 5) -> float:
    """Median wall time [s] of ``python -m app run --duration 10`` (whole process, warm caches)."""
    root = str(Path(__file__).resolve().parents[1])
    walls = []
    with tempfile.TemporaryDirectory(prefix="gb_warm_") as out:
        cmd = [sys.executable, "-m", "app", "run", "--grf", "sneakers", "--duration", "10", "--out", out, "--force"]
        for i in range(runs + 1):
            start = time.perf_counter()
            subprocess.run(cmd, cwd=root, env={**os.environ, "PYTHONPATH": root}, capture_output=True, check=True)
            if i:  # the first run fills the caches (compile, spline)
                walls.append(time.perf_counter() - start)
    return float(np.median(walls))


def _peak_rss_60s() -> float:
    """Peak RSS [MB] of a 60 s ``gaitblocks run`` (``benchmarks/memory.py``), launched from a small
    interpreter: Linux carries a parent's RSS high-water mark into a child it forks and execs, so
    this (large) process must not be the parent."""
    bench = str(Path(__file__).resolve().parent)
    code = (f"import sys; sys.path.insert(0, {bench!r}); from memory import peak_rss_mb; "
            "print(peak_rss_mb(['run', '--grf', 'sneakers', '--duration', '60', '--repeat-cycles'])[0])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


ISSUE_NOW = {  # the "now" column of issue 19's Targets table, measured on main when it was filed
    "single": "11x", "sweep": "340-460 /min", "overhead": "0.2", "warm": "4.3 s", "rss": "470 MB"}


def _table(rows: list[tuple[str, str, str, str, str]]) -> list[str]:
    out = ["| measure | issue 19 (main, as filed) | measured now | goal | |", "|---|---|---|---|---|"]
    out += [f"| {a} | {b} | {c} | {d} | {e} |" for a, b, c, d, e in rows]
    return out


MARK_BEGIN = "<!-- benchmarks/engine.py --write-docs: begin -->"
MARK_END = "<!-- benchmarks/engine.py --write-docs: end -->"


def write_docs(lines: list[str], path: Path) -> None:
    """Put ``lines`` between the markers of ``path`` (appended with them the first time)."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    block = "\n".join([MARK_BEGIN, *lines, MARK_END])
    if MARK_BEGIN in text and MARK_END in text:
        head, rest = text.split(MARK_BEGIN, 1)
        text = head + block + rest.split(MARK_END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


def main() -> None:
    quick = "--quick" in sys.argv
    docs = "--write-docs" in sys.argv
    print(f"engine overhead, dt = {DT * 1e3:g} ms")
    ratios: dict[str, list[str]] = {"PathSim": [], "bdsim": []}
    peers_missing: list[str] = []
    worst = [0.0]  # the compiled engine's largest overhead ratio to PathSim
    for title, ours, ps, bd, t_ours, t_peer in (
        ("PID + 2nd-order plant", ours_pid, pathsim_pid, bdsim_pid, 2.0, 2.0),
        (f"chain of {N_GAINS} gains -> integrator", ours_chain, pathsim_chain, bdsim_chain, 1.0, 1.0),
    ):
        print(f"\n{title}")
        ENGINE[0] = "python"
        a = _report("ours", ours, t_ours)
        ENGINE[0] = "compiled"
        a2 = _report("compiled", ours, t_ours)
        if quick:
            continue
        b = _report("PathSim", ps, t_peer)
        c = _report("bdsim", bd, t_peer)
        for peer, value in (("PathSim", b), ("bdsim", c)):
            if value is None:
                peers_missing.append(f"{peer} ({title})")
            for mine, x in (("ours", a), ("compiled", a2)):
                if x and value:
                    print(f"  {mine} / {peer}: {x / value:.3f}  ({value / x:.1f}x less overhead)")
                    ratios[peer].append(f"{'python' if mine == 'ours' else mine} {x / value:.3f} "
                                        f"({'PID' if 'PID' in title else 'chain'})")
                    if mine == "compiled" and peer == "PathSim":
                        worst[0] = max(worst[0], x / value)
    _cold_warm()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.blocks.engine_diagrams import oscillator
    from tests.tuning.pd_biped import pd_biped_diagram

    _engines_on("generic diagram (oscillator + PID + modes)", compile_diagram(oscillator(t_end=10.0)), 5000)
    _generic_batch(oscillator)
    _engines_on("PD-biped test diagram", compile_diagram(pd_biped_diagram(10.0)), 3000)
    built = build(RunSpec(dataset="sneakers", duration=10.0))
    rt_py, rt_co = _engines_on("default diagram grf_walk.json, preset tracking, bundled sneakers", built.model, 5000)
    _profile(built.model, 500)
    profile: list[str] = []
    if rt_co is not None:
        profile = _step_profile(built, built.model.dt * 1e6 / rt_co)
        print("\n" + "\n".join(profile))
    if quick:
        return
    from benchmarks.batch import measure

    print("\nsweep, `benchmarks/batch.py`:")
    sweep = measure(256, 64)
    warm = _warm_command()
    print(f"\n`gaitblocks run --duration 10`, whole command, warm: median of 5 {warm:.2f} s")
    rss = _peak_rss_60s()
    print(f"60 s run (repeated cycles, every signal), peak RSS {rss:.0f} MB")
    per_block = "; ".join(f"{k}: {', '.join(v)}" for k, v in ratios.items() if v) or "peers not installed"
    rows = [
        ("default walking diagram, dt = 1 ms RK4, single run", ISSUE_NOW["single"],
         f"compiled {rt_co or 0:.0f}x, python {rt_py:.0f}x", ">= 100x", "met" if (rt_co or 0) >= 100 else "missed"),
        ("walking-diagram sweep, N = 256, 2 cores (gait cycles/min)", ISSUE_NOW["sweep"],
         f"vectorized {sweep['vectorized']:,.0f}, process {sweep['process']:,.0f}", ">= 5,000",
         "met" if sweep["vectorized"] >= 5000 else "missed"),
        ("engine overhead per block-step, ours / peer", ISSUE_NOW["overhead"], per_block, "<= 0.05 (PathSim)",
         ("met (compiled)" if worst[0] <= 0.05 else "missed") if ratios["PathSim"]
         else "not measured: " + ", ".join(peers_missing)),
        ("`gaitblocks run`, 10 s, whole command, warm (median of 5)", ISSUE_NOW["warm"], f"{warm:.2f} s", "<= 1.5 s",
         "met" if warm <= 1.5 else "missed"),
        ("60 s run, peak RSS (every signal)", ISSUE_NOW["rss"], f"{rss:.0f} MB", "<= 300 MB",
         "met" if rss <= 300 else "missed"),
        ("GUI rows", "", "not measured here: `benchmarks/gui_fps.py`", "", ""),
    ]
    table = _table(rows)
    print("\nissue 19's targets, this run:\n" + "\n".join(table))
    if docs:
        import platform

        lines = ["## Issue 19 targets (generated)", "",
                 f"Generated by `python benchmarks/engine.py --write-docs` on {time.strftime('%Y-%m-%d')}, "
                 f"{os.cpu_count()} cores, Python {platform.python_version()}; figures vary with the machine's load.",
                 "", *table, "", "```", *profile, "```"]
        write_docs(lines, Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md")
        print("written: docs/benchmarks.md")


if __name__ == "__main__":
    main()
