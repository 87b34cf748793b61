"""A block's law, written once as its kernels, run compiled or as plain Python.

:func:`kernel` compiles a module-level function with numba. The compiled engine
(:mod:`blocks.compiled`) calls the compiled form; the Python engine calls :func:`pure` of the same
function: its ``py_func`` with every kernel it calls replaced by that kernel's own ``py_func``, so
the whole law runs as Python source (a debugger steps through it) and both engines run one source.
:class:`PythonLaw` binds a block's pure kernels to its packed parameter vector
(:meth:`blocks.core.Block.pack`) with the engine's callback signature.

Strict IEEE arithmetic (no ``fastmath``) keeps the two forms' results the same to the last bits
(the tests hold whole runs to 1e-12).
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

if TYPE_CHECKING:
    from blocks.core import Block, Kernels, Params, Probe
    from blocks.runner import Runner

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["IMPORTED", "PythonLaw", "helper", "kernel", "kernel_mismatch", "live_slices", "probe_kernels", "pure",
           "pure_kernels", "seg"]


#: ``{source file: (mtime_ns, size)}`` of every module that defined a kernel, as it was when imported
IMPORTED: dict[str, tuple[int, int]] = {}


def _stamp(fn: Callable[..., Any]) -> None:
    """Record the stamp of ``fn``'s module file in :data:`IMPORTED` (once)."""
    import os

    path = fn.__code__.co_filename
    if path not in IMPORTED:
        try:
            st = os.stat(path)
            IMPORTED[path] = (st.st_mtime_ns, st.st_size)
        except OSError:
            pass


def kernel(fn: F) -> F:
    """Decorator of a block kernel: numba ``njit``, cached on disk, strict IEEE arithmetic (no
    fastmath: the Python engine runs the same source uncompiled and must agree to 1e-12). Records
    its module file's stamp (:data:`IMPORTED`): :mod:`blocks.codegen` will not share a step compiled
    from a module edited since this process imported it."""
    from models.jit import njit

    _stamp(fn)
    return njit(cache=True, nogil=True)(fn)  # type: ignore[return-value]


def helper(fn: F) -> F:
    """Decorator of a small function the kernels call many times a tick (a table lookup, an
    interpolation, :func:`seg`): a :func:`kernel` that numba inlines into each caller
    (``inline="always"``, before typing; the calls compiled apart cost more than the arithmetic:
    ``ReferenceMotion``'s twelve interpolations 1.4 us a call, 0.3-0.4 us inlined, the numbers to the
    bit). Called from Python or as plain Python (:func:`pure`) it is a kernel like any other."""
    from models.jit import njit

    _stamp(fn)
    return njit(cache=True, nogil=True, inline="always")(fn)  # type: ignore[return-value]


@helper
def seg(p, j):
    """Array entry ``j`` of a packed vector ``p`` (:class:`blocks.packing.Layout`): ``p[p[j] : p[j + 1]]``,
    a view."""
    return p[int(p[j]):int(p[j + 1])]


_PURE: dict[int, Callable[..., Any]] = {}
_GLOBALS: dict[int, dict[str, Any]] = {}


def pure(fn: Any) -> Any:
    """The plain-Python form of kernel ``fn``: its ``py_func``, whose calls of other kernels (a numba
    dispatcher in its module's globals) go to their plain-Python forms too. A plain function (e.g.
    ``register_jitable``) is returned as it is when it calls no kernel."""
    py = getattr(fn, "py_func", fn)
    if not isinstance(py, types.FunctionType):
        return fn
    done = _PURE.get(id(py))
    if done is not None:
        return done
    g = _pure_globals(py.__globals__)
    if g is py.__globals__:
        _PURE[id(py)] = py
        return py
    out = types.FunctionType(py.__code__, g, py.__name__, py.__defaults__, py.__closure__)
    out.__doc__, out.__qualname__, out.__module__ = py.__doc__, py.__qualname__, py.__module__
    _PURE[id(py)] = out
    return out


def _is_kernel(v: Any) -> bool:
    return hasattr(v, "py_func") and isinstance(v.py_func, types.FunctionType)


def _pure_globals(g: dict[str, Any]) -> dict[str, Any]:
    """A copy of module globals ``g`` with every kernel in it replaced by its plain-Python form
    (``g`` itself when it holds no kernel)."""
    key = id(g)
    if key in _GLOBALS:
        return _GLOBALS[key]
    if not any(_is_kernel(v) for v in g.values()):
        _GLOBALS[key] = g
        return g
    new = dict(g)
    _GLOBALS[key] = new  # before the recursion: kernels of one module call each other
    for name, v in g.items():
        if _is_kernel(v):
            new[name] = pure(v)
    return new


def pure_kernels(block: Block) -> Kernels:
    """``block.kernels()`` with every function in its plain-Python form (:func:`pure`)."""
    from blocks.core import Kernels

    k = block.kernels()
    if k is None:
        raise TypeError(f"block '{block.name}' ({block.type_name}) has no kernels")
    return Kernels(*(None if f is None else pure(f) for f in k))


class PythonLaw:
    """A block's pure kernels bound to its packed vector, called as the engine calls callbacks::

        output(t, x, z, u, p, y)  ->  kernels.output(t, x, z, *u, packed, *y)

    (``p``, the :class:`~blocks.core.Params`, is not read: the packed vector stands for it; call
    :meth:`repack` after a parameter change)."""

    __slots__ = ("block", "packed", "_out", "_der", "_upd")

    def __init__(self, block: Block, p: Params) -> None:
        k = pure_kernels(block)
        self.block = block
        self._out, self._der, self._upd = k.output, k.derivative, k.update
        self.packed = np.zeros(0)
        self.repack(p)

    def repack(self, p: Params) -> None:
        self.packed = np.ascontiguousarray(self.block.pack(p), dtype=np.float64).reshape(-1)

    def output(self, t: float, x: np.ndarray, z: np.ndarray, u: tuple[np.ndarray, ...], p: Params,
               y: tuple[np.ndarray, ...]) -> None:
        if self._out is not None:  # None: a block without outputs (a scope tap)
            self._out(t, x, z, *u, self.packed, *y)

    def derivative(self, t: float, x: np.ndarray, z: np.ndarray, u: tuple[np.ndarray, ...], p: Params,
                   dx: np.ndarray) -> None:
        self._der(t, x, z, *u, self.packed, dx)

    def update(self, t: float, x: np.ndarray, z: np.ndarray, u: tuple[np.ndarray, ...], p: Params,
               znext: np.ndarray) -> None:
        self._upd(t, x, z, *u, self.packed, znext)


def probe_kernels(block: Block, p: Params, t: float, u: tuple[np.ndarray, ...], x: np.ndarray,
                  z: np.ndarray) -> Probe:
    """Outputs, derivative and next discrete state from ``block.kernels()`` *compiled* (which must not be
    None); :meth:`blocks.core.Block.probe` runs the same kernels as plain Python."""
    from blocks.core import Probe

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
