"""The generated step's views and kernel calls by address (blocks/step_intrinsics.py)."""

from __future__ import annotations

import numpy as np
import pytest

from blocks.step_intrinsics import address, caller, row, view
from models.jit import njit


@njit(cache=False)
def _double(t, x, y):
    if t < 0.0:
        raise ValueError("negative time")
    for j in range(y.size):
        y[j] = 2.0 * x[j] + t


@njit(cache=False)
def _total(t, *a):
    acc = t
    for v in a[:-1]:
        acc += v.sum()
    a[-1][0] = acc


_DOUBLE = caller(_double)
_TOTAL = caller(_total)


@njit(cache=False)
def _views(a, b, out):
    s = view(a, 2, 3)
    s[0] = -1.0  # written through to a
    r = row(b, 1)
    out[0] = s.sum()
    out[1] = r.sum()
    out[2] = r.size


@njit(cache=False)
def _by_address(fn, fn3, t, x, y, u, w, out):
    _DOUBLE(fn, t, view(x, 1, 2), view(y, 0, 2))
    _TOTAL(fn3, t, u, w, out)


def test_views_are_the_slices_they_stand_for() -> None:
    a = np.arange(8.0)
    b = np.arange(12.0).reshape(3, 4)
    out = np.zeros(3)
    _views(a, b, out)
    assert a[2] == -1.0 and a[3] == 3.0  # the view writes into a, only where it lies
    assert out.tolist() == [-1.0 + 3.0 + 4.0, float(b[1].sum()), 4.0]


def test_a_kernel_called_by_address_matches_the_direct_call_and_is_not_linked() -> None:
    x, u, w = np.array([0.0, 1.5, -2.0, 9.0]), np.array([1.0, 2.0]), np.array([10.0])
    y, out = np.zeros(3), np.zeros(1)
    fn, fn3 = address(_double, 3), address(_total, 4)
    _by_address(fn, fn3, 0.25, x, y, u, w, out)
    want_y, want_out = np.zeros(2), np.zeros(1)
    _double(0.25, x[1:3], want_y)
    _total(0.25, u, w, want_out)
    assert y.tolist() == [*want_y.tolist(), 0.0] and out.tolist() == want_out.tolist() == [13.25]
    # the caller's module holds none of the kernel's code: not its error's message either (a direct call links
    # the kernel in, inlines it and so carries the message)
    ir = next(iter(_by_address.inspect_llvm().values()))
    assert "negative time" not in ir
    assert not [line for line in ir.splitlines() if line.startswith("define") and "_double" in line]


def test_an_error_in_a_kernel_called_by_address_reaches_the_caller() -> None:
    x, y, u, w, out = np.zeros(4), np.zeros(2), np.zeros(1), np.zeros(1), np.zeros(1)
    with pytest.raises(ValueError, match="negative time"):
        _by_address(address(_double, 3), address(_total, 4), -1.0, x, y, u, w, out)
