"""Building blocks of the generator against analytic answers."""

from __future__ import annotations

import numpy as np

from models.biped import FiveLinkBiped
from models.gaitgen.kinematics import leg_ik, pose_from_com
from models.gaitgen.shapes import (
    VerticalShape,
    bump,
    periodic_derivatives,
    periodic_double_integral,
    smoothstep7,
    with_mean,
)
from models.params import BipedParams


def test_smoothstep_and_bump_join_a_resting_foot() -> None:
    s = np.array([0.0, 0.5, 1.0])
    assert np.allclose(smoothstep7(s), [0.0, 0.5, 1.0])
    h = 1e-3
    assert abs((smoothstep7(np.array([h]))[0]) / h) < 1e-6      # zero slope at the start
    assert abs(bump(np.array([0.3]), 3.0, 7.0)[0] - 1.0) < 1e-12  # peak 1 at a / (a + b)


def test_spectral_derivatives_of_a_sine() -> None:
    T = 1.3
    t = np.arange(64) * T / 64
    y = np.sin(2 * np.pi * 3 * t / T)
    d1, d2 = periodic_derivatives(y, T)
    w = 2 * np.pi * 3 / T
    assert np.allclose(d1, w * np.cos(w * t), atol=1e-9)
    assert np.allclose(d2, -(w**2) * y, atol=1e-8)
    assert np.allclose(periodic_double_integral(-(w**2) * y + 5.0, T), y, atol=1e-12)


def test_vertical_shape_hits_its_knots_and_mean() -> None:
    shape = with_mean(VerticalShape(1.14, 0.21, 0.9, 0.5, 1.12, 0.77), 1.0 / 1.21)
    assert abs(shape.mean() - 1.0 / 1.21) < 1e-12
    s = np.linspace(0, 1, 20001)
    f = shape(s)
    assert abs(f.max() - 1.14) < 1e-9 and abs(s[np.argmax(f)] - 0.21) < 1e-3
    assert f[0] == 0.0 and f[-1] == 0.0 and f.min() >= 0.0


def test_pose_from_com_puts_com_and_feet_where_asked() -> None:
    pr = BipedParams.paper()
    biped = FiveLinkBiped(pr, backend="numpy")
    com = np.array([[0.05, 0.93], [0.10, 0.95]])
    alpha = np.deg2rad([4.0, -2.0])
    foot_l = np.array([[-0.25, 0.0], [-0.2, 0.05]])
    foot_r = np.array([[0.25, 0.0], [0.3, 0.0]])
    q, _ = pose_from_com(com, alpha, foot_l, foot_r, pr)
    pts = biped.points_batch(q)
    assert np.allclose(pts["com"], com, atol=1e-10)
    assert np.allclose(pts["foot_l"], foot_l, atol=1e-10)
    assert np.allclose(pts["foot_r"], foot_r, atol=1e-10)
    assert np.all(q[:, 5:7] > 0)                      # knees flexed forward
    hip = pts["hip"]
    beta, gamma, _, _ = leg_ik(hip, foot_r, alpha, pr)
    assert np.allclose(beta, q[:, 4]) and np.allclose(gamma, q[:, 6])
