"""A warm ``gaitblocks run`` imports neither ``scipy.integrate`` nor ``scipy.optimize`` (issue 35 §3).

``from scipy.integrate import ...`` at the top of ``models/initial_state.py`` pulled in
``scipy.integrate``, ``scipy.optimize``, ``scipy.sparse``, ``scipy.spatial`` and ``scipy.linalg``
on every run: 0.44 s of each command's start (measured, paired: a warm 10 s run 1.54 -> 1.12 s).
Each test runs the command in a fresh interpreter and reads ``sys.modules`` after it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HEAVY = ("scipy.integrate", "scipy.optimize")


def _run_and_list_modules(tmp_path: Path, *args: str) -> tuple[int, list[str]]:
    """Exit code of ``gaitblocks run ARGS --out tmp_path/out`` and the heavy modules it imported."""
    code = ("import sys; from app.cli import main; "
            f"rc = main(['run', *{list(args)!r}, '--out', {str(tmp_path / 'out')!r}]); "
            f"print('MODULES', rc, *[m for m in {HEAVY!r} if m in sys.modules])")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ))
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("MODULES ")), None)
    assert line is not None, proc.stdout + proc.stderr
    words = line.split()
    return int(words[1]), words[2:]


def test_a_default_run_imports_no_scipy_integrate_or_optimize(tmp_path: Path) -> None:
    rc, heavy = _run_and_list_modules(tmp_path, "--duration", "0.5", "--no-csv")
    assert rc == 0
    assert heavy == []
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["steps"] == 500  # it did run, on the compiled diagram


def test_the_check_sees_scipy_integrate_when_a_run_needs_it(tmp_path: Path) -> None:
    """The same harness on a run that does integrate the GRF (``init_vy = grf``) lists
    ``scipy.integrate``: the check above can fail."""
    rc, heavy = _run_and_list_modules(tmp_path, "--duration", "2", "--no-csv", "--set", "body.init_vy=grf")
    assert rc in (0, 3)
    assert "scipy.integrate" in heavy
