"""Strict JSON text for the files the commands write (``summary.json``, ``sweep.json``).

``json.dumps`` writes a non-finite float as the bare word ``NaN`` or ``Infinity``, which strict
parsers (JavaScript's ``JSON.parse``, ``jq``, Go, Rust's serde) reject. :func:`dumps` writes
``null`` for them instead, and refuses (``allow_nan=False``) any it would have missed.
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["finite", "dumps"]


def finite(obj: Any) -> Any:
    """``obj`` with every non-finite float (``nan``, ``inf``) replaced by ``None``, numpy scalars made
    Python numbers and tuples made lists, through dicts and lists."""
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v) for v in obj]
    item = getattr(obj, "item", None)  # a numpy scalar (np.float32, np.int64, np.bool_)
    if item is not None and getattr(obj, "shape", None) == ():
        obj = item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def dumps(obj: Any, indent: int | None = 2) -> str:
    """Strict JSON text of ``obj`` (module docstring); other objects (paths) as their ``str``."""
    return json.dumps(finite(obj), indent=indent, default=str, allow_nan=False)
