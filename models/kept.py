"""The last results of a costly pure function, kept by a key of its inputs' content.

Used where the same input comes back unchanged and recomputing it is most of the work: a window's every
compile loads its diagram file (:meth:`blocks.diagram.Diagram.load`), reads its dataset
(:func:`grf_data.registry.read_synthetic`) and filters the same reference (:func:`models.filters.lowpass2`).
The key names the content (the text, or a digest of the bytes), never only a path, so an edited file is
read again. The caller hands out copies: a kept value is never given to code that could change it.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

__all__ = ["Kept", "digest"]

V = TypeVar("V")


def digest(*parts: bytes | memoryview) -> bytes:
    """A 32-byte BLAKE2 digest of ``parts`` in order (a key for content too large to keep as itself)."""
    h = hashlib.blake2b(digest_size=32)
    for part in parts:
        h.update(part)
    return h.digest()


class Kept(Generic[V]):
    """The last ``size`` values by key, least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: OrderedDict[Hashable, V] = OrderedDict()

    def get(self, key: Hashable, make: Callable[[], V]) -> V:
        """The value kept for ``key``, else ``make()``, kept."""
        if key in self._values:
            self._values.move_to_end(key)
            return self._values[key]
        value = self._values[key] = make()
        while len(self._values) > self.size:
            self._values.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._values)
