"""The fall criteria of :func:`app.walking.fall_time`: each one fires on its own, at the first tick
past its limit, and a pose inside every limit is not a fall."""

from __future__ import annotations

import numpy as np
import pytest

from app.walking import FALL_KNEE_RAD, FALL_SHANK_RAD, fall_time

T = np.linspace(0.0, 1.0, 101)
LEG = 0.9  # m


def _standing() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q (x, y, alpha, beta_l, beta_r, gamma_l, gamma_r), hip points and stance flags of a body
    standing on its left leg with the right leg in swing."""
    q = np.zeros((T.size, 7))
    q[:, 1] = 0.9
    hip = np.column_stack([np.zeros(T.size), np.full(T.size, LEG)])
    stance = np.column_stack([np.ones(T.size), np.zeros(T.size)])
    return q, hip, stance


def _ramp(stop: float) -> np.ndarray:
    """0 at t = 0 to ``stop`` at t = 1 s."""
    return T * stop


def test_a_pose_inside_every_limit_has_not_fallen() -> None:
    q, hip, stance = _standing()
    q[:, 5] = np.radians(65.0)  # swing-sized knee flexion on both legs
    q[:, 6] = np.radians(65.0)
    assert fall_time(T, q, hip, LEG, stance) is None


@pytest.mark.parametrize("limit", [FALL_KNEE_RAD[1], FALL_KNEE_RAD[0]], ids=["folded", "hyperextended"])
def test_a_knee_past_its_range_is_a_fall(limit: float) -> None:
    q, hip, stance = _standing()
    q[:, 6] = _ramp(2.0 * limit)  # the swing knee, so the stance-shank criterion plays no part
    first = T[np.flatnonzero(np.abs(q[:, 6]) > abs(limit))[0]]
    assert fall_time(T, q, hip, LEG, stance) == pytest.approx(first)
    assert fall_time(T, q, hip, LEG, None) == pytest.approx(first)


def test_a_stance_shank_past_horizontal_is_a_fall_and_a_swing_shank_is_not() -> None:
    """The shank's absolute angle is ``alpha - beta + gamma``: rolled 120 deg with the knee straight
    (the thigh turned back by ``beta``) on the stance leg the body has fallen; the same on the swing leg
    is a leg in the air."""
    q, hip, stance = _standing()
    q[:, 3] = -_ramp(np.radians(120.0))  # left (stance) thigh, knee straight: shank = -beta
    first = T[np.flatnonzero(np.abs(q[:, 3]) > FALL_SHANK_RAD)[0]]
    assert fall_time(T, q, hip, LEG, stance) == pytest.approx(first)
    assert fall_time(T, q, hip, LEG, stance[:, ::-1]) is None  # the same leg in swing
    assert fall_time(T, q, hip, LEG, None) is None  # no stance flags: the criterion is off
