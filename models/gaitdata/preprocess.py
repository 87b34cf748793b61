"""Preprocessing of gait signals with scipy: resampling, filtering, gaps, cycles.

All functions take and return plain arrays; they never change their inputs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from models.errors import DataFormatError

#: NaN runs up to this long are filled by interpolation; longer ones are rejected
MAX_GAP_S = 0.05


def uniform_grid(t: np.ndarray, rate_hz: float) -> np.ndarray:
    """Uniform times ``t[0] + k / rate_hz`` covering ``[t[0], t[-1]]`` (end within half a step)."""
    n = int(np.floor((t[-1] - t[0]) * rate_hz + 0.5)) + 1
    return t[0] + np.arange(n) / rate_hz


def resample(t: np.ndarray, y: np.ndarray, t_new: np.ndarray, kind: str = "linear") -> np.ndarray:
    """Values of ``y`` (N, ...) sampled at ``t`` re-sampled at ``t_new``.

    ``kind="linear"`` (GRF: keeps contact edges sharp, no overshoot) or ``"cubic"``
    (angles: smooth derivatives), via :func:`scipy.interpolate.make_interp_spline`.
    Points of ``t_new`` outside ``[t[0], t[-1]]`` hold the end values.
    """
    k = 1 if kind == "linear" else 3
    if t.shape[0] <= k:
        k = 1
    from scipy import interpolate  # at need: 0.45 s of every command's start otherwise

    spline = interpolate.make_interp_spline(t, y, k=k, axis=0)
    return np.asarray(spline(np.clip(t_new, t[0], t[-1])))


def lowpass(y: np.ndarray, rate_hz: float, cutoff_hz: float, order: int = 4) -> np.ndarray:
    """Zero-lag Butterworth low-pass along axis 0.

    A 2nd-order-sections design (``scipy.signal.butter(order // 2, …)``) run forward and
    backward (``sosfiltfilt``): the phase cancels and the magnitude is squared, so the
    overall filter has ``order`` poles; the -3 dB point of the pass is corrected
    (Winter 2009, eq. 3.10: ``f_design = f_c / (2**(1/n_pass) - 1)**0.25`` with n_pass = 2).
    """
    nyq = 0.5 * rate_hz
    wc = cutoff_hz / (np.sqrt(2.0) - 1.0) ** 0.25
    if not 0 < wc < nyq:
        raise ValueError(f"cut-off {cutoff_hz} Hz not below the Nyquist frequency {nyq} Hz")
    from scipy import signal  # here, not at the top: scipy.signal costs every command 0.3-0.4 s to import

    sos = signal.butter(max(order // 2, 1), wc / nyq, output="sos")
    n = y.shape[0]
    padlen = min(3 * (2 * sos.shape[0] + 1), n - 1)
    return np.asarray(signal.sosfiltfilt(sos, y, axis=0, padlen=padlen))


def fill_gaps(t: np.ndarray, y: np.ndarray, names: Sequence[str], path: object = None,
              max_gap_s: float = MAX_GAP_S) -> tuple[np.ndarray, list[str]]:
    """Fill NaN runs up to ``max_gap_s`` by cubic (PCHIP) interpolation per column.

    Returns the filled copy and notes of what was filled. A longer run, or a column that
    is NaN at an end for longer than ``max_gap_s`` (nothing to interpolate from), raises a
    :class:`DataFormatError` naming the channel and the time span.
    """
    out = np.array(y, dtype=float, copy=True)
    if out.ndim == 1:
        out = out[:, None]
    notes: list[str] = []
    for j in range(out.shape[1]):
        bad = np.isnan(out[:, j])
        if not bad.any():
            continue
        if bad.all():
            raise DataFormatError("channel is entirely NaN", path=path, channel=names[j])
        edges = np.flatnonzero(np.diff(np.r_[0, bad.astype(np.int8), 0]))
        n = t.shape[0]
        for a, b in zip(edges[::2], edges[1::2]):
            span = float(t[min(b, n - 1)] - t[max(a - 1, 0)])
            if span > max_gap_s:
                raise DataFormatError(f"NaN run of {b - a} samples ({t[a]:.3f}-{t[b - 1]:.3f} s) is longer "
                                      f"than {max_gap_s * 1000:.0f} ms", path=path, channel=names[j])
        good = ~bad
        if good.sum() < 2:
            out[bad, j] = out[good, j][0]
        else:
            from scipy import interpolate

            inner = interpolate.PchipInterpolator(t[good], out[good, j], extrapolate=False)(t[bad])
            ends = np.interp(t[bad], t[good], out[good, j])
            out[bad, j] = np.where(np.isnan(inner), ends, inner)
        notes.append(f"{names[j]}: filled {int(bad.sum())} NaN samples")
    return (out[:, 0] if np.asarray(y).ndim == 1 else out), notes


def scale_grf(grf: np.ndarray, from_mass_kg: float, to_mass_kg: float) -> np.ndarray:
    """GRF scaled to another body mass: ``F * m_to / m_from`` (same GRF in units of BW)."""
    if from_mass_kg <= 0 or to_mass_kg <= 0:
        raise ValueError("masses must be positive")
    return grf * (to_mass_kg / from_mass_kg)


def normalise_cycle(t: np.ndarray, y: np.ndarray, t_start: float, t_end: float,
                    n_points: int = 101) -> np.ndarray:
    """``y`` over one gait cycle ``[t_start, t_end]`` resampled at 0, 1, …, 100 % (n_points).

    Cubic interpolation (:func:`scipy.interpolate.make_interp_spline`); the cycle must lie
    inside the data.
    """
    if not (t[0] <= t_start < t_end <= t[-1]):
        raise ValueError(f"cycle {t_start:.3f}-{t_end:.3f} s outside the data {t[0]:.3f}-{t[-1]:.3f} s")
    pct = np.linspace(0.0, 1.0, n_points)
    return resample(t, y, t_start + pct * (t_end - t_start), kind="cubic")


def repeat_cycles(t: np.ndarray, y: np.ndarray, t_start: float, t_end: float,
                  duration_s: float) -> tuple[np.ndarray, np.ndarray]:
    """A long periodic signal made by repeating the whole cycle ``[t_start, t_end)``.

    The cycle is taken on the samples with ``t_start <= t < t_end`` (uniform step assumed)
    and tiled until ``duration_s``; the new time starts at 0. The seam is where one heel
    strike meets the next, so the signal stays continuous when the cycle is a true stride.
    """
    keep = (t >= t_start - 1e-12) & (t < t_end - 1e-12)
    if keep.sum() < 2:
        raise ValueError("cycle shorter than two samples")
    cyc = y[keep]
    dt = float(np.mean(np.diff(t[keep])))
    n = int(round(duration_s / dt)) + 1
    reps = -(-n // cyc.shape[0])
    tiled = np.concatenate([cyc] * reps, axis=0)[:n]
    return np.arange(n) * dt, tiled
