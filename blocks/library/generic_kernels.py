"""Compiled forms (kernels) of the generic blocks (:mod:`blocks.library.generic`).

Each is a module-level numba function (:func:`blocks.kernels.kernel`) with the engine's contract
(``docs/engine.md``, "The kernel contract"): ports as separate 1-D float64 arrays in declaration
order, ``p`` the block's packed vector (its ``pack``), the result written into the last argument.
The arithmetic follows the Python callbacks' order, so both engines round alike.

* ``copy_p``: Constant ``y = p``; ``step_output``: Step ``y = before`` until ``t_step``, then ``after``;
* ``gain_output``: ``y = k u``; ``sum_output``: ``y = sum_i s_i u_i``; ``mux_output``: ``y = [u_1, ..]``;
* ``selector_output``: ``y_i = u[idx_i]``; ``copy_z``/``copy_u_next``: UnitDelay ``y = z``, ``z' = u``;
* ``copy_x``: Integrator ``y = x`` (and ``copy_u_next`` as its ``dx = u``); ``ss_output``/``ss_derivative``: StateSpace
  ``y = C x + D u``, ``dx = A x + B u`` (``p = [n, m, l, A, B, C, D]``, row-major).
"""

from __future__ import annotations

from blocks.kernels import kernel

__all__ = ["copy_p", "step_output", "gain_output", "sum_output", "mux_output", "selector_output", "copy_z",
           "copy_u_next", "copy_x", "ss_output", "ss_derivative"]


@kernel
def copy_p(t, x, z, p, y):
    for i in range(y.size):
        y[i] = p[i]


@kernel
def step_output(t, x, z, p, y):
    v = p[2] if t >= p[0] else p[1]
    for i in range(y.size):
        y[i] = v


@kernel
def gain_output(t, x, z, u, p, y):
    for i in range(y.size):
        y[i] = u[i] * p[0]


@kernel
def sum_output(t, x, z, *a):
    # a = (u_1, ..., u_m, p, y): one kernel for every input count (numba types *a per arity)
    m = len(a) - 2
    p = a[m]
    y = a[m + 1]
    for i in range(y.size):
        acc = a[0][i] if p[0] > 0.0 else -a[0][i]
        for j in range(1, m):
            if p[j] > 0.0:
                acc += a[j][i]
            else:
                acc -= a[j][i]
        y[i] = acc


@kernel
def mux_output(t, x, z, *a):
    # a = (u_1, ..., u_m, p, y)
    m = len(a) - 2
    y = a[m + 1]
    k = 0
    for j in range(m):
        uj = a[j]
        for i in range(uj.size):
            y[k] = uj[i]
            k += 1


@kernel
def selector_output(t, x, z, u, p, y):
    for j in range(y.size):
        y[j] = u[int(p[j])]


@kernel
def copy_z(t, x, z, u, p, y):
    for i in range(y.size):
        y[i] = z[i]


@kernel
def copy_u_next(t, x, z, u, p, znext):
    for i in range(znext.size):
        znext[i] = u[i]


@kernel
def copy_x(t, x, z, u, p, y):
    for i in range(y.size):
        y[i] = x[i]


@kernel
def ss_rows(p, x, u, first, rows, y):
    # y = [M | N] [x; u] for the matrix pair starting at p[first] (rows x n, then rows x m)
    n, m = int(p[0]), int(p[1])
    off_n = first + rows * n
    for r in range(rows):
        acc = 0.0
        for j in range(n):
            acc += p[first + r * n + j] * x[j]
        for j in range(m):
            acc += p[off_n + r * m + j] * u[j]
        y[r] = acc


@kernel
def ss_output(t, x, z, u, p, y):
    n, m, l = int(p[0]), int(p[1]), int(p[2])
    ss_rows(p, x, u, 3 + n * n + n * m, l, y)


@kernel
def ss_derivative(t, x, z, u, p, dx):
    n = int(p[0])
    ss_rows(p, x, u, 3, n, dx)
