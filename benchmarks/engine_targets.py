"""Issue 19's Targets table: the whole-command figures (warm ``gaitblocks run``, peak RSS of a 60 s
run), the table's rows, and writing them into ``docs/benchmarks.md`` between its markers.

Part of ``benchmarks/engine.py`` (run that, with ``--write-docs`` to write the doc).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


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


Row = tuple[str, str, str, str, str]


def target_rows(rt_py: float, rt_co: float | None, sweep: dict[str, float], ratios: dict[str, list[str]],
                peers_missing: list[str], worst: float, warm: float, rss: float) -> list[Row]:
    """The rows of issue 19's Targets table that are not GUI rows, from this run's figures."""
    per_block = "; ".join(f"{k}: {', '.join(v)}" for k, v in ratios.items() if v) or "peers not installed"
    rows = [
        ("default walking diagram, dt = 1 ms RK4, single run", ISSUE_NOW["single"],
         f"compiled {rt_co or 0:.0f}x, python {rt_py:.0f}x", ">= 100x", "met" if (rt_co or 0) >= 100 else "missed"),
        ("walking-diagram sweep, N = 256, 2 cores (gait cycles/min)", ISSUE_NOW["sweep"],
         f"vectorized {sweep['vectorized']:,.0f}, process {sweep['process']:,.0f}", ">= 5,000",
         "met" if sweep["vectorized"] >= 5000 else "missed"),
        ("engine overhead per block-step, ours / peer", ISSUE_NOW["overhead"], per_block, "<= 0.05 (PathSim)",
         ("met (compiled)" if worst <= 0.05 else "missed") if ratios["PathSim"]
         else "not measured: " + ", ".join(peers_missing)),
        ("`gaitblocks run`, 10 s, whole command, warm (median of 5)", ISSUE_NOW["warm"], f"{warm:.2f} s", "<= 1.5 s",
         "met" if warm <= 1.5 else "missed"),
        ("60 s run, peak RSS (every signal)", ISSUE_NOW["rss"], f"{rss:.0f} MB", "<= 300 MB",
         "met" if rss <= 300 else "missed"),
        ("GUI rows", "", "not measured here: `benchmarks/gui_fps.py`", "", ""),
    ]
    return rows


def _table(rows: list[Row]) -> list[str]:
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
