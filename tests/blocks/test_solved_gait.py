"""SolvedGait alone: the solved cycle read by phase, the PD around it, its kernel, and the file it reads."""

from __future__ import annotations

import numpy as np
import pytest

from blocks.core import CompileContext, DiagramError
from blocks.law_check import probe_kernels
from blocks.library.solved_gait import SOLVED_GAIT, SolvedCycle, SolvedGait, load_solved_cycle
from models.biped import FiveLinkBiped
from models.params import BipedParams

N = 4


def _cycle() -> SolvedCycle:
    """A made-up cycle of 4 nodes, period 0.8 s from t0 = 0.1 s, stride 0.6 m: every value distinct."""
    k = np.arange(N, dtype=float)[:, None]
    q = 0.01 * (k + 1) * np.arange(1, 8)
    q[:, 0] += 0.15 * k[:, 0]
    q[:, 1] += 0.9
    qd = 0.1 * (k + 2) * np.arange(1, 8)
    tau = 10.0 * (k + 1) * np.array([1.0, -2.0, 3.0, -4.0])
    mz = np.array([[0.0, 1.0], [0.0, 2.0], [3.0, 0.0], [4.0, 0.0]])
    return SolvedCycle(0.1, 0.8, 0.6, q, qd, tau, mz)


def _block(**values: object) -> tuple[SolvedGait, CompileContext]:
    block = SolvedGait("solved", source="run", **values)
    return block, CompileContext(resources={SOLVED_GAIT: _cycle()})


def _probe(block: SolvedGait, ctx: CompileContext, t: float, q: np.ndarray, qd: np.ndarray,
           stance: tuple[float, float] = (1.0, 0.0)) -> dict[str, np.ndarray]:
    p = block.make_params(ctx)
    return block.probe(t, u={"q": q, "qd": qd, "stance": np.array(stance)}, p=p, ctx=ctx).y


def test_reads_the_cycle_by_phase_with_the_stride_shift() -> None:
    c = _cycle()
    block, ctx = _block(kp_hip=0.0)
    # 3.25 nodes into the second cycle: between node 3 and node 0 of the next cycle (x0 one stride on)
    t = c.t0 + c.period + 3.25 * c.period / N
    y = _probe(block, ctx, t, c.q[0], c.qd[0])
    want_q = c.q[3] + 0.25 * (c.q[0] - c.q[3])
    want_q[0] += 0.25 * c.stride + 1 * c.stride
    np.testing.assert_allclose(y["q_sol"], want_q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(y["qd_sol"], c.qd[3] + 0.25 * (c.qd[0] - c.qd[3]), rtol=0, atol=1e-12)
    np.testing.assert_allclose(y["tau_ff"], [32.5, -65.0, 97.5, -130.0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(y["mz"], [3.0, 0.25], rtol=0, atol=1e-12)
    assert y["trunk"][0] == pytest.approx(want_q[2], abs=1e-15)
    # before t0 the phase wraps backwards: node 2 exactly, x0 one stride back
    y = _probe(block, ctx, c.t0 - 0.5 * c.period, c.q[0], c.qd[0])
    np.testing.assert_allclose(y["q_sol"], c.q[2] - np.eye(7)[0] * c.stride, rtol=0, atol=1e-12)


def test_pd_acts_around_the_solution_and_the_trunk_through_the_stance_hips() -> None:
    c = _cycle()
    block, ctx = _block(gain=0.5, kp_hip=100.0, kd_hip=10.0, kp_knee=200.0, kd_knee=20.0, kp_trunk=1000.0,
                        kd_trunk=50.0)
    q, qd = c.q[1].copy(), c.qd[1].copy()
    q[2:] += [0.02, 0.01, -0.02, 0.03, -0.04]
    qd[2:] += [0.1, -0.2, 0.3, -0.4, 0.5]
    t = c.t0 + 1 * c.period / N  # node 1 exactly
    both = _probe(block, ctx, t, q, qd, (1.0, 1.0))
    # joint PD: kp (q_sol - q) + kd (qd_sol - qd) on [beta_l, beta_r, gamma_l, gamma_r]
    joint = np.array([100 * -0.01 + 10 * 0.2, 100 * 0.02 + 10 * -0.3, 200 * -0.03 + 20 * 0.4, 200 * 0.04 + 20 * -0.5])
    trunk = (1000.0 * -0.02 + 50.0 * -0.1) / 2  # shared by the two stance hips
    np.testing.assert_allclose(both["tau_pd"], joint + [trunk, trunk, 0, 0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(both["tau_ff"], 0.5 * c.tau[1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(both["tau"], both["tau_ff"] + both["tau_pd"], rtol=0, atol=1e-12)
    left = _probe(block, ctx, t, q, qd, (1.0, 0.0))
    np.testing.assert_allclose(left["tau_pd"], joint + [2 * trunk, 0, 0, 0], rtol=0, atol=1e-9)
    flight = _probe(block, ctx, t, q, qd, (0.0, 0.0))
    np.testing.assert_allclose(flight["tau_pd"], joint, rtol=0, atol=1e-9)


def test_off_outputs_zeros_and_reads_nothing() -> None:
    block = SolvedGait("solved", kp_hip=500.0)  # source off: no resource needed
    ctx = CompileContext()
    y = block.probe(0.3, u={"q": np.ones(7), "qd": np.ones(7), "stance": np.ones(2)}, ctx=ctx).y
    assert all(not np.any(v) for v in y.values())


def test_source_run_without_a_solution_names_the_way_out() -> None:
    with pytest.raises(DiagramError, match="RunSpec.solution"):
        SolvedGait("solved", source="run").make_params(CompileContext())


@pytest.mark.parametrize("t", [0.0, 0.1, 0.37, 1.234, 5.0])
def test_kernel_matches_callback(t: float) -> None:
    c = _cycle()
    block, ctx = _block(gain=0.7, kp_hip=300.0, kd_hip=30.0, kp_knee=200.0, kd_knee=10.0, kp_trunk=900.0,
                        kd_trunk=90.0)
    p = block.make_params(ctx)
    rng = np.random.default_rng(int(t * 1000))
    u = (c.q[0] + 0.05 * rng.standard_normal(7), c.qd[0] + 0.2 * rng.standard_normal(7), np.array([1.0, 0.0]))
    want = block.probe(t, u=dict(zip(("q", "qd", "stance"), u)), p=p, ctx=ctx).y
    got = probe_kernels(block, p, t, u, np.zeros(0), np.zeros(0)).y
    for name in want:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def test_load_recovers_the_ground_moments_and_the_stride(tmp_path) -> None:
    """A consistent solve output made here (torques from the inverse dynamics plus known ground moments):
    the file's moments are not stored, and the loader gets them back from the knee rows."""
    params = BipedParams.paper()
    rng = np.random.default_rng(3)
    n, h, stride = 6, 0.02, 0.7
    q = np.tile([0.0, 0.9, 0.05, 0.2, -0.2, 0.3, 0.1], (n, 1)) + 0.02 * rng.standard_normal((n, 7))
    qd = 0.3 * rng.standard_normal((n, 7))
    q[-1, 0] = q[0, 0] + stride - 0.5 * h * (qd[-1, 0] + qd[0, 0])  # the last interval's collocation
    qdd = rng.standard_normal((n, 7))
    grf = np.abs(rng.standard_normal((n, 4))) * 300
    mz = np.column_stack([np.linspace(0, 5, n), np.linspace(-3, 2, n)])
    tau0, _ = FiveLinkBiped(params).inverse_dynamics(q, qd, qdd, grf)
    tau = tau0 + np.column_stack([-mz[:, 0], -mz[:, 1], mz[:, 0], mz[:, 1]])
    np.savez(tmp_path / "results.npz", cycle0_t=0.25 + h * np.arange(n), cycle0_q=q, cycle0_qd=qd, cycle0_qdd=qdd,
             cycle0_tau=tau, cycle0_grf=grf)
    c = load_solved_cycle(tmp_path, params)
    np.testing.assert_allclose(c.mz, mz, rtol=0, atol=1e-9)
    assert c.stride == pytest.approx(stride, abs=1e-12)
    assert (c.t0, c.period, c.n) == (0.25, pytest.approx(n * h), n)
    assert len(c.sha256) == 64 and c.source.endswith("results.npz")
    np.testing.assert_allclose(c.state_at(0.25 + 2 * h)[0], q[2], rtol=0, atol=1e-12)
