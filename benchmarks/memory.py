"""Peak memory of a long ``gaitblocks run``: every signal at every tick, against decimated and
selected logs.

Run: ``.venv/bin/python benchmarks/memory.py [--duration 60] [--baseline REV]``. Prints figures;
asserts nothing.

Each configuration is one whole ``python -m app run`` command (data loading, compile, the run,
``summary.json``, ``results.npz`` and ``results.csv``) in a fresh process on the bundled sneakers,
``--duration 60 --repeat-cycles`` (the data repeated by whole cycles). Its peak resident set size
is the child's own ``ru_maxrss`` (:func:`os.wait4`: per process, kB on Linux), so runs measured one
after the other do not mask each other. ``--duration 1`` gives the fixed part (interpreter,
numpy/scipy/numba, the compiled diagram).

``--baseline REV`` also measures git revision ``REV`` of this repository (exported to a temporary
folder with ``git archive``) running the same 60 s of every signal; before ``--repeat-cycles``
existed a long ``--duration`` was cut to the data, so the baseline then runs only the data's
length and is scaled to 60 s from its own 1 s and full-length figures (marked "extrapolated"),
after one warm-up run that fills numba's cache in the exported folder (a first run also JIT-compiles).
``--other-tree DIR`` measures every configuration on another checkout too (for example a
``git worktree`` of an older commit that has ``--repeat-cycles``), side by side, with the same
interpreter. The issue's figure on ``main``: 470 MB for 60 s; goal <= 300 MB.

``--long 600,3600`` adds runs of those durations (issue 35: 600 s and 3,600 s both <= 300 MB;
the log is streamed to disk above 65,000 rows, the repeated recording folded to three repetitions:
docs/long-runs.md), each without and with ``results.csv``. Each row prints the 1-minute load average
read just before it (peak RSS does not depend on the load; wall times do).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ISSUE_BEFORE_MB = 470.0  # issue 19, measured on main: 60 s run, every signal
GOAL_MB = 300.0


def peak_rss_mb(args: list[str], src: Path = REPO) -> tuple[float, int]:
    """``(peak RSS [MB], exit code)`` of ``python -m app ARGS`` run from ``src`` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(src))
    with tempfile.TemporaryDirectory(prefix="gb_mem_") as out:
        proc = subprocess.Popen([sys.executable, "-m", "app", *args, "--out", str(Path(out) / "o")], cwd=src,
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        assert proc.stderr is not None
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 3):
        sys.stderr.write(err.decode(errors="replace"))
    return usage.ru_maxrss / 1024.0, proc.returncode


def load() -> float:
    """The 1-minute load average."""
    return os.getloadavg()[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0, help="simulated seconds [s]")
    parser.add_argument("--every", type=int, default=10, help="--record-every of the decimated runs")
    parser.add_argument("--baseline", default=None, metavar="REV", help="also measure this git revision")
    parser.add_argument("--other-tree", type=Path, default=None, metavar="DIR",
                        help="also measure every configuration on this checkout")
    parser.add_argument("--long", default="", metavar="S,S",
                        help="also these durations [s], every signal at every tick, without and with CSV")
    a = parser.parse_args()
    base = ["run", "--grf", "sneakers", "--duration", f"{a.duration:g}", "--repeat-cycles"]
    rows: list[tuple[str, float, int, float]] = []
    if a.baseline:
        with tempfile.TemporaryDirectory(prefix="gb_base_") as src:
            archive = subprocess.run(["git", "-C", str(REPO), "archive", a.baseline], check=True,
                                     capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", src], input=archive, check=True)
            peak_rss_mb(["run", "--grf", "sneakers", "--duration", "0.1"], Path(src))  # warm-up: numba's cache
            floor, _ = peak_rss_mb(["run", "--grf", "sneakers", "--duration", "1"], Path(src))
            full, code = peak_rss_mb(["run", "--grf", "sneakers", "--duration", "10"], Path(src))
            per_s = (full - floor) / 9.0
            rows.append((f"{a.baseline}: 1 s, every signal", floor, 0, load()))
            rows.append((f"{a.baseline}: 10 s (the data), every signal", full, code, load()))
            rows.append((f"{a.baseline}: {a.duration:g} s extrapolated ({per_s:.2f} MB/s)",
                         full + per_s * (a.duration - 10.0), code, load()))
    configs = [
        ("1 s, every signal (fixed part)", ["run", "--grf", "sneakers", "--duration", "1"]),
        (f"{a.duration:g} s, every signal, every tick", base),
        (f"{a.duration:g} s, every signal, every tick, no CSV", [*base, "--no-csv"]),
        (f"{a.duration:g} s, every signal, --record-every {a.every}", [*base, "--record-every", str(a.every)]),
        (f"{a.duration:g} s, --log metrics, every tick", [*base, "--log", "metrics"]),
        (f"{a.duration:g} s, --log metrics, --record-every {a.every}",
         [*base, "--log", "metrics", "--record-every", str(a.every)]),
    ]
    for d in [float(x) for x in a.long.split(",") if x]:
        long_base = ["run", "--grf", "sneakers", "--duration", f"{d:g}", "--repeat-cycles"]
        configs += [(f"{d:g} s, every signal, every tick, no CSV", [*long_base, "--no-csv"]),
                    (f"{d:g} s, every signal, every tick, with CSV", long_base)]
    other = a.other_tree.resolve() if a.other_tree else None
    if other is not None:
        peak_rss_mb(["run", "--grf", "sneakers", "--duration", "0.1"], other)  # warm-up: numba's cache
    for label, args in configs:
        before = load()
        mb, code = peak_rss_mb(args)
        rows.append((label, mb, code, before))
        if other is not None:
            before = load()
            mb, code = peak_rss_mb(args, other)
            rows.append((f"  the other tree ({other.name})", mb, code, before))
    print(f"peak RSS of `gaitblocks run` on sneakers, fresh process each (python {sys.version.split()[0]})")
    print(f"{'configuration':58s} {'peak RSS':>10s}  exit  load")
    print(f"{'issue 19, main, 60 s every signal (as filed)':58s} {ISSUE_BEFORE_MB:8.0f} MB     -")
    for label, mb, code, before in rows:
        print(f"{label:58s} {mb:8.0f} MB  {code:4d}  {before:4.1f}")
    print(f"goal: <= {GOAL_MB:.0f} MB for a 60 s run (issue 19) and for 600 s and 3,600 s runs (issue 35)")


if __name__ == "__main__":
    main()
