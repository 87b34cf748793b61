"""The numpy zero-lag Butterworth against scipy.signal's butter + filtfilt / sosfiltfilt."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.signal import butter, filtfilt, sosfiltfilt

from models.filters import butter2, filtfilt2, lowpass2


@pytest.mark.parametrize("cutoff, rate", [(20.0, 500.0), (6.0, 100.0), (1.5, 1000.0), (240.0, 500.0)])
def test_design_equals_scipy(cutoff: float, rate: float) -> None:
    b, a = butter2(cutoff, rate)
    sb, sa = butter(2, cutoff / (0.5 * rate))
    np.testing.assert_allclose(b, sb, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a, sa, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("n, cols", [(10, 1), (11, 3), (5001, 7)])
def test_filtfilt_equals_scipy(n: int, cols: int) -> None:
    rng = np.random.default_rng(n)
    x = np.cumsum(rng.normal(size=(n, cols)), axis=0) + rng.normal(scale=5.0, size=(n, cols))
    b, a = butter2(20.0, 500.0)
    ours = filtfilt2(b, a, x)
    scale = np.abs(x).max()
    np.testing.assert_allclose(ours, filtfilt(b, a, x, axis=0), rtol=0, atol=1e-11 * scale)
    sos = butter(2, 20.0 / 250.0, output="sos")
    np.testing.assert_allclose(ours, sosfiltfilt(sos, x, axis=0), rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(filtfilt2(b, a, x[:, 0]), ours[:, 0])      # 1-D in, 1-D out


def test_removes_what_lies_above_the_cut_off_and_keeps_what_lies_below() -> None:
    t = np.arange(5000) / 500.0
    slow, fast = np.sin(2 * np.pi * 1.5 * t), np.sin(2 * np.pi * 100.0 * t)
    y = lowpass2(slow + fast, 20.0, 500.0)
    mid = slice(500, -500)
    assert np.abs(y - slow)[mid].max() < 2e-3          # 100 Hz at 20 Hz: (20/100)^4 = 1.6e-3
    assert lowpass2(np.ones(50), 20.0, 500.0) == pytest.approx(np.ones(50))


def test_bad_arguments_raise() -> None:
    with pytest.raises(ValueError, match="half the rate"):
        butter2(300.0, 500.0)
    with pytest.raises(ValueError, match="more than 9 samples"):
        filtfilt2(*butter2(20.0, 500.0), np.zeros(9))


def test_lowpass_filters_the_same_samples_again_to_the_same_result_in_a_new_array() -> None:
    """Results are kept by content: the same samples give an equal, independent array; other samples,
    another cut-off or another rate are filtered afresh."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(400, 3))
    first = lowpass2(x, 20.0, 500.0)
    first[0, 0] = 99.0                                   # the caller's array: the kept result is untouched
    again = lowpass2(x.copy(), 20.0, 500.0)
    np.testing.assert_array_equal(again, filtfilt2(*butter2(20.0, 500.0), x))
    again[1, 1] = -99.0
    np.testing.assert_array_equal(lowpass2(x, 20.0, 500.0), filtfilt2(*butter2(20.0, 500.0), x))
    y = x.copy()
    y[200, 1] += 1.0
    np.testing.assert_array_equal(lowpass2(y, 20.0, 500.0), filtfilt2(*butter2(20.0, 500.0), y))
    np.testing.assert_array_equal(lowpass2(x, 10.0, 500.0), filtfilt2(*butter2(10.0, 500.0), x))
    np.testing.assert_array_equal(lowpass2(x, 20.0, 400.0), filtfilt2(*butter2(20.0, 400.0), x))
    np.testing.assert_array_equal(lowpass2(x[:, 0], 20.0, 500.0), filtfilt2(*butter2(20.0, 500.0), x[:, 0]))
