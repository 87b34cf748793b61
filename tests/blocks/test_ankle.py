"""``AnkleBalance``: why a moving centre of pressure is needed, and what the block computes."""

from __future__ import annotations

import numpy as np
import pytest

from blocks.core import CompileContext
from blocks.library import AnkleBalance
from blocks.library.context import BIPED
from models.biped import BipedParams, FiveLinkBiped

RNG = np.random.default_rng(11)
STAND = np.array([0.0, 0.9, 0.05, 0.2, -0.1, 0.3, 0.1])


def _angular_momentum(bp: BipedParams, q: np.ndarray, qd: np.ndarray, c: np.ndarray) -> float:
    """Whole-body angular momentum about the fixed point ``c`` (kg m^2/s, ccw +), link by link."""
    def links(qq: np.ndarray) -> list[tuple[float, float, np.ndarray, float]]:
        a = qq[2]
        hip = qq[:2] - bp.trunk.com * np.array([np.sin(a), np.cos(a)])
        out = [(bp.trunk.mass, bp.trunk.inertia, qq[:2], a)]
        for s in (0, 1):
            th1 = a - qq[3 + s]
            th2 = th1 + qq[5 + s]
            d1, d2 = np.array([np.sin(th1), np.cos(th1)]), np.array([np.sin(th2), np.cos(th2)])
            out.append((bp.thigh.mass, bp.thigh.inertia, hip - bp.thigh.com * d1, th1))
            out.append((bp.shank.mass, bp.shank.inertia, hip - bp.thigh.length * d1 - bp.shank.com * d2, th2))
        return out

    h = 1e-7
    total = 0.0
    for (m, inertia, p, phi), (_, _, p1, phi1) in zip(links(q), links(q + h * qd)):
        v, w = (p1 - p) / h, -(phi1 - phi) / h  # absolute angles are clockwise-positive
        r = p - c
        total += m * (r[0] * v[1] - r[1] * v[0]) + inertia * w
    return total


def test_joint_torques_cannot_steer_the_body_over_its_foot_but_a_ground_moment_can() -> None:
    """About the point where the stance foot's force acts, dL/dt = gravity's moment + mz:
    whatever the hip and knee torques, so only the CoP (mz) changes how the body falls over it."""
    bp = BipedParams.paper()
    biped = FiveLinkBiped(bp)
    for _ in range(20):
        q = STAND + RNG.uniform(-0.2, 0.2, 7)
        qd = RNG.uniform(-1.0, 1.0, 7)
        c = biped.points(q)["foot_l"]
        grf = np.array([RNG.uniform(-100, 100), RNG.uniform(300, 700), 0.0, 0.0])
        com = biped.points(q)["com"]
        gravity = -(com[0] - c[0]) * bp.total_mass * bp.g
        rates = []
        for tau, mz in ((RNG.uniform(-80, 80, 4), np.zeros(2)), (RNG.uniform(-80, 80, 4), np.zeros(2)),
                        (np.zeros(4), np.array([25.0, 0.0]))):
            qdd = biped.forward_dynamics(q, qd, tau, grf, mz)
            h = 1e-4
            lp = _angular_momentum(bp, q + h * qd + 0.5 * h * h * qdd, qd + h * qdd, c)
            lm = _angular_momentum(bp, q - h * qd + 0.5 * h * h * qdd, qd - h * qdd, c)
            rates.append((lp - lm) / (2 * h))
        assert rates[0] == pytest.approx(gravity, rel=1e-4, abs=0.05)
        assert rates[1] == pytest.approx(gravity, rel=1e-4, abs=0.05)
        assert rates[2] == pytest.approx(gravity + 25.0, rel=1e-4, abs=0.05)


def _probe(q: np.ndarray, qd: np.ndarray, com_ref: np.ndarray, feet_ref: np.ndarray, stance: tuple[float, float],
           fy: float = 600.0, **params: float) -> dict[str, np.ndarray]:
    ctx = CompileContext(resources={BIPED: BipedParams.paper()})
    blk = AnkleBalance("ankle", **params)
    u = {"q": q, "qd": qd, "stance": stance, "F": [10.0, fy, 0.0, fy], "feet_ref": feet_ref, "com_ref": com_ref}
    return blk.probe(u=u, ctx=ctx).y


def test_cop_moves_ahead_of_a_body_that_runs_ahead_and_pitches_it_back() -> None:
    biped = FiveLinkBiped()
    q, qd = STAND.copy(), np.zeros(7)
    qd[0] = 1.0
    com, feet = biped.com_state(q, qd), biped.feet_state(q, qd)
    ref_feet = feet[[0, 1, 4, 5]]
    ref_com = com.copy()
    ref_com[0] -= 0.02  # the model's CoM is 2 cm ahead of the reference's over the same footprint
    ref_com[2] -= 0.1   # ... and 0.1 m/s faster
    y = _probe(q, qd, ref_com, ref_feet, (1.0, 0.0), kp=2.0, kd=0.3)
    d = 2.0 * 0.02 + 0.3 * 0.1
    assert y["cop"][0] == pytest.approx(d, rel=1e-9) and y["mz"][0] == pytest.approx(d * 600.0, rel=1e-9)
    assert y["cop"][1] == 0.0 and y["mz"][1] == 0.0  # the swing foot gets nothing
    # a CoP ahead of the contact point is a counter-clockwise moment: the trunk pitches back
    acc = biped.forward_dynamics(q, qd, None, np.array([0.0, 600.0, 0.0, 0.0]), y["mz"])
    assert acc[2] < biped.forward_dynamics(q, qd, None, np.array([0.0, 600.0, 0.0, 0.0]))[2]
    # limited to d_max, switched off by gain = 0, and no moment without a load on the foot
    assert _probe(q, qd, ref_com - [1.0, 0, 0, 0], ref_feet, (1.0, 1.0), d_max=0.1)["cop"].tolist() == [0.1, 0.1]
    assert not _probe(q, qd, ref_com, ref_feet, (1.0, 1.0), gain=0.0)["mz"].any()
    assert not _probe(q, qd, ref_com, ref_feet, (1.0, 1.0), fy=-50.0)["mz"].any()
