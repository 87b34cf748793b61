"""Kernels compiled without numba's wrappers, and the Python entry that still lets Python call them.

numba compiles every function with two wrappers beside its own machine code: a CPython wrapper (the
entry of a call from Python: it unboxes every argument, an array's struct field by field, and boxes
the result) and a C wrapper (``cfunc``, for a function passed as a first-class value). The compiled
step (:mod:`blocks.codegen`) calls each kernel through its address with numba's own calling
convention (:func:`blocks.step_intrinsics.caller`), a kernel calling another kernel links it
directly, and the Python engine runs ``py_func`` (:func:`blocks.kernels.pure`): nothing of a run needs
either wrapper. So a kernel is compiled with neither (:data:`blocks.kernels.KERNEL_OPTIONS`, in a file
of the cache's fingerprint, :mod:`models.jit_cache`: a change of them compiles every kernel again): the
walking diagram's first compile then lowers about 2.3 s less of wrapper code and hands LLVM about 1 s
less to optimise and code-generate, thread CPU (issue 35 §3, docs/engine.md "What a first compile
costs").

Calling such a kernel from Python (tests, :func:`blocks.law_check.probe_kernels`, benchmarks, a
user's notebook) still works: :class:`KernelDispatcher` routes the call through a small compiled
entry of its own (:func:`entry`: ``entry(address, *args)`` calls the kernel by address, so the
kernel's code is not linked into it again), compiled the first time Python calls that kernel with
those argument types and never cached on disk. Its result is the kernel's own machine code's, to the
bit; its cost, paid only by Python callers, is that small compile (about 0.1-0.4 s) and a few
microseconds of argument typing a call.
"""

from __future__ import annotations

import threading
from typing import Any

from numba.core.registry import CPUDispatcher

__all__ = ["KernelDispatcher", "entry"]

_LOCK = threading.Lock()


def entry(disp: Any) -> Any:
    """A compiled function ``entry(address, *args)`` with numba's CPython wrapper that calls kernel ``disp``
    at ``address`` (:func:`blocks.step_intrinsics.address_for` of the argument types) and returns its
    result (one per kernel)."""
    from numba import njit

    from blocks.step_intrinsics import caller

    call = caller(disp)

    def kernel_entry(address, *args):
        return call(address, *args)

    kernel_entry.__qualname__ = f"entry of {disp.py_func.__qualname__}"
    return njit(nogil=True)(kernel_entry)


class KernelDispatcher(CPUDispatcher):
    """numba's dispatcher of a kernel compiled without wrappers (:data:`blocks.kernels.KERNEL_OPTIONS`).
    Compiled code calls it as any dispatcher; a call from Python goes through :func:`entry` (module
    docstring)."""

    _entry: Any = None
    _addresses: dict[tuple[Any, ...], int] | None = None

    def __call__(self, *args: Any, **kws: Any) -> Any:
        from blocks.step_intrinsics import address_for

        if kws:
            raise TypeError(f"kernel {self.py_func.__qualname__}: call it with positional arguments only")
        argtypes = tuple(self.typeof_pyval(a) for a in args)
        with _LOCK:
            if self._entry is None:
                self._entry, self._addresses = entry(self), {}
            assert self._addresses is not None
            address = self._addresses.get(argtypes)
            if address is None:
                address = self._addresses[argtypes] = address_for(self, argtypes)
        return self._entry(address, *args)
