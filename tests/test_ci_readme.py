"""``.ci/run`` runs the README's test command as written, and that command needs nothing beside the clone."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PATTERN = r"^python3 -m venv \.venv && .*\.venv/bin/pytest "


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    """The line .ci/run picks out of README.md (its own grep) is the README's only test command, sets
    no variable and reads no folder outside the clone."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    lines = [line for line in readme.splitlines() if re.match(PATTERN, line)]
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert f"grep -m1 -E '{PATTERN}' README.md" in ci and 'bash -c "$cmd"' in ci
    picked = subprocess.run(["grep", "-m1", "-E", PATTERN, "README.md"], cwd=REPO, capture_output=True, text=True,
                            check=True).stdout.strip()
    assert lines == [picked]
    # two pytest-xdist workers, each taking a whole test file at a time (docs/testing.md)
    assert picked.endswith(".venv/bin/mypy && .venv/bin/pytest -q -n 2 --dist loadfile --max-worker-restart=0 "
                           "--durations=15")
    assert "GAITBLOCKS_DATA" not in picked and "../" not in picked and "export" not in picked
    assert "QT_QPA_PLATFORM" not in ci.split("# --- step 1")[1] and "exit 1\nfi" not in ci
    assert len(readme.splitlines()) <= 150


def test_ci_runs_the_full_regeneration_in_its_own_timed_step() -> None:
    """pyproject's addopts leave the ``regeneration`` tests out of the README's command (a later ``-m``
    replaces that one), and .ci/run runs them after it, timed; the full regeneration carries the marker."""
    from tests.gaitgen import test_regenerate

    toml = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r"""^addopts = ".*-m 'not regeneration'.*"$""", toml, re.M)
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    step2 = ci.split("# --- step 2")[1].split("# --- step 3")[0]
    assert "start=$SECONDS" in step2 and "$((SECONDS - start))" in step2
    assert ".venv/bin/pytest -q --durations=15 -m regeneration\n" in step2
    step3 = ci.split("# --- step 3")[1]    # the whole validate on the full data folder, beside the clone
    assert "GAITBLOCKS_DATA=../shared/data .venv/bin/gaitblocks validate --out validation\n" in step3
    marks = {m.name for m in test_regenerate.test_regeneration_reproduces_committed_sneakers.pytestmark}
    assert {"regeneration", "slow"} <= marks
