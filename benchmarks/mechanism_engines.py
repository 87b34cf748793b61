"""The shipped mechanism diagrams on the Python and the compiled engine, side by side in one run.

For each RK4 diagram (four-bar: 6 s, the crank driven from 3 s; five-bar: 5 s free swing) it runs the
whole diagram once on each engine and prints the wall time of ``Runner.run`` (the compile and the
numba load are outside it: ``build`` time is printed apart), the real-time factor, microseconds per
tick and the largest scaled difference of any signal, ``max |a - b| / (1 + max |a|)``. Asserts nothing.
The squeezer diagram (solve_ivp) has no compiled engine and is not listed.

Run: ``python benchmarks/mechanism_engines.py [four_bar five_bar]``.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from app.runs import RunSpec, build

DIAGRAMS = Path(__file__).resolve().parents[1] / "assets" / "diagrams"


def main(names: list[str]) -> None:
    print(f"{'diagram':<10} {'engine':<9} {'build [s]':>9} {'run [s]':>8} {'x real time':>11} {'us/tick':>8}")
    for name in names:
        spec = RunSpec(diagram=DIAGRAMS / f"{name}.json", preset=None, engine="python")
        res = {}
        walls = {}
        for engine in ("python", "compiled"):
            t0 = time.perf_counter()
            runner = build(replace(spec, engine=engine)).runner
            t1 = time.perf_counter()
            res[engine] = r = runner.run()
            wall = time.perf_counter() - t1
            walls[engine] = wall
            sim = float(r.t[-1] - r.t[0])
            print(f"{name:<10} {runner.engine:<9} {t1 - t0:>9.2f} {wall:>8.3f} {sim / wall:>11.1f} "
                  f"{1e6 * wall / (r.t.size - 1):>8.1f}")
        a, b = res["python"], res["compiled"]
        worst = max(float(np.abs(a.signals[k] - b.signals[k]).max() / (1 + np.abs(a.signals[k]).max()))
                    for k in a.signals)
        print(f"{name:<10} compiled / python: {walls['python'] / walls['compiled']:.0f}x faster; largest scaled "
              f"difference {worst:.1e} over {a.t.size} ticks")


if __name__ == "__main__":
    main(sys.argv[1:] or ["four_bar", "five_bar"])
