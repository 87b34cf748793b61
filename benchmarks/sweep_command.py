"""Whole ``gaitblocks sweep`` commands at N = 100 and N = 1000: time per run and gait cycles per minute.

Each measurement is one ``python -m app sweep`` in a fresh process (imports, the compiled step
loaded from its cache, the runs, ``sweep.csv``, ``sweep.json``), timed from outside, on the
default walking diagram and the bundled ``sneakers`` set, ``pid_hip.kp`` swept, each run one
gait cycle long (120 / cadence of a reference run), the default executor (vectorised) on every
core. A "gait cycle" is one simulated gait cycle of one copy: N x duration / cycle. Prints the
figures, the CPU time (user + system: less sensitive to the other processes than the wall time) and the
cores it kept busy on average (CPU / wall), the stepping (the rows' ``wall_s`` summed: with batches on
several threads, over 100 % of the wall time), the peak RSS and the load average before and after each
command (the machine is shared: compare figures taken at the same load), then the best and the median of
each size; asserts nothing. The commands run without ``PYTHONDONTWRITEBYTECODE`` (as a user's Python does:
it writes the bytecode cache at the first import; this workplace's shells set it, and each fresh process
then compiled every imported module of the project from source again, about 0.3 s of each command).

The issue-35 goals: the time per run at N = 1000 within 1.5x of N = 100 (the cost linear in N);
>= 15,000 gait cycles per minute at N = 1000 on 2 cores, whole command.

Run: ``python benchmarks/sweep_command.py [--n 100 1000] [--repeat 2] [--other-tree DIR] [--markdown]``;
``--other-tree DIR`` measures a second checkout the same way, interleaved (A, B, A, B, ...).
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOAL_PER_MIN = 15000.0


def command_env(tree: Path) -> dict[str, str]:
    """The environment of a measured command: ``tree`` first on the path, the bytecode cache written."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(tree)}


def cycle_seconds(tree: Path) -> float:
    """One gait cycle of the sneakers set [s]: 120 / cadence of a 3 s reference run."""
    code = ("from app.runs import RunSpec; from app.tuning.worker import run_one; "
            "print(120.0 / float(run_one(RunSpec('sneakers', duration=3.0))['cadence_steps_per_min']))")
    out = subprocess.run([sys.executable, "-c", code], cwd=tree, env=command_env(tree),
                         capture_output=True, text=True, check=True).stdout
    return float(out.split()[-1])


def sweep_once(tree: Path, n: int, duration: float) -> tuple[float, float, float, float]:
    """Wall seconds, peak RSS [MB] (``os.wait4``), the stepping's share of the wall time (the rows'
    ``wall_s``, each batch's stepping / its copies, summed) and the CPU seconds (user + system, every thread) of one
    whole ``gaitblocks sweep`` of ``n`` runs in ``tree``."""
    with tempfile.TemporaryDirectory(prefix="gb_sweep_") as tmp:
        cmd = [sys.executable, "-m", "app", "sweep", "--grf", "sneakers", "--param", f"pid_hip.kp=400:600:{n}",
               "--duration", f"{duration:.6f}", "--out", str(Path(tmp) / "out")]
        err_path = Path(tmp) / "stderr.txt"
        with err_path.open("w") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(cmd, cwd=tree, env=command_env(tree),
                                    stdout=subprocess.DEVNULL, stderr=err)
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise SystemExit(f"{tree}: sweep N={n} exited {code}: {err_path.read_text()[-800:]}")
        with (Path(tmp) / "out" / "sweep.csv").open(newline="") as fh:
            rows = list(csv.DictReader(fh))
        if len(rows) != n:
            raise SystemExit(f"{tree}: sweep N={n} wrote {len(rows)} rows")
        stepping = sum(float(r["wall_s"] or 0.0) for r in rows)
    return wall, usage.ru_maxrss / 1024.0, stepping / wall, usage.ru_utime + usage.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[100, 1000], help="sweep sizes (default 100 1000)")
    ap.add_argument("--repeat", type=int, default=2, help="commands per size and tree (default 2)")
    ap.add_argument("--other-tree", type=Path, default=None, help="a second checkout, measured interleaved")
    ap.add_argument("--markdown", action="store_true", help="also print the figures as a docs/benchmarks.md table")
    a = ap.parse_args()
    trees = [REPO] + ([a.other_tree.resolve()] if a.other_tree else [])
    cycle = cycle_seconds(REPO)
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}; one gait cycle {cycle:.3f} s per run "
          f"(sneakers, dt 1 ms RK4); load average before: {os.getloadavg()[0]:.2f}")
    for tree in trees:
        sweep_once(tree, 2, cycle)  # load the compiled step into the cache's memory map once
    per_run: dict[tuple[Path, int], list[float]] = {}
    runs: dict[tuple[Path, int], list[tuple[float, float, float, float, float]]] = {}
    for n in a.n:
        for _ in range(a.repeat):
            for tree in trees:
                load = os.getloadavg()[0]
                wall, rss, share, cpu = sweep_once(tree, n, cycle)
                per_run.setdefault((tree, n), []).append(wall / n)
                runs.setdefault((tree, n), []).append((wall, cpu, rss, load, os.getloadavg()[0]))
                print(f"  {tree.name:<16s} N={n:<5d} {wall:7.2f} s whole command ({cpu:6.2f} s CPU, "
                      f"{cpu / wall:4.2f} cores), "
                      f"{1e3 * wall / n:6.2f} ms per run, {60.0 * n / wall:8.0f} gait cycles/min, stepping "
                      f"{100 * share:3.0f} %, peak RSS {rss:4.0f} MB (load {load:.2f} -> {os.getloadavg()[0]:.2f})",
                      flush=True)
    for tree in trees:
        best = {n: min(per_run[(tree, n)]) for n in a.n}
        line = ", ".join(f"N={n}: {1e3 * best[n]:.2f} ms/run = {60.0 / best[n]:,.0f} cycles/min" for n in a.n)
        print(f"{tree.name}: best of {a.repeat}: {line}")
        med = {n: statistics.median(per_run[(tree, n)]) for n in a.n}
        line = ", ".join(f"N={n}: {1e3 * med[n]:.2f} ms/run = {60.0 / med[n]:,.0f} cycles/min" for n in a.n)
        print(f"{tree.name}: median of {a.repeat}: {line}")
        if len(a.n) >= 2:
            lo, hi = min(a.n), max(a.n)
            ratio = best[hi] / best[lo]
            print(f"  time per run N={hi} / N={lo}: {ratio:.2f} (goal <= 1.5: {'met' if ratio <= 1.5 else 'MISSED'}); "
                  f"N={hi}: {60.0 / best[hi]:,.0f} gait cycles/min (goal >= {GOAL_PER_MIN:,.0f}: "
                  f"{'met' if 60.0 / best[hi] >= GOAL_PER_MIN else 'MISSED'})")

    if a.markdown:
        print()
        print(markdown(trees, a.n, runs))


def label(tree: Path) -> str:
    """``tree``'s short commit, ``+`` when its work tree has changes."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tree, capture_output=True, text=True).stdout.strip()

    return (git("rev-parse", "--short", "HEAD") or tree.name) + ("+" if git("status", "--porcelain") else "")


def markdown(trees: list[Path], sizes: list[int],
             runs: dict[tuple[Path, int], list[tuple[float, float, float, float, float]]]) -> str:
    """The figures as a docs/benchmarks.md table: per checkout, each command in run order (wall, CPU, cores)
    at the largest N, the time per run at the smallest, gait cycles/min (median; best), peak RSS, load."""
    lo, hi = min(sizes), max(sizes)
    lines = [f"| checkout | N = {lo}: ms/run | N = {hi}: whole command (CPU s, cores) | gait cycles/min at "
             f"N = {hi}: median (best) | N = {hi} / N = {lo} per run | peak RSS | load |",
             "|---|---|---|---|---|---|---|"]
    for tree in trees:
        small, big = runs[(tree, lo)], runs[(tree, hi)]
        walls = [r[0] for r in big]
        per_min = [60.0 * hi / w for w in walls]
        ratio = min(walls) / hi / (min(r[0] for r in small) / lo)
        loads = [x for r in small + big for x in r[3:]]
        rss = [r[2] for r in small + big]
        lines.append(
            f"| {label(tree)} | {', '.join(f'{1e3 * r[0] / lo:.1f}' for r in small)} | "
            + ", ".join(f"{w:.2f} s ({c:.2f}, {c / w:.2f})" for w, c, *_ in big)
            + f" | {statistics.median(per_min):,.0f} ({max(per_min):,.0f}) | {ratio:.2f} | "
            f"{min(rss):.0f}-{max(rss):.0f} MB | {min(loads):.1f}-{max(loads):.1f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
