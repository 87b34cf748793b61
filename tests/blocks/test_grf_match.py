"""``GrfMatch``: under its torques the recorded GRF is exactly the force the stance feet need.

Checked through an independent path: the numpy backend of ``models.biped`` (not the numba code the
block runs) gives the accelerations under the block's output torques, the recorded foot forces and
the ground moments, and the stance feet's accelerations are found by differencing their velocities
along the motion (not the block's ``J qdd + Jdot qd``). They must be the wanted ones (zero with
``tau_v = tau_p = 0``), so a floor that holds the feet needs no force beyond the recording.
"""

from __future__ import annotations

import numpy as np
import pytest

from blocks.core import CompileContext
from blocks.law_check import probe_kernels
from blocks.library.grf_match import GrfMatch
from blocks.library.settings import BIPED
from models.biped import FiveLinkBiped
from models.params import BipedParams

Q = np.array([0.1, 0.95, 0.05, 0.35, -0.25, 0.3, 0.15])
QD = np.array([0.9, 0.05, 0.3, -1.2, 1.5, 0.4, -0.6])
TAU = np.array([12.0, -30.0, 25.0, -8.0])
F = np.array([60.0, 420.0, -45.0, 310.0])
MZ = np.array([5.0, -3.0])


def _inputs(stance: list[int], held: np.ndarray | None = None) -> dict[str, np.ndarray]:
    body = FiveLinkBiped(backend="numpy")
    feet = body.feet_state(Q, QD)[[0, 1, 4, 5]] if held is None else held
    return {"tau_in": TAU, "q": Q, "qd": QD, "F": F, "mz": MZ, "stance": np.array(stance, float), "feet_ref": feet}


def _foot_accelerations(tau: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """``[ax_l, ay_l, ax_r, ay_r]`` [m/s^2] under ``tau``: the feet's velocities one step ahead and back."""
    body = FiveLinkBiped(backend="numpy")
    qdd = body.forward_dynamics(Q, QD, tau, F, MZ)
    ahead = body.feet_state(Q + h * QD, QD + h * qdd)
    back = body.feet_state(Q - h * QD, QD - h * qdd)
    return ((ahead - back) / (2 * h))[[2, 3, 6, 7]]


def _probe(block: GrfMatch, u: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    ctx = CompileContext()
    return block.probe(u=u, ctx=ctx, p=block.make_params(ctx)).y


@pytest.mark.parametrize("stance", [[1, 0], [0, 1], [1, 1]])
def test_the_stance_feet_need_no_force_beyond_the_recording(stance: list[int]) -> None:
    block = GrfMatch("m", gain=1.0, reg=0.0, tau_v=0.0, tau_p=0.0)
    y = _probe(block, _inputs(stance))
    before, after = _foot_accelerations(TAU), _foot_accelerations(y["tau"])
    for s in (0, 1):
        rows = slice(2 * s, 2 * s + 2)
        if stance[s]:
            assert np.abs(before[rows]).max() > 1.0  # the input torques alone would need a floor force
            np.testing.assert_allclose(after[rows], 0.0, atol=1e-5)
        else:
            assert not np.any(y["dtau"][[s, 2 + s]])  # a swing leg's torques are left alone
    np.testing.assert_allclose(y["tau"], TAU + y["dtau"])


def test_the_wanted_acceleration_stops_and_returns_the_foot() -> None:
    """``a_des = -v / tau_v - (p - p_held) / tau_p^2`` for the stance foot."""
    body = FiveLinkBiped(backend="numpy")
    fs = body.feet_state(Q, QD)
    held = fs[[0, 1, 4, 5]] + np.array([0.01, -0.005, 0.0, 0.0])
    block = GrfMatch("m", gain=1.0, reg=0.0, tau_v=0.05, tau_p=0.1)
    y = _probe(block, _inputs([1, 0], held))
    want = -fs[[2, 3]] / 0.05 - (fs[[0, 1]] - held[[0, 1]]) / 0.1 ** 2
    np.testing.assert_allclose(_foot_accelerations(y["tau"])[:2], want, atol=1e-4)


def test_off_passes_the_torques_through_and_gain_scales_the_correction() -> None:
    u = _inputs([1, 1])
    off = _probe(GrfMatch("m", gain=0.0), u)
    np.testing.assert_array_equal(off["tau"], TAU)
    assert not np.any(off["dtau"])
    full, half = _probe(GrfMatch("m", gain=1.0), u), _probe(GrfMatch("m", gain=0.5), u)
    np.testing.assert_allclose(half["dtau"], 0.5 * full["dtau"], rtol=1e-12)
    assert np.abs(full["dtau"]).max() > 1.0


def test_regularisation_bounds_the_torque_near_a_straight_knee() -> None:
    """Near a straight knee the map from torques to foot acceleration loses rank; the Tikhonov term keeps
    the correction finite and smaller than the unregularised one."""
    q = Q.copy()
    q[5] = 1e-4  # left knee straight
    u = {**_inputs([1, 0]), "q": q}
    free = _probe(GrfMatch("m", gain=1.0, reg=0.0, tau_v=0.0, tau_p=0.0), u)["dtau"]
    reg = _probe(GrfMatch("m", gain=1.0, reg=1e-3, tau_v=0.0, tau_p=0.0), u)["dtau"]
    assert np.all(np.isfinite(reg))
    assert np.abs(reg).max() < np.abs(free).max()


def test_kernel_matches_the_callback_on_a_scaled_rolling_foot_model() -> None:
    ctx = CompileContext(resources={BIPED: BipedParams.scaled(mass=72.6, height=1.8).with_foot_radius(0.3)})
    block = GrfMatch("m", gain=1.0)
    p = block.make_params(ctx)
    u = _inputs([1, 1])
    ref = block.probe(u=u, ctx=ctx, p=p).y
    ports = tuple(np.asarray(u[s.name], dtype=np.float64) for s in block.port_specs()[0])
    got = probe_kernels(block, p, 0.0, ports, np.zeros(0), np.zeros(0))
    np.testing.assert_allclose(got.y["tau"], ref["tau"], rtol=0, atol=1e-9)
    assert np.abs(got.y["dtau"]).max() > 1.0


def test_the_limit_scales_the_whole_correction_down_to_u_max() -> None:
    """``d <- d min(1, u_max / max|d|)``: the largest joint gets exactly ``u_max``, the direction is kept,
    and a correction inside the limit passes unchanged."""
    u = _inputs([1, 1])
    free = _probe(GrfMatch("m", gain=1.0, u_max=1e5), u)["dtau"]
    peak = np.abs(free).max()
    assert peak > 10.0
    cut = _probe(GrfMatch("m", gain=1.0, u_max=0.25 * peak), u)
    np.testing.assert_allclose(cut["dtau"], 0.25 * free, rtol=1e-12)
    np.testing.assert_allclose(cut["tau"], TAU + cut["dtau"])
    inside = _probe(GrfMatch("m", gain=1.0, u_max=1.01 * peak), u)["dtau"]
    np.testing.assert_array_equal(inside, free)


def test_kernel_matches_the_callback_with_the_limit_active() -> None:
    ctx = CompileContext()
    u = _inputs([1, 0])
    free = np.abs(_probe(GrfMatch("m", gain=1.0, u_max=1e5), u)["dtau"]).max()
    block = GrfMatch("m", gain=1.0, u_max=0.5 * free)
    p = block.make_params(ctx)
    ref = block.probe(u=u, ctx=ctx, p=p).y
    ports = tuple(np.asarray(u[s.name], dtype=np.float64) for s in block.port_specs()[0])
    got = probe_kernels(block, p, 0.0, ports, np.zeros(0), np.zeros(0))
    np.testing.assert_allclose(got.y["dtau"], ref["dtau"], rtol=0, atol=1e-9)
    assert np.abs(got.y["dtau"]).max() == pytest.approx(0.5 * free, rel=1e-12)
