"""Command start time and a 10 s ``run``, as a user meets them: whole processes, wall clock.

Run: ``.venv/bin/python benchmarks/cli.py [--repeat N] [--other-tree DIR]``. Prints the median,
minimum and maximum wall time of each command over N runs (after one warm-up run); asserts
nothing. ``--other-tree DIR`` times the same commands on another checkout (for example an older
commit unpacked with ``git archive``) with the same interpreter, side by side.

Commands timed:

* ``gaitblocks --help``;
* a user error: ``gaitblocks compare --grf no_such_dataset`` (must fail before simulating);
* ``gaitblocks run --duration 10`` on the bundled default (writes ``results.npz``, ``results.csv``,
  ``summary.json`` into a new temporary folder each time).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def commands(out: Path) -> dict[str, list[str]]:
    return {
        "gaitblocks --help": ["--help"],
        "user error (compare --grf no_such_dataset)": ["compare", "--grf", "no_such_dataset", "--out", str(out / "c")],
        "run --duration 10 (bundled default)": ["run", "--duration", "10", "--out", str(out / "r{n}")],
    }


def time_one(tree: Path, args: list[str], repeat: int) -> list[float]:
    env = dict(os.environ, PYTHONPATH=str(tree), MPLBACKEND="Agg")
    walls = []
    for i in range(repeat + 1):
        cmd = [sys.executable, "-m", "app.cli", *(a.replace("{n}", f"{tree.name}{i}") for a in args)]
        start = time.perf_counter()
        subprocess.run(cmd, cwd=tree, env=env, capture_output=True, check=False)
        if i:  # the first run warms the file cache and numba's on-disk cache
            walls.append(time.perf_counter() - start)
    return walls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--other-tree", type=Path, default=None, help="a second checkout to time side by side")
    args = ap.parse_args()
    trees = [("this tree", REPO)] + ([("other tree", args.other_tree.resolve())] if args.other_tree else [])
    with tempfile.TemporaryDirectory() as tmp:
        for label, args_ in commands(Path(tmp)).items():
            for name, tree in trees:
                w = time_one(tree, args_, args.repeat)
                print(f"{label:<45} {name:<10} median {statistics.median(w):6.3f} s  "
                      f"(min {min(w):.3f}, max {max(w):.3f}, n={len(w)})")


if __name__ == "__main__":
    main()
