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
entry of its own (:func:`entry`: it calls the kernel by address, so the kernel's code is not linked
into it again), compiled the first time Python calls that kernel with those argument types and never
cached on disk. Its result is the kernel's own machine code's, to the bit; its cost, paid only by
Python callers, is that small compile (about 0.1-0.4 s), then a call as fast as numba's own dispatch.
"""

from __future__ import annotations

import threading
from typing import Any

from numba.core import sigutils, types
from numba.core.errors import NumbaError, TypingError
from numba.core.registry import CPUDispatcher

__all__ = ["KernelDispatcher", "entry"]

_LOCK = threading.Lock()

#: what numba says when a function compiled without its runtime (``_nrt=False``) makes or returns an array
_NEEDS_RUNTIME = ("Only accept returning of array passed into the function as argument", "NRT required")
_FIX = ("a kernel compiled without numba's runtime cannot: use a fixed-size stack array (models.jit.scratch(n), n a "
        "literal) or write into an output, or declare it @kernel(allocates=True) (reference-counted arrays, slower "
        "in a step)")


def _holds_array(ty: Any) -> bool:
    """Whether numba type ``ty`` is or holds (in a tuple) an array."""
    if isinstance(ty, types.Array):
        return True
    return isinstance(ty, types.BaseTuple) and any(_holds_array(t) for t in getattr(ty, "types", ()))


def entry(disp: Any) -> Any:
    """A compiled function ``entry(*args)`` with numba's CPython wrapper that calls kernel ``disp`` with
    ``args`` and returns its result (one per kernel; numba compiles it once per argument types, in this
    process only). It calls the kernel by address (:func:`blocks.step_intrinsics.caller`): the address of
    the kernel's machine code for those types (:func:`blocks.step_intrinsics.address_for`, compiled or
    loaded from numba's cache then) is a constant of the entry's code, so the entry is never cached."""
    from numba import njit
    from numba.extending import intrinsic

    from blocks.step_intrinsics import address_for, caller

    call = caller(disp)

    @intrinsic
    def here(typingctx, *args):
        where = address_for(disp, tuple(args))

        def codegen(context, builder, sig, vals):
            return context.get_constant(types.intp, where)

        return types.intp(types.StarArgTuple.from_types(args)), codegen

    def kernel_entry(*args):
        return call(here(*args), *args)

    kernel_entry.__qualname__ = f"entry of {disp.py_func.__qualname__}"
    return njit(nogil=True)(kernel_entry)


class KernelDispatcher(CPUDispatcher):
    """numba's dispatcher of a kernel compiled without wrappers (:data:`blocks.kernels.KERNEL_OPTIONS`).
    Compiled code calls it as any dispatcher; a call from Python goes through :func:`entry` (module
    docstring)."""

    _entry: Any = None
    #: False: a call from compiled code with a constant argument compiles the kernel for the constant's
    #: plain type (int64), not its literal type (:func:`blocks.kernels.kernel`)
    literal_args: bool = True

    def get_call_template(self, args: Any, kws: Any) -> Any:
        """numba's call template for a call from compiled code, with literal argument types made plain where
        :attr:`literal_args` is False (the caller's constant is cast to the plain type where it calls)."""
        if not self.literal_args:
            args = tuple(types.unliteral(a) for a in args)
            kws = {k: types.unliteral(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)

    def compile(self, sig: Any) -> Any:
        """numba's compile of ``sig``; a kernel without numba's runtime that makes a heap array fails with
        what to do (:func:`blocks.kernels.kernel`) before numba's own message."""
        bare = not self.targetoptions.get("_nrt", True)
        try:
            out = super().compile(sig)
        except NumbaError as e:
            if not bare or not any(m in str(e) for m in _NEEDS_RUNTIME):
                raise
            raise TypingError(f"{self._name()} makes or returns a heap array (np.zeros, np.empty, .copy(), ...), "
                              f"which {_FIX}. numba said:\n{e}") from None
        if bare:  # an array handed back uncounted would be freed by a counting caller (its entry, another kernel)
            args, _ = sigutils.normalize_signature(sig)
            cres: Any = self.overloads.get(tuple(args))
            if cres is not None and _holds_array(cres.fndesc.restype):
                self.overloads.pop(tuple(args), None)
                raise TypingError(f"{self._name()} returns an array ({cres.fndesc.restype}), which {_FIX}")
        return out

    def _name(self) -> str:
        return f"kernel {self.py_func.__module__}.{self.py_func.__qualname__}"

    def __call__(self, *args: Any, **kws: Any) -> Any:
        if kws:
            raise TypeError(f"kernel {self.py_func.__qualname__}: call it with positional arguments only")
        call = self._entry
        if call is None:
            with _LOCK:
                if self._entry is None:
                    self._entry = entry(self)
                call = self._entry
        return call(*args)
