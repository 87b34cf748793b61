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

import os
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from blocks.spec import Kernels, Params

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["IMPORTED", "KERNEL_OPTIONS", "PythonLaw", "cache_dir", "helper", "kernel", "pure", "pure_kernels", "seg"]


#: numba's options of every kernel (:func:`kernel`, besides ``cache=True``): the GIL released, no CPython
#: wrapper and no C wrapper (:mod:`blocks.kernel_entry`); strict IEEE arithmetic (no ``fastmath``); numpy's error
#: model (a division by zero gives an infinity or a NaN, which the step reports as a non-finite signal with its
#: block and port, instead of raising from inside the step); without numba's runtime (``_nrt=False``: no reference
#: counts, so no call at every view a kernel makes of its arrays; a kernel that allocates says so, :func:`kernel`).
#: Here, in a file of the cache's fingerprint (:mod:`models.jit_cache`): a change of them compiles every kernel again
KERNEL_OPTIONS: dict[str, Any] = {"nogil": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True,
                                  "error_model": "numpy", "_nrt": False}

#: ``{source file: (mtime_ns, size)}`` of every module that defined a kernel, as it was when imported
IMPORTED: dict[str, tuple[int, int]] = {}


def cache_dir() -> Path:
    """Where generated steps and their numba caches live: ``compiled/`` in ``$GAITBLOCKS_CACHE``, else in
    ``~/.cache/gaitblocks`` (a library keeps its own files beside it, in the same parent folder)."""
    root = os.environ.get("GAITBLOCKS_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "gaitblocks")
    return Path(root) / "compiled"


def _stamp(fn: Callable[..., Any]) -> None:
    """Record the stamp of ``fn``'s module file in :data:`IMPORTED` (once)."""
    path = fn.__code__.co_filename
    if path not in IMPORTED:
        try:
            st = os.stat(path)
            IMPORTED[path] = (st.st_mtime_ns, st.st_size)
        except OSError:
            pass


def kernel(fn: F | None = None, *, allocates: bool = False, literal_args: bool = True) -> Any:
    """Decorator of a block kernel, ``@kernel`` or ``@kernel(allocates=True)``: numba ``njit``, cached on
    disk, strict IEEE arithmetic (no fastmath: the Python engine runs the same source uncompiled and must
    agree to 1e-12), without numba's CPython and C wrappers (:mod:`blocks.kernel_entry`: the step calls it
    by address; a call from Python goes through a small compiled entry of its own). Records its module
    file's stamp (:data:`IMPORTED`): :mod:`blocks.codegen` will not share a step compiled from a module
    edited since this process imported it.

    A kernel is compiled without numba's runtime (:data:`KERNEL_OPTIONS`): it reads and writes the arrays
    it is given, views of them, and fixed-size stack arrays (:func:`models.jit.scratch`), but makes no
    heap array. Each view numba makes of an array otherwise costs two calls of the runtime's reference
    count (about 40 a call of the walking diagram's dynamics or contact kernel): about 1 us of the walking
    step's 4.0 us a tick (issue 35 §4, docs/benchmarks.md). ``allocates=True`` compiles a kernel that
    makes or returns heap arrays (``np.zeros``, ``np.empty``, ``.copy()``, as the mechanism solver's)
    with the runtime; a kernel that needs it and lacks it fails to compile with a message that says so
    (:class:`blocks.kernel_entry.KernelDispatcher`).

    A kernel called from another kernel with a constant argument (``deboor(t, x, k, ell, 0)``) is compiled
    for that constant's literal type, once per constant, as numba does: the grf_match solve's ``n = 7``
    unrolls its loops that way. ``literal_args=False`` compiles such a kernel once for the plain types
    instead (``KernelDispatcher.literal_args``): the mechanism's spline kernels, whose derivative order
    was compiled four times."""
    from blocks.kernel_entry import KernelDispatcher
    from models.jit import njit

    def wrap(f: F) -> F:
        _stamp(f)
        options = {**KERNEL_OPTIONS, "_nrt": True} if allocates else KERNEL_OPTIONS
        disp = njit(cache=True, dispatcher=KernelDispatcher, **options)(f)
        disp.literal_args = literal_args
        return disp

    return wrap if fn is None else wrap(fn)


def helper(fn: F) -> F:
    """Decorator of a small function the kernels call many times a tick (a table lookup, an
    interpolation, :func:`seg`): a :func:`kernel` that numba inlines into each caller
    (``inline="always"``, before typing; the calls compiled apart cost more than the arithmetic:
    ``ReferenceMotion``'s twelve interpolations 1.4 us a call, 0.3-0.4 us inlined, the numbers to the
    bit). Called from Python or as plain Python (:func:`pure`) it is a kernel like any other."""
    from models.jit import njit

    _stamp(fn)
    return njit(cache=True, nogil=True, inline="always")(fn)


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


def pure_kernels(k: Kernels) -> Kernels:
    """A block's kernels ``k`` with every function in its plain-Python form (:func:`pure`)."""
    return Kernels(*(None if f is None else pure(f) for f in k))


class PythonLaw:
    """A block's kernels ``k``, as plain Python, bound to its packed vector ``pack(p)``
    (:meth:`blocks.core.Block.pack`) and called as the engine calls callbacks::

        output(t, x, z, u, p, y)  ->  k.output(t, x, z, *u, packed, *y)

    (``p``, the :class:`~blocks.spec.Params`, is not read: the packed vector stands for it; call
    :meth:`repack` after a parameter change)."""

    __slots__ = ("pack", "packed", "_out", "_der", "_upd")

    def __init__(self, k: Kernels, pack: Callable[[Params], np.ndarray], p: Params) -> None:
        self._out, self._der, self._upd = pure_kernels(k)
        self.pack = pack
        self.packed = np.zeros(0)
        self.repack(p)

    def repack(self, p: Params) -> None:
        self.packed = np.ascontiguousarray(self.pack(p), dtype=np.float64).reshape(-1)

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
