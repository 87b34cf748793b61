"""Checking a block's law run as plain Python against the same kernels compiled (tests, diagnostics).

:meth:`blocks.core.Block.probe` runs a block's kernels as plain Python (:mod:`blocks.kernels`);
:func:`probe_kernels` runs them compiled; :func:`kernel_mismatch` compares the two for every block of
a running diagram at its current tick.
"""

from __future__ import annotations

import numpy as np

from blocks.core import Block, Params, Probe
from blocks.runner import Runner

__all__ = ["kernel_mismatch", "live_slices", "probe_kernels"]


def probe_kernels(block: Block, p: Params, t: float, u: tuple[np.ndarray, ...], x: np.ndarray,
                  z: np.ndarray) -> Probe:
    """Outputs, derivative and next discrete state from ``block.kernels()`` *compiled* (which must not be
    None); :meth:`blocks.core.Block.probe` runs the same kernels as plain Python."""
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
    its law run as Python (:meth:`blocks.core.Block.probe`) and compiled, at the runner's current tick::

        err = max |a - b| / (1 + max |a|)       over outputs, derivative and next discrete state
    """
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
