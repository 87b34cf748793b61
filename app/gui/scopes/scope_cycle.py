"""The % gait-cycle view of a scope: mean ± 1 SD over complete cycles.

Cycles run from one left landing to the next (the rising edges of the left stance flag of the
``PhaseDetector``), each resampled to 0, 1, ..., 100 % and averaged; the same cutting as
``gaitblocks compare`` (:func:`app.comparison.cycle_curves`). The SD is the population standard
deviation over cycles (``numpy.std``); the band is drawn as mean ± SD.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6 import QtGui

from app.comparison import PCT, cycle_curves
from app.gui.runs.run_store import KeptRun
from app.gui.scopes.scope_specs import Trace

__all__ = ["CYCLE_LABEL", "CycleBands", "cycle_mean_sd", "cycle_xy"]

CYCLE_LABEL = "gait cycle [%] (left landing = 0)"


def cycle_mean_sd(t: np.ndarray, stance_l: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """``(mean, sd, n_cycles)`` of ``y`` over the complete cycles of the left stance flag ``stance_l``
    (each (101,) on :data:`app.comparison.PCT`; NaN without a complete cycle)."""
    c = cycle_curves(t, stance_l, {"y": y})
    return c["y"], c["y_sd"], int(c["n_cycles"][0])


def cycle_xy(run: KeptRun, tr: Trace, factor: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The mean cycle of a kept run's trace (None without the signal, the stance flags or a cycle),
    computed once per trace and display factor (``run.cache``: switching the x axis or the units
    back and forth recomputes nothing)."""
    data = run.signals.get(tr.signal)
    if data is None or run.stance is None:
        return None
    key = ("cycle", tr.signal, tr.col, tr.scale * factor)
    if key not in run.cache:
        y = data if tr.col is None or data.ndim == 1 else data[:, tr.col]
        mean, _, n = cycle_mean_sd(run.t, run.signals[run.stance][:, 0], y * (tr.scale * factor))
        run.cache[key] = (PCT, mean) if n else None
    out: tuple[np.ndarray, np.ndarray] | None = run.cache[key]
    return out


class CycleBands:
    """One translucent mean ± SD band per trace of a plot."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.items: list[pg.FillBetweenItem] = []
        self.data: list[tuple[np.ndarray, np.ndarray, str]] = []     # the bands shown (figure export)

    def clear(self) -> None:
        for it in self.items:
            self.plot.removeItem(it)
        self.items = []
        self.data = []

    def show(self, bands: Sequence[tuple[np.ndarray, np.ndarray, str]]) -> None:
        """``bands``: (mean, sd, colour) per trace, on :data:`~app.comparison.PCT`."""
        self.clear()
        for mean, sd, colour in bands:
            if not np.isfinite(mean).any():
                continue
            self.data.append((mean, sd, colour))
            c = QtGui.QColor(colour)
            c.setAlpha(45)
            lo = pg.PlotCurveItem(PCT, mean - sd, pen=None)
            hi = pg.PlotCurveItem(PCT, mean + sd, pen=None)
            band = pg.FillBetweenItem(lo, hi, brush=pg.mkBrush(c))
            band.setZValue(-10)
            self.plot.addItem(band)
            self.items.append(band)
