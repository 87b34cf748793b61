"""Checking a block's compiled form (:class:`~blocks.core.Kernels`) against its Python callbacks.

:func:`probe_kernels` evaluates the kernels of one block on given inputs and states, the way
:meth:`blocks.core.Block.probe` evaluates the callbacks; :func:`kernel_mismatch` does both on
the live buffers of a running :class:`~blocks.runner.Runner` (a copy of them: nothing moves) and
returns the largest difference per block, scaled by the size of the values compared::

    err = max |a - b| / (1 + max |a|)       over outputs, derivative and next discrete state
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from blocks.core import Block, Params, Probe

if TYPE_CHECKING:
    from blocks.runner import Runner

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["kernel", "kernel_mismatch", "live_slices", "probe_kernels"]


def kernel(fn: F) -> F:
    """Decorator of a block kernel: numba ``njit``, cached on disk, strict IEEE arithmetic (no
    fastmath: the compiled engine must agree with the Python callbacks to 1e-9)."""
    from models.jit import njit

    return njit(cache=True, nogil=True)(fn)  # type: ignore[return-value]


def probe_kernels(block: Block, p: Params, t: float, u: tuple[np.ndarray, ...], x: np.ndarray,
                  z: np.ndarray) -> Probe:
    """Outputs, derivative and next discrete state from ``block.kernels()`` (which must not be None)."""
    k = block.kernels()
    if k is None:
        raise TypeError(f"block '{block.name}' ({block.type_name}) has no compiled form")
    packed = np.ascontiguousarray(block.pack(p), dtype=np.float64)
    ins, outs = block.port_specs()
    ua = tuple(np.array(a, dtype=np.float64).reshape(int(s.size)) for s, a in zip(ins, u))
    xa, za = np.array(x, dtype=np.float64), np.array(z, dtype=np.float64)
    y = tuple(np.zeros(int(s.size)) for s in outs)
    if k.output is not None and y:
        k.output(float(t), xa, za, *ua, packed, *y)
    dx = np.zeros(block.state_size())
    if k.derivative is not None and dx.size:
        k.derivative(float(t), xa, za, *ua, packed, dx)
    zn = za.copy()
    if k.update is not None and block.discrete and zn.size:
        k.update(float(t), xa, za, *ua, packed, zn)
    return Probe({s.name: arr for s, arr in zip(outs, y)}, dx, zn)


def _scaled(a: np.ndarray, b: np.ndarray) -> float:
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a - b)) / (1.0 + np.max(np.abs(a))))


def live_slices(runner: Runner, b: Block) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
    """Copies of block ``b``'s inputs, continuous and discrete states at ``runner``'s current tick."""
    m, n = runner.model, b.name
    u = tuple(runner.sig[o: o + s].copy() for o, s in (m.in_slot[f"{n}.{spec.name}"] for spec in m.inputs[n]))
    xo, xs = m.x_slot[n]
    zo, zs = m.z_slot[n]
    return u, runner.x[xo: xo + xs].copy(), runner.z[zo: zo + zs].copy()


def kernel_mismatch(runner: Runner) -> dict[str, float]:
    """For every block of ``runner``'s model that has kernels: the scaled largest difference between
    its Python callbacks and its kernels at the runner's current tick (module docstring)."""
    m = runner.model
    t = runner.time
    out: dict[str, float] = {}
    for b in m.blocks:
        if b.kernels() is None:
            continue
        n = b.name
        u, x, z = live_slices(runner, b)
        p = runner.params[n]
        ref = b.probe(t, {s.name: a for s, a in zip(m.inputs[n], u)}, x=x, z=z, ctx=m.ctx, p=p)
        got = probe_kernels(b, p, t, u, x, z)
        errs = [_scaled(ref.y[k], got.y[k]) for k in ref.y]
        errs += [_scaled(ref.dx, got.dx), _scaled(ref.z_next, got.z_next)]
        out[n] = max(errs)
    return out
