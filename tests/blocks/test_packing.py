"""One law per block: packed layouts generated from the class's declaration (:mod:`blocks.packing`), and
kernels run as plain Python all the way down (:func:`blocks.kernels.pure`)."""

from __future__ import annotations

import types

import numpy as np
import pytest

from blocks.core import Block, CompileContext, Kernels, Params, PortSpec
from blocks.core import ParamSpec as P
from blocks.kernels import kernel, pure, seg
from blocks.packing import state_offsets


class _Packed(Block, register=False):
    params = {"k": P(2.5), "n": P(3, min=1, max=9, tunable=False), "on": P(True),
              "mode": P("b", choices=("a", "b", "c")), "g": P(1.0, size="n"), "v": P((4.0, 5.0))}
    outputs = (PortSpec("y", 1),)
    packed = ("k", "g", "n", "_c", "on", "v", "mode", "_tab[]")

    def derive(self, p: Params, ctx: CompileContext) -> None:
        p.set("_c", 10.0 * p.k)
        p.set("_tab", (7.0, 8.0, 9.0, 10.0))

    def kernels(self) -> Kernels:
        return Kernels(output=_packed_output)


_K, _G, _TAB = _Packed.packed_at("k", "g", "_tab")


@kernel
def _packed_output(t, x, z, p, y):
    y[0] = p[_K] * seg(p, _G)[1] + seg(p, _TAB)[3]


def test_scalars_first_then_array_offsets_then_arrays() -> None:
    block = _Packed("b", g=(1.0, 2.0, 3.0), mode="c")
    p = block.make_params(CompileContext())
    packed = block.pack(p)
    assert _Packed.packed_at("k", "n", "_c", "on", "mode") == (0, 1, 2, 3, 4)  # declaration order, scalars first
    assert _Packed.packed_at("g", "v", "_tab[]") == (5, 6, 7)  # their offsets; 8 holds where the vector ends
    np.testing.assert_array_equal(packed[:5], [2.5, 3.0, 25.0, 1.0, 2.0])  # a choice is its index
    np.testing.assert_array_equal(packed[9:], [1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 8.0, 9.0, 10.0])
    np.testing.assert_array_equal(pure(seg)(packed, _G), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(seg(packed, _TAB), [7.0, 8.0, 9.0, 10.0])
    assert packed[8] == packed.size
    assert block.probe().y["y"][0] == 2.5 * 2.0 + 10.0  # the law, run as Python on that vector


def test_a_per_item_number_fills_every_item_and_a_change_keeps_every_index() -> None:
    block = _Packed("b", g=0.5)
    p = block.make_params(CompileContext())
    before = block.pack(p)
    p.set("k", 3.0)
    after = block.pack(p)
    np.testing.assert_array_equal(pure(seg)(after, _G), [0.5, 0.5, 0.5])
    assert after.size == before.size and after[_K] == 3.0
    assert np.flatnonzero(after != before).tolist() == [_K]


def test_a_wrong_entry_is_refused_when_the_class_is_defined() -> None:
    with pytest.raises(TypeError, match="neither a parameter nor a derived constant"):
        type("Bad", (Block,), {"params": {"k": P(1.0)}, "packed": ("k", "kk"), "__module__": __name__},
             register=False)
    with pytest.raises(TypeError, match="shape comes from its ParamSpec"):
        type("Bad", (Block,), {"params": {"k": P(1.0)}, "packed": ("k[]",), "__module__": __name__},
             register=False)


def test_pure_replaces_every_kernel_called_with_its_python_form() -> None:
    """The PID's law calls ``_blended``; the dynamics call ``forward_dynamics_sc_into``, which calls
    ``_assemble_sc`` (models/_eom_numba), and ``trig_of`` (models/segment_trig), which calls
    ``segment_trig_into``: in the pure forms each is a plain Python function, so a debugger steps through all."""
    from blocks.library.biped import _dynamics_derivative
    from blocks.library.control import _pid_law

    law = pure(_pid_law)
    assert isinstance(law, types.FunctionType) and isinstance(law.__globals__["_blended"], types.FunctionType)
    dyn = pure(_dynamics_derivative)
    fd = dyn.__globals__["forward_dynamics_sc_into"]
    assert isinstance(fd, types.FunctionType) and isinstance(fd.__globals__["_assemble_sc"], types.FunctionType)
    trig = dyn.__globals__["trig_of"]
    assert isinstance(trig, types.FunctionType)
    assert isinstance(trig.__globals__["segment_trig_into"], types.FunctionType)
    assert not isinstance(_pid_law.py_func.__globals__["_blended"], types.FunctionType)  # the module keeps numba's


def test_state_offsets_follow_the_declaration() -> None:
    fields = (("I", "n"), ("started", 1), ("age", "n"))
    assert state_offsets(fields, {"n": 3}) == {"I": 0, "started": 3, "age": 4, "size": 7}
