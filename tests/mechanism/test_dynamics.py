"""Embedded (minimal-coordinate) and DAE dynamics: energy, constraints, agreement, reference."""

from __future__ import annotations

import numpy as np
import pytest

from models.mechanism import Embedded, PreModel, Projection, build
from models.mechanism.dae import DAE
from models.mechanism.library import SQUEEZER, SQUEEZER_REFERENCE, SQUEEZER_Y0


@pytest.mark.parametrize("name", ["four_bar_crank", "five_bar"])
def test_energy_is_conserved_without_torques(name: str) -> None:
    mech = build(name)
    emb = Embedded(mech, Projection(mech))
    run = emb.simulate(1.5, rtol=1e-11, atol=1e-11, n_out=31)
    E = np.array([mech.energy(f, fd) for f, fd in zip(run.f, run.fd)])
    swing = max(np.ptp(run.q), 0.1)
    assert swing > 0.1  # it moves
    kinetic_peak = max(0.5 * fd @ mech.mass_matrix_f(f) @ fd for f, fd in zip(run.f, run.fd))
    assert np.max(np.abs(E - E[0])) < 1e-7 * kinetic_peak
    # the constraints hold at every output (exact solve)
    assert max(np.max(np.abs(mech.loop_residual(f))) for f in run.f) < 1e-12


def test_squeezer_work_of_the_drive_torque_equals_the_energy_gain() -> None:
    mech = build("andrews_squeezer")
    run = Embedded(mech).simulate(0.01, rtol=1e-11, atol=1e-11, n_out=11)
    E = np.array([mech.energy(f, fd) for f, fd in zip(run.f, run.fd)])
    work = SQUEEZER["mom"] * (run.q[:, 0] - run.q[0, 0])
    np.testing.assert_allclose(E - E[0], work, rtol=0, atol=1e-8 * np.max(np.abs(work)))


def test_squeezer_initial_accelerations_are_the_published_ones() -> None:
    mech = build("andrews_squeezer")
    emb = Embedded(mech)
    qdd = emb.accel(np.array(SQUEEZER_Y0[:1]), np.zeros(1))
    f, F, H = emb.joints(np.array(SQUEEZER_Y0[:1]))
    fdd = F @ qdd
    # Hairer & Wanner / test set: w(0) = (14222.4439199541..., -10666.8329399655..., 0, ...)
    assert fdd[0] == pytest.approx(14222.4439199541138705911625887, rel=1e-12)
    assert fdd[1] == pytest.approx(-10666.8329399655854029433719415, rel=1e-12)
    assert np.max(np.abs(fdd[2:])) < 1e-9


def test_squeezer_matches_the_published_reference_at_0_03s() -> None:
    mech = build("andrews_squeezer")
    run = Embedded(mech).simulate(0.03, rtol=1e-12, atol=1e-12, n_out=2)
    ref = np.array(SQUEEZER_REFERENCE)
    assert np.max(np.abs(run.f[-1] - ref) / np.abs(ref)) < 1e-7


def test_embedded_and_dae_agree_on_the_squeezer() -> None:
    mech = build("andrews_squeezer")
    emb = Embedded(mech).simulate(0.03, rtol=1e-10, atol=1e-10, n_out=61)
    dae = DAE(mech, "baumgarte", alpha=2000.0, beta=2000.0).simulate(0.03, rtol=1e-10, atol=1e-10, n_out=61)
    # Ehsani reports 1e-4 rad and 3e-3 rad/s RMS between its two methods
    assert np.sqrt(np.mean((emb.q[:, 0] - dae.q[:, 0]) ** 2)) < 1e-6
    assert np.sqrt(np.mean((emb.qd[:, 0] - dae.fd[:, 0]) ** 2)) < 1e-4 * np.max(np.abs(emb.qd))
    assert dae.drift_pos < 1e-9 and dae.drift_vel < 1e-6


def test_dae_drifts_without_stabilisation_and_projection_removes_it() -> None:
    mech = build("five_bar")
    free = DAE(mech, "baumgarte", alpha=0.0, beta=0.0).simulate(2.0, rtol=1e-6, atol=1e-6, n_out=21)
    proj = DAE(mech, "projection", proj_dt=0.05).simulate(2.0, rtol=1e-6, atol=1e-6, n_out=21)
    final = max(np.max(np.abs(mech.loop_residual(f))) for f in proj.f)
    assert free.drift_pos > 10 * final
    assert final < 1e-12


def test_five_bar_embedded_and_dae_agree() -> None:
    mech = build("five_bar")
    emb = Embedded(mech).simulate(1.0, rtol=1e-10, atol=1e-10, n_out=21)
    dae = DAE(mech, "baumgarte", alpha=20.0, beta=20.0).simulate(1.0, rtol=1e-10, atol=1e-10, n_out=21)
    np.testing.assert_allclose(emb.f, dae.f, atol=1e-6)


def test_spline_variant_keeps_constraints_to_its_interpolation_error() -> None:
    mech = build("andrews_squeezer")
    run = Embedded(mech, PreModel(mech, step=0.01)).simulate(0.03, rtol=1e-10, atol=1e-10, n_out=31)
    residual = max(np.max(np.abs(mech.loop_residual(f))) for f in run.f)
    assert residual < 1e-9  # m; the mechanism is ~0.1 m across
    ref = np.array(SQUEEZER_REFERENCE)
    assert np.max(np.abs(run.f[-1] - ref) / np.abs(ref)) < 1e-6
