"""Compile: wiring checks, algebraic loops named port by port, ordering, minor-step set."""

from __future__ import annotations

import pytest

from blocks import AlgebraicLoopError, Diagram, DiagramError, compile_diagram
from blocks.diagram import SolverSettings
from blocks.library.context import DATASETS
from blocks.library.default_diagram import build_grf_walk

from .conftest import sine_dataset


def loop_diagram(delay: bool) -> Diagram:
    d = Diagram("loop", solver=SolverSettings(dt=0.01, t_end=0.1))
    d.add("src", "Constant", value=(1.0,))
    d.add("add", "Sum", signs="+-")
    d.add("k", "Gain", k=0.5)
    d.connect("src.y", "add.u1")
    d.connect("add.y", "k.u")
    if delay:
        d.add("z", "UnitDelay")
        d.connect("k.y", "z.u")
        d.connect("z.y", "add.u2")
    else:
        d.connect("k.y", "add.u2")
    return d


def test_algebraic_loop_names_the_cycle() -> None:
    with pytest.raises(AlgebraicLoopError) as err:
        compile_diagram(loop_diagram(delay=False))
    assert str(err.value) == ("algebraic loop: add.y → k.u → k.y → add.u2 → add.y; "
                              "break it with a UnitDelay block (or a block with state)")


def test_unit_delay_breaks_the_loop_and_orders_blocks() -> None:
    m = compile_diagram(loop_diagram(delay=True))
    names = [b.name for b in m.blocks]
    assert names.index("add") < names.index("k")
    assert names.index("src") < names.index("add")


def test_missing_input_is_named() -> None:
    d = Diagram("open")
    d.add("k", "Gain")
    with pytest.raises(DiagramError, match=r"block 'k' \(Gain\): input 'u' is not connected"):
        compile_diagram(d)


def test_size_mismatch() -> None:
    d = Diagram("sizes")
    d.add("c", "Constant", value=(1.0, 2.0, 3.0))
    d.add("k", "Gain", n=2)
    d.connect("c.y", "k.u")
    with pytest.raises(DiagramError, match=r"width mismatch: k\.u is 2 wide but c\.y gives 3$"):
        compile_diagram(d)


def test_sample_period_must_be_whole_ticks() -> None:
    d = Diagram("ts", solver=SolverSettings(dt=0.002, t_end=1.0))
    d.add("c", "Constant", value=(1.0,))
    d.add("z", "UnitDelay", ts=0.003)
    d.connect("c.y", "z.u")
    with pytest.raises(DiagramError, match="ts = 0.003 s is not a whole number of solver ticks"):
        compile_diagram(d)


def test_default_diagram_plan() -> None:
    ds = sine_dataset()
    m = compile_diagram(build_grf_walk(), resources={DATASETS: lambda s: ds}, t_end=1.0)
    # only the physics is re-evaluated inside RK4 stages: the recorded GRF, the ground contact
    # (it reads the state), the dynamics' outputs and the segment angles' sines and cosines the contact and
    # the dynamics read; the sampled controllers hold their torques
    assert m.minor == {"grf", "contact", "body", "trig"}
    assert m.x0.size == 14 and m.n_signals == sum(size for _, size in m.out_slot.values())
    order = [b.name for b in m.blocks]
    assert order.index("est") < order.index("switch") and order.index("pid_hip") < order.index("swing_mux")
