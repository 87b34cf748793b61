"""The scalar numba helpers behind the analysis blocks' kernels agree with the numpy formulations.

:func:`models._eom_numba.joint_reactions_one` against :func:`models.reactions.reactions_augmented`
(itself checked against Newton-Euler), :func:`models._eom_numba.decomposition_one` against
:func:`models.decomposition.biped_decomposition`, :func:`models._eom_numba.forward_dynamics_into`
against the numpy forward dynamics; point and rolling feet, on random states with large rates.
"""

from __future__ import annotations

import numpy as np
import pytest

from models import _eom_numba as nb
from models.biped import BipedParams, FiveLinkBiped
from models.decomposition import biped_decomposition
from models.reactions import reactions_augmented
from models.segment_trig import segment_trig_into
from models.validation import random_states

pytestmark = pytest.mark.skipif(not nb.AVAILABLE, reason="numba not installed")

PARAMS = [BipedParams.paper(), BipedParams.scaled(mass=72.6, height=1.80).with_foot_radius(0.12)]


def _scaled(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b)) / (1.0 + np.max(np.abs(a))))


@pytest.mark.parametrize("params", PARAMS)
def test_forward_dynamics_into_matches_numpy(params: BipedParams) -> None:
    biped = FiveLinkBiped(params, backend="numpy")
    Q, QD, TAU, GRF = random_states(60, seed=8)
    MZ = np.random.default_rng(3).normal(0.0, 20.0, (60, 2))
    out = np.empty(7)
    for i in range(60):
        ref = biped.forward_dynamics(Q[i], QD[i], TAU[i], GRF[i], MZ[i])
        got = nb.forward_dynamics_into(params.as_array(), Q[i], QD[i], TAU[i], GRF[i], MZ[i], out)
        assert _scaled(ref, got) <= 1e-12


@pytest.mark.parametrize("params", PARAMS)
def test_reactions_and_decomposition_match_numpy(params: BipedParams) -> None:
    biped = FiveLinkBiped(params, backend="numpy")
    Q, QD, TAU, GRF = random_states(60, seed=19)
    QDD = biped.forward_dynamics_batch(Q, QD, TAU, GRF)
    p = params.as_array()
    react, parts = np.empty(8), [np.empty(4) for _ in range(4)]
    worst = 0.0
    for i in range(60):
        ref = reactions_augmented(params, Q[i], QD[i], QDD[i], GRF[i])
        worst = max(worst, _scaled(ref, nb.joint_reactions_one(p, Q[i], QD[i], QDD[i], GRF[i], react)))
        dec = biped_decomposition(biped, Q[i], QD[i], QDD[i], GRF[i])
        nb.decomposition_one(p, Q[i], QD[i], QDD[i], GRF[i], *parts)
        for want, got in zip((dec.inertial, dec.coriolis, dec.gravity, dec.external), parts):
            worst = max(worst, _scaled(want, got))
        np.testing.assert_allclose(sum(parts), TAU[i], rtol=0, atol=1e-9 * (1 + np.abs(TAU[i]).max()))
    assert worst <= 1e-12


def test_a_wrong_formula_would_be_caught() -> None:
    """The comparison is sensitive: the reactions of a state with a different shank mass differ."""
    params = BipedParams.paper()
    Q, QD, TAU, GRF = random_states(1, seed=2)
    qdd = FiveLinkBiped(params).forward_dynamics(Q[0], QD[0], TAU[0], GRF[0])
    p = params.as_array()
    p[10] *= 1.001
    got = nb.joint_reactions_one(p, Q[0], QD[0], qdd, GRF[0], np.empty(8))
    assert _scaled(reactions_augmented(params, Q[0], QD[0], qdd, GRF[0]), got) > 1e-6


@pytest.mark.parametrize("params", PARAMS)
def test_com_contact_x_is_the_horizontal_part_of_the_com_and_feet_states(params: BipedParams) -> None:
    biped = FiveLinkBiped(params, backend="numpy")
    Q, QD, _, _ = random_states(40, seed=5)
    p = params.as_array()
    for q, qd in zip(Q, QD):
        com, feet = biped.com_state(q, qd), biped.feet_state(q, qd)
        got = np.array(nb.com_contact_x(p, q, qd, segment_trig_into(q, np.empty(10))))
        assert _scaled(np.array([com[0], com[2], feet[0], feet[4]]), got) <= 1e-12


@pytest.mark.parametrize("params", PARAMS)
def test_lower_triangle_mass_matrix_is_the_numpy_one(params: BipedParams) -> None:
    """``_assemble`` fills only the lower triangle (what the Cholesky solve reads); mirrored, it is the
    numpy mass matrix, and the upper triangle it leaves is never read: poisoned with nan, the solve
    still gives the numpy accelerations."""
    biped = FiveLinkBiped(params, backend="numpy")
    Q, QD, TAU, GRF = random_states(40, seed=5)
    MZ = np.zeros(2)
    p = params.as_array()
    for i in range(40):
        M, b = np.full((7, 7), np.nan), np.zeros(7)
        nb._assemble(p, Q[i], QD[i], TAU[i], GRF[i], MZ, M, b)
        assert np.isnan(M[np.triu_indices(7, 1)]).all()
        x = np.zeros(7)
        lower = M.copy()
        nb._cholesky_solve(lower, b.copy(), x)
        assert _scaled(biped.forward_dynamics(Q[i], QD[i], TAU[i], GRF[i], MZ), x) <= 1e-12
        nb._mirror(M)
        assert np.array_equal(M, M.T)
        assert _scaled(biped.mass_matrix(Q[i]), M) <= 1e-13
