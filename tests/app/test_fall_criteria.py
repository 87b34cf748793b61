"""The fall criteria of :func:`app.walking.first_fall`: each one fires on its own, at the first tick
past its limit, names itself with the value that passed the limit, and a pose inside every limit is
not a fall."""

from __future__ import annotations

import numpy as np
import pytest

from app.walking import FALL_KNEE_RAD, FALL_SHANK_RAD, first_fall, status_text

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
    assert first_fall(T, q, hip, LEG, stance) is None


@pytest.mark.parametrize("limit", [FALL_KNEE_RAD[1], FALL_KNEE_RAD[0]], ids=["folded", "hyperextended"])
def test_a_knee_past_its_range_is_a_fall(limit: float) -> None:
    q, hip, stance = _standing()
    q[:, 6] = _ramp(2.0 * limit)  # the swing knee, so the stance-shank criterion plays no part
    i = np.flatnonzero(np.abs(q[:, 6]) > abs(limit))[0]
    fall = first_fall(T, q, hip, LEG, stance)
    assert fall is not None and fall.at_s == pytest.approx(T[i])
    word = "folded" if limit > 0 else "hyperextended"
    assert fall.cause == f"the right knee {word} to {np.degrees(q[i, 6]):.2f} deg (beyond {np.degrees(limit):.0f} deg)"
    assert first_fall(T, q, hip, LEG, None) == fall


def test_a_stance_shank_past_horizontal_is_a_fall_and_a_swing_shank_is_not() -> None:
    """The shank's absolute angle is ``alpha - beta + gamma``: rolled 120 deg with the knee straight
    (the thigh turned back by ``beta``) on the stance leg the body has fallen; the same on the swing leg
    is a leg in the air."""
    q, hip, stance = _standing()
    q[:, 3] = -_ramp(np.radians(120.0))  # left (stance) thigh, knee straight: shank = -beta
    i = np.flatnonzero(np.abs(q[:, 3]) > FALL_SHANK_RAD)[0]
    fall = first_fall(T, q, hip, LEG, stance)
    assert fall is not None and fall.at_s == pytest.approx(T[i])
    assert fall.cause == f"the left stance shank tilted {-np.degrees(q[i, 3]):+.0f} deg from vertical (past horizontal)"
    assert first_fall(T, q, hip, LEG, stance[:, ::-1]) is None  # the same leg in swing
    assert first_fall(T, q, hip, LEG, None) is None  # no stance flags: the criterion is off


def test_the_earliest_criterion_names_the_fall_and_the_status_line_says_it() -> None:
    """The trunk passes 60 deg at 0.61 s, the hip sinks below half a leg at 0.81 s: the trunk is the cause."""
    q, hip, stance = _standing()
    q[:, 2] = _ramp(np.radians(100.0))
    hip[:, 1] = LEG * (1.0 - 0.62 * T)
    fall = first_fall(T, q, hip, LEG, stance)
    assert fall is not None
    assert fall.at_s == pytest.approx(0.61)
    assert fall.cause == f"the trunk tilted to {np.degrees(q[61, 2]):+.2f} deg (beyond 60 deg)"
    q[:, 2] = 0.0
    hip_only = first_fall(T, q, hip, LEG, stance)
    assert hip_only is not None and hip_only.at_s == pytest.approx(0.81)
    assert hip_only.cause == f"the hip dropped to {hip[81, 1]:.3f} m (below half the leg, {0.5 * LEG:.3f} m)"
    summary = {"status": "fell", "fell_at_s": fall.at_s, "fell_because": fall.cause}
    assert status_text(summary) == f"FELL at 0.61 s: {fall.cause}"
    assert status_text({"status": "failed", "message": "x0 is nan"}) == "FAILED: x0 is nan"
