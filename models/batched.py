"""Summaries computed for many copies at once: a tree of per-copy leaves split into one tree per copy.

The batch forms of :mod:`models.gait_metrics` and :mod:`models.force_account` take arrays with a
leading copy axis (``(G, n, ...)``: ``G`` copies of ``n`` samples) and reduce each copy along its
samples, so a sweep summarises ``G`` runs in one numpy call per quantity instead of ``G``. They return
a nested dict whose leaves are

* an array of shape ``(G,)``: one number per copy;
* a list of length ``G``: one Python value per copy (a verdict text, a sub-dict built per copy);
  an element :data:`DROP` leaves the key out of that copy's dict;
* anything else: the same value for every copy.

:func:`per_copy` turns that into ``G`` plain dicts (numbers as Python ``float``/``int``, as the single
forms always returned). A single run is the batch of one: the single forms are ``per_copy(batch)[0]``,
so a copy's numbers are the single run's whatever the batch (each reduction runs along the samples
of one copy, in the same order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["DROP", "per_copy"]


class _Drop:
    def __repr__(self) -> str:
        return "DROP"


DROP: Any = _Drop()
"""A per-copy list element meaning "this copy has no such key"."""


def _lists(tree: Any) -> Any:
    """``tree`` with every array leaf as a list of Python numbers (``tolist``: float, int or bool)."""
    if isinstance(tree, dict):
        return {k: _lists(v) for k, v in tree.items()}
    if isinstance(tree, np.ndarray):
        return tree.tolist()
    return tree


_SHARED, _EACH, _TREE = 0, 1, 2


def _plan(tree: dict[str, Any]) -> list[tuple[str, int, Any]]:
    """``tree`` (arrays already lists) as ``(key, kind, value)``: a value shared by every copy, a list of one
    value per copy, or the plan of a sub-dict; read once, so each copy's dict is built without a call per leaf."""
    return [(k, _TREE, _plan(v)) if isinstance(v, dict) else (k, _EACH if isinstance(v, list) else _SHARED, v)
            for k, v in tree.items()]


def _pick(plan: list[tuple[str, int, Any]], j: int) -> dict[str, Any]:
    out = {}
    for k, kind, v in plan:
        if kind == _EACH:
            got = v[j]
            if got is not DROP:
                out[k] = got
        elif kind == _TREE:
            out[k] = _pick(v, j)
        else:
            out[k] = v
    return out


def per_copy(tree: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """The ``n`` per-copy dicts of a batch summary ``tree`` (module docstring)."""
    plan = _plan(_lists(tree))
    return [_pick(plan, j) for j in range(n)]
