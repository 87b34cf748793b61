"""The rolling foot (``BipedParams.foot_radius``): three formulations agree, the contact does
no work when it does not slip, and ``R = 0`` is exactly the point foot."""

from __future__ import annotations

import numpy as np
import pytest

from blocks.core import CompileContext
from blocks.library import NetTorqueEstimator
from blocks.library.context import BIPED
from models import newton_euler
from models.biped import BipedParams, FiveLinkBiped

RNG = np.random.default_rng(7)
RADIUS = 0.3


def states(n: int) -> list[tuple[np.ndarray, ...]]:
    out = []
    for _ in range(n):
        q = np.concatenate([RNG.uniform(-1, 1, 2), RNG.uniform(-1.2, 1.2, 5)])
        out.append((q, RNG.uniform(-3, 3, 7), RNG.uniform(-80, 80, 4), RNG.uniform(-600, 900, 4)))
    return out


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_rolling_foot_agrees_with_newton_euler(backend: str) -> None:
    """Lagrange kernels (moment of F about the foot point on the shank rows) against a
    Newton-Euler solve that applies F at the contact point itself."""
    bp = BipedParams.scaled(mass=72.6, height=1.8).with_foot_radius(RADIUS)
    biped = FiveLinkBiped(bp, backend=backend)
    for q, qd, tau, grf in states(200):
        qdd = biped.forward_dynamics(q, qd, tau, grf)
        np.testing.assert_allclose(qdd, newton_euler.solve(bp, q, qd, tau, grf).qdd, rtol=1e-9, atol=1e-9)


def test_the_radius_changes_the_dynamics_only_through_the_foot_forces() -> None:
    point, rolling = FiveLinkBiped(), FiveLinkBiped(BipedParams.paper().with_foot_radius(RADIUS))
    q, qd, tau, grf = states(1)[0]
    np.testing.assert_allclose(rolling.forward_dynamics(q, qd, tau, 0 * grf),
                               point.forward_dynamics(q, qd, tau, 0 * grf), rtol=1e-13)
    assert np.abs(rolling.forward_dynamics(q, qd, tau, grf) - point.forward_dynamics(q, qd, tau, grf)).max() > 0.1


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_contact_rates_are_the_contact_point_velocity_and_carry_the_power(backend: str) -> None:
    """d(xi, eta)/dt (finite difference) equals the velocity ``feet_state`` reports, and the
    foot forces' generalised power equals F . v_contact: a force at a contact point that does
    not slip does no work, which is what rolling means."""
    biped = FiveLinkBiped(BipedParams.paper().with_foot_radius(RADIUS), backend=backend)
    for q, qd, _, grf in states(50):
        fs = biped.feet_state(q, qd)
        h = 1e-6
        rate = (biped.contact_coordinates(q + h * qd) - biped.contact_coordinates(q - h * qd))[0] / (2 * h)
        np.testing.assert_allclose(rate, fs[[2, 3, 6, 7]], atol=1e-7)
        np.testing.assert_allclose(biped.contact_coordinates(q)[0], fs[[0, 1, 4, 5]], atol=1e-14)
        power = grf[0:2] @ fs[2:4] + grf[2:4] @ fs[6:8]
        q_foot = biped.generalized_forces(q, qd, None, grf).foot
        assert float(q_foot @ qd) == pytest.approx(power, rel=1e-10, abs=1e-9)


def test_a_rolling_contact_stays_on_the_ground_and_moves_by_r_theta() -> None:
    """Geometry: with the shank turned by th2 the contact point sits R th2 ahead of where it
    touched with the shank vertical, at the arc's lowest point (eta = y of the contact point)."""
    biped = FiveLinkBiped(BipedParams.paper().with_foot_radius(RADIUS))
    q = np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    xi0 = biped.contact_coordinates(q)[0, 0]
    foot0 = biped.points(q)["foot_l"]
    q2 = q.copy()
    q2[3] = -0.4  # thigh (and shank) turned clockwise by 0.4 rad: th2 = 0.4
    pts = biped.points(q2)
    xi, eta = biped.contact_coordinates(q2)[0, 0:2]
    centre = pts["foot_l"] + RADIUS * np.array([np.sin(0.4), np.cos(0.4)])
    np.testing.assert_allclose(pts["contact_l"], centre - [0.0, RADIUS], atol=1e-14)
    assert eta == pytest.approx(pts["contact_l"][1], abs=1e-14)
    assert pts["contact_l"][0] - xi == pytest.approx(RADIUS * 0.4, abs=1e-14)
    assert xi0 == pytest.approx(foot0[0], abs=1e-14)


def test_zero_radius_is_the_point_foot() -> None:
    point, zero = FiveLinkBiped(), FiveLinkBiped(BipedParams.paper().with_foot_radius(0.0))
    q, qd, tau, grf = states(1)[0]
    assert point.params == zero.params
    pts = point.points(q)
    np.testing.assert_array_equal(pts["contact_l"], pts["foot_l"])
    np.testing.assert_array_equal(point.contact_coordinates(q)[0], np.concatenate([pts["foot_l"], pts["foot_r"]]))


@pytest.mark.parametrize("bad", [-0.1, float("nan"), 0.9])
def test_radius_is_validated(bad: float) -> None:
    with pytest.raises(ValueError, match="foot_radius"):
        BipedParams.paper().with_foot_radius(bad)


@pytest.mark.parametrize("mode", ["jacobian", "paper"])
def test_estimator_moments_include_the_rolling_contact(mode: str) -> None:
    """The estimator's GRF moments about hip and knee are taken at the contact point, and in
    jacobian mode its torques balance the foot and gravity rows of the rolling-foot model."""
    bp = BipedParams.scaled(mass=70.0, height=1.75).with_foot_radius(RADIUS)
    biped = FiveLinkBiped(bp)
    q = np.array([0.1, 0.9, 0.05, 0.3, -0.2, 0.2, 0.4])
    grf = np.array([-60.0, 520.0, 40.0, 300.0])
    out = NetTorqueEstimator("est", mode=mode).probe(u={"q": q, "F": grf}, ctx=CompileContext(resources={BIPED: bp}))
    pts = biped.points(q)
    for i, side in enumerate("lr"):
        arm = pts[f"contact_{side}"] - pts["hip"]
        assert out.y["tnet"][i] == pytest.approx(arm[0] * grf[2 * i + 1] - arm[1] * grf[2 * i], rel=1e-10)
        arm = pts[f"contact_{side}"] - pts[f"knee_{side}"]
        assert out.y["tnet"][2 + i] == pytest.approx(arm[0] * grf[2 * i + 1] - arm[1] * grf[2 * i], rel=1e-10)
    if mode == "jacobian":
        gf = biped.generalized_forces(q, np.zeros(7), out.y["tau"], grf)
        np.testing.assert_allclose((gf.gravity + gf.joint + gf.foot)[3:7], 0.0, atol=1e-9)


@pytest.mark.parametrize("backend", ["numba", "numpy"])
def test_ground_moments_agree_with_newton_euler(backend: str) -> None:
    """A ground moment on each shank (``mz``, the moment of a centre of pressure away from the
    contact point): the Lagrange kernels against the shank moment equations of Newton-Euler."""
    bp = BipedParams.scaled(mass=72.6, height=1.8).with_foot_radius(RADIUS)
    biped = FiveLinkBiped(bp, backend=backend)
    for q, qd, tau, grf in states(200):
        mz = RNG.uniform(-120, 120, 2)
        qdd = biped.forward_dynamics(q, qd, tau, grf, mz)
        np.testing.assert_allclose(qdd, newton_euler.solve(bp, q, qd, tau, grf, mz).qdd, rtol=1e-9, atol=1e-9)
        assert np.abs(qdd - biped.forward_dynamics(q, qd, tau, grf)).max() > 1e-3
    Q, QD, TAU, GRF = (np.array(c) for c in zip(*states(20)))
    MZ = RNG.uniform(-120, 120, (20, 2))
    single = np.array([biped.forward_dynamics(*s, m) for s, m in zip(zip(Q, QD, TAU, GRF), MZ)])
    np.testing.assert_allclose(biped.forward_dynamics_batch(Q, QD, TAU, GRF, MZ=MZ), single, rtol=1e-12)


def test_the_rolling_foot_is_a_point_foot_plus_a_ground_moment() -> None:
    """The arc moves the force's point of action ahead of the foot point; a point foot given
    that moment, ``R (sin th2 F_y - (cos th2 - 1) F_x)``, moves exactly like the arc."""
    point, rolling = FiveLinkBiped(), FiveLinkBiped(BipedParams.paper().with_foot_radius(RADIUS))
    for q, qd, tau, grf in states(50):
        th2 = q[2] - q[3:5] + q[5:7]
        mz = RADIUS * (np.sin(th2) * grf[[1, 3]] - (np.cos(th2) - 1.0) * grf[[0, 2]])
        np.testing.assert_allclose(point.forward_dynamics(q, qd, tau, grf, mz),
                                   rolling.forward_dynamics(q, qd, tau, grf), rtol=1e-10, atol=1e-10)


def test_ground_moment_power_is_moment_times_shank_rate() -> None:
    """Virtual power: a ccw moment ``mz`` on a shank whose clockwise angle rate is ``th2_dot``
    delivers ``-mz th2_dot`` watts."""
    biped = FiveLinkBiped(BipedParams.paper().with_foot_radius(RADIUS))
    for q, qd, _, _ in states(20):
        mz = RNG.uniform(-100, 100, 2)
        w2 = qd[2] - qd[3:5] + qd[5:7]
        q_foot = biped.generalized_forces(q, qd, None, None, mz).foot
        assert float(q_foot @ qd) == pytest.approx(float(-(mz @ w2)), rel=1e-12, abs=1e-9)
