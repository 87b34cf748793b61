"""numba's copies of a helper's IR, made without :func:`copy.deepcopy`'s generic machinery: the same objects.

Where numba inlines a function (``inline="always"``: every ``@helper`` of the block kernels, the dynamics'
assembly), its ``InlineWorker.inline_ir`` copies the callee's IR twice, block by block, with
:func:`copy.deepcopy`; each block's copy copies its scope, and with it every variable of the function. The
walking diagram's first compile makes about 700 such copies; the generic deepcopy (``__reduce_ex__``,
``_reconstruct``, a dispatch per object) spent 2.7 s of the 5.7 s of CPU that four of its kernels took to
compile (measured: ``grf_output``, ``_contact_output``, ``_ankle_output``, ``_estimator_output`` on an
empty cache).

:func:`ir_deepcopy` is :func:`copy.deepcopy` with the common cases done directly: atomic values, lists,
tuples, dicts, numba's ``Var`` and the plain ``__dict__`` classes of ``numba.core.ir`` (no ``__deepcopy__``,
``__reduce__``, ``__getstate__``, ``__setstate__`` or slots of their own). It follows the stdlib's algorithm
step by step (the memo entry made before an object's state is copied, the state copied in its
``__dict__``'s order, a tuple kept when none of its items changed, ``Var``'s own ``__deepcopy__`` order),
and hands everything else (``defaultdict``, sets, numba types, ``Const``, ``Global``, ``FreeVar``) to
:func:`copy.deepcopy` with the same memo. So the copies are the same objects with the same sharing, numba
names the inlined variables the same, and the machine code is the same
(``tests/models/test_jit_ircopy.py`` compares the LLVM IR of a compiled kernel with and without it).

:func:`install` makes it the ``copy.deepcopy`` of ``numba.core.inline_closurecall`` only (its one use
there); another numba without that module attribute is left alone. :func:`install_at_first_compile` does that
when numba starts its first compile: a process that compiles nothing (a warm run) does not import that
module (about 20 ms).
"""

from __future__ import annotations

import copy
import copyreg
import types
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["install", "install_at_first_compile", "ir_deepcopy"]

_ATOMIC = frozenset({type(None), int, float, bool, complex, bytes, str, types.CodeType, type, range,
                     types.BuiltinFunctionType, type(Ellipsis), type(NotImplemented), types.FunctionType,
                     weakref.ref, property})
_NIL: list[Any] = []
_Copier = Callable[[Any, dict[int, Any]], Any]
_COPIERS: dict[type, _Copier | None] = {}


def ir_deepcopy(x: Any, memo: dict[int, Any] | None = None) -> Any:
    """``copy.deepcopy(x, memo)``, faster on numba IR (module docstring)."""
    return _copy(x, {} if memo is None else memo)


def _copy(x: Any, memo: dict[int, Any]) -> Any:
    cls = type(x)
    if cls in _ATOMIC:
        return x
    y = memo.get(id(x), _NIL)
    if y is not _NIL:
        return y
    f = _COPIERS.get(cls, _NIL)
    if f is _NIL:
        f = _COPIERS[cls] = _copier_of(cls)
    if f is None:
        return copy.deepcopy(x, memo)
    return f(x, memo)


def _list(x: list[Any], memo: dict[int, Any]) -> list[Any]:
    y: list[Any] = []
    memo[id(x)] = y
    for a in x:
        y.append(_copy(a, memo))
    return y


def _tuple(x: tuple[Any, ...], memo: dict[int, Any]) -> tuple[Any, ...]:
    y = [_copy(a, memo) for a in x]
    done = memo.get(id(x), _NIL)  # a tuple that (through a list or an object) holds itself
    if done is not _NIL:
        return done
    for a, b in zip(x, y):
        if a is not b:
            out = tuple(y)
            memo[id(x)] = out
            return out
    return x


def _dict(x: dict[Any, Any], memo: dict[int, Any]) -> dict[Any, Any]:
    y: dict[Any, Any] = {}
    memo[id(x)] = y
    for k, v in x.items():
        y[_copy(k, memo)] = _copy(v, memo)
    return y


def _plain(x: Any, memo: dict[int, Any]) -> Any:
    """An object of a plain class: ``cls.__new__``, memoised, then its ``__dict__``'s values copied in order
    (the stdlib's ``_reconstruct`` of ``__reduce_ex__(4)``)."""
    y = object.__new__(type(x))
    memo[id(x)] = y
    state = x.__dict__
    if state:
        y.__dict__.update({k: _copy(v, memo) for k, v in state.items()})
    return y


def _var(x: Any, memo: dict[int, Any]) -> Any:
    """``numba.core.ir.Var.__deepcopy__``: the scope first, then the new variable memoised."""
    out = type(x)(_copy(x.scope, memo), x.name, x.loc)
    memo[id(x)] = out
    return out


def _copier_of(cls: type) -> _Copier | None:
    """How :func:`_copy` copies an object of ``cls`` itself; None: by :func:`copy.deepcopy`."""
    if cls is list:
        return _list
    if cls is tuple:
        return _tuple
    if cls is dict:
        return _dict
    if cls.__module__ != "numba.core.ir" or cls in copyreg.dispatch_table:
        return None
    own = [vars(c) for c in cls.__mro__ if c is not object]
    if cls.__name__ == "Var" and own[0].get("__deepcopy__") is not None:
        return _var
    special = ("__deepcopy__", "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__", "__slots__",
               "__new__")
    if any(name in d for d in own for name in special):
        return None
    return _plain


def install() -> None:
    """Make :func:`ir_deepcopy` the ``copy.deepcopy`` that ``numba.core.inline_closurecall`` calls (module
    docstring); the module's other uses of ``copy`` (none in numba 0.60-0.62) stay the stdlib's."""
    from numba.core import inline_closurecall as icc

    if getattr(icc, "copy", None) is not copy:  # done, or another numba: leave it
        return
    shim = types.ModuleType("copy")
    shim.__dict__.update(vars(copy))
    shim.deepcopy = ir_deepcopy  # type: ignore[attr-defined]
    icc.copy = shim


def install_at_first_compile() -> None:
    """:func:`install` at the start of numba's first compile in this process (its ``numba:compile`` event)."""
    from numba.core import event

    class _First(event.Listener):  # stays registered (unregistering while numba notifies would skip the next one)
        done = False

        def on_start(self, ev: Any) -> None:
            if not self.done:
                install()
                self.done = True

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", _First())
