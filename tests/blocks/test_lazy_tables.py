"""The data sources' tick tables are built only for the engine that reads them (the Python one)."""

from __future__ import annotations

import functools

import numpy as np

from app.runs import RunSpec, build
from blocks.spec import Params

SOURCES = ("grf", "ref", "ref_motion")  # GrfSource, ReferenceSource, ReferenceMotion of grf_walk


def test_a_compiled_run_never_builds_the_tables_and_the_python_run_matches_it() -> None:
    spec = RunSpec(dataset="sneakers", duration=0.3)
    built = build(spec)
    compiled = built.runner.run(built.t_end)
    assert built.runner.engine == "compiled"
    for name in SOURCES:
        p = built.runner.params[name]
        assert p.has("_tab") and "_tab" not in p.__dict__, name
    py = build(RunSpec(dataset="sneakers", duration=0.3, engine="python"))
    python = py.runner.run(py.t_end)
    for name, key in zip(SOURCES, ("_F", "_tab", "_tab")):
        assert key in py.runner.params[name].__dict__, name  # read by the callbacks: built
    for sig in ("grf.F", "ref.angles", "ref_motion.tau", "body.q"):
        np.testing.assert_allclose(python[sig], compiled[sig], rtol=0, atol=1e-9)


def test_a_gain_change_rebuilds_the_scaled_forces_from_the_same_table() -> None:
    built = build(RunSpec(dataset="sneakers", duration=0.2, engine="python"))
    runner = built.runner
    before = runner.params["grf"]._F.copy()
    table = runner.params["grf"]._tab
    runner.registry.set("grf.gain", 2.0)
    runner.registry.apply(0.0)
    p = runner.params["grf"]
    assert p._tab is table  # the table is not built again
    np.testing.assert_allclose(p._F, 2.0 * before, rtol=1e-15)


def test_lazy_values_are_made_once_and_shared_by_copies() -> None:
    calls = []

    @functools.cache
    def make() -> np.ndarray:
        calls.append(1)
        return np.arange(3.0)

    p = Params({"a": 1.0})
    p.set_lazy("_x", make)
    q = p.copy()
    assert p.has("_x") and not p.has("_y")
    assert q._x is p._x and len(calls) == 1
    p.set("_x", np.zeros(2))
    p.set_lazy("_x", lambda: np.ones(1))  # replaces the value already read; the copy keeps its own
    np.testing.assert_array_equal(p._x, [1.0])
    np.testing.assert_array_equal(q._x, [0.0, 1.0, 2.0])
