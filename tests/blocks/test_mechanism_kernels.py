"""``PlanarMechanism``'s law (its kernels, blocks/library/mechanism_kernels.py, run as Python and compiled)
against the independent numpy reference (models/mechanism): every mechanism and manifold method, random
states and torques (scaled error <= 1e-12); the Newton guess is explicit state, so the law does not depend
on call history; a failed solve stops both engines at the block; the mechanism diagrams give the same
signals on both engines (<= 1e-12)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from blocks import Diagram, Runner, compile_diagram
from blocks.core import CompileContext, Params, Probe
from blocks.law_check import probe_kernels
from blocks.library.mechanism import PlanarMechanism
from models.mechanism import ConstraintError

TOL = 1e-12
DIAGRAMS = Path(__file__).resolve().parents[2] / "assets" / "diagrams"

CASES = [
    {"mechanism": "four_bar_crank"},
    {"mechanism": "four_bar"},
    {"mechanism": "five_bar"},
    {"mechanism": "andrews_squeezer"},
    {"mechanism": "four_bar_crank", "method": "spline"},
    {"mechanism": "four_bar", "method": "spline"},
    {"mechanism": "andrews_squeezer", "method": "spline"},
    {"mechanism": "five_bar", "method": "spline", "spline_step": 0.1},
]


def _scaled(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a - b), initial=0.0) / (1.0 + np.max(np.abs(a), initial=0.0)))


def _reference(block: PlanarMechanism, p: Params, x: np.ndarray, z: np.ndarray, u: dict[str, np.ndarray],
               ) -> Probe:
    """Outputs, derivative and next guess of the block from :mod:`models.mechanism` (numpy)."""
    model, nq = p._model, p._nq
    guess = z if z.size else None
    f, F, _ = model.joints(x[:nq], guess)
    fd = F @ x[nq:]
    pts = model.mech.points.values()
    y = {"q": x[:nq], "qd": x[nq:], "joints": f, "joint_rates": fd,
         "points": np.concatenate([e.position(f) for e in pts]),
         "point_vel": np.concatenate([e.jacobian(f) @ fd for e in pts])}
    tau = u["tau"] if "tau" in u else None
    dx = np.concatenate([x[nq:], model.accel(x[:nq], x[nq:], tau, guess)])
    zn = model.mech.solve(x[:nq], z) if z.size else z
    return Probe(y, dx, zn)


@pytest.mark.parametrize("values", CASES, ids=lambda v: "-".join(str(x) for x in v.values()))
def test_kernels_agree_with_callbacks(values: dict) -> None:
    block = PlanarMechanism("m", **values)
    ctx = CompileContext()
    p = block.make_params(ctx)
    x0, z0 = block.initial_state(p, ctx), block.initial_discrete(p, ctx)
    ins, _ = block.port_specs()
    rng = np.random.default_rng(3)
    worst = 0.0
    for trial in range(12):
        x = x0 + (rng.normal(scale=[0.05] * (x0.size // 2) + [3.0] * (x0.size // 2)) if trial else 0.0)
        if values["mechanism"] == "andrews_squeezer" and trial % 3 == 2:
            x[0] += 2 * np.pi * rng.integers(-3, 4) + rng.uniform(-3, 3)  # anywhere on the periodic crank
        u = {s.name: rng.normal(scale=5.0, size=int(s.size)) for s in ins}
        ref = _reference(block, p, x, z0, u)
        assert np.all(np.isfinite(ref.dx)) and np.ptp(ref.y["points"]) > 0
        for got in (block.probe(0.1, u, x=x, z=z0, p=p),
                    probe_kernels(block, p, 0.1, tuple(u[s.name] for s in ins), x, z0)):
            worst = max([worst, _scaled(ref.dx, got.dx), _scaled(ref.z_next, got.z_next),
                         *(_scaled(ref.y[k], got.y[k]) for k in ref.y)])
    assert worst <= TOL


def test_a_wrong_packed_value_is_seen() -> None:
    """The comparison can fail: 1 % more gravity in the packed vector changes the derivative."""
    from blocks.library.mechanism_pack import LAYOUT

    block = PlanarMechanism("m", mechanism="five_bar")
    ctx = CompileContext()
    p = block.make_params(ctx)
    x, z = block.initial_state(p, ctx), block.initial_discrete(p, ctx)
    u = (np.zeros(2),)
    packed = block.pack(p)
    packed[int(packed[LAYOUT.at("_grav")]) + 1] *= 1.01
    from blocks.library.mechanism_kernels import mech_derivative

    dx = np.zeros(4)
    mech_derivative(0.0, x, z, *u, packed, dx)
    ref = _reference(block, p, x, z, {"tau": u[0]}).dx
    assert _scaled(ref, dx) > 1e-4


def test_the_callbacks_are_pure_functions_of_the_state() -> None:
    """The five-bar's Newton guess is its discrete state (the last tick's joints): an evaluation far away
    does not change the next one (it did when the guess was the last call's solution)."""
    block = PlanarMechanism("m", mechanism="five_bar")
    ctx = CompileContext()
    p = block.make_params(ctx)
    x, z = block.initial_state(p, ctx), block.initial_discrete(p, ctx)
    assert z.size == 4 and np.abs(p._model.mech.residual(z, x[:2])).max() < 1e-12
    first = block.probe(0.0, {"tau": [0.0, 0.0]}, x=x, z=z, p=p)
    block.probe(0.0, {"tau": [0.0, 0.0]}, x=[2.5, -2.9, 0.0, 0.0], z=z, p=p)  # another branch's neighbourhood
    again = block.probe(0.0, {"tau": [0.0, 0.0]}, x=x, z=z, p=p)
    np.testing.assert_array_equal(first.dx, again.dx)
    np.testing.assert_array_equal(first.y["joints"], again.y["joints"])


def test_ts_other_than_zero_is_refused() -> None:
    from blocks.core import ParameterValueError

    with pytest.raises(ParameterValueError, match="ts must be 0"):
        PlanarMechanism("m", mechanism="five_bar", ts=0.01)


def test_a_failed_solve_stops_both_engines_at_the_block() -> None:
    """The seed's four-bar coordinate (coupler height) is singular at its extreme: pushed there, both engines
    stop at the same tick naming the block (the failed solve gives NaN); the numpy reference says why."""
    d = Diagram("fb", solver=__import__("blocks").SolverSettings(dt=1e-3, t_end=1.0))
    d.add("mech", "PlanarMechanism", mechanism="four_bar", init="params", q0=(3.8,), qd0=(3.0,))
    m = compile_diagram(d)
    a, b = Runner(m, engine="python").run(), Runner(m, engine="compiled").run()
    assert a.status == b.status == "failed"
    assert a.message == b.message and "block 'mech': state 'q' is nan" in b.message
    assert a.t.size == b.t.size
    np.testing.assert_allclose(b["mech.q"], a["mech.q"], rtol=0, atol=1e-12 * (1 + np.abs(a["mech.q"]).max()))
    block = m.block("mech")
    p = m.params["mech"]
    q, qd = float(np.ravel(b["mech.q"])[-1]), float(np.ravel(b["mech.qd"])[-1])
    x = np.array([q + 0.05 * np.sign(qd), qd])  # on past the last tick that solved
    with pytest.raises(ConstraintError, match="no solution"):
        _reference(block, p, x, np.zeros(0), {})  # type: ignore[arg-type]


def _agree(path: Path, **solver: float | str) -> tuple[float, int]:
    d = Diagram.load(path)
    d.solver = replace(d.solver, **solver)
    m = compile_diagram(d)
    a, b = Runner(m, engine="python").run(), Runner(m, engine="compiled").run()
    assert a.status == b.status == "ok" and b.stats["engine"] == "compiled"
    np.testing.assert_array_equal(a.t, b.t)
    worst = max(_scaled(a.signals[k], b.signals[k]) for k in a.signals)
    return worst, a.t.size


@pytest.mark.slow
@pytest.mark.parametrize(("name", "t_end", "ticks"), [("four_bar", None, 6001), ("five_bar", 2.0, 2001)])
def test_mechanism_diagrams_agree_bit_for_bit(name: str, t_end: float | None, ticks: int) -> None:
    """The shipped four-bar over its whole run (6 s, the crank driven round from 3 s) and the five-bar's
    first 2 s (a chaotic double loop: a 1e-14 change of q0 grows to about 2e-11 by 5 s) on both
    engines, every signal: the same law gives the same bits (the Python engine costs about 20 ms a tick
    here, so the five-bar's whole 5 s stays out of the suite)."""
    worst, n = _agree(DIAGRAMS / f"{name}.json", **({} if t_end is None else {"t_end": t_end}))
    assert n == ticks and worst == 0.0


def test_squeezer_on_rk4_agrees() -> None:
    """The squeezer's diagram uses solve_ivp (Python engine only); on RK4 at 0.1 ms (its tick) it compiles,
    with the periodic guide spline, the spring and the constant drive torque, and agrees."""
    worst, n = _agree(DIAGRAMS / "andrews_squeezer.json", method="rk4", t_end=0.01)
    assert n == 101 and worst <= 1e-12


def test_the_packed_tables_follow_their_declarations() -> None:
    """The squeezer's spring, bodies and coordinate read back from its packed vector by the declared fields
    (mechanism_pack.SPRING, BODY, COORD) equal the mechanism's own values; the class's layout is the module's."""
    from blocks.library.mechanism_pack import BODY, COORD, LAYOUT, SPRING

    assert PlanarMechanism.layout is not None and PlanarMechanism.layout.index == LAYOUT.index
    block = PlanarMechanism("m", mechanism="andrews_squeezer")
    p = block.make_params(CompileContext())
    packed, mech = block.pack(p), p._model.mech
    spring = packed[int(packed[LAYOUT.at("_spring")]):][:SPRING["size"]]
    s = mech.springs[0]
    assert (spring[SPRING["anchor"]], spring[SPRING["anchor"] + 1], spring[SPRING["k"]], spring[SPRING["l0"]]) == (
        s.anchor[0], s.anchor[1], s.k, s.l0)
    ob = int(packed[LAYOUT.at("_body")])
    for i, b in enumerate(mech.bodies):
        rec = packed[ob + i * BODY["size"]:][:BODY["size"]]
        assert (rec[BODY["mass"]], rec[BODY["inertia"]]) == (b.mass, b.inertia)
    coord = packed[int(packed[LAYOUT.at("_coord")]):][:COORD["size"]]
    assert coord[COORD["kind"]] == (0.0 if mech.coords[0].expr is None else 1.0)
    assert packed[LAYOUT.at("_nspring")] == len(mech.springs) == 1
