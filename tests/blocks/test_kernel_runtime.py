"""Kernels are compiled without numba's runtime (``_nrt=False``, :data:`blocks.kernels.KERNEL_OPTIONS`, issue 35
§4): no reference-count call at each view they make. A kernel that makes a heap array must say so
(``@kernel(allocates=True)``), and one that does not say so fails with a message naming the fix."""

from __future__ import annotations

import re

import numpy as np
import pytest
from numba.core.errors import TypingError

from blocks.step_intrinsics import signature
from tests.blocks import runtime_kernels as rk


def _ir(disp, nargs):
    _, _, folded, _ = disp.get_call_template(signature(nargs), {})
    cres = disp.overloads[tuple(folded)]
    return cres.library.get_llvm_str(), cres.fndesc.llvm_func_name


def test_a_kernel_makes_views_and_stack_arrays_without_reference_counts() -> None:
    p = np.array([2.0, 6.0, 1.0, 2.0, 3.0, 4.0])  # entry 0: p[2:6] (blocks.packing.Layout)
    x, y = np.array([0.5, 0.25, 0.0, -1.0]), np.zeros(4)
    rk.views_and_scratch(2.0, x, p, y)
    assert y.tolist() == [2.5, 4.25, 6.0, 7.0]
    want = np.zeros(4)
    rk.views_and_scratch.py_func(2.0, x, p, want)
    assert y.tolist() == want.tolist()


def test_a_stack_matrix_has_its_shape_and_row_order() -> None:
    a, y = np.array([1.0, 2.0, 3.0]), np.zeros(3)
    rk.matrix_product(0.5, a, y)
    want = np.zeros(3)
    rk.matrix_product.py_func(0.5, a, want)
    assert y.tolist() == want.tolist() == [4.0, 13.0, 23.0]  # 0.5 [[0, 1, 2], [3, 4, 5]] @ [1, 2, 3]; shape 2 x 3


def test_a_division_by_zero_gives_a_non_finite_value_not_an_error() -> None:
    """The step then stops on a non-finite signal and names its block and port (:mod:`blocks.codegen`)."""
    y = np.zeros(1)
    rk.ratio(0.0, np.array([1.0, 0.0]), y)
    assert y[0] == np.inf
    rk.ratio(0.0, np.array([0.0, 0.0]), y)
    assert np.isnan(y[0])


def test_the_walking_kernels_call_no_reference_count() -> None:
    """The hot kernels' own machine code (compiled fresh in this process only when not cached: the IR is
    read from the library numba keeps) holds no call of the runtime's NRT_incref / NRT_decref."""
    from blocks.library.biped import _dynamics_derivative
    from blocks.library.walking import _contact_output

    for disp, nargs in ((_dynamics_derivative, 9), (_contact_output, 12)):
        py = disp.py_func
        fresh = type(disp)(py, targetoptions=dict(disp.targetoptions), locals={})  # not cached: IR readable
        ir, name = _ir(fresh, nargs)
        body = re.search(r'define [^\n]*"?' + re.escape(name) + r'"?\(.*?\n}\n', ir, re.S)
        assert body is not None
        assert "NRT_incref" not in body.group(0) and "NRT_decref" not in body.group(0), py.__qualname__


def test_a_heap_array_without_the_runtime_fails_with_the_fix() -> None:
    with pytest.raises(TypingError, match=r"heap_without_runtime makes or returns a heap array.*allocates=True"):
        rk.heap_without_runtime(1.0, np.ones(2), np.zeros(1))


def test_a_declared_heap_array_compiles_with_the_runtime() -> None:
    y = np.zeros(1)
    rk.heap_declared(1.5, np.array([2.0, 3.0]), y)
    assert y[0] == 3.5
    assert rk.heap_declared.targetoptions["_nrt"] is True
    assert rk.views_and_scratch.targetoptions["_nrt"] is False


def test_an_array_handed_back_without_the_runtime_fails() -> None:
    """Uncounted, the array a kernel returns would lose a reference in the caller that counts (the entry
    Python calls through, or another kernel): the compile refuses it."""
    x = np.zeros(2)
    with pytest.raises(TypingError, match=r"returns_its_argument returns an array .*allocates=True"):
        rk.returns_its_argument(1.0, x)
    with pytest.raises(TypingError, match="returns an array"):  # and again: nothing half-compiled was kept
        rk.returns_its_argument(1.0, x)
