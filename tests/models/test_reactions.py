"""Joint reactions: Blajer-Czaplicki augmented scheme, classical formula, Newton-Euler."""

from __future__ import annotations

import numpy as np
import pytest

from models import newton_euler
from models.biped import BipedParams, FiveLinkBiped
from models.reactions import maximal_terms, reactions_augmented, reactions_classical
from models.validation import consistency, random_states


@pytest.mark.parametrize("params", [BipedParams.paper(), BipedParams.scaled(mass=72.6, height=1.80)])
def test_three_formulations_agree_on_random_states(params: BipedParams) -> None:
    biped = FiveLinkBiped(params, backend="numpy")
    Q, QD, TAU, GRF = random_states(400, seed=31)
    QDD = biped.forward_dynamics_batch(Q, QD, TAU, GRF)
    aug = reactions_augmented(params, Q, QD, QDD, GRF)
    cls = reactions_classical(params, Q, QD, TAU, GRF)
    for i in range(0, 400, 4):
        ne = newton_euler.solve(params, Q[i], QD[i], TAU[i], GRF[i])
        ref = np.concatenate([ne.hip_force.ravel(), ne.knee_force.ravel()])
        scale = np.abs(ref).max()
        assert np.max(np.abs(aug[i] - ref)) <= 1e-9 * scale
        assert np.max(np.abs(cls[i] - ref)) <= 1e-9 * scale
    assert np.max(np.abs(aug - cls) / np.abs(cls).max(axis=1, keepdims=True)) <= 1e-9


def test_structure_of_the_augmented_coordinates() -> None:
    params = BipedParams.paper()
    Q, QD, TAU, GRF = random_states(20, seed=4)
    t = maximal_terms(params, Q, QD, TAU, GRF)
    biped = FiveLinkBiped(params, backend="numpy")
    for i in range(20):
        np.testing.assert_allclose(t.C[i] @ t.D[i], 0.0, atol=1e-13)  # C D = 0
        np.testing.assert_allclose(t.C[i] @ t.E, np.eye(8), atol=1e-13)  # C E = I
        np.testing.assert_allclose(t.D[i].T @ np.diag(t.MM) @ t.D[i], biped.mass_matrix(Q[i]), atol=1e-12)
    assert set(np.unique(t.E)) == {0.0, 1.0}


def test_quiet_standing_signs() -> None:
    # upright, straight legs, each foot carrying half the weight: the trunk pushes the thighs
    # down, the thighs push the shanks down, with the weight above each joint
    params = BipedParams.paper()
    g, m0, m1, m2 = params.g, params.trunk.mass, params.thigh.mass, params.shank.mass
    weight = params.total_mass * g
    q = np.array([0.0, 1.2, 0.0, 0.0, 0.0, 0.0, 0.0])
    grf = np.array([0.0, weight / 2, 0.0, weight / 2])
    qdd = FiveLinkBiped(params, backend="numpy").forward_dynamics(q, np.zeros(7), np.zeros(4), grf)
    np.testing.assert_allclose(qdd, 0.0, atol=1e-12)
    f = reactions_augmented(params, q, np.zeros(7), qdd, grf)
    np.testing.assert_allclose(f[[1, 3]], -m0 * g / 2, rtol=1e-12)  # hip y, both sides
    np.testing.assert_allclose(f[[5, 7]], -(m0 / 2 + m1) * g, rtol=1e-12)  # knee y
    np.testing.assert_allclose(f[[0, 2, 4, 6]], 0.0, atol=1e-9)
    np.testing.assert_allclose(reactions_classical(params, q, np.zeros(7), np.zeros(4), grf), f, atol=1e-9)
    assert m2 > 0


def test_consistency_rows_pass() -> None:
    rows = consistency(n=50)
    assert len(rows) == 5
    for row in rows:
        assert row.passed and row.value < 1e-11, row
