"""models.initial_state: the vertical CoM velocity a recorded GRF can carry, and how the body gets it."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from grf_data.registry import load_dataset
from models.biped import FiveLinkBiped
from models.initial_state import periodic_vertical_velocity, with_com_velocity
from models.params import G_EARTH, BipedParams
from models.phase_warp import gait_events


@pytest.fixture(scope="module")
def sneakers():
    return load_dataset("sneakers")


def test_the_height_returns_after_whole_cycles_under_the_recorded_grf(sneakers) -> None:
    """Integrated independently (an ODE solver on the interpolated force), the CoM started with ``v_y0``
    is at the same height at the first and the last heel strike of the window, and a velocity 0.02 m/s
    off is not (it drifts 0.02 m/s times the span)."""
    ds = sneakers
    mass = ds.meta.body_mass_kg
    t0, t1 = ds.t[0] + 0.3, ds.t[0] + 5.3
    vy0 = periodic_vertical_velocity(ds.t, ds.grf, mass, G_EARTH, t0, t1)
    assert vy0 is not None
    fy = ds.grf[:, 1] + ds.grf[:, 3]

    def height(v0: float, at: np.ndarray) -> np.ndarray:
        sol = solve_ivp(lambda t, s: [s[1], np.interp(t, ds.t, fy) / mass - G_EARTH], (t0, t1), [0.0, v0],
                        t_eval=at, max_step=1e-3, rtol=1e-9, atol=1e-12)
        return sol.y[0]

    events = gait_events(ds.t, ds.grf)
    lefts = [te for te, k in events if k == "L_on" and t0 <= te <= t1]
    span = (lefts[0], lefts[-1])  # the left strikes span 4.45 s of this window, the right 3.34 s
    assert len(lefts) >= 4
    y = height(vy0, np.array(span))
    assert abs(y[1] - y[0]) < 2e-4  # m
    off = height(vy0 + 0.02, np.array(span))
    assert off[1] - off[0] == pytest.approx(0.02 * (span[1] - span[0]), rel=0.02)


def test_no_whole_cycle_gives_none(sneakers) -> None:
    """A window shorter than one cycle holds fewer than two strikes of either foot."""
    ds = sneakers
    assert periodic_vertical_velocity(ds.t, ds.grf, ds.meta.body_mass_kg, G_EARTH, ds.t[0], ds.t[0] + 0.5) is None


def _pose() -> tuple[FiveLinkBiped, np.ndarray, np.ndarray]:
    biped = FiveLinkBiped(BipedParams.paper().with_foot_radius(0.2))
    q = np.array([0.1, 0.9, 0.05, 0.3, -0.25, 0.35, 0.6])
    qd = np.array([1.1, -0.05, 0.2, 0.8, -1.5, 1.2, -2.0])
    return biped, q, qd


@pytest.mark.parametrize("side", [0, 1])
def test_with_com_velocity_changes_only_the_stance_leg_and_keeps_its_foot(side: int) -> None:
    biped, q, qd = _pose()
    before = biped.feet_state(q, qd)[4 * side + 2: 4 * side + 4].copy()
    vx = biped.com_state(q, qd)[2]
    out = with_com_velocity(biped, q, qd, side, np.array([vx, -0.12]))
    np.testing.assert_allclose(biped.com_state(q, out)[2:4], [vx, -0.12], atol=1e-12)
    np.testing.assert_allclose(biped.feet_state(q, out)[4 * side + 2: 4 * side + 4], before, atol=1e-12)
    kept = [2, 4 - side, 6 - side]  # the trunk and the other leg's hip and knee
    np.testing.assert_array_equal(out[kept], qd[kept])
    assert not np.allclose(out[[3 + side, 5 + side]], qd[[3 + side, 5 + side]])


def test_a_straight_stance_knee_cannot_change_the_com_velocity() -> None:
    """At a straight knee with the trunk upright and the leg vertical the leg's length rate is zero: the
    system is singular and the caller is told, not handed huge rates."""
    biped, _, qd = _pose()
    q = np.array([0.0, 0.9, 0.0, 0.0, -0.3, 0.0, 0.5])
    with pytest.raises(ValueError, match="too straight"):
        with_com_velocity(biped, q, qd, 0, np.array([1.0, -0.1]))
