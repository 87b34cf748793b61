"""The force account and the residual verdict against hand-computed numbers."""

from __future__ import annotations

import numpy as np
import pytest

from models.force_account import force_account, residual, residual_moment, verdict


def test_verdict_thresholds_follow_hicks_2015() -> None:
    assert [verdict(r) for r in (0.0, 0.05, 0.0501, 0.10, 0.11, float("nan"))] == [
        "good", "good", "acceptable", "acceptable", "poor", "poor"]


def test_residual_is_net_correction_against_peak_external_force() -> None:
    n = 1000
    rec = np.zeros((n, 4))
    rec[:, 1] = 600.0
    rec[500, 3] = 400.0  # peak resultant 1000 N
    corr = np.zeros((n, 4))
    corr[:, 0], corr[:, 2] = 30.0, -30.0  # the feet push on each other: internal, no net force
    corr[:, 3] = 20.0
    r = residual(rec, corr)
    assert r["peak_external_n"] == pytest.approx(1000.0)
    assert r["x"]["rms_n"] == pytest.approx(0.0) and r["y"]["rms_fraction"] == pytest.approx(0.02)
    assert r["verdict"] == "good"
    corr[:, 3] = 80.0
    assert residual(rec, corr)["verdict"] == "acceptable"


def test_stance_impulse_shares_and_units() -> None:
    t = np.arange(0.0, 1.0, 0.001)
    stance = np.zeros((t.size, 2), dtype=bool)
    stance[:, 0] = True  # left leg in stance throughout, right in swing
    est = np.tile([30.0, 0.0, -10.0, 0.0], (t.size, 1))
    fb = np.tile([0.0, 50.0, 0.0, 5.0], (t.size, 1))  # acts on the swing leg only: no stance share
    trunk = np.tile([-40.0, 0.0, 0.0, 0.0], (t.size, 1))
    rec = np.tile([0.0, 540.0, 0.0, 0.0], (t.size, 1))
    acc = force_account(t, stance, 55.0, 9.81, rec, np.zeros_like(rec),
                        {"estimator": est, "joint_feedback": fb, "trunk_balance": trunk})
    share = acc["stance_joint_impulse_share"]
    assert share["estimator"] == pytest.approx(40.0 / 80.0, rel=1e-3)
    assert share["trunk_balance"] == pytest.approx(40.0 / 80.0, rel=1e-3)
    assert share["joint_feedback"] == 0.0
    assert acc["recorded_grf"]["rms_bw"] == pytest.approx(540.0 / (55.0 * 9.81))
    assert acc["joint_feedback"]["peak_nm_per_kg"] == pytest.approx(50.0 / 55.0)


def test_residual_moment_is_the_correction_moment_about_the_com_plus_the_ground_moments() -> None:
    """``M_res = sum (p_contact - p_com) x F_corr + sum m_z``, against ``peak GRF x CoM height``."""
    n = 100
    rec = np.tile([0.0, 500.0, 0.0, 0.0], (n, 1))
    corr = np.zeros((n, 4))
    corr[:, 2] = 10.0  # 10 N forward on the right foot, 1 m below and 0.2 m ahead of the CoM
    contact = np.tile([-0.3, 0.0, 0.2, 0.0], (n, 1))
    com = np.tile([0.0, 1.0], (n, 1))
    mz = np.tile([0.0, 4.0], (n, 1))
    m = residual_moment(corr, contact, com, mz)
    np.testing.assert_allclose(m, 0.2 * 0.0 - (-1.0) * 10.0 + 4.0)  # 10 N m from the force, 4 from the CoP
    r = residual(rec, corr, m, com_height=1.0, mass=50.0)
    assert r["moment"]["rms_nm"] == pytest.approx(14.0) and r["moment"]["rms_nm_per_kg"] == pytest.approx(0.28)
    assert r["moment"]["rms_fraction"] == pytest.approx(14.0 / 500.0)
    assert r["moment_verdict"] == "poor"  # 2.8 % of peak GRF x CoM height: above the 1 % guidance
    small = residual(rec, corr, m * 0.3, com_height=1.0, mass=50.0)
    assert small["moment_verdict"] == "good"
    assert "moment" not in residual(rec, corr)  # no contact points or CoM given: force residual only


def test_speed_and_height_accounts_split_the_mean_by_newton() -> None:
    """A body under constant recorded and correction forces (closed form): the account gives each
    source's share of the mean speed and mean height, and the residual share from the motion alone
    equals the one from the sampled correction."""
    from models.force_account import height_account, speed_account

    m, g, D = 60.0, 9.81, 4.0
    t = np.linspace(0.0, D, 4001)
    f_rec, f_corr, v0 = np.array([12.0, m * g + 30.0]), np.array([-5.0, -18.0]), np.array([1.1, -0.05])
    a = (f_rec + f_corr - np.array([0.0, m * g])) / m
    x = 0.3 + v0[0] * t + 0.5 * a[0] * t ** 2
    y = 0.95 + v0[1] * t + 0.5 * a[1] * t ** 2
    rec = np.tile([f_rec[0] / 2, f_rec[1] / 2, f_rec[0] / 2, f_rec[1] / 2], (t.size, 1))  # two feet
    corr = np.tile([f_corr[0], f_corr[1], 0.0, 0.0], (t.size, 1))
    s = speed_account(t, x, v0[0], rec, corr, m)
    assert s["mean_m_s"] == pytest.approx(v0[0] + a[0] * D / 2)
    assert s["recorded_grf_m_s"] == pytest.approx(f_rec[0] * D / (2 * m), rel=1e-6)
    assert s["residual_m_s"] == pytest.approx(f_corr[0] * D / (2 * m), rel=1e-6)
    assert s["residual_sampled_m_s"] == pytest.approx(s["residual_m_s"], rel=1e-6)
    h = height_account(t, y, v0[1], rec, corr, m, g)
    assert h["mean_m"] == pytest.approx(0.95 + v0[1] * D / 2 + a[1] * D ** 2 / 6, rel=1e-6)
    assert h["initial_m"] == pytest.approx(0.95 + v0[1] * D / 2)
    assert h["recorded_grf_m"] == pytest.approx((f_rec[1] - m * g) * D ** 2 / (6 * m), rel=1e-5)
    assert h["residual_m"] == pytest.approx(f_corr[1] * D ** 2 / (6 * m), rel=1e-4)
    assert h["residual_sampled_m"] == pytest.approx(h["residual_m"], rel=1e-4)
