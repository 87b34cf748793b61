"""Block library, each block alone, against analytic answers and the independent biped model."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocks import Diagram, Runner, compile_diagram
from blocks.core import CompileContext
from blocks.diagram import SolverSettings
from blocks.library import (
    PID,
    BipedKinematics,
    FiveLinkDynamics,
    GrfSource,
    NetTorqueEstimator,
    PhaseDetector,
    ReferenceSource,
    TorqueSwitch,
)
from blocks.library.context import BIPED, DATA, DATASETS, biped_of
from blocks.library.settings import DataSettings
from blocks.library.sources import initial_from_reference
from models.biped import FiveLinkBiped
from models.params import BipedParams
from tests.blocks.demo_data import DEMO_LABEL, demo_dataset

from .conftest import sine_dataset

RNG = np.random.default_rng(3)


def ctx_with(ds, dt: float = 0.002, t_end: float = 1.0, ref_filter_hz: float = 0.0,
             t_offset_s: float = 0.0) -> CompileContext:
    """A context reading ``ds``; the reference filter off unless asked (these tests check exact values)."""
    data = DataSettings(t_offset_s=t_offset_s, ref_filter_hz=ref_filter_hz)
    return CompileContext(dt=dt, t_end=t_end, resources={DATASETS: lambda s: ds, DATA: data})


# ------------------------------------------------------------------ PID
def test_pid_proportional_derivative_and_limits() -> None:
    pid = PID("pid", kp=100.0, ki=0.0, kd=2.0, tf=0.01, u_max=50.0, n=2)
    ctx = CompileContext(dt=0.001)
    p = pid.make_params(ctx)
    z0 = np.zeros(13)  # [I, D, e_prev, enabled] x 2, started, [e_0, t - t_0] x 2 (the blend's, unused)
    out = pid.probe(u={"ref": [0.1, 1.0], "meas": [0.0, 0.0], "enable": [1, 1], "track": [0, 0]}, z=z0, ctx=ctx, p=p)
    np.testing.assert_allclose(out.y["u"], [10.0, 50.0])  # first sample: no derivative yet; 100 N m clipped
    # started, previous error 0: D = kd * de / (tf + h)
    z1 = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1.0, 0, 0, 0, 0])
    out = pid.probe(u={"ref": [0.1, 0.0], "meas": [0.0, 0.0], "enable": [1, 1], "track": [0, 0]}, z=z1, ctx=ctx, p=p)
    np.testing.assert_allclose(out.y["u"], [10.0 + 2.0 * 0.1 / 0.011, 0.0])
    np.testing.assert_allclose(out.z_next[2:4], [2.0 * 0.1 / 0.011, 0.0])


def test_pid_integrator_anti_windup_and_bumpless_transfer() -> None:
    pid = PID("pid", kp=10.0, ki=100.0, kd=0.0, u_max=5.0, n=2)
    ctx = CompileContext(dt=0.01)
    p = pid.make_params(ctx)
    z = np.array([0.2, 4.9, 0, 0, 0, 0, 1, 1, 1.0, 0, 0, 0, 0])
    out = pid.probe(u={"ref": [0.1, 0.1], "meas": [0, 0], "enable": [1, 1], "track": [0, 0]}, z=z, ctx=ctx, p=p)
    # channel 0 unsaturated (1 + 0.2): integrates ki h e = 0.1; channel 1 saturated (1 + 4.9 > 5): held
    np.testing.assert_allclose(out.z_next[0:2], [0.3, 4.9])
    # disabled: the integrator tracks the applied torque so the output equals it when re-enabled
    out = pid.probe(u={"ref": [0.1, 0.0], "meas": [0, 0], "enable": [0, 0], "track": [3.0, -2.0]}, z=z, ctx=ctx,
                    p=p)
    z_next = out.z_next
    again = pid.probe(u={"ref": [0.1, 0.0], "meas": [0, 0], "enable": [1, 1], "track": [0, 0]}, z=z_next,
                      ctx=ctx, p=p)
    np.testing.assert_allclose(again.y["u"], [3.0, -2.0])


# ------------------------------------------------------------------ phase detector
def test_phase_detector_threshold_hysteresis_and_dwell() -> None:
    blk = PhaseDetector("ph", threshold_n=40.0, hysteresis_n=10.0, min_dwell_s=0.05)
    p = blk.make_params(CompileContext())
    z = blk.initial_discrete(p, CompileContext())
    dt = 0.01
    fy_left = [0, 50, 35, 20, 35, 25, 35, 35, 25, 45, 45, 35, 20, 45]
    stance, codes = [], []
    for k, fy in enumerate(fy_left):
        pr = blk.probe(t=k * dt, u={"F": [0, fy, 0, 300.0]}, z=z, p=p)
        stance.append(int(pr.y["stance"][0]))
        codes.append(int(pr.y["phase"][0]))
        z = pr.z_next
    # on above 40 N at 0.01 s; 20 and 25 N cannot end it during the 50 ms dwell; after it, 35 N keeps stance
    # (hysteresis: off only below 30 N) and 25 N ends it at 0.08 s; 45 N restarts it only at 0.13 s (dwell)
    assert stance == [0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1]
    assert codes == [2 if s == 0 else 0 for s in stance]


# ------------------------------------------------------------------ estimator
def random_pose() -> np.ndarray:
    return np.array([0.1, 0.9, *RNG.uniform(-0.3, 0.3, 1), *RNG.uniform(-0.5, 0.6, 2), *RNG.uniform(0.0, 1.0, 2)])


@pytest.mark.parametrize("trial", range(5))
def test_jacobian_estimator_equals_model_terms(trial: int) -> None:
    bp = BipedParams.scaled(mass=70.0, height=1.75)
    biped = FiveLinkBiped(bp)
    q, grf = random_pose(), RNG.uniform(-200, 800, 4)
    est = NetTorqueEstimator("est")
    ctx = CompileContext(resources={BIPED: bp})
    tau = est.probe(u={"q": q, "F": grf}, ctx=ctx).y["tau"]
    jl, jr = biped.foot_jacobians(q)
    gravity = biped.generalized_forces(q, np.zeros(7)).gravity
    expected = -(jl.T @ grf[0:2] + jr.T @ grf[2:4])[3:7] - gravity[3:7]
    np.testing.assert_allclose(tau, expected, rtol=1e-12, atol=1e-9)
    # virtual work / static balance: with these torques the beta and gamma rows of rhs vanish at rest
    gf = biped.generalized_forces(q, np.zeros(7), tau, grf)
    np.testing.assert_allclose((gf.gravity + gf.joint + gf.foot)[3:7], 0.0, atol=1e-9)


def test_paper_estimator_lever_arms_equal_grf_moments() -> None:
    biped = FiveLinkBiped()
    q, grf = random_pose(), np.array([-60.0, 520.0, 40.0, 300.0])
    out = NetTorqueEstimator("est", mode="paper", mu_s=0.0).probe(u={"q": q, "F": grf})
    pts = biped.points(q)
    for i, side in enumerate("lr"):
        f = grf[2 * i: 2 * i + 2]
        foot = pts[f"foot_{side}"]

        def moment(j: np.ndarray, f: np.ndarray = f, foot: np.ndarray = foot) -> float:
            return float((foot - j)[0] * f[1] - (foot - j)[1] * f[0])

        assert out.y["tnet"][i] == pytest.approx(moment(pts["hip"]), rel=1e-12)
        assert out.y["tnet"][2 + i] == pytest.approx(moment(pts[f"knee_{side}"]), rel=1e-12)
        th1 = q[2] - q[3 + i]
        bp = biped.params
        assert out.y["tau"][i] == pytest.approx(-(moment(pts["hip"]) - bp.thigh.mass * bp.g * math.sin(th1)))
        assert out.y["tau"][2 + i] == pytest.approx(moment(pts[f"knee_{side}"]) - bp.shank.mass * bp.g * math.sin(th1))


def test_torque_switch_picks_per_leg() -> None:
    out = TorqueSwitch("sw").probe(u={"stance": [1, 0], "tau_stance": [1, 2, 3, 4], "tau_swing": [5, 6, 7, 8]})
    np.testing.assert_array_equal(out.y["tau"], [1, 6, 3, 8])
    np.testing.assert_array_equal(out.y["knee"], [3, 8])


# ------------------------------------------------------------------ sources
def test_grf_source_interpolates_and_scales_to_model_mass() -> None:
    ds = sine_dataset(mass=70.0)
    ctx = ctx_with(ds)
    blk = GrfSource("grf")
    p = blk.make_params(ctx)
    scale = biped_of(ctx).total_mass / 70.0
    for t in (0.0, 0.001, 0.2345, 0.5):
        out = blk.probe(t=t, u={}, ctx=ctx, p=p).y["F"]
        expected = [np.interp(t, ds.t, ds.grf[:, j]) * scale for j in range(4)]
        np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_grf_source_butterworth_is_zero_lag_and_half_power_at_cutoff() -> None:
    ds = sine_dataset()
    w = 2 * np.pi * 1.5
    blk = GrfSource("grf", filter_hz=1.5, scale_to_model=False)
    ctx = ctx_with(ds, t_end=2.0)
    p = blk.make_params(ctx)
    ts = np.arange(0.6, 1.4, 0.002)
    fy = np.array([blk.probe(t=t, u={}, ctx=ctx, p=p).y["F"][1] for t in ts]) - 600.0
    # filtfilt of a 2nd-order Butterworth: gain |H|^2 = 1/2 at the cut-off, and no phase shift
    np.testing.assert_allclose(fy, 50.0 * np.sin(w * ts), atol=1.5)


def test_reference_rates_are_the_derivative() -> None:
    ds = sine_dataset()
    ctx = ctx_with(ds)
    blk = ReferenceSource("ref")
    p = blk.make_params(ctx)
    w = 2 * np.pi * 1.5
    y = blk.probe(t=0.3, u={}, ctx=ctx, p=p).y
    np.testing.assert_allclose(y["angles"][1], 0.3 * math.sin(w * 0.3), atol=1e-9)
    np.testing.assert_allclose(y["rates"][1], 0.3 * w * math.cos(w * 0.3), rtol=1e-4)
    np.testing.assert_allclose(y["knee"], [0.4 + 0.1 * math.sin(w * 0.3), 0.2], atol=1e-9)


def test_shared_data_settings_reach_every_reader() -> None:
    """One offset and one reference filter per diagram: the reference source and the initial
    state read the same ones (a 100 Hz ripple on the hip angle is removed at 20 Hz)."""
    ds = sine_dataset()
    assert ds.angles is not None
    ds.angles[:, 1] += 0.01 * np.sin(2 * np.pi * 100.0 * ds.t)
    w = 2 * np.pi * 1.5
    for hz, tol in ((0.0, None), (20.0, 2e-4)):
        ctx = ctx_with(ds, ref_filter_hz=hz, t_offset_s=0.25)
        ref = ReferenceSource("ref")
        hip = ref.probe(t=0.302, u={}, ctx=ctx, p=ref.make_params(ctx)).y["angles"][1]
        clean = 0.3 * math.sin(w * 0.552)                       # read at 0.302 s + the 0.25 s offset
        if tol is None:                                         # a data sample: the ripple is there whole
            assert hip - clean == pytest.approx(0.01 * math.sin(2 * np.pi * 100.0 * 0.552), abs=1e-9)
            assert abs(hip - clean) > 0.009
        else:
            assert abs(hip - clean) < tol
        body = FiveLinkDynamics("body")
        q, _ = initial_from_reference(ctx, body.values, body.make_params(ctx)._biped)
        start = ref.probe(t=0.0, u={}, ctx=ctx, p=ref.make_params(ctx)).y["angles"]
        np.testing.assert_allclose(q[2:], start, atol=1e-12)    # the same offset and filter


def test_initial_state_from_reference_puts_stance_foot_at_rest_on_ground() -> None:
    ds = sine_dataset()
    ctx = ctx_with(ds)
    body = FiveLinkDynamics("body")
    p = body.make_params(ctx)
    q, qd = initial_from_reference(ctx, body.values, p._biped)
    biped = FiveLinkBiped()
    assert ds.angles is not None
    np.testing.assert_allclose(q[2:], ds.angles[0], atol=1e-12)
    foot = biped.points(q)["foot_l"]  # F_ly = 600 > F_ry = 300 at t = 0
    np.testing.assert_allclose(foot, [0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(biped.foot_jacobians(q)[0] @ qd, [0.0, 0.0], atol=1e-12)


def test_demo_dataset_is_labelled_and_shaped_like_walking() -> None:
    ds = demo_dataset()
    assert ds.meta.synthetic and ds.meta.source == DEMO_LABEL
    assert ds.meta.body_mass_kg is not None and ds.angles is not None
    bw = ds.meta.body_mass_kg * 9.81
    fy = ds.grf[:1000, 1] / bw
    assert 1.1 < fy.max() < 1.2
    assert np.mean(fy > 0) == pytest.approx(0.6, abs=0.002)  # stance 60 % of the cycle
    assert 0.78 < fy[300] < 0.82  # mid-stance valley


# ------------------------------------------------------------------ dynamics evals
def free_body(t_end: float, g: float | None = None) -> Diagram:
    d = Diagram("free", solver=SolverSettings(dt=0.001, t_end=t_end))
    d.add("zero", "Constant", value=(0.0,) * 4)
    d.add("body", "FiveLinkDynamics", init="params", q0=(0.0, 1.0, 0.1, 0.3, -0.2, 0.4, 0.1),
          qd0=(0.5, 0.2, 1.0, -2.0, 1.5, 3.0, -1.0))
    d.add("kin", "BipedKinematics")
    d.connect("zero.y", "body.tau", "body.grf")
    d.connect("body.q", "kin.q")
    return d


def test_free_flight_com_falls_at_g_and_energy_is_conserved() -> None:
    res = Runner(compile_diagram(free_body(0.5))).run()
    biped = FiveLinkBiped()
    com = res["kin.com"]
    v0 = biped.com_jacobian(res["body.q"][0]) @ res["body.qd"][0]
    np.testing.assert_allclose(com[:, 1], com[0, 1] + v0[1] * res.t - 0.5 * 9.81 * res.t**2, atol=1e-8)
    np.testing.assert_allclose(com[:, 0], com[0, 0] + v0[0] * res.t, atol=1e-8)
    e = [sum(biped.energy(q, qd)) for q, qd in zip(res["body.q"][::50], res["body.qd"][::50])]
    assert np.ptp(e) < 1e-6


def test_kinematics_block_matches_model_points() -> None:
    q = random_pose()
    y = BipedKinematics("kin").probe(u={"q": q}).y
    pts = FiveLinkBiped().points(q)
    np.testing.assert_allclose(y["feet"], [*pts["foot_l"], *pts["foot_r"]], atol=1e-12)
    np.testing.assert_allclose(y["com"], pts["com"], atol=1e-12)
    np.testing.assert_allclose(y["knees"], [*pts["knee_l"], *pts["knee_r"]], atol=1e-12)
    np.testing.assert_allclose(y["head"], pts["head"], atol=1e-12)


def test_every_block_type_of_the_library_is_a_name_of_its_family() -> None:
    """blocks.library.FAMILIES is the one list: the catalogue registers their block types, and each is
    reached by name from the package (an unknown name is an AttributeError; a submodule stays a module)."""
    import importlib
    import pkgutil

    import blocks.library as lib
    import blocks.library.catalog  # noqa: F401  (registers the families)
    from blocks.core import BLOCK_TYPES

    for info in pkgutil.iter_modules(lib.__path__):  # every module, so a family missing from the list shows
        importlib.import_module(f"blocks.library.{info.name}")
    ours = {n: c for n, c in BLOCK_TYPES.items() if c.__module__.startswith("blocks.library.")}
    assert len(ours) >= 30
    assert {c.__module__.rsplit(".", 1)[1] for c in ours.values()} <= set(lib.FAMILIES)
    assert all(getattr(lib, n) is c for n, c in ours.items())
    assert lib.sources_kernels.GRID_SIZE > 0
    with pytest.raises(AttributeError):
        lib.NoSuchBlock  # noqa: B018
