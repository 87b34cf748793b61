"""Recorder: every k-th tick (``record_every``), the final tick kept, rewinds, and lent views that never change."""

from __future__ import annotations

import numpy as np
import pytest

from blocks import Diagram, Runner, compile_diagram
from blocks.diagram import SolverSettings
from blocks.recorder import Results


def ramp(t_end: float = 1.0, dt: float = 0.01) -> Diagram:
    d = Diagram("ramp", solver=SolverSettings(dt=dt, t_end=t_end))
    d.add("one", "Constant", value=(1.0,))
    d.add("ramp", "Integrator")
    d.connect("one.y", "ramp.u")
    return d


def test_every_kth_tick_and_the_last_one_are_kept() -> None:
    full = Runner(compile_diagram(ramp(1.0))).run()
    dec = Runner(compile_diagram(ramp(1.0)), record_every=7).run()
    assert full.t.size == 101
    ticks = np.r_[np.arange(0, 101, 7), 100]  # 0, 7, ..., 98, then the final tick 100
    np.testing.assert_allclose(dec.t, ticks * 0.01, atol=1e-12)
    np.testing.assert_allclose(dec["ramp.y"], full["ramp.y"][ticks], atol=1e-12)
    assert dec.t[-1] == pytest.approx(1.0)


def test_rewind_drops_the_rows_after_the_snapshot_and_reruns_identically() -> None:
    runner = Runner(compile_diagram(ramp(1.0)), record_every=4)
    runner.advance(30)
    snap = runner.snapshot()
    first = runner.run(1.0)
    runner.restore(snap)
    assert runner.recorder.time()[-1] < 0.30 - 1e-12  # rows of ticks >= 30 dropped
    again = runner.run(1.0)
    np.testing.assert_array_equal(first.t, again.t)
    np.testing.assert_array_equal(first["ramp.y"], again["ramp.y"])


def test_lent_results_do_not_change_when_the_runner_goes_on() -> None:
    runner = Runner(compile_diagram(ramp(1.0)))
    part = runner.run(0.5)  # views of the recorder's rows, no copy
    assert not part["ramp.y"].flags.writeable
    saved = part["ramp.y"].copy()
    runner.restore(runner._initial)
    runner.registry.set("one.value", (3.0,))
    runner.run(1.0)  # rewrites the rows the first results lent: copy-on-write keeps them
    np.testing.assert_array_equal(part["ramp.y"], saved)


def test_saving_csv_in_blocks_writes_every_row(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from blocks import recorder

    res = Runner(compile_diagram(ramp(3.0, 0.001))).run()  # 3001 rows: more than one block of CSV_ROWS
    assert res.t.size > recorder.CSV_ROWS
    path = res.save_csv(tmp_path / "r.csv")
    header = path.read_text(encoding="utf-8").splitlines()[0].split(",")
    table = np.loadtxt(path, delimiter=",", skiprows=1)
    assert table.shape == (res.t.size, len(header))
    np.testing.assert_allclose(table[:, 0], res.t, rtol=1e-9)
    np.testing.assert_allclose(table[:, header.index("ramp.y")], res["ramp.y"], rtol=1e-9, atol=1e-12)
    back = Results.load_npz(res.save_npz(tmp_path / "r.npz")[0])
    np.testing.assert_array_equal(back["ramp.y"], res["ramp.y"])
