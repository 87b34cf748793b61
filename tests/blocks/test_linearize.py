"""blocks.linearize: exact A, B on a linear diagram, the five-link body against models.biped."""

from __future__ import annotations

import numpy as np
import pytest

from blocks import Diagram, Runner, compile_diagram
from blocks.core import BlockError
from blocks.diagram import SolverSettings
from blocks.linearize import linearize
from models.biped import FiveLinkBiped
from models.params import BipedParams

KP, KD, TF, DT = 200.0, 30.0, 0.005, 1e-3


def msd_diagram() -> Diagram:
    """README "A diagram in code": a 1 kg mass on a spring (20 N/m) and damper (2 N s/m) under a PID."""
    d = Diagram("pid_plant", solver=SolverSettings(dt=DT, t_end=4.0))
    d.add("ref", "Step", t_step=0.5, before=0.0, after=1.0)
    d.add("on", "Constant", value=(1.0,))
    d.add("zero", "Constant", value=(0.0,))
    d.add("pid", "PID", kp=KP, ki=100.0, kd=KD, tf=TF, u_max=1e4, n=1)
    d.add("plant", "StateSpace", a=(0.0, 1.0, -20.0, -2.0), b=(0.0, 1.0), c=(1.0, 0.0), x0=(0.0, 0.0), n=2)
    for a, b in (("ref.y", "pid.ref"), ("plant.y", "pid.meas"), ("on.y", "pid.enable"),
                 ("zero.y", "pid.track"), ("pid.u", "plant.u")):
        d.connect(a, b)
    return d


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_mass_spring_damper_open_loop_is_exact(engine: str) -> None:
    r = Runner(compile_diagram(msd_diagram()), engine=engine)
    r.advance(700)  # mid-transient: x is neither zero nor at rest
    lm = linearize(r, ["plant.u"], ["plant.y"])
    np.testing.assert_allclose(lm.a, [[0.0, 1.0], [-20.0, -2.0]], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(lm.b, [[0.0], [1.0]], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(lm.c, [[1.0, 0.0]], rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(lm.d, [[0.0]], atol=1e-9)
    assert lm.states == ("plant.x[0]", "plant.x[1]") and lm.inputs == ("plant.u",) and lm.outputs == ("plant.y[0]",)
    # operating point: the runner's state, the PID's output that drives the opened port, and f there
    np.testing.assert_array_equal(lm.x0, r.x)
    assert lm.u0[0] == pytest.approx(r.results()["pid.u"][-1], rel=1e-12)  # the output pass of tick 700
    np.testing.assert_allclose(lm.f0, [lm.x0[1], -20 * lm.x0[0] - 2 * lm.x0[1] + lm.u0[0]], rtol=1e-12)
    assert r.tick == 700 and lm.t == pytest.approx(0.7)  # the runner is not moved


def test_parameter_input_closes_the_loop_with_discrete_states_held() -> None:
    """The PID is discrete: with its states held, meas -> u is kp + kd / (tf + dt) (the derivative's
    backward difference against the held previous error), so the closed loop's A is known exactly."""
    r = Runner(compile_diagram(msd_diagram()), engine="python")
    r.advance(900)
    z = r.z.copy()
    lm = linearize(r, ["ref.after"], ["plant.y", "pid.u"])
    g = KP + KD / (TF + DT)  # 5200 N/m
    np.testing.assert_allclose(lm.a, [[0.0, 1.0], [-20.0 - g, -2.0]], rtol=1e-6)
    np.testing.assert_allclose(lm.b, [[0.0], [g]], rtol=1e-6)
    np.testing.assert_allclose(lm.c, [[1.0, 0.0], [-g, 0.0]], rtol=1e-6)
    np.testing.assert_allclose(lm.d, [[0.0], [g]], rtol=1e-6)
    np.testing.assert_array_equal(r.z, z)
    assert r.params["ref"].after == 1.0  # the perturbed parameter is not left behind
    # a per-item gain as the input: du/dkp = e = ref - meas, and the rest of the loop as above
    lk = linearize(r, ["pid.kp[0]"], ["pid.u"])
    e = 1.0 - lk.x0[0]
    np.testing.assert_allclose(lk.b, [[0.0], [e]], rtol=1e-6)
    np.testing.assert_allclose(lk.a, lm.a, rtol=1e-9)
    assert lk.inputs == ("pid.kp[0]",) and r.params["pid"].kp == KP


def _pendulum(u: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``[theta, omega, tau] -> [omega, -(g/l) sin theta - c omega + tau / (m l^2)]``; ``p = [g/l, c, 1/(m l^2)]``."""
    return np.array([u[1], -p[0] * np.sin(u[0]) - p[1] * u[1] + p[2] * u[2]])


def test_pendulum_of_library_blocks_has_its_analytic_jacobian() -> None:
    """A nonlinear diagram of four blocks (integrator, mux, function, constant): a damped pendulum,
    ``A = [[0, 1], [-(g/l) cos theta, -c]]``, ``B = [0, 1/(m l^2)]``, about a swinging state."""
    g_l, c, inv_ml2 = 9.81 / 0.8, 0.3, 1.0 / (2.0 * 0.8**2)
    d = Diagram("pendulum", solver=SolverSettings(dt=1e-3, t_end=5.0))
    d.add("x", "Integrator", n=2, x0=0.0)
    d.add("tau", "Constant", value=(0.5,))
    d.add("mux", "Mux", sizes=(2, 1))
    d.add("f", "Function", func=_pendulum, params=(g_l, c, inv_ml2), n_in=3, n_out=2)
    d.connect("x.y", "mux.u1")
    d.connect("tau.y", "mux.u2")
    d.connect("mux.y", "f.u")
    d.connect("f.y", "x.u")
    r = Runner(compile_diagram(d), engine="python")
    r.x[:] = (1.2, 0.0)  # released from 1.2 rad
    r.advance(400)
    th, om = r.x
    assert abs(om) > 0.5  # moving
    for inp in ("mux.u2", "tau.value"):
        lm = linearize(r, [inp], ["x.y"])
        np.testing.assert_allclose(lm.a, [[0.0, 1.0], [-g_l * np.cos(th), -c]], rtol=1e-7, atol=1e-8)
        np.testing.assert_allclose(lm.b, [[0.0], [inv_ml2]], rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(lm.c, np.eye(2), atol=1e-10)
        np.testing.assert_allclose(lm.f0, [om, -g_l * np.sin(th) - c * om + 0.5 * inv_ml2], rtol=1e-12)
    # the gain g/l as an input: d(omega')/d(g/l) = -sin(theta)
    lp = linearize(r, ["f.params[0]"], ["x.y"])
    np.testing.assert_allclose(lp.b, [[0.0], [-np.sin(th)]], rtol=1e-7, atol=1e-10)


def test_bad_names_raise_naming_the_block() -> None:
    r = Runner(compile_diagram(msd_diagram()), engine="python")
    with pytest.raises(BlockError, match="block 'plant' has no input port or parameter 'v'"):
        linearize(r, ["plant.v"], ["plant.y"])
    with pytest.raises(BlockError, match="port 'u' of block 'plant' has 1 element"):
        linearize(r, ["plant.u[3]"], ["plant.y"])
    with pytest.raises(BlockError, match="block 'pid' has no output port 'y'"):
        linearize(r, ["plant.u"], ["pid.y"])


def body_diagram(q: np.ndarray, qd: np.ndarray, tau: np.ndarray, grf: np.ndarray, mz: np.ndarray) -> Diagram:
    """The five-link dynamics block alone, driven by constants."""
    d = Diagram("body_alone", solver=SolverSettings(dt=1e-3, t_end=1.0))
    d.add("body", "FiveLinkDynamics", init="params", q0=tuple(q), qd0=tuple(qd))
    for name, v in (("tau", tau), ("grf", grf), ("mz", mz)):
        d.add(name, "Constant", value=tuple(float(x) for x in v))
        d.connect(f"{name}.y", f"body.{name}")
    return d


def test_five_link_body_matches_models_biped_finite_differences() -> None:
    """A nonlinear block: the body's A and B against an independent central difference of the numpy
    forward dynamics (models.biped) at a moving, loaded state."""
    q = np.array([0.1, 0.9, 0.05, 0.4, -0.2, 0.6, 0.1])
    qd = np.array([1.2, -0.1, 0.3, 2.0, -1.5, -3.0, 0.5])
    tau, grf, mz = np.array([20.0, -15.0, 5.0, 8.0]), np.array([0.0, 0.0, 60.0, 520.0]), np.array([0.0, 4.0])
    r = Runner(compile_diagram(body_diagram(q, qd, tau, grf, mz)), engine="python")
    lm = linearize(r, ["body.tau", "body.grf", "body.mz"], ["body.q"])
    biped = FiveLinkBiped(BipedParams.paper())
    v0 = np.concatenate([q, qd, tau, grf, mz])

    def f(v: np.ndarray) -> np.ndarray:
        return biped.forward_dynamics(v[:7], v[7:14], v[14:18], v[18:22], v[22:24])

    h = 1e-5
    jac = np.column_stack([(f(v0 + h * e) - f(v0 - h * e)) / (2 * h) for e in np.eye(v0.size)])
    np.testing.assert_allclose(lm.a[:7], np.hstack([np.zeros((7, 7)), np.eye(7)]), atol=1e-9)
    scale = np.maximum(np.abs(jac).max(axis=0), 1.0)  # per column: x0, y0 do not enter
    assert np.max(np.abs(lm.a[7:] - jac[:, :14]) / scale[:14]) < 1e-6
    assert np.max(np.abs(lm.b[7:] - jac[:, 14:]) / scale[14:]) < 1e-6
    np.testing.assert_allclose(lm.f0[7:], f(v0), rtol=1e-12)
    np.testing.assert_allclose(lm.c, np.hstack([np.eye(7), np.zeros((7, 7))]), atol=1e-9)
    assert lm.states[0] == "body.x0" and lm.states[7] == "body.x0_dot" and lm.inputs[4] == "body.grf[0]"


def test_kernels_give_the_python_laws_linearisation() -> None:
    """``laws="kernels"`` differentiates the compiled kernels (the generated step's laws): on the README
    diagram and on the loaded, moving body they give the callbacks' A, B, C, D."""
    r = Runner(compile_diagram(msd_diagram()), engine="python")
    r.advance(900)
    for inputs in (["plant.u"], ["ref.after", "pid.kp[0]"]):
        py, kn = (linearize(r, inputs, ["plant.y", "pid.u"], laws=laws) for laws in ("python", "kernels"))
        for m in "abcd":
            np.testing.assert_allclose(getattr(kn, m), getattr(py, m), rtol=1e-9, atol=1e-9)
    q = np.array([0.1, 0.9, 0.05, 0.4, -0.2, 0.6, 0.1])
    qd = np.array([1.2, -0.1, 0.3, 2.0, -1.5, -3.0, 0.5])
    rb = Runner(compile_diagram(body_diagram(q, qd, np.array([20.0, -15.0, 5.0, 8.0]),
                                             np.array([0.0, 0.0, 60.0, 520.0]), np.array([0.0, 4.0]))),
                engine="python")
    inputs = ["body.tau", "body.grf", "body.mz"]
    py, kn = (linearize(rb, inputs, ["body.q"], laws=laws) for laws in ("python", "kernels"))
    scale = np.maximum(np.abs(py.a).max(), 1.0)
    assert np.max(np.abs(kn.a - py.a)) / scale < 1e-8 and np.max(np.abs(kn.b - py.b)) < 1e-8
    with pytest.raises(ValueError, match="choose 'python' or 'kernels'"):
        linearize(r, ["plant.u"], ["plant.y"], laws="numba")
