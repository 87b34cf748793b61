"""``gaitblocks data info`` on the real trials, through app.cli.main."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main


def _info(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["data", "info", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_info_walk1(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = shared_data / "demotu-BMC"
    info = _info(capsys, str(d / "walk1.forces"), "--kinematics", str(d / "walk1.trc"))
    assert info["rate_hz_source"] == 450.0 and info["duration_s"] == pytest.approx(2.42)
    left = [(w["first_sample"], w["last_sample"]) for w in info["stance_windows"]["left"]]
    right = [(w["first_sample"], w["last_sample"]) for w in info["stance_windows"]["right"]]
    assert left == [(96, 387), (592, 879)] and right[0] == (343, 631)
    assert info["bw_estimate_n"] == pytest.approx(750.4, abs=0.5)
    # stride 96 -> 592 and 343 -> 837 samples: ~1.1 s, cadence ~109 steps/min (README speed 1.19 m/s)
    assert info["cadence_steps_per_min"] == pytest.approx(120 / (((592 - 96) + (837 - 343)) / 2 / 450), rel=0.01)
    assert info["kinematics"]["range_deg"]["gamma_r"][1] == pytest.approx(58.8, abs=0.3)


def test_info_subject01_with_mass(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = shared_data / "opensim-core"
    info = _info(capsys, str(d / "subject01_walk1_grf.mot"), "--kinematics", str(d / "subject01_walk_IK.mot"),
                 "--mass", "72.6")
    assert info["body_mass_kg"] == 72.6 and info["mass_source"] == "given"
    assert info["rate_hz_source"] == pytest.approx(600.0)
    assert info["channels"]["F_ry"] == "ground_force_vy"
    assert any("lateral COP" in w for w in info["warnings"])


def test_info_csu_vertical(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    info = _info(capsys, str(shared_data / "csu-hmc-GaitAnalysisToolKit" / "example_vertical_grf.csv"))
    assert info["heel_strikes"] == {"unknown": 46}
    assert info["stride_s"] == pytest.approx(1.20, abs=0.01)


def test_info_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["data"]) == 2
    assert "usage: gaitblocks data info" in capsys.readouterr().err


def test_readable_info_lists_usable_windows(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = shared_data / "demotu-BMC"
    assert main(["data", "info", str(d / "walk1.forces"), "--kinematics", str(d / "walk1.trc")]) == 0
    out = capsys.readouterr().out
    assert "usable windows: 0.000-2.420 s" in out and "height: 1.82 m (estimated from the markers" in out
    assert main(["data", "info", str(shared_data / "opensim-core" / "subject01_walk1_grf.mot")]) == 0
    out = capsys.readouterr().out
    assert "kinematics: none (a run needs them: --kinematics FILE" in out and "subject01_walk_IK.mot" in out
