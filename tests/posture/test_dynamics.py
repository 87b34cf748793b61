"""The CasADi equations of motion against the project's numpy and numba dynamics."""

from __future__ import annotations

import numpy as np
import pytest

from models.biped import BipedParams, FiveLinkBiped
from models.posture.dynamics import SymbolicBiped


@pytest.mark.parametrize("params", [BipedParams.paper(), BipedParams.scaled(72.6, 1.8)], ids=["paper", "scaled"])
def test_casadi_inverse_dynamics_matches_the_biped_at_random_states(params: BipedParams) -> None:
    sym = SymbolicBiped.build(params)
    rng = np.random.default_rng(7)
    numpy_biped = FiveLinkBiped(params, backend="numpy")
    numba_biped = FiveLinkBiped(params, backend="numba")
    for _ in range(20):
        q, qd, qdd = rng.normal(size=7), rng.normal(size=7) * 2, rng.normal(size=7) * 10
        grf, mz = rng.normal(size=4) * 400, rng.normal(size=2) * 30
        gen = np.asarray(sym.inverse_dynamics(q, qd, qdd, grf, mz, 0.0)).ravel()
        for biped in (numpy_biped, numba_biped):
            # M qdd - rhs(q, qd, 0, grf, mz): the generalised force joints or residuals must supply
            expected = biped.mass_matrix(q) @ qdd - biped.rhs(q, qd, np.zeros(4), grf, mz)
            np.testing.assert_allclose(gen, expected, rtol=0, atol=1e-9 * max(1.0, np.abs(expected).max()))


def test_points_match_the_biped() -> None:
    params = BipedParams.paper()
    sym = SymbolicBiped.build(params)
    q = np.array([0.1, 1.2, 0.05, 0.3, -0.2, 0.4, 0.1])
    hip, knee_l, knee_r, foot_l, foot_r, com = (np.asarray(v).ravel() for v in sym.points(q, 0.0))
    pts = FiveLinkBiped(params).points(q)
    for name, value in (("hip", hip), ("knee_l", knee_l), ("knee_r", knee_r), ("foot_l", foot_l),
                        ("foot_r", foot_r), ("com", com)):
        np.testing.assert_allclose(value, pts[name], atol=1e-12)


def test_a_rolling_foot_is_refused() -> None:
    with pytest.raises(ValueError, match="point feet"):
        SymbolicBiped.build(BipedParams.paper().with_foot_radius(0.2))


def test_the_trunk_com_shift_is_a_model_with_the_trunk_com_moved() -> None:
    from dataclasses import replace

    params = BipedParams.paper()
    moved = replace(params, trunk=replace(params.trunk, com=params.trunk.com + 0.02))
    sym = SymbolicBiped.build(params)
    biped = FiveLinkBiped(moved, backend="numpy")
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.normal(size=7), rng.normal(size=7), rng.normal(size=7) * 5
    grf, mz = rng.normal(size=4) * 300, np.zeros(2)
    gen = np.asarray(sym.inverse_dynamics(q, qd, qdd, grf, mz, 0.02)).ravel()
    expected = biped.mass_matrix(q) @ qdd - biped.rhs(q, qd, np.zeros(4), grf, mz)
    np.testing.assert_allclose(gen, expected, atol=1e-9)
    unmoved = np.asarray(sym.inverse_dynamics(q, qd, qdd, grf, mz, 0.0)).ravel()
    assert np.abs(unmoved - expected).max() > 1.0
