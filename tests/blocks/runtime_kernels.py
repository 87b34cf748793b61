"""Kernels for tests/blocks/test_kernel_runtime.py (module level: numba caches kernels by their file)."""

from __future__ import annotations

import numpy as np

from blocks.kernels import kernel, seg
from models.jit import scratch


@kernel
def views_and_scratch(t, x, p, y):
    """``y = seg(p, 0) * t + x``, through a view of ``p`` and a stack array: no heap array."""
    w = seg(p, 0)
    s = scratch(4)
    for i in range(y.size):
        s[i] = w[i] * t
        y[i] = s[i] + x[i]


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
