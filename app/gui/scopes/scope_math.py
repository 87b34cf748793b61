"""Numerics of the scope curves: peak decimation for live display, the corners of step signals
(stance shading) and trace statistics."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["SAMPLES_PER_PX", "peak_decimate", "step_corners", "trace_stats"]

# pyqtgraph's ``autoDownsampleFactor`` of the time scopes' curves (the live run's and the kept
# runs'): samples kept per pixel column, of which peak mode then draws each column's min and max.
# pyqtgraph's default, 5, drew every sample of a 10 s run at 1 ms in a 1300 px wide scope: 10 000
# segments of a 2 px pen per curve at every repaint of a paused run.
SAMPLES_PER_PX = 1.0


def trace_stats(y: np.ndarray) -> tuple[float, float, float, float]:
    """(min, max, mean, RMS) of finite samples; NaNs if there are none."""
    y = y[np.isfinite(y)]
    if y.size == 0:
        return (math.nan,) * 4
    return float(y.min()), float(y.max()), float(y.mean()), float(math.sqrt(float(np.mean(y * y))))


def peak_decimate(t: np.ndarray, y: np.ndarray, bins: int, origin: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Min/max ("peak") decimation of a uniformly sampled curve to about ``2 * bins`` samples.

    Samples are grouped in blocks of ``ds = len(y) // bins`` (nothing is done when ``ds < 2``);
    each block is replaced by its smallest and its largest sample (NaNs ignored; an all-NaN
    block keeps a NaN, i.e. its gap), both kept at their own times and in time order, so the
    result is a subset of the samples that keeps every extremum at screen resolution and
    draws a smooth line rather than a staircase. Blocks start at sample indices that are
    multiples of ``ds`` counted from ``origin`` (the index of ``t[0]`` in the record), so a
    sliding window does not make the peaks shimmer; the samples before the first and after
    the last whole block are kept as they are (the curve ends at the newest sample).
    """
    n = y.size
    ds = n // max(bins, 1)
    if ds < 2:
        return t, y
    a = (-origin) % ds
    m = a + (n - 1 - a) // ds * ds  # the newest sample is never inside a block: the curve ends on it
    yb = y[a:m].reshape(-1, ds)
    finite = np.isfinite(yb)
    if finite.all():
        i_min, i_max = yb.argmin(axis=1), yb.argmax(axis=1)
    else:
        i_min = np.where(finite, yb, np.inf).argmin(axis=1)
        i_max = np.where(finite, yb, -np.inf).argmax(axis=1)
    base = a + ds * np.arange(yb.shape[0])
    idx = np.empty(2 * yb.shape[0], dtype=np.intp)
    idx[0::2] = base + np.minimum(i_min, i_max)
    idx[1::2] = base + np.maximum(i_min, i_max)
    return np.concatenate((t[:a], t[idx], t[m:])), np.concatenate((y[:a], y[idx], y[m:]))


def step_corners(t: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The samples of a piecewise-constant signal ``y(t)`` (stance flags) that its polyline needs:
    the first and the last sample and, around every change between samples ``k - 1`` and ``k``,
    both of them. Joined by straight lines they draw exactly the polyline of all samples (in
    between, ``y`` is constant), with ``4 * changes + 2`` points instead of ``len(y)``: 10 s of
    walking at 1 ms, about 20 steps, is about 80 points instead of 10 000 to fill per paint."""
    if y.size <= 2:
        return t, y
    k = np.flatnonzero(y[1:] != y[:-1]) + 1
    idx = np.unique(np.concatenate(([0], k - 1, k, [y.size - 1])))
    return t[idx], y[idx]
