"""The laws (kernels) of the generic blocks (:mod:`blocks.library.generic`): both engines run them.

Each is a module-level numba function (:func:`blocks.kernels.kernel`) with the engine's contract
(``docs/engine.md``, "The kernel contract"): ports as separate 1-D float64 arrays in declaration
order, ``p`` the block's packed vector (the class's ``packed``, laid out by :mod:`blocks.packing`),
the result written into the last argument.

* ``constant_output``: Constant ``y = value``; ``step_output``: Step ``y = before`` until ``t_step``, then
  ``after``; ``gain_output``: ``y = k u``; ``sum_output``: ``y = sum_i s_i u_i`` (``s_i = -1.0`` or ``+1.0``:
  ``-1 * u`` is ``-u`` exactly); ``mux_output``: ``y = [u_1, ..]``;
* ``selector_output``: ``y_i = u[idx_i]``; ``copy_z``/``copy_u_next``: UnitDelay ``y = z``, ``z' = u``;
* ``copy_x``: Integrator ``y = x`` (and ``copy_u_next`` as its ``dx = u``); ``ss_output``/``ss_derivative``: StateSpace
  ``y = C x + D u``, ``dx = A x + B u`` (matrices row-major).
"""

from __future__ import annotations

from blocks.kernels import kernel, seg
from blocks.library.generic import Constant, Gain, Selector, StateSpace, Step, Sum

__all__ = ["constant_output", "step_output", "gain_output", "sum_output", "mux_output", "selector_output", "copy_z",
           "copy_u_next", "copy_x", "ss_output", "ss_derivative"]

_VALUE = Constant.packed_at("value")
_T_STEP, _BEFORE, _AFTER = Step.packed_at("t_step", "before", "after")
_K = Gain.packed_at("k")
_SIGN = Sum.packed_at("_sign")
_INDICES = Selector.packed_at("indices")
_A, _B, _C, _D = StateSpace.packed_at("a", "b", "c", "d")


@kernel
def constant_output(t, x, z, p, y):
    v = seg(p, _VALUE)
    for i in range(y.size):
        y[i] = v[i]


@kernel
def step_output(t, x, z, p, y):
    v = p[_AFTER] if t >= p[_T_STEP] else p[_BEFORE]
    for i in range(y.size):
        y[i] = v


@kernel
def gain_output(t, x, z, u, p, y):
    for i in range(y.size):
        y[i] = u[i] * p[_K]


@kernel
def sum_output(t, x, z, *a):
    # a = (u_1, ..., u_m, p, y): one kernel for every input count (numba types *a per arity)
    m = len(a) - 2
    sign = seg(a[m], _SIGN)
    y = a[m + 1]
    for i in range(y.size):
        acc = a[0][i] if sign[0] > 0.0 else -a[0][i]
        for j in range(1, m):
            if sign[j] > 0.0:
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
    idx = seg(p, _INDICES)
    for j in range(y.size):
        y[j] = u[int(idx[j])]


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
def ss_rows(mx, mu, x, u, y):
    # y = [Mx | Mu] [x; u], Mx (rows x n) and Mu (rows x m) row-major
    n, m = x.size, u.size
    for r in range(y.size):
        acc = 0.0
        for j in range(n):
            acc += mx[r * n + j] * x[j]
        for j in range(m):
            acc += mu[r * m + j] * u[j]
        y[r] = acc


@kernel
def ss_output(t, x, z, u, p, y):
    ss_rows(seg(p, _C), seg(p, _D), x, u, y)


@kernel
def ss_derivative(t, x, z, u, p, dx):
    ss_rows(seg(p, _A), seg(p, _B), x, u, dx)
