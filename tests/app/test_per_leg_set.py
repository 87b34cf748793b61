"""``--set pid_hip.kp[0]=...`` sets the left leg's gain alone; ``--set pid_hip.kp=...`` both."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.cli import main


def _run(tmp_path: Path, *sets: str) -> dict:
    out = tmp_path / "run"
    args = ["run", "--grf", "sneakers", "--duration", "0.3", "--out", str(out), "--force"]
    for s in sets:
        args += ["--set", s]
    assert main(args) == 0
    return json.loads((out / "summary.json").read_text())


def test_per_leg_set_reaches_the_block(tmp_path: Path) -> None:
    summary = _run(tmp_path, "pid_hip.kp=900", "pid_hip.kp[0]=1500", "pid_knee.kd[1]=12.5")
    params = summary["params"]
    assert params["pid_hip.kp"] == [1500.0, 900.0]
    assert params["pid_knee.kd"] == [40.0, 12.5]  # the tracking preset's knee kd for the left leg


def test_plain_set_still_sets_both_legs(tmp_path: Path) -> None:
    assert _run(tmp_path, "pid_hip.kp=900")["params"]["pid_hip.kp"] == 900.0


def test_left_only_gain_changes_the_left_hip_torque_only(tmp_path: Path) -> None:
    """The run's log of the hip PID: only the left channel moves when only the left gain does."""
    from app.runs import RunSpec, run

    base = RunSpec(dataset="sneakers", duration=0.3, logged=("pid_hip.u",))
    a = run(base).results["pid_hip.u"]
    b = run(base.with_settings(("pid_hip.kp[0]", 3000.0))).results["pid_hip.u"]
    assert not np.allclose(a[:, 0], b[:, 0])


@pytest.mark.parametrize("item", ["pid_hip.kp[2]=1", "pid_hip.tf[0]=1", "pid_hip.kp[0]=-3"])
def test_bad_per_leg_set_is_one_line(tmp_path: Path, item: str, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["run", "--grf", "sneakers", "--duration", "0.2", "--out", str(tmp_path / "x"), "--set", item]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err


def test_sweep_and_tune_address_one_leg() -> None:
    from app.runs import RunSpec, build_diagram
    from app.tuning.grid import check_axes, grid_points, parse_axis
    from app.tuning.optimize import tune_params
    from models.errors import UserError

    d = build_diagram(RunSpec(dataset="sneakers"))
    axes = [parse_axis("pid_hip.kp[0]=500:1500:2"), parse_axis("pid_hip.kp[1]=600,700")]
    check_axes(axes, d)
    pts = grid_points(axes)
    spec = RunSpec(dataset="sneakers").with_settings(*pts[-1].items())
    assert build_diagram(spec).value("pid_hip.kp") == (1500.0, 700.0)
    (p,) = tune_params(d, ["pid_knee.kd[1]"])
    assert p.start == d.value("pid_knee.kd") and p.ref == "pid_knee.kd[1]"
    d.set_param("pid_knee.kd[1]", 10.0)
    with pytest.raises(UserError, match=r"pid_knee.kd\[0\]"):
        tune_params(d, ["pid_knee.kd"])
    with pytest.raises(Exception, match="item"):
        check_axes([parse_axis("pid_hip.kp[5]=1:2:2")], d)
