r"""Packed parameter vectors, laid out from a block's declaration (never numbered by hand).

A block's kernels read one float64 vector ``p`` (:class:`blocks.core.Kernels`). The block class
names what goes in it, in order, with ``packed = (...)``; each entry is

* a parameter name: its value (a choice is its index in ``choices``, an ``int`` a float, a
  per-item or vector parameter an array);
* a derived constant (set by :meth:`blocks.core.Block.derive`, ``_name``): a float, or an array
  when written ``"_name[]"``.

:class:`Layout` puts the scalars first, one entry each, then one header entry per array holding
where it starts and one more holding where the vector ends (none without arrays), then the arrays::

    p = [s_0, .., s_{a-1},  o_0, .., o_{b-1}, o_b,  array_0 .., array_{b-1} ..]
    scalar k:   p[k]                         (k = layout.at("name"), a compile-time constant)
    array  j:   p[int(p[j]) : int(p[j + 1])]   (j = layout.at("name"); :func:`blocks.kernels.seg`)

A kernel module names its indices once from the layout (``_TF, _KP = PID.layout.at("tf", "kp")``);
numba reads module-level integers as constants. A live change of a tunable parameter re-packs the
vector, and every index stays where it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from blocks.spec import Params, ParamSpec

__all__ = ["Layout", "state_offsets"]


class Layout:
    """The packed vector of one block class (module docstring).

    Parameters
    ----------
    entries : sequence of str
        Parameter names and derived constants (``_name`` a float, ``_name[]`` an array), in order.
    specs : mapping of str to ParamSpec
        The block class's parameters (to tell scalars, choices and arrays apart).
    """

    def __init__(self, entries: tuple[str, ...], specs: Mapping[str, ParamSpec]) -> None:
        scalars: list[str] = []
        arrays: list[str] = []
        self.choices: dict[str, tuple[Any, ...]] = {}
        self.items: dict[str, str] = {}  # per-item parameters: the int parameter that counts them
        for entry in entries:
            name = entry.removesuffix("[]")
            spec = specs.get(name)
            if spec is None and not name.startswith("_"):
                raise TypeError(f"packed entry {entry!r} is neither a parameter nor a derived constant (_name)")
            if spec is not None and entry.endswith("[]"):
                raise TypeError(f"packed entry {entry!r}: a parameter's shape comes from its ParamSpec")
            is_array = entry.endswith("[]") or (spec is not None and (bool(spec.size) or spec.kind == "vector"))
            if spec is not None and spec.choices:
                self.choices[name] = tuple(spec.choices)
            if spec is not None and spec.size:
                self.items[name] = spec.size
            (arrays if is_array else scalars).append(name)
        names = scalars + arrays
        if len(set(names)) != len(names):
            raise TypeError(f"packed entries repeat a name: {names}")
        self.scalars, self.arrays = tuple(scalars), tuple(arrays)
        self.index = {name: i for i, name in enumerate(names)}
        self.header = len(scalars) + (len(arrays) + 1 if arrays else 0)

    def at(self, *names: str) -> Any:
        """The index of each named entry (one int for one name, else a tuple; a trailing ``[]`` is ignored)."""
        idx = tuple(self.index[n.removesuffix("[]")] for n in names)
        return idx[0] if len(idx) == 1 else idx

    def pack(self, p: Params) -> np.ndarray:
        """``p``'s packed vector (module docstring)."""
        head = np.zeros(self.header)
        for i, name in enumerate(self.scalars):
            v = getattr(p, name)
            head[i] = float(self.choices[name].index(v)) if name in self.choices else float(v)
        parts = [head]
        at = self.header
        for j, name in enumerate(self.arrays):
            a = np.asarray(getattr(p, name), dtype=np.float64).reshape(-1)
            if name in self.items:  # one number for every item, or one per item
                a = np.broadcast_to(a, int(getattr(p, self.items[name])))
            head[len(self.scalars) + j] = at
            parts.append(a)
            at += a.size
        if self.arrays:
            head[self.header - 1] = at
        return np.concatenate(parts)

    def __repr__(self) -> str:
        return f"Layout(scalars={self.scalars}, arrays={self.arrays})"


def state_offsets(fields: tuple[tuple[str, int | str], ...], values: Mapping[str, Any]) -> dict[str, int]:
    """Where each field of a state vector declared as ``((name, size), ...)`` starts, and ``"size"`` the
    whole length; a size may name an int parameter of ``values`` (one entry per item). A block packs the
    offsets it reads (derived constants), so its kernels index its state by name, not by hand."""
    out, at = {}, 0
    for name, size in fields:
        out[name] = at
        at += int(values[size]) if isinstance(size, str) else int(size)
    out["size"] = at
    return out
