"""The figures the README quotes, measured from the commands a new user types: ``python benchmarks/readme_figures.py``.

Runs whole ``gaitblocks`` processes (``python -m app``, this checkout) and prints each figure with
the command that gave it; asserts nothing. Figures:

* **first compile**: wall time of ``gaitblocks run --out DIR`` (the default: ``tracking`` on
  ``sneakers``, 10 s) with empty numba and gaitblocks caches (``NUMBA_CACHE_DIR``,
  ``GAITBLOCKS_CACHE`` for the generated steps, ``GAITBLOCKS_CACHE_DIR`` for fetched data, in a new
  temporary folder), as on a fresh clone (``benchmarks/first_run.py`` splits it into its parts);
* **speed**: the ``x real time`` that ``gaitblocks run`` prints on its ``ok:`` line, for
  ``--repeat`` warm 10 s runs (caches filled) and one ``--duration 600`` run (``--long``);
* **real-trial residual**: the vertical residual force (RMS, % of peak GRF) of the ``emergent``
  preset on OpenSim subject01 (``grf_data/reference/opensim-core``), with the subject's mass and
  height (``--mass 72.6 --height 1.8``, as ``python -m app.report`` and the tests give them) and
  without (the model's 55.3 kg).

Speed depends on the machine and its load: the output starts with the CPU count and load average.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUBJECT01 = ("--grf", "grf_data/reference/opensim-core/subject01_walk1_grf.mot",
             "--kinematics", "grf_data/reference/opensim-core/subject01_walk_IK.mot")
SPEED = re.compile(r"\(([\d.]+)x real time\)")
RESIDUAL = re.compile(r"residual \(contact beyond the recording\) ([\d.]+) % / ([\d.]+) % of peak GRF")


def gaitblocks(args: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall time [s] and stdout of ``gaitblocks ARGS`` (exit 0 or 3, a fall, expected)."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "app", *args], cwd=REPO, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 3):
        raise SystemExit(f"gaitblocks {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
    return wall, proc.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/readme_figures.py", description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="warm 10 s runs timed")
    ap.add_argument("--long", action="store_true", help="also one 600 s run")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="gaitblocks-figures-"))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp / "numba"), "GAITBLOCKS_CACHE": str(tmp / "steps"),
           "GAITBLOCKS_CACHE_DIR": str(tmp / "cache"),
           "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("GAITBLOCKS_DATA", None)
    print(f"{os.cpu_count()} CPUs, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}, "
          f"{time.strftime('%Y-%m-%d')}")
    wall, out = gaitblocks(["run", "--out", str(tmp / "first")], env)
    print(f"first compile: `gaitblocks run --out DIR` with empty caches took {wall:.1f} s wall "
          f"(the run itself {SPEED.search(out).group(1) if SPEED.search(out) else '?'}x real time)")
    speeds = []
    for i in range(args.repeat):
        _, out = gaitblocks(["run", "--out", str(tmp / f"warm{i}")], env)
        m = SPEED.search(out)
        speeds.append(float(m.group(1)) if m else float("nan"))
    print(f"speed: `gaitblocks run --out DIR` (10 s), warm: {', '.join(f'{s:.0f}' for s in speeds)}x real time")
    if args.long:
        _, out = gaitblocks(["run", "--duration", "600", "--out", str(tmp / "long")], env)
        m = SPEED.search(out)
        print(f"speed: `gaitblocks run --duration 600 --out DIR`: {m.group(1) if m else '?'}x real time")
    for k, extra in enumerate((("--mass", "72.6", "--height", "1.8"), ())):
        cmd = ["run", "--preset", "emergent", *SUBJECT01, *extra, "--out", str(tmp / f"s01_{k}")]
        shown = (f"`gaitblocks run --preset emergent --grf .../subject01_walk1_grf.mot --kinematics "
                 f".../subject01_walk_IK.mot{' ' + ' '.join(extra) if extra else ''}`")
        try:
            _, out = gaitblocks(cmd, env)
        except SystemExit as refused:  # the preset's posture solve may refuse the trial (exit 2): a figure too
            print(f"subject01 emergent: {str(refused).strip().splitlines()[-1]}: {shown}")
            continue
        m = RESIDUAL.search(out)
        print(f"subject01 emergent residual x / y: {m.group(1) + ' / ' + m.group(2) if m else '?'} % of peak GRF: "
              f"{shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
