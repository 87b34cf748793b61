"""N copies in one compiled engine (:class:`blocks.batch.BatchRunner`): row i is the single run
with copy i's parameters; a failing copy stops alone; unchanged blocks share one packed vector."""

from __future__ import annotations

import numpy as np
import pytest

from blocks import Runner, compile_diagram
from blocks.batch import BatchRunner, blockers, run_batch
from blocks.core import BlockError
from blocks.recorder import Results
from tests.blocks.engine_diagrams import oscillator, runaway, unregister

LOGGED = ["mux.y", "pid.u", "mode.y"]
OVERRIDES = [{"pid.kp": 10.0, "k.k": 0.5}, {"pid.kp": 35.0, "k.k": -0.2, "ref.after": 0.5},
             {"pid.kd": 3.0}, {}]

_types = pytest.fixture(scope="module", autouse=True)(unregister)


def _run(ov: dict[str, float], engine: str, every: int = 1, t_end: float = 1.0) -> Results:
    d = oscillator(t_end=t_end)
    for ref, v in ov.items():
        d.set_param(ref, v)
    return Runner(compile_diagram(d), logged=LOGGED, engine=engine, record_every=every).run()


def _single(ov: dict[str, float], engine: str, every: int = 1, t_end: float = 1.0) -> dict[str, np.ndarray]:
    return _run(ov, engine, every, t_end).signals


@pytest.mark.parametrize("parallel", [True, False])
def test_row_i_is_single_run_i(parallel: bool) -> None:
    model = compile_diagram(oscillator(t_end=1.0))
    assert blockers(model) == []
    res = BatchRunner(model, OVERRIDES, LOGGED, parallel=parallel).run()
    assert res.status == ["ok"] * 4 and res.signals["mux.y"].shape == (4, 1001, 4)
    assert res.signals["pid.u"].shape == (4, 1001, 1)
    for i, ov in enumerate(OVERRIDES):
        assert res.events[i] == _run(ov, "python").events and res.events[i]  # mode switches, as logged singly
        for engine in ("python", "compiled"):
            ref = _single(ov, engine)
            for name in LOGGED:
                got = res.signals[name][i].reshape(ref[name].shape)
                np.testing.assert_allclose(got, ref[name], rtol=0, atol=1e-9 * (1 + np.abs(ref[name]).max()))
    finals = {round(float(res.signals["mux.y"][i, -1, 0]), 6) for i in range(4)}
    assert len(finals) == 4  # the copies really differ


def test_record_every_in_a_batch() -> None:
    res = BatchRunner(compile_diagram(oscillator(t_end=0.5)), OVERRIDES[:2], LOGGED, record_every=7).run()
    assert res.t.size == 500 // 7 + 2 and res.t[-1] == pytest.approx(0.5)
    ref = _single(OVERRIDES[1], "python", every=7, t_end=0.5)
    np.testing.assert_allclose(res.signals["mux.y"][1], ref["mux.y"], rtol=0, atol=1e-9)


def test_unchanged_blocks_share_their_packed_parameters() -> None:
    model = compile_diagram(oscillator(t_end=0.1))
    br = BatchRunner(model, [{"k.k": float(i)} for i in range(64)], LOGGED)
    by = {b.name: br.engine.P[j] for j, b in enumerate(model.blocks)}
    assert by["k"].shape == (64, 1) and by["plant"].shape[0] == 1 and by["pid"].shape[0] == 1
    stored, unshared = br.engine.shared_bytes()
    assert stored < unshared / 4


def test_one_copy_or_one_thread_steps_serially() -> None:
    """The parallel step variant is chosen only with more than one copy and more than one numba thread."""
    import numba

    model = compile_diagram(oscillator(t_end=0.01))
    assert BatchRunner(model, OVERRIDES[:1], LOGGED).parallel is False
    assert BatchRunner(model, OVERRIDES, LOGGED).parallel is (numba.get_num_threads() > 1)


def test_a_batch_reuses_the_single_runs_compiled_step() -> None:
    """A batch's state arrays are C-ordered like a single run's, so N copies call the step with the same
    types as one copy and numba compiles it once (a Fortran-ordered copy of a broadcast row gave a
    second signature: a sweep after a run of the same diagram compiled again)."""
    model = compile_diagram(oscillator(t_end=0.01))
    single = Runner(model, engine="compiled", logged=LOGGED)
    single.run()
    batch = BatchRunner(model, OVERRIDES, LOGGED, parallel=False)
    batch.run()
    assert batch.engine.X.flags.c_contiguous and batch.engine.Z.flags.c_contiguous
    assert len(batch.engine.module.advance_serial.signatures) == 1


def test_a_failing_copy_stops_alone() -> None:
    model = compile_diagram(runaway(t_end=0.5))
    res = BatchRunner(model, [{"g.k": -3.0}, {"g.k": 2000.0}], ["x.y"]).run()
    assert res.status == ["ok", "failed"]
    fail = Runner(compile_diagram(runaway(t_end=0.5)), engine="python").run()
    assert res.failed_at[1] == pytest.approx(fail.t[-1] + 1e-3) and np.isnan(res.failed_at[0])
    assert np.isnan(res.signals["x.y"][1, -1]).all() and np.isfinite(res.signals["x.y"][0]).all()
    np.testing.assert_allclose(res.signals["x.y"][0, :, 0], np.exp(-3.0 * res.t), rtol=1e-9)


def test_vectorised_refuses_blocks_without_kernels_and_run_batch_falls_back() -> None:
    d = oscillator(t_end=0.2)
    d.add("f", "Function", func=np.tanh)
    d.connect("err.y", "f.u")
    with pytest.raises(BlockError, match="cannot vectorise block"):
        BatchRunner(compile_diagram(d), [{}], ["f.y"])
    res, path = run_batch(oscillator(t_end=0.2), OVERRIDES[:2], ["mux.y"])
    assert path == "vectorised" and res.status == ["ok", "ok"]


def test_item_overrides_reach_their_copy() -> None:
    """``"pid.kp[0]"`` sets one joint's gain of one copy, as ``Diagram.set_param`` does for a single run."""
    d = oscillator(t_end=0.3)
    d.set_param("pid.n", 1)
    model = compile_diagram(d)
    res = BatchRunner(model, [{"pid.kp[0]": 45.0}, {}], ["pid.u"]).run()
    single = d.copy()
    single.set_param("pid.kp[0]", 45.0)
    ref = Runner(compile_diagram(single), logged=["pid.u"], engine="python").run()
    np.testing.assert_allclose(res.signals["pid.u"][0, :, 0], ref["pid.u"], rtol=0, atol=1e-9)
    assert np.abs(res.signals["pid.u"][0] - res.signals["pid.u"][1]).max() > 1e-3


def _same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_array_equal(a[name], b[name])  # to the bit (NaN where both are NaN)


def test_reset_runs_new_overrides_as_a_new_runner() -> None:
    """A sweep's thread keeps one runner and resets it for its next batch: the same rows, statuses, failure
    times and mode switches as a new runner's, whatever the batch before ran (a failing copy, other blocks)."""
    model = compile_diagram(oscillator(t_end=1.0))
    reused = BatchRunner(model, [{"k.k": 9.0}, {"mode.hi": 0.5}, {"ref.after": 0.1}, {"trq.value": (2.0,)}], LOGGED)
    reused.run()
    reused.reset(OVERRIDES)
    got, fresh = reused.run(), BatchRunner(model, OVERRIDES, LOGGED).run()
    _same(got.signals, fresh.signals)
    assert got.status == fresh.status and got.events == fresh.events and any(got.events)
    runaway_model = compile_diagram(runaway(t_end=0.5))
    again = BatchRunner(runaway_model, [{"g.k": 2000.0}, {"g.k": -3.0}], ["x.y"])
    again.run()  # copy 0 fails: its non-finite state must not reach the next batch
    again.reset([{"g.k": -3.0}, {"g.k": 2000.0}])
    got, fresh = again.run(), BatchRunner(runaway_model, [{"g.k": -3.0}, {"g.k": 2000.0}], ["x.y"]).run()
    _same(got.signals, fresh.signals)
    assert got.status == fresh.status == ["ok", "failed"]
    np.testing.assert_array_equal(got.failed_at, fresh.failed_at)
    with pytest.raises(ValueError, match="copies"):
        again.reset([{}])


def test_chunked_recording_and_a_workspace_give_the_same_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """Recorded in chunks of 16 rows (the step called once per chunk), into a reused workspace: the same record,
    to the bit, as in one piece; a copy failing in a middle chunk keeps its first failure's time, its rows up to
    it and its events up to it."""
    import blocks.batch as batch

    model = compile_diagram(oscillator(t_end=1.0))
    whole = BatchRunner(model, OVERRIDES, LOGGED, record_every=3).run()
    fail_model = compile_diagram(runaway(t_end=0.5))
    fail_whole = BatchRunner(fail_model, [{"g.k": -3.0}, {"g.k": 2000.0}], ["x.y"]).run()
    assert batch.chunk_rows(len(OVERRIDES), 6) > whole.t.size  # one chunk by default
    calls = []
    monkeypatch.setattr(batch, "chunk_rows", lambda copies, width: 16)
    space: dict[object, object] = {}
    for _ in range(2):  # the second run overwrites the first's buffers
        runner = BatchRunner(model, OVERRIDES, LOGGED, record_every=3)
        monkeypatch.setattr(runner.engine, "advance",
                            lambda *a, _step=runner.engine.advance, **k: calls.append(a[1]) or _step(*a, **k))
        chunked = runner.run(workspace=space)
        _same(chunked.signals, whole.signals)
        assert chunked.events == whole.events
    assert any(whole.events) and calls[: len(calls) // 2] == [48] * (1000 // 48) + [1000 % 48]  # 16 rows of 3 ticks
    fail = BatchRunner(fail_model, [{"g.k": -3.0}, {"g.k": 2000.0}], ["x.y"]).run(workspace=space)
    assert fail.status == ["ok", "failed"] and fail.failed_at[1] > 16e-3  # it failed after the first chunk
    _same(fail.signals, fail_whole.signals)
    np.testing.assert_array_equal(fail.failed_at, fail_whole.failed_at)
