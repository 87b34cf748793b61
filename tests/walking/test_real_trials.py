"""Issue 5 on the real trials: the ``default`` preset run over the full length of each recording.

Marked ``slow`` (always run in ``.ci/run``). What holds is asserted; the targets not reached are
strict xfails carrying the measured figure and the reason, so they fail the moment a change
brings the figure inside its bound (then promote them).
Measured (default preset, rolling foot fitted to each recording): subject01 walks its 2.5 s
(targets met except the trunk minimum, inherited from its reference); walk1, whose markers
have no trunk, falls at 1.50 s with the trunk taken upright and stays up with an assumed
8 deg forward lean.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.cli import main
from grf_data.registry import load_dataset

pytestmark = pytest.mark.slow

TRIALS = {
    "subject01": ("opensim-core/subject01_walk1_grf.mot", "opensim-core/subject01_walk_IK.mot",
                  ["--mass", "72.6", "--height", "1.8"]),
    "walk1": ("demotu-BMC/walk1.forces", "demotu-BMC/walk1.trc", []),
}


def run_trial(shared_data: Path, out: Path, name: str, *extra: str) -> tuple[dict[str, Any], float]:
    grf, kin, opts = TRIALS[name]
    args = ["--grf", str(shared_data / grf), "--kinematics", str(shared_data / kin), *opts]
    assert main(["run", *args, "--preset", "default", *extra, "--out", str(out)]) == 0
    ds = load_dataset(str(shared_data / grf), kinematics=str(shared_data / kin))
    return json.loads((out / "summary.json").read_text()), float(ds.t[-1] - ds.t[0])


@pytest.fixture(scope="module")
def runs(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict[str, Any], float]]:
    return {name: run_trial(shared_data, tmp_path_factory.mktemp(name), name) for name in TRIALS}


@pytest.mark.parametrize("name", sorted(TRIALS))
def test_runs_full_length_without_blow_up(runs: dict[str, tuple[dict[str, Any], float]], name: str) -> None:
    s, length = runs[name]
    assert s["status"] == "ok"                                    # no non-finite value anywhere
    assert s["t_end_reached"] == pytest.approx(length, abs=2e-3)  # the whole recording
    assert length > 2.0
    assert all(np.isfinite(v) for v in s["rms_deg"].values())


WALK1_FALLS = pytest.mark.xfail(strict=True, reason=(
    "walk1's markers have no trunk, so its reference trunk angle is 0 (upright); with the measured GRF the "
    "model's trunk falls backward and the run falls at 1.50 s (its unmeasured first contact is filled from "
    "the markers; without that fill it fell at 0.53 s)"))


@pytest.mark.parametrize("name", ["subject01", pytest.param("walk1", marks=WALK1_FALLS)])
def test_stays_up(runs: dict[str, tuple[dict[str, Any], float]], name: str) -> None:
    s = runs[name][0]
    assert s["fell_at_s"] is None
    assert s["cycles_completed"] >= 2


@pytest.mark.parametrize("name", ["subject01", pytest.param("walk1", marks=WALK1_FALLS)])
def test_tracking_within_real_trial_bounds(runs: dict[str, tuple[dict[str, Any], float]], name: str) -> None:
    """Measured on subject01: RMS hip 0.43/0.60, knee 0.63/0.67, trunk 0.31 deg; slip 4.2 cm,
    stance height 1.6 cm, peak torque hip 1.08 / knee 1.36 N m/kg (fitted foot radius 0.435 m)."""
    s = runs[name][0]
    rms = s["rms_deg"]
    assert max(rms["hip_l"], rms["hip_r"]) <= 3.0
    assert max(rms["knee_l"], rms["knee_r"]) <= 5.0
    assert rms["trunk"] <= 3.0
    assert s["stance_slip_m_max"] <= 0.05 and s["stance_height_m_max"] <= 0.03
    assert max(s["peak_torque_nm_per_kg"].values()) <= 2.0


@pytest.mark.parametrize("name", [
    pytest.param("subject01", marks=pytest.mark.xfail(strict=True, reason=(
        "the reference trunk angle itself reaches -5.15 deg (OpenSim IK, hip -> HAT-CoM line); the model "
        "dips to -6.3 deg while tracking it within 0.31 deg RMS"))),
    pytest.param("walk1", marks=WALK1_FALLS)])
def test_trunk_within_real_trial_bounds(runs: dict[str, tuple[dict[str, Any], float]], name: str) -> None:
    s = runs[name][0]
    assert -5.0 <= s["trunk_deg"]["min"] and s["trunk_deg"]["max"] <= 12.0


def test_subject01_misses_the_targets_with_point_feet(shared_data: Path, tmp_path: Path) -> None:
    """What the fitted rolling foot does: the same run on the paper's point feet stays up but
    misses the tracking and slip targets (measured RMS hip 7.7/6.0 deg, slip 19 cm), because
    the reference cannot put both point feet on the ground in double support."""
    s, _ = run_trial(shared_data, tmp_path, "subject01", "--foot-radius", "0")
    assert s["status"] == "ok" and s["model"]["foot_radius_m"] == 0.0
    assert max(s["rms_deg"]["hip_l"], s["rms_deg"]["hip_r"]) > 3.0
    assert s["stance_slip_m_max"] > 0.05


def test_walk1_stays_up_with_an_assumed_trunk_lean(shared_data: Path, tmp_path: Path) -> None:
    """walk1's marker set has no trunk markers. With ``--trunk-lean 8`` (an assumed forward lean,
    within the 0-8 deg of DESIGN section 4) it walks its whole 2.42 s with the trunk inside the band;
    measured RMS hip 4.4/5.0, knee 1.2/1.6, trunk 3.0 deg, slip 15 cm: still outside the hip and
    slip targets, which is why the default-lean xfails above stay."""
    s, length = run_trial(shared_data, tmp_path, "walk1", "--trunk-lean", "8")
    assert s["fell_at_s"] is None and s["t_end_reached"] == pytest.approx(length, abs=2e-3)
    assert s["dataset"]["trunk_lean_deg"] == 8.0
    assert -5.0 <= s["trunk_deg"]["min"] and s["trunk_deg"]["max"] <= 12.0
    assert max(s["rms_deg"]["knee_l"], s["rms_deg"]["knee_r"]) <= 5.0
