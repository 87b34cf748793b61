r"""Smooth building blocks of the synthetic gait: force shapes, foot paths, periodic calculus.

Time is measured in *cycles*: the stride period ``T`` [s] starts at right heel strike.
With the stance fraction ``sigma`` (share of the cycle a foot is on the ground):

* right stance ``[0, sigma)``, right swing ``[sigma, 1)``;
* left stance ``[1/2, 1/2 + sigma)`` (mod 1): the gait is symmetric, the left foot runs
  half a cycle behind the right one;
* double support ``[0, sigma - 1/2)`` and ``[1/2, sigma)``, each ``sigma - 1/2`` of the cycle.

The per-foot vertical force over stance is a piecewise quintic (Bernstein form,
:class:`scipy.interpolate.BPoly`) through the knots ``s = 0, s_p1, s_v, s_p2, 1`` of the stance
phase ``s`` with prescribed value, slope (zero at the peaks and the valley) and curvature:
it is C2 inside stance and leaves the ground with zero force and zero slope (C1 at contact).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.interpolate import BPoly


def smoothstep7(s: np.ndarray) -> np.ndarray:
    r"""Septic smooth step ``35 s^4 - 84 s^5 + 70 s^6 - 20 s^7`` on [0, 1] (clipped outside).

    Zero first, second and third derivative at both ends, so a path built from it joins a
    resting foot with continuous velocity, acceleration and jerk.
    """
    x = np.clip(s, 0.0, 1.0)
    return x**4 * (35.0 - 84.0 * x + 70.0 * x**2 - 20.0 * x**3)


def bump(s: np.ndarray, a: float, b: float) -> np.ndarray:
    r"""Bump ``c s^a (1 - s)^b`` on [0, 1], 0 outside, scaled to a maximum of 1 at ``s = a / (a + b)``.

    Orders ``a, b >= 3`` give zero slope and curvature at the ends (a C2 join to a resting foot).
    """
    x = np.clip(s, 0.0, 1.0)
    peak = a / (a + b)
    return x**a * (1.0 - x) ** b / (peak**a * (1.0 - peak) ** b)


@dataclass(frozen=True)
class VerticalShape:
    """Per-foot vertical GRF over stance, in body weights (BW).

    Parameters
    ----------
    peak1, peak1_at : float
        First (loading) peak [BW] and its stance phase [0-1].
    valley, valley_at : float
        Mid-stance valley [BW] and its phase.
    peak2, peak2_at : float
        Second (push-off) peak [BW] and its phase.
    onset_curvature : float
        ``f''(0) = f''(1)`` [BW per stance^2]: how fast the force builds up after contact.
    """

    peak1: float
    peak1_at: float
    valley: float
    valley_at: float
    peak2: float
    peak2_at: float
    onset_curvature: float = 150.0

    def poly(self) -> BPoly:
        k1 = -2.2 * (self.peak1 - self.valley) / (self.valley_at - self.peak1_at) ** 2
        k2 = -2.2 * (self.peak2 - self.valley) / (self.peak2_at - self.valley_at) ** 2
        kv = 1.6 * (0.5 * (self.peak1 + self.peak2) - self.valley) / (
            0.5 * (self.peak2_at - self.peak1_at)) ** 2
        knots = [0.0, self.peak1_at, self.valley_at, self.peak2_at, 1.0]
        data = [[0.0, 0.0, self.onset_curvature], [self.peak1, 0.0, k1], [self.valley, 0.0, kv],
                [self.peak2, 0.0, k2], [0.0, 0.0, self.onset_curvature]]
        return BPoly.from_derivatives(knots, data)

    def __call__(self, s: np.ndarray) -> np.ndarray:
        """Force [BW] at stance phase ``s``; exactly 0 outside ``[0, 1]``."""
        s = np.asarray(s, dtype=np.float64)
        inside = (s >= 0.0) & (s <= 1.0)
        out = np.zeros_like(s)
        out[inside] = self.poly()(s[inside])
        return out

    def mean(self) -> float:
        """Mean over stance [BW] (exact integral of the quintic pieces)."""
        poly = self.poly()
        return float(poly.integrate(0.0, 1.0))


def with_mean(shape: VerticalShape, mean_bw: float) -> VerticalShape:
    """The same shape with the valley moved so that the stance mean is ``mean_bw`` [BW].

    The curve is linear in the valley value, so two evaluations give it exactly.
    """
    from dataclasses import replace

    m0 = replace(shape, valley=0.0).mean()
    m1 = replace(shape, valley=1.0).mean()
    return replace(shape, valley=(mean_bw - m0) / (m1 - m0))


def stance_phase(phase: np.ndarray, offset: float, sigma: float) -> np.ndarray:
    """Stance phase ``s`` in [0, 1] of a foot landing at cycle phase ``offset`` (NaN-free; >1 = swing)."""
    return np.mod(phase - offset, 1.0) / sigma


def foot_path(phase: np.ndarray, offset: float, sigma: float, stride: float, clearance: float,
              clearance_at: float, landing_lift: float) -> np.ndarray:
    r"""Foot position ``(N, 2)`` [m] of the foot that lands at cycle phase ``offset``.

    The foot lands at ``x = offset * stride`` (the right foot, ``offset = 0``, at 0; the left foot,
    ``offset = 1/2``, half a stride further) and rests there for the stance fraction ``sigma``.
    In swing (phase ``u`` in [0, 1]) it moves one stride forward along ``smoothstep7(u)`` and rises by

    ``y = clearance * bump(u, 3, 3 / clearance_at - 3) + landing_lift * bump(u, 6, 3)``:

    the first bump lifts the foot off the ground at toe-off, the second lets it come down onto the
    footprint from above. Both have third-order zeros at the ends (C2 joins to the resting foot).
    A point foot pinned to the ground needs this lift: near a contact the hip moves along the leg
    at about ``(x_hip - x_foot) v / l``, and the foot must get out of the leg's reach as fast.
    """
    cyc = phase - offset
    k = np.floor(cyc)
    u = cyc - k
    swing = np.clip((u - sigma) / (1.0 - sigma), 0.0, 1.0)
    x = stride * (k + smoothstep7(swing)) + offset * stride
    lift = clearance * bump(swing, 3.0, 3.0 / clearance_at - 3.0) + landing_lift * bump(swing, 6.0, 3.0)
    y = np.where(u > sigma, lift, 0.0)
    return np.stack([x, y], axis=-1)


def periodic_derivatives(y: np.ndarray, period: float, orders: tuple[int, ...] = (1, 2)) -> list[np.ndarray]:
    r"""Spectral derivatives of samples of a ``period``-periodic signal along axis 0.

    ``y`` holds ``N`` equally spaced samples over one period. The ``n``-th derivative is
    ``ifft((i w_k)^n fft(y))`` with ``w_k = 2 pi k / period``; the Nyquist bin is dropped for odd
    orders so real input gives real output.
    """
    n = y.shape[0]
    spec = np.fft.rfft(y, axis=0)
    w = 2.0 * np.pi * np.fft.rfftfreq(n, d=period / n)
    shape = (-1,) + (1,) * (y.ndim - 1)
    out = []
    for order in orders:
        factor = (1j * w) ** order
        if n % 2 == 0 and order % 2 == 1:
            factor[-1] = 0.0
        out.append(np.fft.irfft(spec * factor.reshape(shape), n=n, axis=0))
    return out


def periodic_double_integral(a: np.ndarray, period: float) -> np.ndarray:
    r"""Zero-mean periodic ``y`` with ``y'' = a - mean(a)`` (samples over one period, spectral)."""
    n = a.shape[0]
    spec = np.fft.rfft(a)
    w = 2.0 * np.pi * np.fft.rfftfreq(n, d=period / n)
    spec[0] = 0.0
    spec[1:] = spec[1:] / (-(w[1:] ** 2))
    return np.fft.irfft(spec, n=n)
