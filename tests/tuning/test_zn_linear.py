"""The Ziegler-Nichols swing-joint plant from the linearised diagram against the hand-made plant."""

from __future__ import annotations

import numpy as np
import pytest

from app.runs import RunSpec
from app.tuning.zn import JointPlant, body_inputs, linearised_joint_plant, swing_joint_plant
from app.tuning.znrun import swing_operating_point
from blocks import Runner, compile_diagram
from blocks.library.datasets import resolve_dataset
from blocks.linearize import linearize
from models.biped import FiveLinkBiped
from models.params import BipedParams
from tests.blocks.test_linearize import body_diagram

ASSUMED = {"damping": 1.0, "tau_a": 0.02, "delay": 0.01}
JOINTS = {"hip": 3, "knee": 5}


def mid_swing_pose(dataset: str) -> np.ndarray:
    """A pose to linearise about (the tuning itself linearises the run that ``build`` makes,
    :func:`app.tuning.znrun.swing_operating_point`): ``q`` (7,) of the reference at mid-swing of
    the left leg (the middle of the first interval where its vertical GRF is below 1 % of body
    weight); base position at the origin."""
    data = resolve_dataset(dataset)
    ang = data.reference_angles()
    if ang is None:
        raise AssertionError(f"dataset {dataset!r} has no reference angles")
    fy = data.grf[:, 1]
    swing = fy < 0.01 * float(np.max(np.abs(data.grf[:, 1] + data.grf[:, 3])))
    idx = np.flatnonzero(swing)
    if idx.size == 0:
        raise AssertionError(f"dataset {dataset!r}: the left foot is never in swing")
    gaps = np.flatnonzero(np.diff(idx) > 1)
    end = idx[gaps[0]] if gaps.size else idx[-1]
    mid = (idx[0] + end) // 2
    return np.concatenate([[0.0, 0.0], ang[mid]])


def _equilibrium_inputs(biped: FiveLinkBiped, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Torques, right-foot force and right moment under which ``q`` at rest does not accelerate
    (``rhs`` is affine in the inputs: seven unknowns for seven rows)."""
    zero7 = np.zeros(7)

    def rhs(u: np.ndarray) -> np.ndarray:
        return biped.rhs(q, zero7, u[:4], np.concatenate([[0.0, 0.0], u[4:6]]), np.array([0.0, u[6]]))

    r0 = rhs(np.zeros(7))
    s = np.column_stack([rhs(e) - r0 for e in np.eye(7)])
    u = np.linalg.solve(s, -r0)
    return u[:4], np.concatenate([[0.0, 0.0], u[4:6]]), np.array([0.0, u[6]])


def test_at_static_equilibrium_the_linearised_plant_is_the_hand_made_one() -> None:
    """Like for like: at rest and not accelerating, holding the rest of the body leaves ``M_jj`` and
    the gravity stiffness ``-dG_j/dq_j``, which the hand-made plant computes from models.biped."""
    params = BipedParams.paper()
    biped = FiveLinkBiped(params)
    q = mid_swing_pose("sneakers") + np.array([0.0, 0.9, 0, 0, 0, 0, 0])
    tau, grf, mz = _equilibrium_inputs(biped, q)
    r = Runner(compile_diagram(body_diagram(q, np.zeros(7), tau, grf, mz)), engine="python")
    lm = linearize(r, body_inputs("body"), ["body.q"])
    assert np.max(np.abs(lm.f0)) < 1e-9  # an equilibrium indeed
    for joint in JOINTS:
        lin = linearised_joint_plant(lm, "body", joint, **ASSUMED)
        hand = swing_joint_plant(params, q, joint, **ASSUMED)
        assert lin.inertia == pytest.approx(hand.inertia, rel=1e-8)
        assert lin.stiffness == pytest.approx(hand.stiffness, rel=1e-7)  # 1e-10 measured
        assert lin.damping == pytest.approx(1.0, rel=1e-6)
        np.testing.assert_allclose(np.sort_complex(np.linalg.eigvals(lin.state_space()[0])),
                                   np.sort_complex(np.linalg.eigvals(hand.state_space()[0])), rtol=1e-7)
        up_lin, up_hand = lin.ultimate(), hand.ultimate()
        assert up_lin.ku == pytest.approx(up_hand.ku, rel=1e-6) and up_lin.tu == pytest.approx(up_hand.tu, rel=1e-6)


@pytest.fixture(scope="module")
def swing() -> tuple[object, str]:
    return swing_operating_point(RunSpec("sneakers"))


def test_at_the_runs_mid_swing_the_plant_holds_the_motion_terms(swing: tuple[object, str]) -> None:
    """At the walking run's mid-swing (moving and accelerating) the held joint row is

        M_jj qdd_j = -(-d rhs_j/dq_j + dM[j, :]/dq_j . qdd_0) q_j - (-d rhs_j/dqd_j) qd_j + u,

    checked against models.biped by central differences at the same state and inputs; the inertia is
    the hand-made one, the hip's stiffness within 15 % of it, the knee's nearly gone (docs/tuning.md)."""
    built, body = swing
    runner = built.runner  # type: ignore[attr-defined]
    lm = linearize(runner, body_inputs(body), [f"{body}.q"])
    ops = linearize(runner, [f"{body}.tau", f"{body}.grf", f"{body}.mz"], [f"{body}.q"]).u0
    tau, grf, mz = ops[:4], ops[4:8], ops[8:10]
    rows = lm.state_index(body)
    q, qd = lm.x0[rows[:7]], lm.x0[rows[7:]]
    biped = built.model.params[body]._biped  # type: ignore[attr-defined]
    qdd0 = biped.forward_dynamics(q, qd, tau, grf, mz)
    h = 1e-6
    measured = {}
    for joint, j in JOINTS.items():
        e = np.eye(7)[j]
        drhs_dq = (biped.rhs(q + h * e, qd, tau, grf, mz)[j] - biped.rhs(q - h * e, qd, tau, grf, mz)[j]) / (2 * h)
        drhs_dqd = (biped.rhs(q, qd + h * e, tau, grf, mz)[j] - biped.rhs(q, qd - h * e, tau, grf, mz)[j]) / (2 * h)
        dm = (biped.mass_matrix(q + h * e)[j] - biped.mass_matrix(q - h * e)[j]) / (2 * h)
        lin = linearised_joint_plant(lm, body, joint, **ASSUMED)
        hand = swing_joint_plant(biped.params, q, joint, **ASSUMED)
        assert lin.inertia == pytest.approx(biped.mass_matrix(q)[j, j], rel=1e-8)
        assert lin.inertia == pytest.approx(hand.inertia, rel=1e-8)
        assert lin.stiffness == pytest.approx(-drhs_dq + dm @ qdd0, rel=1e-4, abs=1e-3)
        assert lin.damping == pytest.approx(1.0 - drhs_dqd, rel=1e-4, abs=1e-4)
        measured[joint] = lin.stiffness / hand.stiffness
    assert 0.85 < measured["hip"] < 1.0  # 0.91 on sneakers
    assert 0.0 < measured["knee"] < 0.2  # 0.06: the swing's inertial terms cancel the knee's gravity stiffness


@pytest.mark.slow
def test_the_compiled_kernels_give_the_same_plant(swing: tuple[object, str]) -> None:
    """The walking diagram linearised through its compiled kernels (each compiles on its first call:
    about 40 s once, then cached) is the callbacks' linearisation (bit-identical when measured)."""
    built, body = swing
    runner = built.runner  # type: ignore[attr-defined]
    py, kn = (linearize(runner, body_inputs(body), [f"{body}.q"], laws=laws) for laws in ("python", "kernels"))
    assert np.max(np.abs(kn.a - py.a)) <= 1e-9 * np.max(np.abs(py.a))
    assert np.max(np.abs(kn.b - py.b)) <= 1e-9 * np.max(np.abs(py.b))
    for joint in JOINTS:
        pk, pp = (linearised_joint_plant(m, body, joint, **ASSUMED) for m in (kn, py))
        assert (pk.inertia, pk.stiffness, pk.damping) == pytest.approx((pp.inertia, pp.stiffness, pp.damping), rel=1e-9)


@pytest.mark.parametrize("stiffness", [-2.0, 0.4])
def test_a_falling_or_soft_joint_still_has_its_ultimate_point(stiffness: float) -> None:
    """A linearised swing knee can have k <= 0 (high heels: -2.0 N m/rad): the loop diverges without
    oscillating below K = -k, so the sweep starts above it and finds the upper crossing, where the
    loop's phase is -pi and its gain 1/Ku."""
    p = JointPlant(inertia=0.2468, stiffness=stiffness, damping=1.0, tau_a=0.02, delay=0.01)
    up = p.ultimate()
    w = 2 * np.pi / up.tu
    g = np.exp(-1j * w * p.delay) / ((p.tau_a * 1j * w + 1) * (-p.inertia * w**2 + 1j * p.damping * w + p.stiffness))
    assert abs(abs(np.angle(g)) - np.pi) < 0.02
    assert abs(g) * up.ku == pytest.approx(1.0, rel=0.01)
    assert up.ku > max(0.0, -stiffness)
