r"""Reading a recording on the solver's clock, for the laws (kernels) of the recorded-data blocks:
GrfSource, ReferenceSource (:mod:`blocks.library.sources`), ReferenceMotion (:mod:`blocks.library.walking`).

The blocks read their recording as if resampled on the grid ``g_i = t0 + (dt/2) i`` (every RK4 stage
time lands on a row). Such a table would grow with the run, and a batch would hold one per copy, so
the kernels keep the recording and compute, for a grid index ``i``, the row that table would hold:

* data time ``td_i = g_i - t0 + t_data0 + t_offset`` [s] (``sources._data_times``);
* GRF, CoP and ReferenceMotion columns: ``np.interp`` of the samples (interval by binary
  search, ``slope (td - t_j) + f_j``; the end samples hold beyond the data);
* reference angles and rates: the cubic spline as piecewise polynomial (scipy's ``PPoly``
  evaluation: interval ``x_j <= td < x_{j+1}`` by binary search, closed at the last knot;
  ``sum_k c_{3-k} s^k`` and its derivative with ``s = td - x_j``) at ``td`` clipped to the data;
  rates are 0 outside it.

Time lookup: ``r = (t - t0) 2/dt``; an on-grid time (``|r - round(r)| < 1e-6``)
reads row ``round(r)``, any other blends rows ``i = floor(r)`` and ``i + 1`` with ``f = r - i``
(both clamped to the table).

Every recording vector holds the grid header at some offset ``h``: the :data:`GRID` entries
``[t0, 2/dt, last row index, dt/2, t_data0, t_offset, n samples, fold start, fold period, fold reps,
fold shift]`` (:func:`recording`; their indices are named from :data:`GRID`), then the sample times
``t`` (n), then the columns, each ``n`` long (interpolated) or the spline's coefficients.

A folded repeated recording (:mod:`models.gaitdata.repeat`, period > 0) holds three repetitions of
however many the run needs: the data time ``x`` of a grid row is read at ``x - m P`` (:func:`fold`,
``m`` as :meth:`models.gaitdata.repeat.Fold.count`), and the horizontal positions (CoP, feet and CoM
``x``) get ``m D`` added; the rows the recording holds (``m = 0``) are read as before, unchanged.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from blocks.core import CompileContext
from blocks.kernels import helper
from blocks.library.context import data_of
from models.gaitdata.repeat import fold_of

if TYPE_CHECKING:
    from models.dataset import GaitDataset

__all__ = ["GRID", "GRID_SIZE", "recording", "grid_lookup", "grid_time", "fold", "search", "interp_at", "table_row",
           "table_value", "spline_interval", "spline_at"]

#: the grid header's entries, in order (module docstring)
GRID = ("t0", "inv", "last", "half_dt", "t_data0", "t_offset", "n", "fold_start", "fold_period", "fold_reps",
        "fold_shift")
GRID_SIZE = len(GRID)
_T0, _INV, _LAST, _HALF_DT, _T_DATA0, _T_OFFSET, _NS, _F_START, _F_PERIOD, _F_REPS, _F_SHIFT = (
    GRID.index(name) for name in GRID)


def recording(ctx: CompileContext, ds: GaitDataset, times: np.ndarray, *columns: np.ndarray) -> np.ndarray:
    """The packed recording of dataset ``ds`` on the run of ``ctx`` (module docstring): the grid header
    (:data:`GRID`: the diagram's offset into the recording, ``ds``'s fold if it is folded,
    :func:`models.gaitdata.repeat.fold_of`), the sample times ``times`` [s], then ``columns``, each flattened."""
    folded = fold_of(ds)
    f = (folded.start_s, folded.period_s, float(folded.reps), folded.shift_m) if folded else (0.0, 0.0, 0.0, 0.0)
    last = int(math.ceil((ctx.t_end - ctx.t0) / (0.5 * ctx.dt))) + 2  # the grid's rows, less one
    head = [ctx.t0, 2.0 / ctx.dt, float(last), 0.5 * ctx.dt, ds.t[0], data_of(ctx).t_offset_s, float(ds.t.size), *f]
    return np.concatenate([np.array(head), times, *(np.ravel(c) for c in columns)])


@helper
def grid_lookup(p, h, t):
    """``(i, f, on_grid)`` of time ``t`` [s] on the grid of header ``p[h:]`` (module docstring)."""
    t0, inv, last = p[h + _T0], p[h + _INV], int(p[h + _LAST])
    r = (t - t0) * inv
    i = int(r + 0.5)
    if -1e-6 < r - i < 1e-6 and 0 <= i <= last:
        return i, 0.0, True
    i = min(max(int(math.floor(r)), 0), last - 1)
    f = min(max(r - i, 0.0), 1.0)
    return i, f, False


@helper
def grid_time(p, h, i):
    """Recording time [s] of grid row ``i``: ``(t0 + (dt/2) i) - t0 + t_data0 + t_offset``."""
    g = p[h + _T0] + p[h + _HALF_DT] * float(i)
    return g - p[h + _T0] + p[h + _T_DATA0] + p[h + _T_OFFSET]


@helper
def fold(p, h, x):
    """``(x - m P, m)``: data time ``x`` [s] folded onto the repetitions held (module docstring);
    ``(x, 0)`` when the recording is not folded (period 0) or ``x`` is in its first two repetitions."""
    period = p[h + _F_PERIOD]
    if period == 0.0:
        return x, 0.0
    j = math.floor((x - p[h + _F_START]) / period)
    if j <= 1.0:
        return x, 0.0
    m = j - 1.0 if j <= p[h + _F_REPS] - 2.0 else p[h + _F_REPS] - 3.0
    return x - m * period, m


@helper
def _guess(p, tb, n, x):
    """The interval ``x`` falls in if the ``n`` times at ``p[tb:]`` are evenly spaced (a recording's
    usually are), clamped to ``0 .. n - 2``: where :func:`search` and :func:`spline_interval` start."""
    span = p[tb + n - 1] - p[tb]
    g = (x - p[tb]) * ((n - 1) / span) if span > 0.0 else 0.0
    return min(max(int(g), 0), n - 2) if g == g else 0


@helper
def _walk(p, tb, n, x):
    """The largest ``j <= n - 2`` with ``t_j <= x`` (``t_0 <= x`` given), walked from :func:`_guess`:
    the interval a bisection finds, in one or two steps on evenly spaced times."""
    j = _guess(p, tb, n, x)
    while j > 0 and p[tb + j] > x:
        j -= 1
    while j < n - 2 and p[tb + j + 1] <= x:
        j += 1
    return j


@helper
def search(p, tb, n, x):
    """``np.interp``'s interval in the ``n`` times at ``p[tb:]``: -1 below, ``n`` above, ``n - 1`` at the
    last sample, else ``j`` with ``t_j <= x < t_{j+1}`` (the largest such ``j``: :func:`_walk`)."""
    if x < p[tb]:
        return -1
    if x > p[tb + n - 1]:
        return n
    if x == p[tb + n - 1]:
        return n - 1
    return _walk(p, tb, n, x)


@helper
def interp_at(p, tb, n, j, x, cb):
    """``np.interp(x, t, col)`` for the column at ``p[cb:]`` with ``j = search(..., x)``."""
    if j < 0:
        return p[cb]
    if j >= n - 1:
        return p[cb + n - 1]
    tj = p[tb + j]
    if tj == x:
        return p[cb + j]
    slope = (p[cb + j + 1] - p[cb + j]) / (p[tb + j + 1] - tj)
    return slope * (x - tj) + p[cb + j]


@helper
def spline_interval(p, xb, n, x):
    """scipy's ``find_interval_ascending`` for ``x`` within the ``n`` (increasing) knots at ``p[xb:]``:
    ``n - 2`` from the last knot on, else ``j`` with ``x_j <= x < x_{j+1}`` (:func:`_walk`; ``x`` below the
    first knot reads interval 0)."""
    if x >= p[xb + n - 1]:
        return n - 2
    if x < p[xb]:
        return 0
    return _walk(p, xb, n, x)


@helper
def spline_at(p, xb, n, m, cb, j, x, col):
    """Value and first derivative of column ``col`` of a cubic ``PPoly`` (knots at ``p[xb:]``, ``m``
    columns, coefficients ``c[k, j, col]`` C-ordered at ``p[cb:]``) in interval ``j``, in scipy's order."""
    s = x - p[xb + j]
    stride = (n - 1) * m
    c0 = p[cb + 0 * stride + j * m + col]
    c1 = p[cb + 1 * stride + j * m + col]
    c2 = p[cb + 2 * stride + j * m + col]
    c3 = p[cb + 3 * stride + j * m + col]
    s2 = s * s
    value = 0.0 + c3 + c2 * s + c1 * s2 + c0 * (s2 * s)
    rate = 0.0 + c2 * 1.0 * 1.0 + c1 * s * 2.0 + c0 * s2 * 3.0
    return value, rate


@helper
def table_row(p, h, t):
    """Where time ``t`` falls in a sampled table (grid header at ``p[h:]``, then the ``n`` sample times):
    ``(n, tb, f, on, xa, ja, xb, jb, ma, mb, D)``, the recording times ``xa``, ``xb`` of the two grid rows
    around ``t`` (folded: :func:`fold`, by ``ma``, ``mb`` periods), their intervals ``ja``, ``jb``
    (``xb, jb, mb = xa, ja, ma`` on the grid) and the fold's shift ``D`` [m], for :func:`table_value`."""
    n = int(p[h + _NS])
    tb = h + GRID_SIZE
    i, f, on = grid_lookup(p, h, t)
    xa, ma = fold(p, h, grid_time(p, h, i))
    ja = search(p, tb, n, xa)
    if on:
        return n, tb, f, on, xa, ja, xa, ja, ma, ma, p[h + _F_SHIFT]
    xb, mb = fold(p, h, grid_time(p, h, i + 1))
    return n, tb, f, on, xa, ja, xb, search(p, tb, n, xb), ma, mb, p[h + _F_SHIFT]


@helper
def _moved(p, tb, n, j, x, v, m, shift, moves):
    """``v`` read ``m`` periods back, plus the distance walked ``m shift`` for a horizontal position:
    ``moves`` -1 = always, ``c >= 0`` = weighted by column ``c`` interpolated (1 where the position was
    recorded, 0 where it reads 0, as the CoP of a foot off the ground), ``-2`` = not a position."""
    if moves == -2 or m == 0.0:
        return v
    if moves == -1:
        return v + m * shift
    return v + m * shift * interp_at(p, tb, n, j, x, tb + n * (moves + 1))


@helper
def table_value(p, row, k, offset, moves):
    """Column ``k`` of the table, minus ``offset``, at the time :func:`table_row` located (``np.interp``
    at each grid row, shifted, then blended linearly between the two rows); a
    horizontal position (``moves``, :func:`_moved`) read from a folded repetition gets the distance
    walked added."""
    n, tb, f, on, xa, ja, xb, jb, ma, mb, shift = row
    cb = tb + n * (k + 1)
    a = _moved(p, tb, n, ja, xa, interp_at(p, tb, n, ja, xa, cb) - offset, ma, shift, moves)
    if on:
        return a
    return (1.0 - f) * a + f * _moved(p, tb, n, jb, xb, interp_at(p, tb, n, jb, xb, cb) - offset, mb, shift, moves)
