"""M/C/G/E torque decomposition: the parts sum to the total, against independent formulations."""

from __future__ import annotations

import numpy as np

from models.biped import BipedParams, FiveLinkBiped
from models.decomposition import TwoLinkArm, biped_decomposition, minimum_jerk
from models.invdyn2d import SegmentMotion, chain_inverse_dynamics
from models.validation import random_states


def test_biped_parts_sum_to_inverse_dynamics() -> None:
    biped = FiveLinkBiped(BipedParams.paper(), backend="numpy")
    Q, QD, TAU, GRF = random_states(60, seed=5)
    QDD = biped.forward_dynamics_batch(Q, QD, TAU, GRF)
    dec = biped_decomposition(biped, Q, QD, QDD, GRF)
    tau, residual = biped.inverse_dynamics(Q, QD, QDD, GRF)
    np.testing.assert_allclose(dec.total, tau, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(dec.total, TAU, rtol=1e-9, atol=1e-9 * np.abs(TAU).max())
    assert dec.residual is not None and np.abs(dec.residual).max() < 1e-8
    np.testing.assert_allclose(dec.residual, residual, atol=1e-9)
    # every part is a real contribution on random states
    for part in (dec.inertial, dec.coriolis, dec.gravity, dec.external):
        assert np.abs(part).max() > 1.0


def test_biped_static_posture_is_all_gravity() -> None:
    biped = FiveLinkBiped(BipedParams.paper(), backend="numpy")
    q = np.array([0.0, 1.0, 0.1, 0.5, -0.2, 0.3, 0.6])
    dec = biped_decomposition(biped, q, np.zeros(7), np.zeros(7))
    assert dec.inertial.shape == (4,)
    np.testing.assert_allclose(dec.inertial, 0.0, atol=1e-14)
    np.testing.assert_allclose(dec.coriolis, 0.0, atol=1e-14)
    np.testing.assert_allclose(dec.external, 0.0, atol=1e-14)
    # the right shank hangs at th2 = alpha - beta + gamma = 0.9 rad (clockwise, foot behind
    # the knee); its weight turns it counter-clockwise, so the knee must push clockwise (+)
    p = biped.params
    th2 = 0.1 + 0.2 + 0.6
    np.testing.assert_allclose(dec.gravity[3], p.shank.mass * p.g * p.shank.com * np.sin(th2), rtol=1e-12)


def _arm_newton_euler(arm: TwoLinkArm, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray) -> np.ndarray:
    """Shoulder and elbow torques by the recursive method of models.invdyn2d."""
    q1, q12 = q[:, 0], q[:, 0] + q[:, 1]
    w1, w12 = qd[:, 0], qd[:, 0] + qd[:, 1]
    a1, a12 = qdd[:, 0], qdd[:, 0] + qdd[:, 1]

    def u(a: np.ndarray) -> np.ndarray:
        return np.column_stack([np.cos(a), np.sin(a)])

    def n(a: np.ndarray) -> np.ndarray:
        return np.column_stack([-np.sin(a), np.cos(a)])

    shoulder = np.zeros_like(q)
    elbow = arm.l1 * u(q1)
    acc_elbow = arm.l1 * (a1[:, None] * n(q1) - w1[:, None] ** 2 * u(q1))
    upper = SegmentMotion(arm.m1, arm.inertia1, arm.d1 * u(q1),
                          arm.d1 * (a1[:, None] * n(q1) - w1[:, None] ** 2 * u(q1)), a1, shoulder, elbow)
    fore = SegmentMotion(arm.m2, arm.inertia2, elbow + arm.d2 * u(q12),
                         acc_elbow + arm.d2 * (a12[:, None] * n(q12) - w12[:, None] ** 2 * u(q12)), a12,
                         elbow, elbow + arm.l2 * u(q12))
    loads = chain_inverse_dynamics([fore, upper], np.zeros_like(q), fore.distal, 0.0, arm.g)
    (_, m_elbow), (_, m_shoulder) = loads
    return np.column_stack([m_shoulder, m_elbow])


def test_two_link_arm_matches_recursive_newton_euler() -> None:
    arm = TwoLinkArm.dempster()
    assert arm.m1 == 0.028 * 70 and abs(arm.l1 - 0.188 * 1.70) < 1e-15
    rng = np.random.default_rng(2)
    q, qd, qdd = rng.uniform(-3, 3, (3, 200, 2))
    dec = arm.decomposition(q, qd, qdd)
    np.testing.assert_allclose(dec.total, _arm_newton_euler(arm, q, qd, qdd), rtol=1e-10, atol=1e-10)


def test_two_link_arm_external_force_is_jacobian_transpose() -> None:
    arm = TwoLinkArm.dempster()
    q = np.array([[0.3, 0.8]])
    force = np.array([[5.0, -12.0]])
    _, _, ext = arm.generalized_forces(q, np.zeros((1, 2)), force)
    h = 1e-7

    def end(qq: np.ndarray) -> np.ndarray:
        return np.array([arm.l1 * np.cos(qq[0]) + arm.l2 * np.cos(qq.sum()),
                         arm.l1 * np.sin(qq[0]) + arm.l2 * np.sin(qq.sum())])

    J = np.column_stack([(end(q[0] + h * e) - end(q[0] - h * e)) / (2 * h) for e in np.eye(2)])
    np.testing.assert_allclose(ext[0], J.T @ force[0], rtol=1e-7)


def test_minimum_jerk_derivatives_and_endpoints() -> None:
    t, q, qd, qdd = minimum_jerk(np.array([0.0, 1.0]), np.array([2.0, -1.0]), 0.5, n=2001)
    np.testing.assert_allclose(q[[0, -1]], [[0, 1], [2, -1]], atol=1e-15)
    np.testing.assert_allclose(qd[[0, -1]], 0.0, atol=1e-12)
    np.testing.assert_allclose(np.gradient(q, t, axis=0)[1:-1], qd[1:-1], atol=1e-3)
    np.testing.assert_allclose(np.gradient(qd, t, axis=0)[1:-1], qdd[1:-1], atol=2e-2)
    np.testing.assert_allclose(qd.max(axis=0)[0], 1.875 * 2 / 0.5, rtol=1e-6)  # peak speed 15/8 mean
