"""``models.batched.per_copy``: a batch summary's tree split into one plain dict per copy."""

from __future__ import annotations

import numpy as np

from models.batched import DROP, per_copy


def test_per_copy_splits_arrays_and_lists_keeps_shared_values_and_drops_keys() -> None:
    tree = {"rms": np.array([1.5, 2.5]), "verdict": ["good", DROP], "dt": 0.001, "tag": ("a", "b"),
            "nested": {"peak": np.array([[1, 2], [3, 4]]), "empty": {}, "each": [{"x": 1}, {"x": 2}]}}
    first, second = per_copy(tree, 2)
    assert first == {"rms": 1.5, "verdict": "good", "dt": 0.001, "tag": ("a", "b"),
                     "nested": {"peak": [1, 2], "empty": {}, "each": {"x": 1}}}
    assert second == {"rms": 2.5, "dt": 0.001, "tag": ("a", "b"),
                      "nested": {"peak": [3, 4], "empty": {}, "each": {"x": 2}}}
    assert type(first["rms"]) is float and type(first["nested"]["peak"][0]) is int  # Python numbers, as tolist gives
    assert list(first) == ["rms", "verdict", "dt", "tag", "nested"]  # the tree's order
