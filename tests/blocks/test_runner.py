"""Runner: RK4 against analytic answers, sampling, determinism, snapshots, registry, failures."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocks import BlockError, Diagram, Runner, SimulationError, compile_diagram
from blocks.diagram import SolverSettings
from blocks.library.context import DATASETS
from blocks.library.default_diagram import build_grf_walk
from tests.blocks.demo_data import demo_dataset


def decay(dt: float = 0.05, method: str = "rk4") -> Diagram:
    d = Diagram("decay", solver=SolverSettings(method=method, dt=dt, t_end=1.0))
    d.add("c", "Constant", value=(0.0,))
    d.add("sys", "StateSpace", a=(-1.0,), b=(0.0,), c=(1.0,), x0=(1.0,))
    d.connect("c.y", "sys.u")
    return d


def test_rk4_matches_its_amplification_factor_and_exp() -> None:
    h = 0.05
    res = Runner(compile_diagram(decay(h))).run()
    y = res["sys.y"]
    growth = 1 - h + h**2 / 2 - h**3 / 6 + h**4 / 24  # RK4 on x' = -x
    np.testing.assert_allclose(y, growth ** np.arange(y.size), rtol=1e-13)
    assert abs(y[-1] - math.exp(-1.0)) < 2e-8
    assert res.stats["steps"] == 20 and res.stats["rhs_calls"] == 80


def test_solve_ivp_option_is_accurate() -> None:
    res = Runner(compile_diagram(decay(0.1, "solve_ivp"))).run()
    assert abs(res["sys.y"][-1] - math.exp(-1.0)) < 1e-7


def test_harmonic_oscillator_period_and_energy() -> None:
    w = 2 * math.pi
    d = Diagram("osc", solver=SolverSettings(dt=0.001, t_end=2.0))
    d.add("c", "Constant", value=(0.0,))
    d.add("sys", "StateSpace", n=2, a=(0.0, 1.0, -w * w, 0.0), b=(0.0, 1.0), c=(1.0, 0.0), x0=(1.0, 0.0))
    d.connect("c.y", "sys.u")
    res = Runner(compile_diagram(d)).run()
    np.testing.assert_allclose(res["sys.y"], np.cos(w * res.t), atol=1e-9)


def test_discrete_sample_period_holds_between_hits() -> None:
    d = Diagram("ramp", solver=SolverSettings(dt=0.01, t_end=0.2))
    d.add("one", "Constant", value=(1.0,))
    d.add("ramp", "Integrator")
    d.add("zoh", "UnitDelay", ts=0.05)
    d.connect("one.y", "ramp.u")
    d.connect("ramp.y", "zoh.u")
    res = Runner(compile_diagram(d)).run()
    expected = np.floor(np.round(res.t / 0.05, 9)) * 0.05 - 0.05  # sampled every 5 ticks, one sample late
    np.testing.assert_allclose(res["zoh.y"], np.maximum(expected, 0.0), atol=1e-12)
    np.testing.assert_allclose(res["ramp.y"], res.t, atol=1e-12)


def _walk(duration: float = 0.4) -> Runner:
    return Runner(compile_diagram(build_grf_walk(), resources={DATASETS: lambda s: demo_dataset(2.0)}, t_end=duration))


def test_one_step_at_a_time_equals_one_call_bit_for_bit() -> None:
    a = _walk()
    res_a = a.run()
    b = _walk()
    for _ in range(400):
        list(b.step(1))
    res_b = b.results()
    assert res_a.stats["steps"] == res_b.stats["steps"] == 400
    for name in res_a.signals:
        assert np.array_equal(res_a[name], res_b[name]), name
    assert res_a.events == res_b.events


def test_snapshot_restore_rewinds_exactly() -> None:
    r = _walk()
    r.advance(150)
    snap = r.snapshot()
    r.registry.set("pid_knee.kp", 80.0)
    r.advance(100)
    first = r.results()
    r.restore(snap)
    assert r.registry.get("pid_knee.kp") == 800.0 and r.tick == 150
    r.registry.set("pid_knee.kp", 80.0)
    r.advance(100)
    second = r.results()
    for name in first.signals:
        assert np.array_equal(first[name], second[name]), name
    assert first.events == second.events and len(second.param_changes) == 1


def test_live_parameter_change_applies_at_next_step_and_is_logged() -> None:
    d = Diagram("g", solver=SolverSettings(dt=0.1, t_end=1.0))
    d.add("c", "Constant", value=(2.0,))
    d.add("k", "Gain", k=1.0)
    d.connect("c.y", "k.u")
    r = Runner(compile_diagram(d))
    r.advance(3)
    r.registry.set("k.k", 5.0)
    assert r.registry.pending
    r.advance(2)
    res = r.results()
    np.testing.assert_array_equal(res["k.y"], [2.0, 2.0, 2.0, 10.0, 10.0, 10.0])
    assert res.param_changes == [{"t": pytest.approx(0.3), "name": "k.k", "old": 1.0, "new": 5.0}]
    with pytest.raises(BlockError, match="above the maximum"):
        r.registry.set("k.k", 1e12)
    with pytest.raises(BlockError, match="structural"):
        r.registry.set("k.n", 2)
    with pytest.raises(BlockError, match="no parameter 'kk'"):
        r.registry.set("k.kk", 1.0)


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_either_engine_repacks_a_live_change_through_the_runner(engine: str) -> None:
    """Both engines take a live change through Runner.apply_changes (the Host interface) and re-pack the
    block; Runner.packed reads the vector the running law reads, and a snapshot's restore packs it back."""
    from blocks.library.generic import Gain

    d = Diagram("g", solver=SolverSettings(dt=0.1, t_end=1.0))
    d.add("c", "Constant", value=(2.0,))
    d.add("k", "Gain", k=1.0)
    d.connect("c.y", "k.u")
    r = Runner(compile_diagram(d), engine=engine)
    assert r.engine == engine
    start = r.snapshot()
    r.advance(2)
    r.registry.set("k.k", 4.0)
    assert r.packed("k")[Gain.packed_at("k")] == 1.0  # queued, not applied yet
    r.advance(1)
    assert r.packed("k")[Gain.packed_at("k")] == 4.0 and r.sig[r.model.out_slot["k.y"][0]] == 8.0
    r.restore(start)
    assert r.packed("k")[Gain.packed_at("k")] == 1.0


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_record_current_records_the_state_at_the_current_tick(engine: str) -> None:
    """After 3 ticks the log holds ticks 0-2; record_current adds tick 3 (what a view shows at ``time``),
    the value the next step records again."""
    r = Runner(compile_diagram(decay(0.05)), engine=engine)
    r.advance(3)
    assert r.recorder.length == 3
    r.record_current()
    y3 = float(r.recorder.view("sys.y")[3])
    assert r.recorder.length == 4 and y3 == r.x[0] != 1.0
    r.advance(1)
    assert r.recorder.length == 4 and float(r.recorder.view("sys.y")[3]) == y3


def test_non_finite_stops_within_one_step_and_keeps_results() -> None:
    d = Diagram("blowup", solver=SolverSettings(dt=0.01, t_end=5.0))
    d.add("c", "Constant", value=(0.0,))
    d.add("sys", "StateSpace", a=(1000.0,), b=(0.0,), c=(1.0,), x0=(1.0,))
    d.connect("c.y", "sys.u")
    res = Runner(compile_diagram(d)).run()
    growth = 1 + 10 + 10**2 / 2 + 10**3 / 6 + 10**4 / 24  # RK4 factor at h*a = 10
    assert res.status == "failed"
    assert res.message.startswith("block 'sys': state '0' is ")
    t_fail = float(res.message.split("at t = ")[1].split(" s")[0])
    # the RK4 stages overflow first (k4 ~ 1e4 x); every tick before the failure is kept and exact
    assert 100 < res.t.size == round(t_fail / 0.01) < 117
    np.testing.assert_allclose(res["sys.y"], growth ** np.arange(res.t.size), rtol=1e-12)
    with pytest.raises(SimulationError, match="the run has failed"):
        Runner.advance(_failed(d), 1)


def _failed(d: Diagram) -> Runner:
    r = Runner(compile_diagram(d))
    r.run()
    return r


def test_events_table_records_phase_switches() -> None:
    res = _walk(1.2).run()
    lefts = [(e["t"], e["from"], e["to"]) for e in res.events if e["mode"] == "left"]
    # demo data: left heel strike at t = 0 and 1 s (F_y rises above 40 N a few ms later), toe-off at 0.6 s
    assert [(f, to) for _, f, to in lefts] == [("initial", "swing"), ("swing", "stance"), ("stance", "swing"),
                                               ("swing", "stance")]
    # F_ly ~ 6923 N/s * t near heel strike passes 40 N after 5.8 ms: the first tick above is 6 ms
    assert lefts[1][0] == pytest.approx(0.006, abs=1e-9)
    assert lefts[2][0] == pytest.approx(0.598, abs=0.003)
    assert lefts[3][0] == pytest.approx(1.004, abs=0.003)


def test_a_stop_check_ends_the_run_at_the_time_it_names() -> None:
    """``Runner.run(stop=...)``: asked every ``check_s`` with the first tick of the stretch, it ends the run
    at the time it returns; the rows up to there equal those of a run without it."""
    h = 0.01
    seen: list[int] = []

    def below_half(runner: Runner, since: int) -> float | None:
        seen.append(since)
        y = runner.recorder.view("sys.y")
        rows = np.flatnonzero(y < 0.5)
        return None if rows.size == 0 else float(runner.recorder.time()[rows[0]]) + 0.15

    d = decay(h)
    d.solver = SolverSettings(dt=h, t_end=2.0)
    whole = Runner(compile_diagram(d)).run()
    res = Runner(compile_diagram(d)).run(stop=below_half, check_s=0.1)
    t_half = whole.t[np.argmax(whole["sys.y"] < 0.5)]  # exp(-t) = 0.5 at t = 0.693 s: tick 70
    assert res.t[-1] == pytest.approx(t_half + 0.15)
    assert seen == [0, 10, 20, 30, 40, 50, 60, 70]  # every 10 ticks, until the stretch from tick 70 held it
    np.testing.assert_array_equal(res["sys.y"], whole["sys.y"][: res.t.size])
    assert res.status == "ok"
