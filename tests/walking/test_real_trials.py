"""Issue 5 on the real trials: the ``default`` preset run over the full length of each recording.

Marked ``slow`` (always run in ``.ci/run``). What holds is asserted; the targets the point-foot
model does not reach on real recordings are strict xfails carrying the measured figure, so they
fail the moment a change brings the figure inside its bound (then promote them).
Measured (default preset): subject01 falls at 0.57 s, walk1 at 0.44 s; subject01 with the stance
foot held at the reference foot's height (``contact.height=reference``) stays up for its 2.5 s at
RMS hip 7.7/6.0, knee 5.3/4.6, trunk 7.7 deg, trunk -7.4..12.9 deg, 19 cm slip.
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


@pytest.mark.parametrize("name", sorted(TRIALS))
@pytest.mark.xfail(strict=True, reason="falls: subject01 at 0.57 s, walk1 at 0.44 s (point feet vs heel rise)")
def test_stays_up(runs: dict[str, tuple[dict[str, Any], float]], name: str) -> None:
    assert runs[name][0]["fell_at_s"] is None


@pytest.mark.parametrize("name", sorted(TRIALS))
@pytest.mark.xfail(strict=True, reason="after the fall the tracking error is tens to hundreds of degrees")
def test_tracking_within_real_trial_bounds(runs: dict[str, tuple[dict[str, Any], float]], name: str) -> None:
    s = runs[name][0]
    rms = s["rms_deg"]
    assert max(rms["hip_l"], rms["hip_r"]) <= 3.0
    assert max(rms["knee_l"], rms["knee_r"]) <= 5.0
    assert rms["trunk"] <= 3.0
    assert -5.0 <= s["trunk_deg"]["min"] and s["trunk_deg"]["max"] <= 12.0
    assert s["stance_slip_m_max"] <= 0.05 and s["stance_height_m_max"] <= 0.03
    assert max(s["peak_torque_nm_per_kg"].values()) <= 2.0


def test_subject01_stays_up_with_the_foot_at_reference_height(shared_data: Path, tmp_path: Path) -> None:
    """Holding the stance foot at the reference foot's height keeps subject01 up for its whole length,
    with hip and knee tracking within 8 deg RMS (measured 7.7/6.0 and 5.3/4.6 deg)."""
    s, length = run_trial(shared_data, tmp_path, "subject01", "--set", "contact.height=reference")
    assert s["status"] == "ok" and s["fell_at_s"] is None
    assert s["t_end_reached"] == pytest.approx(length, abs=2e-3)
    rms = s["rms_deg"]
    assert max(rms["hip_l"], rms["hip_r"], rms["knee_l"], rms["knee_r"]) <= 8.0
    assert s["cycles_completed"] >= 2
