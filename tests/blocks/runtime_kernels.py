"""Kernels for tests/blocks/test_kernel_runtime.py (module level: numba caches kernels by their file)."""

from __future__ import annotations

import numpy as np

from blocks.kernels import kernel, seg
from models.jit import scratch, scratch_matrix


@kernel
def views_and_scratch(t, x, p, y):
    """``y = seg(p, 0) * t + x``, through a view of ``p`` and a stack array: no heap array."""
    w = seg(p, 0)
    s = scratch(4)
    for i in range(y.size):
        s[i] = w[i] * t
        y[i] = s[i] + x[i]


@kernel
def matrix_product(t, a, y):
    """``y = M a`` with ``M[i, j] = t (3 i + j)`` built in a 2 x 3 stack matrix: its shape and row order."""
    m = scratch_matrix(2, 3)
    for i in range(2):
        for j in range(3):
            m[i, j] = t * (3 * i + j)
    for i in range(2):
        y[i] = m[i, 0] * a[0] + m[i, 1] * a[1] + m[i, 2] * a[2]
    y[2] = m.shape[0] * 10 + m.shape[1]


@kernel
def ratio(t, x, y):
    """``y[0] = x[0] / x[1]``: numpy's error model, so a zero divisor gives an infinity or a NaN, not an error."""
    y[0] = x[0] / x[1]


@kernel
def heap_without_runtime(t, x, y):
    """Makes a heap array without declaring it: must not compile."""
    b = np.zeros(3)
    b[0] = t
    y[0] = b[0] + x[0]


@kernel(allocates=True)
def heap_declared(t, x, y):
    """The same, declared: compiled with numba's runtime."""
    b = x.copy()
    b[0] += t
    y[0] = b[0]


@kernel
def returns_its_argument(t, x):
    """Hands an argument array back: would be freed by a counting caller, so it must not compile."""
    x[0] = t
    return x
