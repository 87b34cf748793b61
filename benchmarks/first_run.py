"""The README quick start's first run (issue 35 §3): where the wall time of ``gaitblocks run --out DIR``
goes with empty caches, as on a fresh clone after ``pip install -e .``.

Run: ``.venv/bin/python benchmarks/first_run.py [--repeats 3] [--root DIR ...] [--warm]``. Prints
figures; asserts nothing. Target: the whole command in <= 30 s.

Each measurement is a fresh ``python -m app run --out DIR`` (the README's command: walking diagram,
``tracking``, ``sneakers``, 10 s) in a copy of the checkout's files (no byte code, as in a fresh clone;
the installed packages keep theirs, as after ``pip``) with empty ``NUMBA_CACHE_DIR``, ``GAITBLOCKS_CACHE``
and ``GAITBLOCKS_CACHE_DIR``, all in a new temporary folder. The child wraps a few functions and listens
to numba's ``numba:compile`` events (each function's compile, its callees' compiles subtracted:
exclusive wall s) and prints the split:

* **wall**: the whole command, timed from outside (interpreter start to exit); **cpu** its CPU time,
  user and system, compile workers included; **cpu main** the command's own process alone (on a quiet
  machine, with a core for each process, the wall time is about this plus the waits for a worker);
* **build**: ``app.runs.build`` less the compiled engine's first ``advance``: data loading and fitting,
  the diagram's compile into a model, the engine's set-up (numba compiles there counted apart);
* **kernels**: the first ``advance``'s numba compiles of kernels in this process; **workers** the wall
  time of the parallel compile (:func:`models.jit_parallel.compile_all`'s report: kernels compiled in
  worker processes while this one compiles its share; 0 without one); **load** the rest of the first
  ``advance`` that is not a compile here (waiting for the workers, machine code loaded from the cache);
* **step**: the generated step's compile;
* **other jit**: numba compiles outside the first ``advance`` (data fitting, the summary, the CSV writer);
* **sim**: ``app.commands.run.simulate`` (the 10 s), **summary**, **write**: the rest of the command;
* **rest**: wall less all of the above: interpreter start, imports (the checkout's byte-compiled), exit.

``--workers N`` sets ``$GAITBLOCKS_COMPILE_WORKERS`` (default: the load decides, :mod:`models.jit_parallel`).

``--root DIR`` measures another checkout too (repeatable; the roots take turns within each round, so a
before/after comparison sees the same load). ``--warm`` adds the same command on the caches the cold run
filled (a warm start). The machine's load average (``os.getloadavg()``, 1 min) is printed with each row.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, os, sys, threading, time
sys.path.insert(0, os.getcwd())
from numba.core import event as ev

COMPILES = []  # (module, qualname, exclusive wall s, the phase it ran in)
_local = threading.local()
PHASE = ["rest"]

class Compiles(ev.Listener):
    def on_start(self, event):
        stack = _local.__dict__.setdefault("stack", [])
        stack.append([time.perf_counter(), 0.0])

    def on_end(self, event):
        start, inner = _local.stack.pop()
        dur = time.perf_counter() - start
        if _local.stack:
            _local.stack[-1][1] += dur
        fn = event.data["dispatcher"].py_func
        COMPILES.append((fn.__module__, fn.__qualname__, dur - inner, PHASE[-1]))

ev.register("numba:compile", Compiles())
REC = {}

def timed(owner, name, key, first_only=False):
    fn = getattr(owner, name)
    def wrapper(*a, **k):
        if first_only and key in REC:
            return fn(*a, **k)
        w = time.perf_counter()
        PHASE.append(key)
        try:
            return fn(*a, **k)
        finally:
            PHASE.pop()
            REC[key] = REC.get(key, 0.0) + time.perf_counter() - w
    setattr(owner, name, wrapper)

import app.runs, app.run_summary, app.commands.run, blocks.compiled
timed(blocks.compiled.CompiledEngine, "advance", "advance", first_only=True)
timed(app.runs, "build", "build")
timed(app.run_summary, "summarise", "summary")
timed(app.commands.run, "simulate", "sim")
timed(app.commands.run, "write_outputs", "write")
WARM = {}
if hasattr(blocks.compiled, "compile_all"):  # the kernels compiled on every core (models.jit_parallel)
    compile_all = blocks.compiled.compile_all
    def recorded(*a, **k):
        report = compile_all(*a, **k)
        WARM.update(vars(report))
        return report
    blocks.compiled.compile_all = recorded
from app.cli import main
code = main(sys.argv[1:])
t = os.times()
print(json.dumps({"code": code, "rec": REC, "compiles": COMPILES, "warmup": WARM, "cpu_main": t.user + t.system}))
"""


def clone(root: Path, dest: Path) -> Path:
    """A copy of ``root``'s files as a fresh clone has them (tracked and new, not ignored: no byte code)."""
    names = subprocess.run(["git", "-C", str(root), "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                           capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, names):
        if (root / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / name, dest / name)
    return dest


def child(src: Path, tmp: Path, out: str) -> tuple[float, dict]:
    """Wall time [s] of one ``gaitblocks run --out`` in checkout ``src`` on the caches in ``tmp``, and its
    record."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp / "numba"), "GAITBLOCKS_CACHE": str(tmp / "gb"),
           "GAITBLOCKS_CACHE_DIR": str(tmp / "data"), "PYTHONPATH": str(src)}
    env.pop("GAITBLOCKS_DATA", None)
    t0, c0 = time.perf_counter(), os.times()
    proc = subprocess.run([sys.executable, "-c", CHILD, "run", "--out", str(tmp / out)], cwd=src, env=env,
                          capture_output=True, text=True)
    wall, c1 = time.perf_counter() - t0, os.times()
    if proc.returncode:
        raise SystemExit(f"{src}: exit {proc.returncode}\n{proc.stderr[-3000:]}")
    rec = json.loads(proc.stdout.strip().splitlines()[-1])
    rec["cpu"] = c1.children_user + c1.children_system - c0.children_user - c0.children_system
    return wall, rec


def split(wall: float, rec: dict) -> dict[str, float]:
    """The phases of one child's record (module docstring), wall s; each phase less the numba compiles
    that ran in it (the first ``advance``'s are shown as kernels and step, the others as other jit)."""
    r = rec["rec"]
    jit = {k: sum(c[2] for c in rec["compiles"] if c[3] == k) for k in ("build", "advance", "sim", "summary",
                                                                     "write", "rest")}
    step = sum(c[2] for c in rec["compiles"] if c[3] == "advance" and c[0].startswith("gaitblocks_step_"))
    advance = r.get("advance", 0.0)
    out = {"wall": wall, "cpu": rec["cpu"], "cpu main": rec["cpu_main"],
           "build": r.get("build", 0.0) - advance - jit["build"], "kernels": jit["advance"] - step,
           "workers": float(rec["warmup"].get("workers_wall_s", 0.0)), "load": advance - jit["advance"],
           "step": step, "other jit": jit["build"] + jit["sim"] + jit["summary"] + jit["write"] + jit["rest"],
           "sim": r.get("sim", 0.0) - jit["sim"], "summary": r.get("summary", 0.0) - jit["summary"],
           "write": r.get("write", 0.0) - jit["write"]}
    out["rest"] = wall - sum(v for k, v in out.items() if k not in ("wall", "cpu", "cpu main", "workers"))
    return out


def label(root: Path) -> str:
    out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return (out.stdout.strip() or root.name) + ("+" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/first_run.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--root", action="append", type=Path, help="a checkout to measure (default: this one)")
    ap.add_argument("--warm", action="store_true", help="also the same command on the filled caches")
    ap.add_argument("--top", type=int, default=0, help="list the N slowest compiles of each cold run")
    ap.add_argument("--workers", help="$GAITBLOCKS_COMPILE_WORKERS for the runs (default: unset)")
    args = ap.parse_args(argv)
    if args.workers is not None:
        os.environ["GAITBLOCKS_COMPILE_WORKERS"] = args.workers
    roots = [r.resolve() for r in (args.root or [ROOT])]
    labels = [label(r) for r in roots]
    print(f"`gaitblocks run --out DIR`, empty caches; {os.cpu_count()} CPUs; wall s; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    for _ in range(args.repeats):
        for root, name in zip(roots, labels):
            with tempfile.TemporaryDirectory(prefix="gaitblocks-first-") as tmp:
                src = clone(root, Path(tmp) / "src")
                load = os.getloadavg()[0]
                wall, rec = child(src, Path(tmp), "cold")
                parts = split(wall, rec)
                w = rec["warmup"]
                print(f"{name:10s} load {load:4.2f}  " + "  ".join(f"{k} {v:5.2f}" for k, v in parts.items())
                      + (f"  [{w.get('here', 0)} kernel groups here, {w.get('elsewhere', 0)} in {w.get('workers', 0)} "
                         f"worker(s){', ' + w['note'] if w.get('note') else ''}]" if w else ""), flush=True)
                for mod, qual, s, phase in sorted(rec["compiles"], key=lambda c: -c[2])[:args.top]:
                    print(f"    {s:6.2f}  {mod}.{qual}  ({phase})")
                if args.warm:
                    load = os.getloadavg()[0]
                    wall, rec = child(src, Path(tmp), "warm")
                    print(f"{name:10s} load {load:4.2f}  warm: wall {wall:5.2f}  cpu {rec['cpu']:5.2f}  "
                          f"compiles {len(rec['compiles'])}",
                          flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
