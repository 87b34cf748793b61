"""Kernels are compiled without numba's CPython and C wrappers (:mod:`blocks.kernel_entry`, issue 35 §3), and
Python still calls them, through their own compiled entry, with the kernel's own results."""

from __future__ import annotations

import numpy as np

from blocks.kernel_entry import KernelDispatcher
from blocks.kernels import kernel, pure
from blocks.library.generic import gain_output, sum_output
from blocks.library.phase import foot_decision, phase_code
from blocks.step_intrinsics import signature


def test_a_kernel_has_no_python_or_c_wrapper() -> None:
    _, _, folded, _ = gain_output.get_call_template(signature(6), {})
    cres = gain_output.overloads[tuple(folded)]
    lib, fndesc = cres.library, cres.fndesc
    assert isinstance(gain_output, KernelDispatcher)
    assert lib.get_pointer_to_function(fndesc.llvm_func_name) != 0  # what the step calls by address
    assert lib.get_pointer_to_function(fndesc.llvm_cpython_wrapper_name) == 0
    assert lib.get_pointer_to_function(fndesc.llvm_cfunc_wrapper_name) == 0


def test_python_calls_a_kernel_through_its_entry() -> None:
    u, p = np.array([1.5, -2.0, 0.25]), np.array([3.0])  # the gain k
    y = np.zeros(3)
    gain_output(0.0, np.zeros(0), np.zeros(0), u, p, y)
    want = np.zeros(3)
    pure(gain_output)(0.0, np.zeros(0), np.zeros(0), u, p, want)
    assert y.tolist() == want.tolist() == [4.5, -6.0, 0.75]


def test_results_scalars_star_arguments_and_new_types() -> None:
    assert phase_code(True, False) == phase_code.py_func(True, False)
    assert phase_code(False, True) == phase_code.py_func(False, True)
    args = (0.0, 0.0, 100.0, 1.0, 40.0, 30.0, 0.05)
    assert foot_decision(*args) == foot_decision.py_func(*args)
    assert foot_decision(0, 0, 100, 1, 40, 30, 0) == foot_decision.py_func(0, 0, 100, 1, 40, 30, 0)  # ints
    a, b = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    p = np.array([2.0, 4.0, 1.0, -1.0])  # the signs' array entry p[p[0]:p[1]] (blocks.packing.Layout): + -
    y, want = np.zeros(2), np.zeros(2)
    sum_output(0.0, np.zeros(0), np.zeros(0), a, b, p, y)
    pure(sum_output)(0.0, np.zeros(0), np.zeros(0), a, b, p, want)
    assert y.tolist() == want.tolist() == [0.5, 3.0]


def test_the_kernel_options_are_in_a_file_of_the_fingerprint() -> None:
    """A change of the kernels' numba options must make every cached kernel stale (a kernel cached without
    wrappers must never be loaded where they are expected)."""
    from pathlib import Path

    import blocks.kernels
    from models.jit_cache import fingerprint_files

    assert blocks.kernels.KERNEL_OPTIONS["no_cpython_wrapper"] is True
    assert Path(blocks.kernels.__file__).resolve() in fingerprint_files()



@kernel(literal_args=False)
def _plain_n(x, n):
    return x * n


@kernel
def _literal_n(x, n):
    return x * n


def test_literal_args_false_compiles_a_kernel_once_for_constants() -> None:
    """A kernel called from compiled code with constants 2 and 3 is compiled for each constant's literal type,
    as numba does, unless it says ``literal_args=False``: then once, for int64 (the mechanism's spline
    kernels). ``get_call_template`` is what numba's typing of such a call asks (compiled here or loaded)."""
    from numba.core import types

    for disp in (_plain_n, _literal_n):
        for c in (2, 3):
            disp.get_call_template((types.float64, types.IntegerLiteral(c)), {})
    assert [str(s) for s in _plain_n.signatures] == ["(float64, int64)"]
    assert sorted(str(s) for s in _literal_n.signatures) == ["(float64, Literal[int](2))",
                                                            "(float64, Literal[int](3))"]
    assert _plain_n(1.5, 3) == _literal_n(1.5, 3) == 4.5
