"""Physics of the five-link biped: structure, a second formulation, conservation laws, signs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from models import newton_euler
from models.biped import BipedParams, FiveLinkBiped

RNG = np.random.default_rng(20261121)


def random_state(rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    q = np.concatenate([rng.uniform(-2, 2, 2), rng.uniform(-1.5, 1.5, 5)])
    qd = rng.uniform(-4, 4, 7)
    tau = rng.uniform(-100, 100, 4)
    grf = rng.uniform(-800, 800, 4)
    return q, qd, tau, grf


@pytest.fixture(params=["numba", "numpy"])
def biped(request: pytest.FixtureRequest) -> FiveLinkBiped:
    return FiveLinkBiped(BipedParams.paper(), backend=request.param)


def test_mass_matrix_symmetric_positive_definite() -> None:
    biped = FiveLinkBiped()
    for _ in range(500):
        q = random_state(RNG)[0]
        M = biped.mass_matrix(q)
        assert M.shape == (7, 7)
        np.testing.assert_allclose(M, M.T, rtol=0, atol=1e-13)
        assert np.linalg.eigvalsh(M).min() > 1e-4


def test_total_mass_in_mass_matrix() -> None:
    M = FiveLinkBiped().mass_matrix(np.zeros(7))
    assert M[0, 0] == pytest.approx(55.33, abs=1e-12)
    assert M[1, 1] == pytest.approx(55.33, abs=1e-12)


def test_newton_euler_agrees_on_1000_random_states(biped: FiveLinkBiped) -> None:
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(1000):
        q, qd, tau, grf = random_state(rng)
        lag = biped.forward_dynamics(q, qd, tau, grf)
        ne = newton_euler.solve(biped.params, q, qd, tau, grf).qdd
        worst = max(worst, float(np.max(np.abs(lag - ne)) / np.max(np.abs(ne))))
    assert worst <= 1e-9


def test_newton_euler_agrees_on_scaled_subject() -> None:
    params = BipedParams.scaled(mass=72.6, height=1.80)
    biped = FiveLinkBiped(params)
    rng = np.random.default_rng(3)
    for _ in range(200):
        q, qd, tau, grf = random_state(rng)
        ne = newton_euler.solve(params, q, qd, tau, grf).qdd
        np.testing.assert_allclose(biped.forward_dynamics(q, qd, tau, grf), ne, rtol=1e-9, atol=1e-9)


def _integrate(biped: FiveLinkBiped, q0: np.ndarray, qd0: np.ndarray, tau: np.ndarray, grf: np.ndarray,
               t_end: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """State trajectory plus the accumulated work of tau and grf (last state entry)."""

    def f(_t: float, x: np.ndarray) -> np.ndarray:
        q, qd = x[:7], x[7:14]
        qdd = biped.forward_dynamics(q, qd, tau, grf)
        jl, jr = biped.foot_jacobians(q)
        power = tau[0] * qd[3] + tau[1] * qd[4] + tau[2] * qd[5] + tau[3] * qd[6]
        power += grf[:2] @ (jl @ qd) + grf[2:] @ (jr @ qd)
        return np.concatenate([qd, qdd, [power]])

    sol = solve_ivp(f, (0, t_end), np.concatenate([q0, qd0, [0.0]]), method="DOP853", rtol=1e-12, atol=1e-12)
    assert sol.success
    return sol.t, sol.y


def _total_energy(biped: FiveLinkBiped, x: np.ndarray) -> float:
    kin, pot = biped.energy(x[:7], x[7:14])
    return kin + pot


@pytest.mark.parametrize("g", [0.0, 9.81])
def test_energy_conserved_without_forces(g: float) -> None:
    biped = FiveLinkBiped(BipedParams.paper().with_gravity(g))
    q0 = np.array([0.1, 1.2, 0.2, 0.4, -0.3, 0.6, 0.2])
    qd0 = np.array([0.5, -0.2, 1.0, -2.0, 1.5, 3.0, -1.0])
    _, y = _integrate(biped, q0, qd0, np.zeros(4), np.zeros(4))
    e = np.array([_total_energy(biped, y[:, i]) for i in range(y.shape[1])])
    kin0 = biped.energy(q0, qd0)[0]
    drift = np.max(np.abs(e - e[0])) / max(abs(e[0]), kin0)
    assert drift <= 1e-8
    if g > 0:  # the potential actually changed, so conservation is a real check
        pot = [biped.energy(y[:7, i], y[7:14, i])[1] for i in range(y.shape[1])]
        assert np.ptp(pot) > 1.0


def test_work_energy_theorem_under_constant_forces() -> None:
    biped = FiveLinkBiped()
    q0 = np.array([0.0, 1.1, 0.1, 0.3, -0.2, 0.5, 0.1])
    qd0 = np.array([1.0, 0.0, 0.3, -1.0, 1.0, 0.5, -0.5])
    tau = np.array([12.0, -8.0, 5.0, -3.0])
    grf = np.array([30.0, 250.0, -20.0, 300.0])
    _, y = _integrate(biped, q0, qd0, tau, grf, t_end=1.0)
    e0, e1 = _total_energy(biped, y[:, 0]), _total_energy(biped, y[:, -1])
    work = y[14, -1]
    assert abs(e1 - e0) > 10.0  # a real energy change
    assert e1 - e0 == pytest.approx(work, rel=1e-8, abs=1e-8)


def test_momentum_balance(biped: FiveLinkBiped) -> None:
    rng = np.random.default_rng(11)
    m = biped.total_mass
    for _ in range(300):
        q, qd, tau, grf = random_state(rng)
        qdd = biped.forward_dynamics(q, qd, tau, grf)
        dp = m * biped.com_acceleration(q, qd, qdd)
        expected = grf[:2] + grf[2:] + np.array([0.0, -m * 9.81])
        np.testing.assert_allclose(dp, expected, rtol=0, atol=1e-9 * (1 + np.abs(expected).max()))


def test_momentum_matches_finite_difference() -> None:
    biped = FiveLinkBiped()
    q, qd, _, _ = random_state(np.random.default_rng(5))
    h = 1e-6
    com = lambda qq: biped.points(qq)["com"]  # noqa: E731
    v_fd = (com(q + h * qd) - com(q - h * qd)) / (2 * h)
    np.testing.assert_allclose(biped.momentum(q, qd), biped.total_mass * v_fd, rtol=1e-7)


def test_positive_hip_torque_gives_positive_beta_dd() -> None:
    biped = FiveLinkBiped(BipedParams.paper().with_gravity(0.0))
    q = np.array([0, 1.0, 0, 0, 0, 0.2, 0.2])
    for side in (0, 1):
        tau = np.zeros(4)
        tau[side] = 10.0
        qdd = biped.forward_dynamics(q, np.zeros(7), tau, np.zeros(4))
        assert qdd[3 + side] > 0
        assert abs(qdd[3 + (1 - side)]) < abs(qdd[3 + side])
        tau = np.zeros(4)
        tau[2 + side] = 10.0
        assert biped.forward_dynamics(q, np.zeros(7), tau, np.zeros(4))[5 + side] > 0


def test_generalised_joint_force_only_on_own_row() -> None:
    biped = FiveLinkBiped()
    f = biped.generalized_forces(np.zeros(7), np.zeros(7), np.array([1.0, 2.0, 3.0, 4.0]), np.zeros(4))
    np.testing.assert_array_equal(f.joint, [0, 0, 0, 1, 2, 3, 4])


def test_forward_lean_and_points() -> None:
    biped = FiveLinkBiped()
    p = BipedParams.paper()
    pts = biped.points(np.array([0, 1.0, 0.2, 0, 0, 0, 0]))
    assert pts["head"][0] > 0 and pts["hip"][0] < 0  # forward lean: alpha > 0 puts the head ahead
    # upright, right thigh flexed 30 deg, right knee flexed 40 deg
    b, g = np.radians(30), np.radians(40)
    pts = biped.points(np.array([0, 1.0, 0, 0, b, 0, g]))
    hip = np.array([0, 1.0 - p.trunk.com])
    knee = hip + p.thigh.length * np.array([np.sin(b), -np.cos(b)])
    foot = knee + p.shank.length * np.array([np.sin(b - g), -np.cos(b - g)])
    np.testing.assert_allclose(pts["hip"], hip, atol=1e-15)
    np.testing.assert_allclose(pts["knee_r"], knee, atol=1e-15)
    np.testing.assert_allclose(pts["foot_r"], foot, atol=1e-15)
    assert pts["knee_r"][0] > 0  # thigh forward puts the knee ahead of the hip
    np.testing.assert_allclose(pts["foot_l"], hip - [0, p.leg_length], atol=1e-15)
    np.testing.assert_allclose(pts["head"], [0, 1.0 + p.trunk.length - p.trunk.com], atol=1e-15)


def test_foot_jacobian_matches_finite_difference() -> None:
    biped = FiveLinkBiped()
    q = random_state(np.random.default_rng(2))[0]
    jl, jr = biped.foot_jacobians(q)
    h = 1e-6
    for i in range(7):
        dq = np.zeros(7)
        dq[i] = h
        up, dn = biped.points(q + dq), biped.points(q - dq)
        np.testing.assert_allclose(jl[:, i], (up["foot_l"] - dn["foot_l"]) / (2 * h), atol=1e-8)
        np.testing.assert_allclose(jr[:, i], (up["foot_r"] - dn["foot_r"]) / (2 * h), atol=1e-8)


def test_batch_equals_single(biped: FiveLinkBiped) -> None:
    rng = np.random.default_rng(13)
    states = [random_state(rng) for _ in range(257)]
    Q, QD, TAU, GRF = (np.array([s[i] for s in states]) for i in range(4))
    batch = biped.forward_dynamics_batch(Q, QD, TAU, GRF)
    single = np.array([biped.forward_dynamics(*s) for s in states])
    np.testing.assert_allclose(batch, single, rtol=1e-12, atol=1e-12)


def test_backends_agree() -> None:
    rng = np.random.default_rng(17)
    a, b = FiveLinkBiped(backend="numba"), FiveLinkBiped(backend="numpy")
    for _ in range(200):
        s = random_state(rng)
        np.testing.assert_allclose(a.forward_dynamics(*s), b.forward_dynamics(*s), rtol=1e-11, atol=1e-11)


def test_batch_shape_errors() -> None:
    with pytest.raises(ValueError, match="TAU must have shape"):
        FiveLinkBiped().forward_dynamics_batch(np.zeros((3, 7)), np.zeros((3, 7)), np.zeros((2, 4)), np.zeros((3, 4)))


def test_inverse_dynamics_round_trip() -> None:
    biped = FiveLinkBiped()
    rng = np.random.default_rng(23)
    states = [random_state(rng) for _ in range(200)]
    Q, QD, TAU, GRF = (np.array([s[i] for s in states]) for i in range(4))
    QDD = biped.forward_dynamics_batch(Q, QD, TAU, GRF)
    tau, residual = biped.inverse_dynamics(Q, QD, QDD, GRF)
    np.testing.assert_allclose(tau, TAU, rtol=1e-9, atol=1e-9 * np.abs(TAU).max())
    assert np.abs(residual).max() < 1e-8
    # an inconsistent motion shows up in the residual, not in the torques
    tau1, res1 = biped.inverse_dynamics(Q[0], QD[0], QDD[0] + np.array([0, 1.0, 0, 0, 0, 0, 0]), GRF[0])
    assert abs(res1[1]) > 50.0


def test_feet_state_matches_points_and_jacobians(biped: FiveLinkBiped) -> None:
    rng = np.random.default_rng(29)
    for _ in range(50):
        q, qd, _, _ = random_state(rng)
        fs = biped.feet_state(q, qd)
        pts, (jl, jr) = biped.points(q), biped.foot_jacobians(q)
        np.testing.assert_allclose(fs, np.concatenate([pts["foot_l"], jl @ qd, pts["foot_r"], jr @ qd]),
                                   rtol=1e-12, atol=1e-12)


def test_accel_function_equals_forward_dynamics(biped: FiveLinkBiped) -> None:
    f = biped.accel_function()
    s = random_state(np.random.default_rng(31))
    mz = np.array([30.0, -12.0])
    np.testing.assert_array_equal(f(*s, mz), biped.forward_dynamics(*s, mz))
    assert np.abs(f(*s, mz) - f(*s, np.zeros(2))).max() > 0.1


def test_com_state_matches_points_and_momentum(biped: FiveLinkBiped) -> None:
    rng = np.random.default_rng(37)
    for _ in range(50):
        q, qd, _, _ = random_state(rng)
        cs = biped.com_state(q, qd)
        np.testing.assert_allclose(cs[0:2], biped.points(q)["com"], rtol=1e-12, atol=1e-12)
        h = 1e-6
        rate = (biped.points(q + h * qd)["com"] - biped.points(q - h * qd)["com"]) / (2 * h)
        np.testing.assert_allclose(cs[2:4], rate, atol=1e-7)
        np.testing.assert_allclose(cs[2:4] * biped.total_mass, biped.momentum(q, qd), rtol=1e-10, atol=1e-10)
