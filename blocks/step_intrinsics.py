"""The generated step's (:mod:`blocks.codegen`) views of its buffers and its calls of the kernels, as
numba intrinsics: :func:`view` and :func:`row` below, :func:`caller` and :func:`address` further down
(the kernels called through their addresses, their code never linked into the step).

``sig[o:o + n]`` in numba lowers to the general slice (negative indices, clamping to the shape, a
step) plus a reference count on the parent buffer that every exit of the step releases again. The
walking diagram's step makes about 140 such views once per call, before its tick loop, and they were
about 30 % of the LLVM IR numba hands to LLVM for it (issue 35 §3). The views here are the same
arrays in a handful of instructions: the data pointer moved by ``o`` elements, shape ``n``, the
element stride, and no owner (``meminfo`` null: nothing to count; the step's arguments own the
memory for the whole call).

Nothing is checked at run time: the generated step passes offsets from its own compiled layout,
which lie inside the buffers by construction (:class:`blocks.compile.CompiledModel`).
"""

from __future__ import annotations

from typing import Any

from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.extending import intrinsic

__all__ = ["address", "address_for", "caller", "row", "signature", "view"]

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
def view(typingctx, a, off, size):
    """``a[off : off + size]`` of a 1-D C float64 array ``a`` (offset and size in elements), unchecked."""
    _check(a, 1, "view")

    def codegen(context, builder, sig, args):
        arr = context.make_array(sig.args[0])(context, builder, args[0])
        o = context.cast(builder, args[1], sig.args[1], types.intp)
        n = context.cast(builder, args[2], sig.args[2], types.intp)
        return _vector(context, builder, builder.gep(arr.data, [o]), n)

    return _VEC(a, off, size), codegen


@intrinsic
def row(typingctx, a, i):
    """``a[i]`` of a 2-D C float64 array ``a``: row ``i`` (``0 <= i < a.shape[0]``), unchecked."""
    _check(a, 2, "row")

    def codegen(context, builder, sig, args):
        arr = context.make_array(sig.args[0])(context, builder, args[0])
        i = context.cast(builder, args[1], sig.args[1], types.intp)
        n = builder.extract_value(arr.shape, 1)
        return _vector(context, builder, builder.gep(arr.data, [builder.mul(i, n)]), n)

    return _VEC(a, i), codegen


# ----------------------------------------------------------------- kernels called by address
def _callee(disp: Any, flat: tuple[Any, ...]) -> Any:
    """The compile result of kernel ``disp`` for positional argument types ``flat`` (compiled, or
    loaded from numba's cache, now)."""
    _, _, folded, _ = disp.get_call_template(flat, {})
    return disp.overloads[tuple(folded)]


def signature(nargs: int) -> tuple[Any, ...]:
    """The argument types of a kernel call of the step: the time, then ``nargs - 1`` port, state or
    parameter vectors (:func:`view`, :func:`row`)."""
    return (types.float64,) + (_VEC,) * (nargs - 1)


def address_for(disp: Any, flat: tuple[Any, ...]) -> int:
    """The address of kernel ``disp``'s machine code for positional argument types ``flat`` (compiled, or
    loaded from numba's cache, now), which :func:`caller`'s intrinsic calls: valid in this process only."""
    cres = _callee(disp, tuple(flat))
    return int(cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name))


def address(disp: Any, nargs: int) -> int:
    """:func:`address_for` a step call with ``nargs`` arguments (:func:`signature`)."""
    return address_for(disp, signature(nargs))


_CALLERS: dict[int, tuple[Any, Any]] = {}  # id(kernel): (kernel, its caller)


def caller(disp: Any) -> Any:
    """An intrinsic ``call(addr, t, ...)`` that calls kernel ``disp`` through the address ``addr``
    (:func:`address`, passed in at run time) with numba's calling convention, its errors propagated.

    The step is typed against the kernel's compiled signature but does not link the kernel's code:
    each kernel is compiled and optimised once, on its own (and cached), and a new diagram structure
    compiles only its step's own body (issue 35 §3). The address is an argument, not a constant, so the
    step's machine code holds no address of this process and numba caches it."""
    known = _CALLERS.get(id(disp))
    if known is not None and known[0] is disp:  # (an id is reused once its object is gone)
        return known[1]

    @intrinsic
    def call(typingctx, addr, *args):
        if not isinstance(addr, types.Integer):
            raise TypingError(f"kernel call: the address must be an integer, got {addr}")
        cres = _callee(disp, tuple(args))
        argtys, resty = cres.fndesc.argtypes, cres.fndesc.restype
        # def k(t, x, z, *a): numba passes a as one tuple
        star = bool(argtys) and isinstance(argtys[-1], (types.StarArgTuple, types.StarArgUniTuple))
        nfixed = len(argtys) - 1 if star else len(argtys)

        def codegen(context, builder, sig, vals):
            flat = cgutils.unpack_tuple(builder, vals[1], len(args))
            fixed, rest = flat[:nfixed], flat[nfixed:]
            callee_vals = fixed + ([cgutils.make_anonymous_struct(builder, rest)] if star else [])
            fnty = context.call_conv.get_function_type(resty, argtys)
            where = context.cast(builder, vals[0], sig.args[0], types.intp)
            status, res = context.call_conv.call_function(builder, builder.inttoptr(where, fnty.as_pointer()), resty,
                                                          argtys, callee_vals)
            with cgutils.if_unlikely(builder, status.is_error):
                context.call_conv.return_status_propagate(builder, status)
            return res

        return resty(addr, types.StarArgTuple.from_types(args)), codegen

    _CALLERS[id(disp)] = (disp, call)
    return call
