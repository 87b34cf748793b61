"""Views the generated step (:mod:`blocks.codegen`) makes of its buffers, as numba intrinsics.

``sig[o:o + n]`` in numba lowers to the general slice (negative indices, clamping to the shape, a
step) plus a reference count on the parent buffer that every exit of the step releases again. The
walking diagram's step makes about 140 such views once per call, before its tick loop, and they were
about a third of the LLVM IR numba hands to LLVM for it (issue 35 §3). The views here are the same
arrays in a handful of instructions: the data pointer moved by ``o`` elements, shape ``n``, the
element stride, and no owner (``meminfo`` null: nothing to count; the step's arguments own the
memory for the whole call).

Nothing is checked at run time: the generated step passes offsets from its own compiled layout,
which lie inside the buffers by construction (:class:`blocks.compile.CompiledModel`).
"""

from __future__ import annotations

from typing import Any

from numba.core import types
from numba.core.errors import TypingError
from numba.extending import intrinsic

__all__ = ["row", "view"]

_VEC = types.Array(types.float64, 1, "C")


def _check(a: Any, ndim: int, what: str) -> None:
    if not (isinstance(a, types.Array) and a.dtype == types.float64 and a.ndim == ndim and a.layout == "C"):
        raise TypingError(f"{what}: needs a C-contiguous {ndim}-D float64 array, got {a}")


def _vector(context: Any, builder: Any, data: Any, size: Any) -> Any:
    """A 1-D C float64 array value over ``size`` elements at ``data``, without owner."""
    out = context.make_array(_VEC)(context, builder)
    item = context.get_constant(types.intp, 8)
    context.populate_array(out, data=data, shape=[size], strides=[item], itemsize=item, meminfo=None, parent=None)
    return out._getvalue()


@intrinsic
def view(typingctx, a, off, size):  # type: ignore[no-untyped-def]
    """``a[off : off + size]`` of a 1-D C float64 array ``a`` (offset and size in elements), unchecked."""
    _check(a, 1, "view")

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        arr = context.make_array(sig.args[0])(context, builder, args[0])
        o = context.cast(builder, args[1], sig.args[1], types.intp)
        n = context.cast(builder, args[2], sig.args[2], types.intp)
        return _vector(context, builder, builder.gep(arr.data, [o]), n)

    return _VEC(a, off, size), codegen


@intrinsic
def row(typingctx, a, i):  # type: ignore[no-untyped-def]
    """``a[i]`` of a 2-D C float64 array ``a``: row ``i`` (``0 <= i < a.shape[0]``), unchecked."""
    _check(a, 2, "row")

    def codegen(context, builder, sig, args):  # type: ignore[no-untyped-def]
        arr = context.make_array(sig.args[0])(context, builder, args[0])
        i = context.cast(builder, args[1], sig.args[1], types.intp)
        n = builder.extract_value(arr.shape, 1)
        return _vector(context, builder, builder.gep(arr.data, [builder.mul(i, n)]), n)

    return _VEC(a, i), codegen
