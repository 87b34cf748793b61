"""The README's test suite as a fresh clone runs it: wall time, CPU time and memory (issue 35 §5).

    python benchmarks/ci_suite.py [--rev HEAD] [--pytest-args "-q -n 2 --dist loadfile"] [--warm]

Clones ``--rev`` of this repository into a temporary folder and runs its pytest command there with
this interpreter, with empty numba and gaitblocks caches (``NUMBA_CACHE_DIR``, ``GAITBLOCKS_CACHE``
in the temporary folder, as on a fresh machine; ``--warm`` runs it a second time on the caches the
first run left). The pytest arguments default to the ones of the README's test command. While it
runs, the memory of the whole process tree (pytest, its xdist workers and every process a test starts)
is sampled from ``/proc`` every 0.2 s. Printed: wall time [s], CPU time of the tree (user + system)
[s], the peak of the tree's summed PSS [MB] (proportional set size: a page shared by k processes, such
as numba's and Qt's libraries, counts 1/k in each, so the sum is the memory the tree really holds;
summed RSS counts shared pages once per process), the peak RSS of its largest single process [MB],
the pytest summary line and the load average before and after. The pip install, ruff, mypy and ``validate`` parts of
the README's command are not included (their figures: ``docs/testing.md``). Nothing asserts on time.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20


def readme_pytest_args() -> str:
    """The pytest arguments of the README's test command (the line ``.ci/run`` runs)."""
    line = next(ln for ln in (REPO / "README.md").read_text(encoding="utf-8").splitlines()
                if re.match(r"^python3 -m venv \.venv && .*\.venv/bin/pytest ", ln))
    return line.split(".venv/bin/pytest ", 1)[1]


def _tree(root: int) -> list[int]:
    """``root`` and every descendant process (from ``/proc/*/stat``)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def _rss_mb(pid: int) -> float:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_MB
    except (OSError, IndexError, ValueError):
        return 0.0


def _pss_mb(pid: int) -> float:
    """Proportional set size [MB] (``/proc/PID/smaps_rollup``; 0 for a process gone meanwhile)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024.0
    except (OSError, IndexError, ValueError):
        pass
    return 0.0


def run_suite(clone: Path, args: str, env: dict[str, str]) -> dict[str, float | str]:
    """One pytest run in ``clone``: wall, CPU, peak tree PSS and single-process RSS, summary line."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *shlex.split(args)],
                            cwd=clone, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak = {"tree": 0.0, "single": 0.0}
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.2):
            pids = _tree(proc.pid)
            peak["tree"] = max(peak["tree"], sum(_pss_mb(p) for p in pids))
            peak["single"] = max(peak["single"], max((_rss_mb(p) for p in pids), default=0.0))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, _ = proc.communicate()
    done.set()
    sampler.join()
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary = next((ln.strip("= ") for ln in reversed(out.splitlines()) if re.search(r"\d+ (passed|failed)", ln)),
                   "no pytest summary line")
    return {"wall_s": wall, "cpu_s": cpu, "tree_mb": peak["tree"], "single_mb": peak["single"],
            "summary": summary, "exit": proc.returncode, "durations": _durations(out)}


def _durations(out: str) -> str:
    """pytest's ``slowest N durations`` block of ``out`` (empty without ``--durations``)."""
    lines = out.splitlines()
    start = next((i for i, ln in enumerate(lines) if "slowest" in ln and "durations" in ln), None)
    if start is None:
        return ""
    block = []
    for ln in lines[start + 1:]:
        if not re.match(r"^\d+\.\d+s ", ln):
            break
        block.append(ln)
    return "\n".join(block)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rev", default="HEAD", help="revision to clone (default HEAD)")
    ap.add_argument("--pytest-args", default=None, help="default: the README's test command's")
    ap.add_argument("--warm", action="store_true", help="run a second time on the caches the first left")
    a = ap.parse_args(argv)
    args = a.pytest_args if a.pytest_args is not None else readme_pytest_args()
    with tempfile.TemporaryDirectory(prefix="gaitblocks-suite-") as tmp:
        clone = Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
        subprocess.run(["git", "checkout", "-q", a.rev], cwd=clone, check=True)
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True,
                             check=True).stdout.strip()
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(tmp) / "numba"), "GAITBLOCKS_CACHE": str(Path(tmp) / "gb"),
               "PYTHONPATH": str(clone)}
        for k in ("GAITBLOCKS_DATA", "QT_QPA_PLATFORM", "MPLBACKEND", "NUMBA_NUM_THREADS"):
            env.pop(k, None)
        print(f"test suite of {rev}: pytest {args} ({os.cpu_count()} cores)")
        print("| caches | wall [s] | CPU [s] | peak PSS, all processes [MB] | peak RSS, largest process [MB] "
              "| load before -> after | result |")
        print("|---|---|---|---|---|---|---|")
        slow: list[str] = []
        for caches in ("empty", "warm") if a.warm else ("empty",):
            load0 = os.getloadavg()[0]
            r = run_suite(clone, args, env)
            print(f"| {caches} | {r['wall_s']:.0f} | {r['cpu_s']:.0f} | {r['tree_mb']:.0f} | {r['single_mb']:.0f} "
                  f"| {load0:.1f} -> {os.getloadavg()[0]:.1f} | {r['summary']} (exit {r['exit']}) |", flush=True)
            slow.append(f"slowest tests, caches {caches}:\n{r['durations']}")
        print("\n" + "\n\n".join(slow))
    return 0


if __name__ == "__main__":
    sys.exit(main())
