"""Signal units: declared by the block, or, for the generic blocks, taken from their inputs (blocks.units)."""

from __future__ import annotations

from blocks import Recorder, compile_diagram
from blocks.library.context import DATASETS
from blocks.library.default_diagram import build_grf_walk
from blocks.units import column_units, join_units, signal_units

from .conftest import sine_dataset


def _compiled(extra=None):
    ds = sine_dataset()
    d = build_grf_walk()
    if extra is not None:
        extra(d)
    return compile_diagram(d, resources={DATASETS: lambda s: ds}, t_end=0.1)


def test_generic_blocks_take_their_inputs_units() -> None:
    def add(d) -> None:
        d.add("mix", "Mux", sizes=(2.0, 2.0))             # angles then torques
        d.connect("meas_hip.y", "mix.u1")
        d.connect("pid_hip.u", "mix.u2")
        d.add("pick", "Selector", n=4, indices=(3.0, 0.0))
        d.connect("mix.y", "pick.u")
        d.add("bad", "Sum", signs="+-", n=2)              # an angle minus a torque: no unit
        d.connect("meas_hip.y", "bad.u1")
        d.connect("pid_hip.u", "bad.u2")

    m = _compiled(add)
    units = signal_units(m)
    assert units["meas_hip.y"] == "rad"                   # a Selector of body.q's angle columns ("m, rad")
    assert units["swing_mux.y"] == "N*m" and units["stance_sum.y"] == "N*m" and units["stance_fb.y"] == "N*m"
    assert units["mix.y"] == "rad, rad, N*m, N*m"
    assert units["pick.y"] == "N*m, rad"
    assert units["bad.y"] == ""
    assert units["phase.stance"] == "1" and units["body.q"] == "m, rad"    # declared ones unchanged
    rec = Recorder(m)
    assert rec.units["mix.y"] == "rad, rad, N*m, N*m" and rec.units["meas_knee.y"] == "rad"


def test_column_units_forms() -> None:
    assert column_units("N", ("a", "b")) == ["N", "N"]
    assert column_units("N, N, m", ("a", "b", "c")) == ["N", "N", "m"]
    labels = ("x0", "y0", "alpha", "beta_l")
    assert column_units("m, rad", labels) == ["m", "m", "rad", "rad"]
    assert join_units(["rad", "rad"]) == "rad" and join_units(["rad", "N*m"]) == "rad, N*m"
