"""A new diagram structure's compile (issue 35 §3): the CPU and wall time of the generated step's first
compile, and numba's pass split of it, for the walking diagram and the Andrews squeezer.

Run: ``.venv/bin/python benchmarks/step_compile.py [--repeats 3] [--root DIR ...]``. Prints figures;
asserts nothing. Target: a new structure compiles in <= 5 s.

Each measurement is a fresh process with a fresh, empty ``$GAITBLOCKS_CACHE`` (no generated step, so
the step compiles) and numba's own caches as they are (the kernels warm: one warm-up process per root
and diagram first). It builds and simulates a short run (:mod:`app.runs`; the first ``advance`` compiles the step; the
squeezer on RK4 at its 0.1 ms tick, as ``tests/blocks/test_mechanism_kernels.py`` runs it) and reads:

* **engine**: CPU s of :class:`blocks.compiled.CompiledEngine` set up: the step's source generated and
  written;
* **step**: CPU s (wall s) of the first ``advance``: the compile of the step (and, since the kernels
  are called by address, each kernel's machine code loaded from numba's cache first);
* **passes**: numba's own timing of its pipeline passes for that compile (``pipeline_times``, wall s):
  type inference, native lowering (the LLVM IR, its optimisation and machine code) and the rest;
* **warm**: the same process run again on the same caches (everything loaded): engine + first advance.

``--root DIR`` measures the code of another checkout (repeatable: the roots take turns within each
round, so a before/after comparison sees the same load). The load average is printed with each row.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIAGRAMS = {"walking": None, "squeezer": "assets/diagrams/andrews_squeezer.json"}

CHILD = r"""
import json, os, sys, time
sys.path.insert(0, os.getcwd())
import blocks.compiled as bc
rec = {}
def timed(name, fn):
    def wrapper(*a, **k):
        c, w = time.process_time(), time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            rec.setdefault(name, (time.process_time() - c, time.perf_counter() - w))
    return wrapper
bc.CompiledEngine.__init__ = timed("engine", bc.CompiledEngine.__init__)
bc.CompiledEngine.advance = timed("step", bc.CompiledEngine.advance)
from app import runs
from app.run_spec import RunSpec
if sys.argv[1]:  # a mechanism diagram on RK4 (the squeezer's own solver, solve_ivp, runs on the python engine)
    from dataclasses import replace
    from blocks import Diagram
    d = Diagram.load(sys.argv[1])
    d.solver = replace(d.solver, method="rk4")
    spec = RunSpec(diagram=d, preset=None, duration=0.005)
else:
    spec = RunSpec(duration=0.05)
runs.simulate(runs.build(spec))
passes = {}
for name, mod in list(sys.modules.items()):
    if name.startswith("gaitblocks_step_"):
        for ov in mod.advance_serial.overloads.values():
            for key, t in ((ov.metadata or {}).get("pipeline_times") or {}).get("nopython", {}).items():
                passes[key.split("_", 1)[1]] = passes.get(key.split("_", 1)[1], 0.0) + t.run
print(json.dumps({"engine": rec["engine"], "step": rec["step"], "passes": passes}))
"""


def _child(root: Path, diagram: str | None, cache: str) -> dict[str, object]:
    env = {**os.environ, "GAITBLOCKS_CACHE": cache, "PYTHONPATH": str(root), "OMP_NUM_THREADS": "1",
           "NUMBA_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", CHILD, diagram or ""], cwd=root, env=env, capture_output=True,
                         text=True)
    if out.returncode:
        raise SystemExit(f"{root} {diagram}: {out.stderr[-2000:]}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def _label(root: Path) -> str:
    out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (out.stdout.strip() or root.name) + ("+" if dirty else "")


def _row(label: str, name: str, cold: dict[str, object], warm: dict[str, object]) -> str:
    passes = dict(cold["passes"])  # type: ignore[call-overload]
    typing = passes.pop("nopython_type_inference", 0.0)
    lowering = passes.pop("native_lowering", 0.0)
    eng, step = cold["engine"], cold["step"]  # type: ignore[index]
    wsum = warm["engine"][0] + warm["step"][0]  # type: ignore[index]
    return (f"{label:10s} {name:9s} engine {eng[0]:5.2f}  step {step[0]:5.2f} CPU ({step[1]:5.2f} wall)  "
            f"passes: typing {typing:4.2f} lowering {lowering:4.2f} other {sum(passes.values()):4.2f}  "
            f"warm {wsum:4.2f}  load {os.getloadavg()[0]:.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--root", action="append", type=Path, help="a checkout to measure (default: this one)")
    args = ap.parse_args()
    roots = [r.resolve() for r in (args.root or [ROOT])]
    labels = [_label(r) for r in roots]
    print("step compile (CPU s; passes: numba's pipeline_times, wall s), fresh GAITBLOCKS_CACHE, one thread")
    for root in roots:  # the kernels warm in numba's cache
        for diagram in DIAGRAMS.values():
            with tempfile.TemporaryDirectory() as cache:
                _child(root, diagram, cache)
    for _ in range(args.repeats):
        for name, diagram in DIAGRAMS.items():
            for root, label in zip(roots, labels):
                with tempfile.TemporaryDirectory() as cache:
                    cold = _child(root, diagram, cache)
                    warm = _child(root, diagram, cache)
                print(_row(label, name, cold, warm), flush=True)


if __name__ == "__main__":
    main()
