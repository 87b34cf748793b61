"""Ctrl+C during ``gaitblocks solve``: IPOPT stops at its next iteration, the command says where,
writes nothing and exits 130 (a real SIGINT to a subprocess)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.interrupts import Command


def test_sigint_stops_the_solve_at_the_next_iteration(tmp_path: Path) -> None:
    out = tmp_path / "solve"
    cmd = Command("solve", "--grf", "sneakers", "--out", str(out))
    # the kinematic stage reports iteration 0 first, then every 10th: the anchored stage has begun
    cmd.wait_for(lambda err: "anchored: iteration" in err, timeout=600)
    code, stdout, err = cmd.interrupt(timeout=120)
    assert code == 130, (stdout, err)
    found = re.search(r"interrupted in cycle 0, stage '(\w+)', after (\d+) IPOPT iterations", err)
    assert found is not None, err
    assert found.group(1) in ("anchored", "free") and int(found.group(2)) > 0
    assert "nothing written" in err and not (out / "summary.json").exists()
    assert "Traceback" not in err
