"""Point kinematics, the constraint manifold and its derivatives, against finite differences
and the published consistent initial state of Andrews' squeezer."""

from __future__ import annotations

import numpy as np
import pytest

from models.mechanism import NumericalDiff, PreModel, Projection, build
from models.mechanism.geometry import point
from models.mechanism.library import SQUEEZER_Y0
from models.mechanism.manifold import continuation

NAMES = ("four_bar", "four_bar_crank", "five_bar", "andrews_squeezer")


def test_point_jacobian_and_convective_term_match_finite_differences() -> None:
    rng = np.random.default_rng(3)
    e = point(3, [([0], (1.3, 0.2)), ([0, 1], (0.7, -0.4), 0.3), ([0, 1, 2], (2.0, 0.5))], (0.5, -1.0))
    f, fd = rng.normal(size=3), rng.normal(size=3)
    h = 1e-6
    J_fd = np.column_stack([(e.position(f + h * d) - e.position(f - h * d)) / (2 * h) for d in np.eye(3)])
    np.testing.assert_allclose(e.jacobian(f), J_fd, atol=1e-8)
    # d/dt (J fd) with fdd = 0 is the convective term
    kappa_fd = (e.jacobian(f + h * fd) @ fd - e.jacobian(f - h * fd) @ fd) / (2 * h)
    np.testing.assert_allclose(e.convective(f, fd), kappa_fd, atol=1e-7)


@pytest.mark.parametrize("name", NAMES)
def test_projection_derivatives_match_numerical_differentiation(name: str) -> None:
    mech = build(name)
    q = mech.coord_values(mech.f_guess) + 0.1
    f0 = continuation(mech, q)
    f, F, H = Projection(mech).evaluate(q, f0)
    assert np.max(np.abs(mech.residual(f, q))) < 1e-12
    fn, Fn, Hn = NumericalDiff(mech, 1e-4).evaluate(q, f0)
    np.testing.assert_allclose(F, Fn, rtol=0, atol=1e-7 * (1 + np.abs(F).max()))
    np.testing.assert_allclose(H, Hn, rtol=0, atol=1e-4 * (1 + np.abs(H).max()))


def test_squeezer_initial_state_is_the_published_consistent_one() -> None:
    mech = build("andrews_squeezer")
    f = mech.solve(np.array(SQUEEZER_Y0[:1]), np.array(SQUEEZER_Y0) + 0.01)
    np.testing.assert_allclose(f, SQUEEZER_Y0, atol=1e-13)


def test_premodel_follows_the_crank_over_several_turns() -> None:
    mech = build("andrews_squeezer")
    pm = PreModel(mech, step=0.01)
    proj = Projection(mech)
    f = mech.f_guess
    for beta in np.linspace(-0.06, 16.0, 60):
        f = continuation(mech, np.array([beta]), f, step=0.2)
        fp, F, H = pm.evaluate(np.array([beta]))
        _, Fx, Hx = proj.evaluate(np.array([beta]), f)
        np.testing.assert_allclose(fp, f, atol=1e-9)
        np.testing.assert_allclose(F, Fx, atol=1e-7)
        np.testing.assert_allclose(H, Hx, atol=1e-5 * (1 + np.abs(Hx).max()))
    assert pm.winding[1] == pytest.approx(-2 * np.pi)  # Theta loses a turn per crank turn


def test_solve_outside_the_range_of_motion_raises_a_clear_error() -> None:
    from models.mechanism import ConstraintError

    mech = build("four_bar")
    with pytest.raises(ConstraintError, match="no solution near the guess"):
        mech.solve(np.array([10.0]))
