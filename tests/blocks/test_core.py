"""The block contract: checked when a class is defined, unknown keywords raise, ranges hold."""

from __future__ import annotations

import numpy as np
import pytest

from blocks.core import Block, ParameterValueError, ParamSpec, PortSpec, UnknownParameterError
from blocks.library import PID, Gain, StateSpace


def test_block_with_states_must_define_derivative() -> None:
    with pytest.raises(TypeError, match="must define derivative"):
        class Bad(Block, register=False):
            outputs = (PortSpec("y"),)
            n_states = 1

            def output(self, t, x, z, u, p, y):
                y[0][:] = x


def test_port_size_must_name_an_int_parameter() -> None:
    with pytest.raises(TypeError, match="does not name an int parameter"):
        class Bad(Block, register=False):
            params = {"width": ParamSpec(2.5)}
            outputs = (PortSpec("y", "width"),)

            def output(self, t, x, z, u, p, y):
                pass


def test_callback_signature_is_checked() -> None:
    with pytest.raises(TypeError, match=r"output\(\) must take"):
        class Bad(Block, register=False):
            outputs = (PortSpec("y"),)

            def output(self, t, u, y):  # type: ignore[override]
                pass


def test_feedthrough_pairs_must_name_ports() -> None:
    with pytest.raises(TypeError, match="unknown port"):
        class Bad(Block, register=False):
            inputs = (PortSpec("u"),)
            outputs = (PortSpec("y"),)
            feedthrough = frozenset({("u", "nope")})

            def output(self, t, x, z, u, p, y):
                pass


def test_unknown_keyword_raises_type_error_naming_it() -> None:
    with pytest.raises(UnknownParameterError, match="'gain'.*known: k, n") as err:
        Gain("g", gain=2.0)
    assert isinstance(err.value, TypeError)


def test_range_and_type_checks() -> None:
    with pytest.raises(ParameterValueError, match="below the minimum 0.0"):
        PID("pid", kp=-1.0)
    with pytest.raises(ParameterValueError, match="whole number"):
        Gain("g", n=2.5)
    with pytest.raises(ParameterValueError, match="finite"):
        Gain("g", k=float("nan"))
    with pytest.raises(ParameterValueError, match="needs 4 values"):
        StateSpace("ss", n=2, a=(0.0, 1.0, -1.0), b=(0.0, 1.0), c=(1.0, 0.0), x0=(0.0, 0.0))


def test_blocks_are_immutable() -> None:
    g = Gain("g", k=3.0)
    with pytest.raises(AttributeError, match="immutable"):
        g.k = 4.0


def test_param_parse_from_text() -> None:
    spec = PID.params["kp"]
    assert spec.parse(" 250 ", "x") == 250.0
    assert ParamSpec((1.0, 2.0)).parse("[3, 4.5]", "x") == (3.0, 4.5)
    assert ParamSpec(True).parse("off", "x") is False
    with pytest.raises(ParameterValueError, match="cannot read 'abc'"):
        spec.parse("abc", "x")


def test_probe_evaluates_a_block_alone() -> None:
    ss = StateSpace("ss", n=2, m=1, l=1, a=(0.0, 1.0, -4.0, -0.4), b=(0.0, 4.0), c=(1.0, 0.0), d=(0.5,),
                    x0=(0.1, -0.2))
    pr = ss.probe(u={"u": [2.0]})
    np.testing.assert_allclose(pr.y["y"], [0.1 + 0.5 * 2.0])
    np.testing.assert_allclose(pr.dx, [-0.2, -4 * 0.1 - 0.4 * -0.2 + 4 * 2.0])


def test_the_law_is_declared_as_kernels() -> None:
    """A class's ``law`` must be a :class:`Kernels`; one that is stands for the callbacks (none needed)."""
    from blocks.core import Kernels

    with pytest.raises(TypeError, match="law must be a Kernels"):
        class Named(Block, register=False):
            outputs = (PortSpec("y", 1),)
            law = "gain_output"  # type: ignore[assignment]

    class Declared(Block, register=False):
        outputs = (PortSpec("y", 1),)
        law = Kernels(output=print)

    assert Declared.has_kernels() and Declared.law_is_kernel() and Declared("d").kernels() is Declared.law
