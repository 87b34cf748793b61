"""Issue 5 on the real trials: the ``default`` preset run over the full length of each recording.

Marked ``slow`` (always run in ``.ci/run``). What holds is asserted; the one target not reached
is a strict xfail carrying the measured figure and the reason, so it fails the moment a change
brings the figure inside its bound (then promote it).
Measured (default preset, rolling foot fitted to each recording): both trials walk their whole
length within every target except subject01's trunk minimum, inherited from its reference.
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
    "walk2": ("demotu-BMC/walk2.forces", "demotu-BMC/walk2.trc", []),  # beyond the two: a second subject
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
    assert length > (1.6 if name == "walk2" else 2.0)
    assert all(np.isfinite(v) for v in s["rms_deg"].values())


@pytest.mark.parametrize("name, cycles", [("subject01", 2), ("walk1", 1), ("walk2", 1)])
def test_stays_up(runs: dict[str, tuple[dict[str, Any], float]], name: str, cycles: int) -> None:
    """walk1 holds 4 footfalls (one whole stride of each foot), walk2 3, subject01 two strides."""
    s = runs[name][0]
    assert s["fell_at_s"] is None
    assert s["cycles_completed"] >= cycles


@pytest.mark.parametrize("name", sorted(TRIALS))
def test_tracking_within_real_trial_bounds(runs: dict[str, tuple[dict[str, Any], float]], name: str) -> None:
    """Measured: subject01 RMS hip 0.46/0.43, knee 0.61/0.62, trunk 0.26 deg, slip 3.4 cm, stance
    height 1.2 cm, peak torque hip 1.02 / knee 1.42 N m/kg; walk1 RMS hip 0.78/0.55, knee
    0.92/0.96, trunk 0.53 deg, slip 2.8 cm, height 1.1 cm, torque 1.47 / 1.60 N m/kg; walk2 RMS
    hip 0.76/1.47, knee 0.92/1.55, trunk 0.87 deg, slip 3.7 cm, height 0.7 cm, torque 1.66 / 1.66."""
    s = runs[name][0]
    rms = s["rms_deg"]
    assert max(rms["hip_l"], rms["hip_r"]) <= 3.0
    assert max(rms["knee_l"], rms["knee_r"]) <= 5.0
    assert rms["trunk"] <= 3.0
    assert s["stance_slip_m_max"] <= 0.05 and s["stance_height_m_max"] <= 0.03
    assert max(s["peak_torque_nm_per_kg"].values()) <= 2.0
    # the CoP the ankle block asks for stays within its 10 cm and its moment within a human ankle's
    assert s["cop_shift_m"]["max"] <= 0.10 + 1e-9 and s["peak_ground_moment_nm_per_kg"] <= 1.6


def test_walk1_needs_the_centre_of_pressure_to_move(shared_data: Path, tmp_path: Path) -> None:
    """What the ``ankle`` block does on walk1: without it the body runs ahead of its stance foot
    (gravity alone sets that pendulum), the next foot lands far from its footprint and the
    contact's pull-back peaks the joint torques (measured: slip 11.4 cm, torques 3.4 / 5.3
    N m/kg, RMS hip 2.4/2.5 deg against 0.8/0.6 with it)."""
    s, _ = run_trial(shared_data, tmp_path, "walk1", "--set", "ankle.gain=0")
    assert s["status"] == "ok" and s["cop_shift_m"]["max"] == 0.0
    assert s["stance_slip_m_max"] > 0.05
    assert max(s["peak_torque_nm_per_kg"].values()) > 2.0
    assert max(s["rms_deg"]["hip_l"], s["rms_deg"]["hip_r"]) > 1.5


@pytest.mark.parametrize("name", [
    pytest.param("subject01", marks=pytest.mark.xfail(strict=True, reason=(
        "the reference trunk angle itself reaches -5.15 deg (OpenSim IK, hip -> HAT-CoM line); the model "
        "dips to -5.5 deg while tracking it within 0.26 deg RMS"))),
    "walk1", "walk2"])
def test_trunk_within_real_trial_bounds(runs: dict[str, tuple[dict[str, Any], float]], name: str) -> None:
    s = runs[name][0]
    assert -5.0 <= s["trunk_deg"]["min"] and s["trunk_deg"]["max"] <= 12.0


def test_subject01_misses_the_targets_with_point_feet(shared_data: Path, tmp_path: Path) -> None:
    """What the fitted rolling foot does: the same run on the paper's point feet stays up but
    misses the tracking and slip targets (measured RMS hip 6.2/8.0 deg, slip 22 cm), because
    the reference cannot put both point feet on the ground in double support."""
    s, _ = run_trial(shared_data, tmp_path, "subject01", "--foot-radius", "0")
    assert s["status"] == "ok" and s["model"]["foot_radius_m"] == 0.0
    assert max(s["rms_deg"]["hip_l"], s["rms_deg"]["hip_r"]) > 3.0
    assert s["stance_slip_m_max"] > 0.05



def test_walk1_starts_at_its_walking_speed(shared_data: Path, tmp_path: Path) -> None:
    """The start rates are a least-squares cubic over +/-0.05 s (``body.rate_window_s``) of the
    reference, low-passed at the diagram's ``data.ref_filter_hz`` (20 Hz). Without either, the
    spline's own edge derivative carries the marker noise: on walk1 it started the trunk at
    0.47 m/s while the reference moves at about 0.9-1.0 m/s, and the run fell at 1.50 s. The
    filter alone, without the window, measured 1.00 m/s."""
    speeds = {}
    for key, sets in (("both", ["body.rate_window_s=0.05"]), ("filter", ["body.rate_window_s=0"]),
                      ("neither", ["body.rate_window_s=0", "data.ref_filter_hz=0"])):
        out = tmp_path / key
        run_trial(shared_data, out, "walk1", "--duration", "0.3", *(a for s in sets for a in ("--set", s)))
        with np.load(out / "results.npz") as r:
            t, x0 = r["t"], r["body.q"][:, 0]
            speeds[key] = (float(r["body.qd"][0, 0]), float((x0[t >= 0.2][0] - x0[t >= 0.05][0])
                                                             / (t[t >= 0.2][0] - t[t >= 0.05][0])))
    for key in ("both", "filter"):
        start, later = speeds[key]
        assert 0.8 <= start <= 1.1 and abs(start - later) < 0.15, (key, speeds[key])
    assert speeds["neither"][0] < 0.6


def test_a_recording_without_a_trunk_marker_reports_no_trunk_range(runs: dict[str, tuple[dict[str, Any], float]],
                                                                   ) -> None:
    """demotu's marker sets have no trunk marker (alpha imported as 0): the recording's trunk range is
    None, not a 0..0 deg range that would read as a finding; OpenSim's IK has one."""
    assert runs["walk1"][0]["recording"]["trunk_deg"] is None
    rec = runs["subject01"][0]["recording"]["trunk_deg"]
    assert rec["min"] < -1.0 < rec["max"]
