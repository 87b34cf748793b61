"""A block class's docstring ends with the sections written from its declarations (blocks/blockdoc.py):
every parameter with its kind, unit, range and default, every port with its size, unit and labels."""

from __future__ import annotations

from blocks.blockdoc import declared_sections
from blocks.core import Block, Kernels, PortSpec
from blocks.core import ParamSpec as P


def _out(t, x, z, u, p, y):  # a law for the contract; never called here
    y[0] = u[0]


class _Documented(Block, register=False):
    """``y = k u``, the law in words."""

    params = {"k": P(2.0, min=-3.0, max=4.0, unit="N/m", description="the gain"),
              "n": P(3, min=1, max=9, tunable=False, description="width"),
              "mode": P("a", choices=("a", "b"), description="which")}
    inputs = (PortSpec("u", "n", "m", "the input", optional=True),)
    outputs = (PortSpec("y", 2, "N", "the output", ("l", "r")),)
    law = Kernels(output=_out)


class _Bare(Block, register=False):
    params = {"k": P(1.0)}


def test_the_docstring_keeps_its_text_and_gains_the_declarations() -> None:
    doc = _Documented.__doc__ or ""
    assert doc.startswith("``y = k u``, the law in words.\n\nParameters\n----------\n")
    assert "k : float, N/m, -3 to 4, default 2.0\n    the gain" in doc
    assert "n : int, 1 to 9, default 3, structural (recompiles)\n    width" in doc
    assert "mode : str, one of a, b, default 'a'\n    which" in doc
    assert "Inputs\n------\nu : (n,) m\n    the input; optional: zeros when unconnected" in doc
    assert doc.endswith("Outputs\n-------\ny : (2,) N\n    the output ``[l, r]``")


def test_a_class_without_a_docstring_gets_none() -> None:
    assert _Bare.__doc__ is None
    assert declared_sections(_Bare).startswith("Parameters\n----------\nk : float, default 1.0")


def test_dynamic_ports_are_left_to_the_class() -> None:
    from blocks.library import Sum

    text = declared_sections(Sum)
    assert "signs : str" in text and "Inputs" not in text and "Outputs" not in text
