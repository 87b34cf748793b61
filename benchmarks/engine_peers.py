"""Engine overhead per block per step: ours (Python and compiled engines) against PathSim and bdsim.

Part of ``benchmarks/engine.py`` (run that; this module prints when called from it). Two diagrams,
built the same way in each engine, dt = 1 ms: **PID + plant** (4 blocks) and a **gain chain**
(27 blocks); the module docstring of ``benchmarks/engine.py`` says how each engine integrates.
Overhead per block per step = wall time / (steps x blocks).
"""

from __future__ import annotations

import contextlib
import io
import time
from collections.abc import Callable
from typing import Any

import numpy as np

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


def overhead(quick: bool) -> tuple[dict[str, list[str]], list[str], float]:
    """Print the overhead rows; ``(ratios per peer, peers not measured, worst compiled/PathSim ratio)``."""
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
    return ratios, peers_missing, worst[0]
