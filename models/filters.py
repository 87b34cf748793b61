"""Zero-lag 2nd-order Butterworth low-pass in numpy: ``scipy.signal.butter(2, ...)`` run with
``filtfilt``, without importing ``scipy.signal`` (0.3-0.4 s of every command's start, most of
it ``scipy.stats``, which ``scipy.signal`` imports).

Design (bilinear transform, cut-off pre-warped), with ``K = tan(pi f_c / f_s)``::

    b = [K^2, 2 K^2, K^2] / n,   a = [1, 2 (K^2 - 1) / n, (1 - sqrt(2) K + K^2) / n],
    n = 1 + sqrt(2) K + K^2

Filtering forwards then backwards squares the magnitude (4th order, -6 dB at ``f_c``) and
cancels the phase. The edges follow ``scipy.signal.filtfilt``'s defaults: the signal is
extended by 9 samples at each end by odd reflection (``2 x[0] - x[9:0:-1]``), and each pass
starts from the filter's steady state for its first sample (``lfilter_zi``). The result equals
scipy's to rounding (``tests/models/test_filters.py``).

:func:`lowpass2` keeps its last results by the samples' content: every compile of a diagram filters the
same reference again (three times a compile of the walking diagram, 25 ms each in this loop), and a
window recompiles on every preset, dataset, Reset or structural edit.
"""

from __future__ import annotations

import math

import numpy as np

from models.kept import Kept, digest

__all__ = ["PADLEN", "butter2", "filtfilt2", "lowpass2"]

PADLEN = 9   # scipy.signal.filtfilt's default for a 2nd-order filter: 3 * max(len(a), len(b))
_RESULTS: Kept[np.ndarray] = Kept(8)  # lowpass2's last (a dataset's reference and its states: arrays of 5,000 x 7)


def butter2(cutoff_hz: float, rate_hz: float) -> tuple[np.ndarray, np.ndarray]:
    """``(b, a)`` of the 2nd-order Butterworth low-pass with cut-off ``cutoff_hz`` [Hz] at the
    sampling rate ``rate_hz`` [Hz] (``0 < cutoff_hz < rate_hz / 2``)."""
    if not 0.0 < cutoff_hz < 0.5 * rate_hz:
        raise ValueError(f"cut-off {cutoff_hz} Hz must lie in (0, {0.5 * rate_hz:g}) Hz (half the rate)")
    k = math.tan(math.pi * cutoff_hz / rate_hz)
    n = 1.0 + math.sqrt(2.0) * k + k * k
    b0 = k * k / n
    a = np.array([1.0, 2.0 * (k * k - 1.0) / n, (1.0 - math.sqrt(2.0) * k + k * k) / n])
    return np.array([b0, 2.0 * b0, b0]), a


def _steady_state(b: np.ndarray, a: np.ndarray) -> tuple[float, float]:
    """Initial state (direct form II transposed) of a unit step held forever (``lfilter_zi``)."""
    # (I - A^T) z = b[1:] - a[1:] b[0], with A the companion matrix of a
    rhs = b[1:] - a[1:] * b[0]
    z = np.linalg.solve(np.array([[1.0 + a[1], -1.0], [a[2], 1.0]]), rhs)
    return float(z[0]), float(z[1])


def _lfilter(b: np.ndarray, a: np.ndarray, x: list[float], z0: float, z1: float) -> list[float]:
    b0, b1, b2 = (float(v) for v in b)
    a1, a2 = float(a[1]), float(a[2])
    out = []
    for v in x:
        y = b0 * v + z0
        z0 = b1 * v - a1 * y + z1
        z1 = b2 * v - a2 * y
        out.append(y)
    return out


def filtfilt2(b: np.ndarray, a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``scipy.signal.filtfilt(b, a, x, axis=0)`` for a 2nd-order ``(b, a)`` (module doc);
    ``x`` is ``(N,)`` or ``(N, k)`` with ``N > PADLEN``."""
    x = np.asarray(x, dtype=float)
    if x.shape[0] <= PADLEN:
        raise ValueError(f"filtfilt needs more than {PADLEN} samples, got {x.shape[0]}")
    cols = x.reshape(x.shape[0], -1)
    zi = _steady_state(b, a)
    out = np.empty_like(cols)
    for j in range(cols.shape[1]):
        c = cols[:, j]
        ext = np.concatenate([2.0 * c[0] - c[PADLEN:0:-1], c, 2.0 * c[-1] - c[-2:-PADLEN - 2:-1]]).tolist()
        fwd = _lfilter(b, a, ext, zi[0] * ext[0], zi[1] * ext[0])
        fwd.reverse()
        back = _lfilter(b, a, fwd, zi[0] * fwd[0], zi[1] * fwd[0])
        back.reverse()
        out[:, j] = back[PADLEN:-PADLEN]
    return out.reshape(x.shape)


def lowpass2(x: np.ndarray, cutoff_hz: float, rate_hz: float) -> np.ndarray:
    """``x`` (along axis 0, sampled at ``rate_hz`` [Hz]) through the zero-lag low-pass at
    ``cutoff_hz`` [Hz] (module doc). A new array each call; the same samples, cut-off and rate filtered
    again are copied from the last results kept (keyed by a BLAKE2 digest of the samples)."""
    x = np.ascontiguousarray(x, dtype=float)
    key = digest(x.data, repr((x.shape, float(cutoff_hz), float(rate_hz))).encode())
    return _RESULTS.get(key, lambda: filtfilt2(*butter2(cutoff_hz, rate_hz), x)).copy()
