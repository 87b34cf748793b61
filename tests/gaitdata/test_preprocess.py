"""Preprocessing against analytic answers."""

from __future__ import annotations

import numpy as np
import pytest

from models.errors import DataFormatError
from models.gaitdata.preprocess import (
    fill_gaps,
    lowpass,
    normalise_cycle,
    repeat_cycles,
    resample,
    scale_grf,
    uniform_grid,
)
from models.gaitdata.units import estimate_bw, force_scale, length_scale


def test_resample_rounded_times_onto_uniform_grid() -> None:
    t = np.round(np.arange(1501) / 600.0, 4)  # times written with 4 decimals, as in OpenSim files
    y = np.sin(2 * np.pi * 1.3 * t)
    grid = uniform_grid(t, 600.0)
    assert grid.shape == (1501,) and np.ptp(np.diff(grid)) < 1e-12
    np.testing.assert_allclose(resample(t, y, grid, kind="cubic"), np.sin(2 * np.pi * 1.3 * grid), atol=3e-4)


def test_lowpass_zero_lag_and_cutoff() -> None:
    rate, fc = 1000.0, 6.0
    t = np.arange(20000) / rate
    slow = np.sin(2 * np.pi * 1.0 * t)
    at_fc = np.sin(2 * np.pi * fc * t)
    out_slow = lowpass(slow, rate, fc)
    mid = slice(5000, 15000)
    np.testing.assert_allclose(out_slow[mid], slow[mid], atol=2e-3)  # no phase lag at 1 Hz
    gain = np.std(lowpass(at_fc, rate, fc)[mid]) / np.std(at_fc[mid])
    assert gain == pytest.approx(1 / np.sqrt(2), abs=0.01)  # corrected -3 dB point of the two passes


def test_fill_short_gaps_reject_long() -> None:
    t = np.arange(200) / 100.0
    y = np.cos(t)
    y_gap = y.copy()
    y_gap[50:53] = np.nan
    filled, notes = fill_gaps(t, y_gap, ["F_ly"])
    np.testing.assert_allclose(filled, y, atol=1e-4)  # PCHIP over a 40 ms gap
    assert notes == ["F_ly: filled 3 NaN samples"]
    y_gap[100:120] = np.nan
    with pytest.raises(DataFormatError, match=r"channel F_ly: NaN run of 20 samples \(1.000-1.190 s\)"):
        fill_gaps(t, y_gap, ["F_ly"], path="x.csv")


def test_units_detection() -> None:
    grf = np.zeros((10, 4))
    grf[:, 1] = np.linspace(0, 1.2, 10)
    assert force_scale(grf, 70.0, "f") == (pytest.approx(70 * 9.81), "BW")
    with pytest.raises(DataFormatError, match="look like BW"):
        force_scale(grf, None, "f")
    assert force_scale(grf * 9.81, 70.0, "f") == (70.0, "N/kg")
    assert force_scale(grf * 700, None, "f") == (1.0, "N")
    with pytest.raises(DataFormatError, match="not a human GRF"):
        force_scale(grf * 700 * 1000, None, "f")
    assert length_scale(np.array([377.0, 1025.0])) == 1e-3 and length_scale(np.array([0.4, 1.0])) == 1.0


def _walk(bw: float = 700.0, stride: float = 1.0, n_strides: int = 4, rate: float = 500.0):
    """Both feet: half-sine stance of 60 % stride, right foot half a stride after the left."""
    t = np.arange(int(n_strides * stride * rate)) / rate

    def foot(shift: float) -> np.ndarray:
        ph = ((t - shift) / stride) % 1.0
        return np.where(ph < 0.6, np.sin(np.pi * ph / 0.6), 0.0)

    fl, fr = foot(0.05), foot(0.55)
    k = bw / np.mean((fl + fr)[(t >= 0.05) & (t < 3.05)])
    return t, np.column_stack([0 * fl, k * fl, 0 * fr, k * fr])


def test_bw_estimate_over_whole_strides_and_scaling() -> None:
    t, grf = _walk()
    bw, windows = estimate_bw(t, grf)
    assert bw == pytest.approx(700.0, rel=2e-3)
    assert len(windows) >= 4
    np.testing.assert_allclose(scale_grf(grf, 70.0, 55.33), grf * 55.33 / 70.0)


def test_normalise_and_repeat_cycles() -> None:
    t = np.arange(0, 3.0, 0.002)
    y = np.sin(2 * np.pi * t / 1.2)
    cyc = normalise_cycle(t, y, 0.3, 1.5, 101)
    np.testing.assert_allclose(cyc, np.sin(2 * np.pi * (0.3 + np.linspace(0, 1.2, 101)) / 1.2), atol=1e-6)
    tt, yy = repeat_cycles(t, y, 0.3, 1.5, 10.0)
    assert tt[-1] == pytest.approx(10.0, abs=0.002)
    np.testing.assert_allclose(yy, np.sin(2 * np.pi * (tt + 0.3) / 1.2), atol=1e-9)
