"""numba for the whole project, imported in one place: :data:`njit`, :data:`register_jitable`,
:func:`scratch` (scratch arrays on the stack, for the hot kernels).

:data:`njit` is numba's, except that its ``cache=True`` stamps each cached function with a fingerprint
of all the project's compiled code (:mod:`models.jit_cache`), so that a cached function never runs the
old code of a function it calls from another file.

Five fixes of numba's own costs. First, at start-up: numba's array-math module, imported when the first
compiled function is compiled or loaded from the cache, checks once that BLAS is there by importing
``scipy.linalg.cython_blas``; that imports the whole ``scipy.linalg`` package: about 0.2 s and
10 MB on every start, for nothing (no gaitblocks kernel calls BLAS, and nothing else on the
``gaitblocks run`` path imports ``scipy.linalg``). :func:`_import_array_math` imports that module
with the check answered by finding scipy instead (scipy is a dependency). numba's own
linear-algebra code is left as it is: compiling a function that calls BLAS or LAPACK
(``np.dot``, ``np.linalg.solve``) still imports and checks ``scipy.linalg.cython_blas``/``_lapack``
(``numba.np.linalg.ensure_blas``), and the compiled code loads it at run time.

Second, in every first compile: numba's typing looks each overload up in a cache keyed by the compile's
options, and each lookup builds the dict of every option (``TargetConfig.values``, one property read per
option) to hash and compare it: about 250,000 times, 1.2 s of CPU, in the walking diagram's first compile.
:func:`_fast_option_values` builds the same dict from the defaults and the options set. Likewise, numba
colours every piece of an error message it formats (colorama's ``init`` and ``deinit`` each time, about
18 us), and its typing formats messages for the overloads that do not match: 17,958 pieces in that
compile, about 0.3 s.
:func:`_plain_error_messages` gives numba its plain colour scheme unless ``$NUMBA_COLOR_SCHEME`` is set.
And where numba inlines a helper it copies the helper's IR with :func:`copy.deepcopy`, twice, each block
with every variable of the function: :func:`_fast_ir_copies` has it make the same copies without the
generic machinery (:mod:`models.jit_ircopy`). Last, the cyclic garbage collector runs less often while
numba compiles (:mod:`models.jit_gc`: a fifth of a compile's CPU went to it).
"""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import numpy as np

try:
    import numba
    from numba import prange
    from numba.extending import register_jitable

    from models.jit_cache import njit
except ImportError:  # pragma: no cover - exercised only where numba is missing
    AVAILABLE = False
else:
    AVAILABLE = True

__all__ = ["AVAILABLE", "njit", "prange", "register_jitable", "numba", "scratch"]


def _scipy_found() -> None:
    """numba's BLAS check (``ensure_blas``) for its array-math import: scipy is installed."""
    if importlib.util.find_spec("scipy") is None:
        raise ImportError("scipy 0.16+ is required for linear algebra")


def _import_array_math() -> None:
    """Import ``numba.np.arraymath`` with :func:`_scipy_found` as its BLAS check (module docstring)."""
    if "numba.np.arraymath" in sys.modules:
        return
    import numba.np.linalg as linalg

    check = getattr(linalg, "ensure_blas", None)
    if check is None:  # another numba: leave its import as it is
        return
    linalg.ensure_blas = _scipy_found
    try:
        import numba.np.arraymath  # noqa: F401  (binds the check it was given, runs it once)
    finally:
        linalg.ensure_blas = check


def _fast_option_values() -> None:
    """numba's compile options (``TargetConfig.values``: a dict of every option, its value or default) built
    from a dict of the defaults and the options set, instead of one property read per option: the same
    dict, in the same order (an option's getter is ``_values.get(name, default)``), about 0.2 us instead of
    5 us a call (module docstring)."""
    from numba.core import targetconfig

    cls: Any = targetconfig.TargetConfig
    own = cls.values
    if getattr(own, "fast", False) or not hasattr(cls, "options"):  # done, or another numba: leave it
        return
    defaults: dict[type, dict[str, Any]] = {}

    def values(self: Any) -> dict[str, Any]:
        base = defaults.get(type(self))
        if base is None:
            base = defaults[type(self)] = {k: opt.default for k, opt in type(self).options.items()}
        out = {**base, **self._values}
        return out if len(out) == len(base) else own(self)  # an option of another class: numba's own answer

    values.fast = True  # type: ignore[attr-defined]
    values.__doc__ = own.__doc__
    cls.values = values


def _fast_ir_copies() -> None:
    """numba's copies of an inlined helper's IR made by :func:`models.jit_ircopy.ir_deepcopy` (module
    docstring), from the first compile on."""
    from models.jit_ircopy import install_at_first_compile

    install_at_first_compile()


def _collect_less_while_compiling() -> None:
    """Python's cyclic garbage collector run less often while numba compiles (:mod:`models.jit_gc`)."""
    from models.jit_gc import install

    install()


def _plain_error_messages() -> None:
    """numba's error messages without colours unless ``$NUMBA_COLOR_SCHEME`` asks for them (module
    docstring): numba's own plain scheme, as ``$NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING`` would give had it
    been set before numba was imported. The same text, without the ANSI codes."""
    import os

    from numba.core import errors

    if os.environ.get("NUMBA_COLOR_SCHEME") or not hasattr(errors, "_DummyColorScheme"):
        return

    base: Any = getattr(errors, "_DummyColorScheme")  # noqa: B009  (private: not in numba's stubs)

    class Plain(base):
        def code(self, msg: str) -> str:
            return msg

        errmsg = filename = indicate = highlight = reset = code

    setattr(errors, "_termcolor_inst", Plain())  # noqa: B010  (what numba's termcolor() hands out)


def scratch(n: int) -> np.ndarray:
    """``n`` float64 of uninitialised scratch: ``np.empty(n)`` in Python; in compiled code an array on the
    calling function's stack frame (an ``alloca`` in its entry block, freed on return): no heap allocation
    and no reference count, which a ``np.empty`` in a kernel called four times a tick costs (about 30 ns a
    call, benchmarks/engine_floor.py). Compiled, ``n`` must be a literal integer and the array must not
    outlive the call (never returned or stored)."""
    return np.empty(n)


def scratch_matrix(rows: int, cols: int) -> np.ndarray:
    """:func:`scratch` as a ``rows x cols`` C-ordered matrix (both literal integers when compiled): a reshape of
    a 1-D scratch calls numba's general reshape, about 20 ns each time (the dynamics' mass matrix, four times
    a tick)."""
    return np.empty((rows, cols))


if AVAILABLE:
    _import_array_math()
    _fast_option_values()
    _plain_error_messages()
    _fast_ir_copies()
    _collect_less_while_compiling()

    from numba import types
    from numba.core import cgutils
    from numba.core.imputils import lower_builtin
    from numba.extending import type_callable

    _VEC = types.Array(types.float64, 1, "C")
    _MAT = types.Array(types.float64, 2, "C")

    def _stack_array(context, builder, ty, shape):
        """An array of type ``ty`` and constant ``shape`` on the calling function's stack, without owner."""
        size = 1
        for n in shape:
            size *= n
        data = cgutils.alloca_once(builder, context.get_value_type(types.float64), size=size)
        out = context.make_array(ty)(context, builder)
        strides: list[Any] = []
        step = 8
        for n in reversed(shape):
            strides.insert(0, context.get_constant(types.intp, step))
            step *= n
        context.populate_array(out, data=data, shape=[context.get_constant(types.intp, n) for n in shape],
                               strides=strides, itemsize=context.get_constant(types.intp, 8), meminfo=None, parent=None)
        return out._getvalue()

    @type_callable(scratch)
    def _scratch_type(context):
        def typer(n):
            return _VEC if isinstance(n, types.IntegerLiteral) else None
        return typer

    @type_callable(scratch_matrix)
    def _scratch_matrix_type(context):
        def typer(rows, cols):
            literal = isinstance(rows, types.IntegerLiteral) and isinstance(cols, types.IntegerLiteral)
            return _MAT if literal else None
        return typer

    @lower_builtin(scratch, types.IntegerLiteral)
    def _scratch_lower(context, builder, sig, args):
        """The stack array of :func:`scratch`, made in place (a typing and a lowering, no function of its own to
        return it: a kernel compiled without numba's runtime, ``_nrt=False``, may make one)."""
        return _stack_array(context, builder, _VEC, (sig.args[0].literal_value,))

    @lower_builtin(scratch_matrix, types.IntegerLiteral, types.IntegerLiteral)
    def _scratch_matrix_lower(context, builder, sig, args):
        """The stack matrix of :func:`scratch_matrix`, as :func:`_scratch_lower`."""
        return _stack_array(context, builder, _MAT, (sig.args[0].literal_value, sig.args[1].literal_value))
