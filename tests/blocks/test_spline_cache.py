"""The reference spline without scipy at a warm start: ``sources._fit`` holds ``CubicSpline``'s knots and
coefficients bit for bit, whether fitted now or loaded from its cache file, and the ReferenceSource law
(``spline_at``) evaluates them as scipy does (values and rates, on knots and between)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy.interpolate import CubicSpline

from blocks.kernels import pure
from blocks.library.sources import _fit
from blocks.library.sources_kernels import spline_at, spline_interval


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
    for x, c in (fitted, loaded):
        assert np.array_equal(x, ref.x) and np.array_equal(c, ref.c)
    other = _fit(t, y + 1e-3)  # other samples: another file, another spline
    assert len(list((tmp_path / "splines").glob("cubic_*.npz"))) == 2
    assert not np.array_equal(other[1], ref.c)
    tt = np.concatenate([t, rng.uniform(t[0], t[-1], 3000)])
    n = t.size
    packed = np.concatenate([t, fitted[1].ravel()])
    for k, x in enumerate(tt):  # the law's evaluation, as plain Python, against scipy's
        j = pure(spline_interval)(packed, 0, n, x)
        got = [pure(spline_at)(packed, 0, n, 5, n, j, x, col) for col in range(5)]
        assert [g[0] for g in got] == ref(x).tolist(), k
        assert [g[1] for g in got] == ref(x, 1).tolist(), k
