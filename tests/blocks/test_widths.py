"""Width inference (:mod:`blocks.widths`): an ``n`` of -1 (inherit) takes its input's width at compile,
through chains and loops, exactly as if written; mismatches and unresolvable loops name the ports and
blocks; explicit widths are still checked; version 4 files keep the widths they meant."""

from __future__ import annotations

import numpy as np
import pytest

from blocks import Diagram, Runner, compile_diagram
from blocks.codegen import generate
from blocks.core import BlockError, ParameterValueError
from blocks.diagram import SolverSettings
from blocks.library.generic import Gain
from blocks.spec import INHERIT, AlgebraicLoopError, DiagramError


def _diagram(t_end: float = 0.02) -> Diagram:
    return Diagram("widths", solver=SolverSettings(dt=1e-3, t_end=t_end))


def _chain(**widths: int) -> Diagram:
    """source(3) -> gain -> sum (minus the source) -> integrator -> scope; ``widths`` set some ``n``."""
    d = _diagram(0.5)
    d.add("c", "Constant", value=(1.0, -2.0, 0.5))
    d.add("g", "Gain", k=3.0, **({"n": widths["g"]} if "g" in widths else {}))
    d.add("s", "Sum", signs="+-", **({"n": widths["s"]} if "s" in widths else {}))
    d.add("i", "Integrator", x0=(1.0, 2.0, 3.0), **({"n": widths["i"]} if "i" in widths else {}))
    d.add("sc", "Scope", **({"n": widths["sc"]} if "sc" in widths else {}))
    d.connect("c.y", "g.u", "s.u2")
    d.connect("g.y", "s.u1")
    d.connect("s.y", "i.u")
    d.connect("i.y", "sc.u")
    return d


def test_an_inherited_gain_multiplies_both_channels_in_both_engines() -> None:
    d = _diagram()
    d.add("c", "Constant", value=(1.5, -2.0))
    d.add("g", "Gain", k=3.0)
    d.connect("c.y", "g.u")
    assert d.instantiate("g").values["n"] == INHERIT          # the default: inherit
    m = compile_diagram(d)
    assert m.widths == {"c.y": 2, "g.y": 2}
    assert m.block("g").values["n"] == 2 and m.inherited["g"].source == "c.y"
    py, co = Runner(m, engine="python").run(), Runner(m, engine="compiled").run()
    assert py.status == co.status == "ok"
    np.testing.assert_array_equal(py["g.y"], np.tile([4.5, -6.0], (py.t.size, 1)))
    np.testing.assert_array_equal(co["g.y"], py["g.y"])


def test_a_chain_resolves_its_width_everywhere_and_integrates_per_element() -> None:
    m = compile_diagram(_chain())
    assert {k: v.width for k, v in m.inherited.items()} == {"g": 3, "s": 3, "i": 3, "sc": 3}
    assert m.widths == {"c.y": 3, "g.y": 3, "s.y": 3, "i.y": 3}
    assert m.x_slot["i"][1] == 3 and m.in_slot["sc.u"][1] == 3
    r = Runner(m, engine="python").run()
    # y = x0 + (k - 1) c t per element, RK4 exact for a constant rate
    want = np.array([1.0, 2.0, 3.0]) + 2.0 * np.array([1.0, -2.0, 0.5]) * r.t[-1]
    np.testing.assert_allclose(r["i.y"][-1], want, rtol=0, atol=1e-12)


def test_inherited_widths_generate_the_step_an_explicit_n_does() -> None:
    inherited = compile_diagram(_chain())
    explicit = compile_diagram(_chain(g=3, s=3, i=3, sc=3))
    assert explicit.inherited == {}
    assert generate(inherited) == generate(explicit)     # the same source, so one step per structure
    for b in inherited.blocks:
        np.testing.assert_array_equal(b.pack(inherited.params[b.name]), explicit.block(b.name).pack(
            explicit.params[b.name]))


def test_a_loop_through_a_stateful_block_resolves_from_where_a_width_enters() -> None:
    d = _diagram()
    d.add("c", "Constant", value=(1.0, 2.0))
    d.add("s", "Sum", signs="+-")
    d.add("i", "Integrator")
    d.add("g", "Gain", k=0.5)
    d.connect("c.y", "s.u1")
    d.connect("s.y", "i.u")
    d.connect("i.y", "g.u")
    d.connect("g.y", "s.u2")
    m = compile_diagram(d)
    assert {k: v.width for k, v in m.inherited.items()} == {"s": 2, "i": 2, "g": 2}


def test_a_mismatch_names_both_ports_both_widths_and_where_the_width_came_from() -> None:
    d = _diagram()
    d.add("c3", "Constant", value=(1.0, 2.0, 3.0))
    d.add("c2", "Constant", value=(1.0, 2.0))
    d.add("g", "Gain")
    d.add("s", "Sum", signs="++")
    d.connect("c3.y", "g.u")
    d.connect("g.y", "s.u1")
    d.connect("c2.y", "s.u2")
    with pytest.raises(DiagramError, match=r"^width mismatch: s\.u2 is 3 wide but c2\.y gives 2 "
                                           r"\(s\.n = 3 is inherited from g\.y\)$"):
        compile_diagram(d)


def test_an_explicit_width_is_kept_and_checked() -> None:
    m = compile_diagram(_chain(s=3))
    assert "s" not in m.inherited and m.block("s").values["n"] == 3
    with pytest.raises(DiagramError, match=r"^width mismatch: s\.u2 is 2 wide but c\.y gives 3$"):
        compile_diagram(_chain(s=2))


def test_a_loop_of_inherited_widths_alone_is_an_error_naming_its_blocks() -> None:
    d = _diagram()
    d.add("i1", "Integrator")
    d.add("i2", "Integrator")
    d.add("g", "Gain", k=-1.0)
    d.add("sc", "Scope")
    d.connect("i1.y", "i2.u", "sc.u")
    d.connect("i2.y", "g.u")
    d.connect("g.y", "i1.u")
    with pytest.raises(DiagramError, match=r"widths cannot be inherited around the loop i1 → g → i2 → i1: .*"
                                           r"set the width of one of them \(i1\.n, g\.n, i2\.n\)"):
        compile_diagram(d)
    d.set_param("g.n", 1)    # one explicit width is enough
    assert compile_diagram(d).widths == {"i1.y": 1, "i2.y": 1, "g.y": 1}


def test_an_algebraic_loop_is_named_before_its_widths() -> None:
    d = _diagram()
    d.add("g", "Gain")
    d.connect("g.y", "g.u")
    with pytest.raises(AlgebraicLoopError, match=r"algebraic loop: g\.y → g\.u → g\.y"):
        compile_diagram(d)


def test_a_vector_parameter_of_the_wrong_length_names_it() -> None:
    d = _diagram()
    d.add("c", "Constant", value=(1.0, 2.0, 3.0))
    d.add("i", "Integrator", x0=(0.0, 1.0))
    d.connect("c.y", "i.u")
    with pytest.raises(DiagramError, match=r"block 'i' \(Integrator\) parameter 'x0': 2 values for n = 3 items.*"
                                           r"i\.n = 3 is inherited from c\.y"):
        compile_diagram(d)


def test_one_element_of_an_inherited_width_is_refused_by_name() -> None:
    d = _diagram()
    d.add("i", "Integrator")
    with pytest.raises(DiagramError, match=r"'i\.x0\[1\]': block 'i' inherits its n at compile; set 'i\.x0' whole"):
        d.set_param("i.x0[1]", 2.0)
    d.set_param("i.x0", (1.0, 2.0))
    assert d.value("i.x0") == (1.0, 2.0)


def test_a_selector_inherits_its_input_width_and_checks_its_indices() -> None:
    d = _diagram()
    d.add("c", "Constant", value=(1.0, 2.0, 3.0, 4.0))
    d.add("sel", "Selector", indices=(3, 0))
    d.connect("c.y", "sel.u")
    m = compile_diagram(d)
    assert m.block("sel").values["n"] == 4 and m.widths["sel.y"] == 2
    np.testing.assert_array_equal(Runner(m, engine="python").run()["sel.y"][-1], [4.0, 1.0])
    d.set_param("sel.indices", (4,))
    with pytest.raises(DiagramError, match=r"indices \(4\.0,\) must be whole numbers below n = 4"):
        compile_diagram(d)


def test_a_running_model_refuses_a_live_change_of_width() -> None:
    d = _diagram()
    d.add("c", "Constant", value=(1.0, 2.0))
    d.add("g", "Gain")
    d.connect("c.y", "g.u")
    r = Runner(compile_diagram(d), engine="python")
    with pytest.raises(BlockError, match=r"'c\.value': c\.y would be 3 wide, not 2; a running model keeps its widths"):
        r.registry.set("c.value", (1.0, 2.0, 3.0))
    r.registry.set("c.value", (5.0, 6.0))          # the same width: live
    np.testing.assert_array_equal(r.run(0.005)["g.y"][-1], [5.0, 6.0])


def test_the_width_spec_reads_inherit_and_refuses_zero() -> None:
    spec = Gain.params["n"]
    assert spec.inherit and spec.default == INHERIT
    assert spec.parse("inherit", "g.n") == INHERIT and spec.parse("5", "g.n") == 5
    with pytest.raises(ParameterValueError, match="below the minimum"):
        spec.validate(0, "g.n")
    with pytest.raises(ParameterValueError, match="below the minimum"):
        Diagram().add("s", "Step", n=INHERIT)   # a source has no input to inherit from


def test_version_4_files_keep_their_widths() -> None:
    """A version 4 file: an explicit ``n`` loads unchanged; an ``n`` left out meant 1, and stays 1
    (so this oscillator, whose loop has no width source, compiles as it did)."""
    v4 = {"format": "gaitblocks-diagram", "version": 4, "name": "osc", "solver": {"dt": 0.001, "t_end": 0.1},
          "blocks": [{"name": "i1", "type": "Integrator", "params": {"x0": 1.0}},
                     {"name": "i2", "type": "Integrator"},
                     {"name": "g", "type": "Gain", "params": {"k": -1.0}},
                     {"name": "c", "type": "Constant", "params": {"value": [1.0, 2.0]}},
                     {"name": "k2", "type": "Gain", "params": {"n": 2, "k": 2.0}}],
          "connections": [{"from": "i1.y", "to": "i2.u"}, {"from": "i2.y", "to": "g.u"},
                          {"from": "g.y", "to": "i1.u"}, {"from": "c.y", "to": "k2.u"}]}
    d = Diagram.from_dict(v4)
    assert {b: e.params.get("n") for b, e in d.blocks.items()} == {"i1": 1, "i2": 1, "g": 1, "c": None, "k2": 2}
    assert d.to_dict()["blocks"][4]["params"] == {"n": 2, "k": 2.0}
    m = compile_diagram(d)
    assert m.inherited == {} and m.widths == {"i1.y": 1, "i2.y": 1, "g.y": 1, "c.y": 2, "k2.y": 2}
    assert Diagram.from_dict(d.to_dict()).to_json() == d.to_json()   # saved as version 5, read back the same


def test_a_block_probed_alone_takes_its_width_from_the_given_input() -> None:
    pr = Gain("g", k=2.0).probe(u={"u": [1.0, -3.0, 0.5]})
    np.testing.assert_array_equal(pr.y["y"], [2.0, -6.0, 1.0])
    with pytest.raises(BlockError, match=r"block .g.: its width n is inherited; give its input\(s\) or set it"):
        Gain("g").probe()
