"""Walking metrics on hand-built signals with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from models.gait_metrics import intervals, landings, takeoffs, walking_metrics


def test_intervals_and_events() -> None:
    f = np.array([1, 1, 0, 0, 1, 1, 1, 0, 1], dtype=bool)
    assert intervals(f) == [(0, 2), (4, 7), (8, 9)]
    np.testing.assert_array_equal(landings(f), [4, 8])
    np.testing.assert_array_equal(takeoffs(f), [2, 7])


def synthetic_walk(cycles: int = 4, T: float = 1.0, stride: float = 1.2, fs: int = 1000):
    """Point feet that land exactly every T s, 60 % stance, right foot half a cycle later."""
    t = np.arange(int(cycles * T * fs)) / fs
    ph = (t / T) % 1.0
    stance = np.stack([ph < 0.6, ((ph - 0.5) % 1.0) < 0.6], axis=1)
    feet = np.zeros((t.size, 4))
    for side, off in ((0, 0.0), (1, 0.5)):
        k = np.floor(t / T - off)
        feet[:, 2 * side] = (k + off) * stride
    q = np.zeros((t.size, 7))
    q[:, 2] = np.radians(3.0) + np.radians(2.0) * np.sin(2 * np.pi * t / T)
    q[:, 5] = np.radians(30.0) + np.radians(30.0) * np.sin(2 * np.pi * t / T)
    com = np.stack([t, 0.9 + 0.001 * t / T], axis=1)  # 1 mm rise per cycle
    tau = np.zeros((t.size, 4))
    tau[:, 0] = 55.0 * np.sin(t)
    tau[:, 3] = -27.5
    return t, q, stance, feet, com, tau


def test_metrics_known_answers() -> None:
    t, q, stance, feet, com, tau = synthetic_walk()
    q_ref = q.copy()
    q_ref[:, 3] += np.radians(2.0)  # constant 2 deg hip_l error
    m = walking_metrics(t, q, q_ref, stance, feet, com, tau, mass=55.0)
    assert m["rms_deg"]["hip_l"] == pytest.approx(2.0)
    assert m["rms_deg"]["knee_r"] == 0.0
    assert m["stride_length_m"] == pytest.approx(1.2)
    assert m["cadence_steps_per_min"] == pytest.approx(120.0, rel=1e-3)
    assert m["knee_range_deg"]["l"] == pytest.approx(60.0, abs=1e-3)
    assert m["trunk_deg"]["min"] == pytest.approx(1.0, abs=1e-3)
    assert m["trunk_deg"]["max"] == pytest.approx(5.0, abs=1e-3)
    assert m["stance_slip_m_max"] == 0.0
    assert m["cycles_completed"] == 2  # landings at t = 1, 2, 3 s: the stance at t = 0 is not a landing
    assert m["com_height_drift_m_per_cycle"] == pytest.approx(0.001, rel=1e-3)
    assert m["peak_torque_nm_per_kg"]["hip"] == pytest.approx(1.0, rel=1e-3)
    assert m["peak_torque_nm_per_kg"]["knee"] == pytest.approx(0.5)
    # left single support (R take-off at phase 0.1 -> L landing at 1.0): alpha = 3 + 2 sin(2 pi ph)
    w = m["trunk_deg"]["r_takeoff_to_l_landing"]
    assert w["max"] == pytest.approx(5.0, abs=1e-3) and w["min"] == pytest.approx(1.0, abs=1e-3)


def test_slip_and_height_detected() -> None:
    t, q, stance, feet, com, tau = synthetic_walk()
    feet[:, 0] += 0.03 * t  # left foot creeps 3 cm/s
    feet[:, 1] = -0.004
    m = walking_metrics(t, q, None, stance, feet, com, tau, mass=55.0)
    assert m["stance_slip_m_max"] == pytest.approx(0.03 * 0.6, rel=0.01)
    assert m["stance_height_m_max"] == pytest.approx(0.004)
    assert np.isnan(m["rms_deg"]["trunk"])
