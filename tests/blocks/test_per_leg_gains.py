"""Per-joint (per-leg) PID gains: scalar expansion, ``block.param[i]`` items, live changes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from blocks import Diagram, Runner, compile_diagram
from blocks.core import ParameterValueError
from blocks.diagram import SolverSettings
from blocks.spec import DiagramError, split_param, with_item


def symmetric_pid(**gains: object) -> Diagram:
    """One two-channel PID driven by the same error (0.1 rad) on both channels, for 0.05 s."""
    d = Diagram("sym", solver=SolverSettings(dt=0.001, t_end=0.05))
    d.add("ref", "Constant", value=(0.1, 0.1))
    d.add("meas", "Constant", value=(0.0, 0.0))
    d.add("on", "Constant", value=(1.0, 1.0))
    d.add("track", "Constant", value=(0.0, 0.0))
    d.add("pid", "PID", n=2, ki=0.0, kd=0.0, **gains)
    for port in ("ref", "meas", "track"):
        d.connect(f"{port}.y", f"pid.{port}")
    d.connect("on.y", "pid.enable")
    return d


def test_scalar_gain_drives_both_channels_equally() -> None:
    res = Runner(compile_diagram(symmetric_pid(kp=300.0))).run()
    u = res["pid.u"]
    np.testing.assert_allclose(u[:, 0], 30.0)
    np.testing.assert_array_equal(u[:, 0], u[:, 1])


def test_left_item_changes_the_left_channel_only() -> None:
    d = symmetric_pid(kp=300.0)
    d.set_param("pid.kp[0]", 500.0)
    assert d.blocks["pid"].params["kp"] == (500.0, 300.0)
    u = Runner(compile_diagram(d)).run()["pid.u"]
    np.testing.assert_allclose(u[-1], [50.0, 30.0])


def test_live_item_change_through_the_registry() -> None:
    runner = Runner(compile_diagram(symmetric_pid(kp=300.0)))
    list(runner.step(10))
    runner.registry.set("pid.kp[1]", 100.0)
    runner.registry.set("pid.kp[0]", 200.0)  # a second queued item keeps the first
    list(runner.step(5))
    assert runner.registry.get("pid.kp") == (200.0, 100.0)
    assert runner.registry.get("pid.kp[1]") == 100.0
    u = runner.results()["pid.u"]
    np.testing.assert_allclose(u[5], [30.0, 30.0])
    np.testing.assert_allclose(u[-1], [20.0, 10.0])
    runner.registry.set("pid.kp", 400.0)  # the plain name sets both again
    list(runner.step(2))
    np.testing.assert_allclose(runner.results()["pid.u"][-1], [40.0, 40.0])


def test_list_gains_round_trip_through_json_and_scalar_files_still_load() -> None:
    d = symmetric_pid(kp=[250.0, 350.0])
    again = Diagram.from_dict(json.loads(d.to_json()))
    assert again.blocks["pid"].params["kp"] == (250.0, 350.0)
    assert again.value("pid.kp[1]") == 350.0
    scalar = Diagram.from_dict(json.loads(symmetric_pid(kp=300.0).to_json()))
    assert scalar.blocks["pid"].params["kp"] == 300.0 and scalar.value("pid.kp[0]") == 300.0


def test_bad_item_refs_and_lengths_are_clear_errors() -> None:
    d = symmetric_pid()
    with pytest.raises(DiagramError, match=r"n = 2 item"):
        d.param_spec("pid.kp[2]")
    with pytest.raises(DiagramError, match="has no items"):
        d.param_spec("pid.tf[0]")
    with pytest.raises(ParameterValueError, match="3 values for n = 2"):
        d.set_param("pid.kp", [1.0, 2.0, 3.0])
    with pytest.raises(DiagramError, match="block.param"):
        split_param("pid.kp[x]")
    assert d.param_spec("pid.kp").parse("100, 200", "--set") == (100.0, 200.0)
    assert d.param_spec("pid.kp").parse("100", "--set") == 100.0


def test_with_item_collapses_equal_items_to_one_number() -> None:
    assert with_item(300.0, 0, 500.0, 2, "x") == (500.0, 300.0)
    assert with_item((500.0, 300.0), 1, 500.0, 2, "x") == 500.0
