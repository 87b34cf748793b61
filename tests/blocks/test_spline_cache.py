"""The reference spline without scipy at a warm start: ``sources._fit`` equals ``CubicSpline`` bit for
bit (values and rates, on knots and between), whether fitted now or loaded from its cache file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.interpolate import CubicSpline

from blocks.library.sources import _fit


def test_cached_spline_equals_scipy_bitwise(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAITBLOCKS_CACHE", str(tmp_path))
    rng = np.random.default_rng(7)
    t = np.cumsum(rng.uniform(0.005, 0.02, 400))
    y = rng.normal(size=(400, 5))
    ref = CubicSpline(t, y, axis=0)
    fitted = _fit(t, y)
    files = list((tmp_path / "splines").glob("cubic_*.npz"))
    assert len(files) == 1
    loaded = _fit(t, y)  # from the file now
    tt = np.concatenate([t, rng.uniform(t[0], t[-1], 3000)])
    for nu in (0, 1):
        assert np.array_equal(fitted(tt, nu), ref(tt, nu))
        assert np.array_equal(loaded(tt, nu), ref(tt, nu))
    other = _fit(t, y + 1e-3)  # other samples: another file, another spline
    assert len(list((tmp_path / "splines").glob("cubic_*.npz"))) == 2
    assert not np.array_equal(other(tt), ref(tt))
