"""Per-call cost of each block's law (its kernels) run as plain Python and compiled (printed, not asserted).

The analysis walking diagram (``grf_walk_analysis.json``, bundled ``sneakers``) is run for 0.3 s under
a preset; then, on the live inputs and states, every block with kernels is timed three ways per
callback (output, derivative, update):

* ``python``: the kernel run as plain Python on the packed vector (:class:`blocks.kernels.PythonLaw`),
  as the Python engine calls it;
* ``kernel via dispatcher``: the kernel called from Python. A kernel is compiled without numba's
  CPython wrapper (:mod:`blocks.kernel_entry`), so the call goes through its dispatcher's entry, a small
  compiled function that unboxes the arguments and calls the kernel by address (type checks and
  argument unboxing dominate);
* ``kernel compiled``: the kernel called from a compiled loop, which is what the compiled engine's
  step function pays (the dispatcher is gone). The time argument moves every call, but a kernel that
  does not read it (and only rewrites the same outputs) may still be moved out of the loop by the
  compiler: a figure under about 0.005 us is then not a cost, only "negligible".

Run: ``python benchmarks/block_kernels.py [--preset tracking|emergent|paper] [--only TYPE ...]``.
"""

from __future__ import annotations

import argparse
import sys
import timeit
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.runs import RunSpec, build, default_diagram_path
from blocks.law_check import live_slices


def _compiled_loop(fn: Any, n_args: int) -> Any:
    """A numba loop calling ``fn`` with ``n_args`` arguments ``reps`` times (the compiled caller's cost)."""
    from numba import njit

    names = ", ".join(f"a{i}" for i in range(n_args))
    # the time argument moves by 1e-12 s per call, so the compiler cannot hoist a pure call out of the loop
    args = ", ".join(["a0 + 1e-12 * r", *(f"a{i}" for i in range(1, n_args))])
    src = f"def loop(reps, fn, {names}):\n    for r in range(reps):\n        fn({args})\n"
    scope: dict[str, Any] = {}
    exec(src, scope)  # a generated wrapper of fixed shape
    loop = njit(scope["loop"])
    return loop


def _per_call(fn: Any, budget: float = 0.05) -> float:
    """Best of 5 repeats of about ``budget`` seconds each, seconds per call."""
    once = timeit.timeit(fn, number=1)
    number = max(1, min(20000, int(budget / max(once, 1e-7))))
    return min(timeit.repeat(fn, number=number, repeat=5)) / number


def kernel_cases(runner: Any, only: list[str] | None = None) -> Any:
    """Per block with kernels and per callback: ``(block, label, kernel, python callback, kernel args,
    callback args)`` on the runner's live inputs, states and parameters."""
    m = runner.model
    for b in m.blocks:
        k = b.kernels()
        if k is None or (only and b.type_name not in only):
            continue
        n = b.name
        u, x, z = live_slices(runner, b)
        p = runner.params[n]
        packed = np.ascontiguousarray(b.pack(p), dtype=np.float64)
        _, outs = b.port_specs()
        y = tuple(np.zeros(int(s.size)) for s in outs)
        t = float(runner.time)
        law: Any = b.python_law(p) if b.law_is_kernel() else b
        cases: list[tuple[Any, ...]] = [("output", k.output, law.output, y, (t, x, z, u, p, y))]
        if k.derivative is not None and x.size:
            dx = np.zeros(x.size)
            cases.append(("derivative", k.derivative, law.derivative, (dx,), (t, x, z, u, p, dx)))
        if k.update is not None and z.size:
            zn = z.copy()
            cases.append(("update", k.update, law.update, (zn,), (t, x, z, u, p, zn)))
        for label, kern, cb, outs_, cb_args in cases:
            if kern is not None and (outs_ or label != "output"):
                yield b, label, kern, cb, (t, x, z, *u, packed, *outs_), cb_args


def compiled_cost(kern: Any, kargs: tuple[Any, ...], reps: int = 100000) -> float:
    """Seconds per call of ``kern`` from a compiled loop (best of 5)."""
    kern(*kargs)
    loop = _compiled_loop(kern, len(kargs))
    loop(1, kern, *kargs)
    return min(timeit.repeat(lambda: loop(reps, kern, *kargs), number=1, repeat=5)) / reps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="tracking")
    ap.add_argument("--only", nargs="*", default=None, help="block types to time (default: all with kernels)")
    args = ap.parse_args()
    spec = RunSpec(diagram=default_diagram_path().with_name("grf_walk_analysis.json"), preset=args.preset,
                   duration=0.6, dataset="sneakers")
    runner = build(spec).runner
    runner.advance(300)
    print(f"grf_walk_analysis, preset {args.preset}, t = {runner.time:.3f} s; per call, best of 5 [us]")
    print(f"{'block':14s} {'type':20s} {'callback':10s} {'python':>8s} {'dispatch':>9s} {'compiled':>9s} {'ratio':>7s}")
    for b, label, kern, cb, kargs, cb_args in kernel_cases(runner, args.only):
        kern(*kargs)
        py = _per_call(lambda cb=cb, a=cb_args: cb(*a))
        disp = _per_call(lambda kern=kern, a=kargs: kern(*a))
        comp = compiled_cost(kern, kargs)
        print(f"{b.name:14s} {b.type_name:20s} {label:10s} {py * 1e6:8.2f} {disp * 1e6:9.2f} {comp * 1e6:9.3f} "
              f"{py / comp:7.0f}x")


if __name__ == "__main__":
    main()
