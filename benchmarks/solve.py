"""Posture-solver speed: a cold solve of one bundled cycle and a warm start from a neighbour (printed, not asserted).

Issue targets: one bundled cycle solves in <= 20 s on this 2-core machine; a warm start from a
neighbouring solution (a sweep step, the GUI after a slider move) in <= 5 s. Measured here:

1. cold: the three continuation stages from the naive guess (:func:`models.posture.solver.solve_posture`),
   for each bundled set, including building the NLP (CasADi graph, IPOPT set-up);
2. warm: the last stage only, started from the solution of the neighbouring problem (the same set
   with the vertical GRF x1.01, a typical sweep step), primal and dual values.

The wall times are printed with the machine's load average (other work on the machine slows both).

Run: ``python benchmarks/solve.py [--repeats 3]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from app.posture import SolveSpec, model_params, solve_inputs, solver_options
from grf_data.registry import load_dataset
from models.posture.solver import solve_posture


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores)")
    print(f"{'set':<12} {'cold median [s]':>16} {'iterations':>11} {'warm median [s]':>16} {'iterations':>11}")
    for name in ("sneakers", "barefoot", "high_heels"):
        ds = load_dataset(name)
        spec = SolveSpec()
        params = model_params(ds, spec)
        ci = solve_inputs(ds, None, spec, params, 0)
        near = solve_inputs(ds, None, SolveSpec(vertical_gain=1.01), params, 0)
        opts = solver_options(spec, ds, ci.period)
        cold, warm, it_c, it_w = [], [], 0, 0
        for _ in range(args.repeats):
            t = time.perf_counter()
            base = solve_posture(ci, params, opts)
            cold.append(time.perf_counter() - t)
            it_c = base.iterations
            t = time.perf_counter()
            nb = solve_posture(near, params, opts, warm=base)
            warm.append(time.perf_counter() - t)
            it_w = nb.iterations
        print(f"{name:<12} {statistics.median(cold):>16.2f} {it_c:>11d} {statistics.median(warm):>16.2f} {it_w:>11d}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
