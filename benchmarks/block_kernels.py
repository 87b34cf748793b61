"""Per-call cost of each block's compiled form (its kernels) against its Python callbacks (printed).

The default walking diagram (``grf_walk.json``, ``tracking`` and ``emergent`` presets, bundled
``sneakers``) is run to 0.75 s (the left leg in stance, the right in swing); every block with
kernels is then called on the live inputs and states, in one run, both ways:

* ``python``: ``output`` (+ ``derivative``/``update`` where the block has them) as the engine calls
  them: port views, the ``Params`` namespace;
* ``kernel``: the same calls of the numba kernels on the same arrays and the packed vector,
  made from Python (so each figure includes numba's dispatch from Python, about 0.3-0.5 us);
* ``in loop``: the kernels called from a compiled loop (what a compiled step pays: no dispatch),
  each call fed back into the next through a ``+ 0.0 * y`` so that none is hoisted out of the loop.

Run: ``python benchmarks/block_kernels.py [--repeat R]``. Figures are the best of ``R`` timings of
``N`` calls each (the least disturbed by other load on a shared machine), microseconds per call.
"""

from __future__ import annotations

import argparse
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.runs import RunSpec, build  # noqa: E402


def _cost(fn: Callable[[], None], number: int, repeat: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e6


@njit
def _loop_output(n, fn, t, x, z, u, p, y):  # noqa: ANN001, ANN202
    for _ in range(n):
        fn(t, x, z, *u, p, *y)
        p[p.size - 1] += y[0][0] * 0.0  # a dependency on the last call: nothing is hoisted out of the loop


@njit
def _loop_update(n, fn, t, x, z, u, p, zn):  # noqa: ANN001, ANN202
    for _ in range(n):
        fn(t, x, z, *u, p, zn)
        p[p.size - 1] += zn[0] * 0.0


def _in_loop(k, t, x, z, u, p, y, zn, number: int, repeat: int) -> float:  # noqa: ANN001
    """Kernel cost per call from a compiled loop: output, plus update where the block updates ``zn``."""
    n = number * 10
    calls = [lambda: _loop_output(n, k.output, t, x, z, u, p, y)]
    if k.update is not None and zn.size:
        calls.append(lambda: _loop_update(n, k.update, t, x, z, u, p, zn))
    total = 0.0
    for c in calls:
        c()
        total += min(timeit.repeat(c, number=1, repeat=repeat)) / n * 1e6
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--number", type=int, default=2000)
    args = ap.parse_args()
    print(f"{'preset':9s} {'block':12s} {'type':16s} {'python us':>10s} {'kernel us':>10s} {'in loop us':>11s} "
          f"{'python/loop':>12s}")
    for preset in ("tracking", "emergent"):
        runner = build(RunSpec(preset=preset, duration=1.0, dataset="sneakers")).runner
        runner.advance(750)
        m, t = runner.model, runner.time
        for b in m.blocks:
            k = b.kernels()
            if k is None:
                continue
            n = b.name
            u = tuple(runner.sig[o: o + s].copy() for o, s in (m.in_slot[f"{n}.{spec.name}"] for spec in m.inputs[n]))
            xo, xs = m.x_slot[n]
            zo, zs = m.z_slot[n]
            x, z = runner.x[xo: xo + xs].copy(), runner.z[zo: zo + zs].copy()
            p = runner.params[n]
            packed = np.ascontiguousarray(b.pack(p), dtype=np.float64)
            _, outs = b.port_specs()
            y = tuple(np.zeros(int(s.size)) for s in outs)
            zn, dx = z.copy(), np.zeros(x.size)
            has_update = b.discrete and z.size > 0

            def py(b=b, t=t, x=x, z=z, u=u, p=p, y=y, zn=zn, dx=dx, has_update=has_update) -> None:  # noqa: ANN001
                b.output(t, x, z, u, p, y)
                if dx.size:
                    b.derivative(t, x, z, u, p, dx)
                if has_update:
                    b.update(t, x, z, u, p, zn)

            def kn(k=k, t=t, x=x, z=z, u=u, packed=packed, y=y, zn=zn, dx=dx, has_update=has_update) -> None:  # noqa: ANN001
                k.output(t, x, z, *u, packed, *y)
                if dx.size and k.derivative is not None:
                    k.derivative(t, x, z, *u, packed, dx)
                if has_update and k.update is not None:
                    k.update(t, x, z, *u, packed, zn)

            kn()  # compile / load from the cache outside the timing
            cp, ck = _cost(py, args.number, args.repeat), _cost(kn, args.number, args.repeat)
            cl = _in_loop(k, t, x, z, u, packed, y, zn if has_update else zn[:0], args.number, args.repeat)
            print(f"{preset:9s} {n:12s} {b.type_name:16s} {cp:10.2f} {ck:10.2f} {cl:11.3f} {cp / cl:12.0f}")


if __name__ == "__main__":
    main()
