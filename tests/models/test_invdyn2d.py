"""Recursive 2D inverse dynamics: analytic cases, the filter, and two published references."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import scipy.io

from models.invdyn2d import (
    Leg2dOptions,
    SegmentMotion,
    chain_inverse_dynamics,
    sagittal_leg,
    second_difference,
    segment_inverse_dynamics,
    winter_lowpass,
)
from models.validation import GATK_BODY_MASS, GATK_REFERENCE_OPTIONS, vdb_running


def _static(mass: float, inertia: float, prox: tuple[float, float], dist: tuple[float, float], com: float,
            n: int = 3) -> SegmentMotion:
    p, d = np.tile(prox, (n, 1)), np.tile(dist, (n, 1))
    return SegmentMotion(mass, inertia, p + com * (d - p), np.zeros((n, 2)), np.zeros(n), p, d)


def test_horizontal_segment_held_by_its_joint() -> None:
    # a 2 kg rod sticking out forward (+x) from its proximal joint, CoM 0.3 m out: the joint
    # must hold 2 g up and a counter-clockwise moment m g r
    seg = _static(2.0, 0.05, (0.0, 1.0), (0.8, 1.0), 0.375)
    f, m = segment_inverse_dynamics(seg, np.zeros((3, 2)), seg.distal, 0.0, g=9.81)
    np.testing.assert_allclose(f, [[0.0, 2 * 9.81]] * 3, atol=1e-12)
    np.testing.assert_allclose(m, 2 * 9.81 * 0.3, rtol=1e-12)


def test_standing_leg_on_the_ground_carries_the_load_down_the_chain() -> None:
    # straight vertical leg, 700 N up at the foot
    foot = _static(1.0, 0.004, (0.0, 0.08), (0.1, 0.0), 0.5)
    shank = _static(3.0, 0.04, (0.0, 0.5), (0.0, 0.08), 0.43)
    thigh = _static(7.0, 0.1, (0.0, 0.9), (0.0, 0.5), 0.43)
    cop = np.tile([0.0, 0.0], (3, 1))
    (fa, ma), (fk, mk), (fh, mh) = chain_inverse_dynamics([foot, shank, thigh], np.tile([0.0, 700.0], (3, 1)),
                                                          cop, 0.0, g=10.0)
    np.testing.assert_allclose(fa[:, 1], -700 + 10, atol=1e-12)  # force on the foot from the shank
    np.testing.assert_allclose(fk[:, 1], -700 + 40, atol=1e-12)
    np.testing.assert_allclose(fh[:, 1], -700 + 110, atol=1e-12)
    # the foot CoM is 0.05 m ahead of the ankle and the GRF acts under the ankle, so the
    # foot's weight needs a dorsiflexor (counter-clockwise) 0.5 N m, passed unchanged up the
    # vertical leg, where all other forces are axial
    np.testing.assert_allclose(ma, 10 * 0.05, atol=1e-12)
    np.testing.assert_allclose(mk, 0.5, atol=1e-12)
    np.testing.assert_allclose(mh, 0.5, atol=1e-12)


def test_second_difference_is_exact_on_a_parabola() -> None:
    t = np.linspace(0, 1, 101)
    np.testing.assert_allclose(second_difference(3 * t**2 - t, t[1] - t[0]), 6.0, rtol=1e-9)


def test_winter_lowpass_passes_slow_motion_with_its_derivatives() -> None:
    t = np.arange(0, 10, 0.01)
    x = np.sin(2 * np.pi * 0.5 * t)
    y, yd, ydd = winter_lowpass(t, x, 6.0)
    mid = slice(200, -200)
    w = 2 * np.pi * 0.5
    assert np.max(np.abs(y - x)[mid]) < 2e-3
    assert np.max(np.abs(yd - w * np.cos(w * t))[mid]) < 0.02 * w
    assert np.max(np.abs(ydd + w**2 * x)[mid]) < 0.03 * w**2
    fast = np.sin(2 * np.pi * 20 * t)
    assert np.max(np.abs(winter_lowpass(t, fast, 6.0)[0][mid])) < 0.02  # 12th-power roll-off at 20 Hz


def test_winter_lowpass_rejects_unsorted_time() -> None:
    with pytest.raises(ValueError, match="strictly increasing"):
        winter_lowpass(np.array([0.0, 0.2, 0.1]), np.zeros(3), 6.0)


def test_van_den_bogert_running_within_one_percent(shared_data: Path) -> None:
    rows, plots = vdb_running(shared_data)
    assert len(rows) == 6 and len(plots) == 6
    for row in rows:
        assert row.value < 1.0, row
    # moments are an order better than the bound; joint forces three orders
    assert max(r.value for r in rows if "moment" in r.measure) < 0.5
    assert max(r.value for r in rows if "force" in r.measure) < 0.02


def _gatk(shared_data: Path) -> tuple[np.ndarray, np.ndarray]:
    base = shared_data / "csu-hmc-GaitAnalysisToolKit"
    raw = np.genfromtxt(base / "rawdata.txt", comments="%")
    ref = scipy.io.loadmat(str(base / "refresults.mat"))["refresults"]
    return raw, ref


def test_gait_analysis_toolkit_reference_reproduced(shared_data: Path) -> None:
    raw, ref = _gatk(shared_data)
    assert np.isnan(raw).sum() == 22  # missing markers are filtered around and interpolated
    r = sagittal_leg(raw[:, 0], raw[:, 1:13], raw[:, 13:16] / GATK_BODY_MASS, GATK_REFERENCE_OPTIONS)
    ours = np.hstack([r.angles, r.velocities, r.moments, r.forces])
    assert np.all(np.isfinite(ours))
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-10)


def test_winter_parameters_differ_from_the_reference_mainly_at_the_hip(shared_data: Path) -> None:
    raw, ref = _gatk(shared_data)
    r = sagittal_leg(raw[:, 0], raw[:, 1:13], raw[:, 13:16] / GATK_BODY_MASS, Leg2dOptions())
    span = np.ptp(ref[:, 6:9], axis=0)
    err = np.sqrt(np.mean((r.moments - ref[:, 6:9]) ** 2, axis=0)) / span
    assert err[0] > 0.05 and err[2] < 0.02  # hip far off, ankle (foot parameters shared) close
    # the angles hardly depend on the segment parameters: only on the filter
    assert np.max(np.sqrt(np.mean((r.angles - ref[:, :3]) ** 2, axis=0)) / np.ptp(ref[:, :3], axis=0)) < 0.02
