"""The tuning panel's plot (pyqtgraph): a sweep's heat map or line, or an optimisation's convergence.

* two swept parameters: one cell per grid point coloured by ``log10(objective)`` (viridis, colour
  bar), runs that fell or failed drawn as red crosses over a blank cell, the best run a white star;
* one swept parameter: objective against the parameter, failures as red crosses on the top edge;
* a sweep's axes are ticked at the swept values (:func:`swept_ticks`: every value labelled up to
  :data:`MAX_LABELS`, beyond that every k-th labelled and the others ticked without a label);
* optimisation: objective of each evaluation (dots; failures red crosses on the top edge) and the
  best so far (line), against the evaluation number.

Failures carry the objective's failure penalty (``app.tuning.objective``, >= 1000), far above any
walking run, so they are drawn at the top of the walking runs' range instead of at their value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

__all__ = ["MAX_LABELS", "TuningPlot", "swept_ticks"]

FAIL_PEN = pg.mkPen("#d62728", width=2)
MAX_LABELS = 8      # labelled ticks on one axis at most


def swept_ticks(values: Sequence[float]) -> list[list[tuple[float, str]]]:
    """pyqtgraph ticks ``[major, minor]`` at the swept ``values`` (module doc): major ticks carry
    ``%.4g`` labels, the first and last always among them."""
    vs = sorted(set(float(v) for v in values))
    k = max(1, math.ceil(len(vs) / MAX_LABELS))
    major = [i for i in range(len(vs)) if i % k == 0 or i == len(vs) - 1]
    if len(major) > 1 and major[-1] - major[-2] < k:     # the last label would crowd its neighbour
        major.pop(-2)
    return [[(vs[i], f"{vs[i]:.4g}") for i in major], [(v, "") for i, v in enumerate(vs) if i not in major]]


def _ok(row: Mapping[str, Any]) -> bool:
    v = row.get("objective")
    return row.get("status") == "ok" and isinstance(v, (int, float)) and math.isfinite(float(v))


class TuningPlot(QtWidgets.QWidget):
    """One plot area and an optional colour bar; :meth:`show_sweep` or :meth:`show_convergence`."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground("w")
        lay.addWidget(self.view)
        self.plot: pg.PlotItem = self.view.addPlot(row=0, col=0)
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        for side in ("left", "bottom"):
            self.plot.getAxis(side).enableAutoSIPrefix(False)
        self.bar: pg.ColorBarItem | None = None
        self.image: pg.ImageItem | None = None
        self._marks: list[pg.PlotDataItem] = []       # the heat map's failures and best run
        self._heat_refs: tuple[str, str] | None = None
        self.setMinimumHeight(200)

    def clear(self) -> None:
        self.plot.clear()
        for side in ("left", "bottom"):
            self.plot.getAxis(side).setTicks(None)
        if self.bar is not None:
            self.view.removeItem(self.bar)
            self.bar = None
        self.image, self._marks, self._heat_refs = None, [], None

    def blank(self) -> None:
        """Empty the plot for a new run; a heat map keeps its items (image, colour bar, marks), which
        the next sweep over the same two parameters fills again instead of building them."""
        if self.image is not None and self._marks:
            self.image.clear()
            for m in self._marks:
                m.setData([], [])
        else:
            self.clear()

    def _top(self, values: Sequence[float]) -> float:
        return max(values) * 1.1 if values else 1.0

    def show_sweep(self, rows: Sequence[Mapping[str, Any]], refs: Sequence[str],
                   best: Mapping[str, Any] | None = None) -> None:
        """Heat map (two refs) or line (one ref) of the rows' objective. The heat map's items are
        built once per pair of parameters and then updated in place as the rows arrive (building
        a colour bar and an image per row took 0.2-0.4 s of the GUI thread each)."""
        if len(refs) == 2:
            if self._heat_refs != (refs[0], refs[1]):
                self.clear()
                self.plot.setTitle("objective (smaller is better)", size="9pt")
            self._heat(rows, refs[0], refs[1], best)
            return
        self.clear()
        self.plot.setTitle("objective (smaller is better)", size="9pt")
        ref = refs[0]
        ok = sorted((float(r[ref]), float(r["objective"])) for r in rows if _ok(r))
        self.plot.setLabel("bottom", ref)
        self.plot.setLabel("left", "objective")
        if ok:
            xs, ys = zip(*ok)
            self.plot.plot(xs, ys, pen=pg.mkPen("#1f77b4", width=2), symbol="o", symbolSize=7,
                           symbolBrush="#1f77b4")
        fails = [float(r[ref]) for r in rows if not _ok(r)]
        if fails:
            top = self._top([y for _, y in ok])
            self.plot.plot(fails, [top] * len(fails), pen=None, symbol="x", symbolSize=12, symbolPen=FAIL_PEN)
        if best is not None:
            self.plot.plot([float(best[ref])], [float(best["objective"])], pen=None, symbol="star", symbolSize=16,
                           symbolBrush="#ff7f0e")
        self.plot.getAxis("bottom").setTicks(swept_ticks([float(r[ref]) for r in rows]))

    def _heat(self, rows: Sequence[Mapping[str, Any]], xr: str, yr: str, best: Mapping[str, Any] | None) -> None:
        xs = sorted({float(r[xr]) for r in rows})
        ys = sorted({float(r[yr]) for r in rows})
        grid = np.full((len(xs), len(ys)), np.nan)
        for r in rows:
            if _ok(r):
                grid[xs.index(float(r[xr])), ys.index(float(r[yr]))] = math.log10(max(float(r["objective"]), 1e-12))
        dx = (xs[-1] - xs[0]) / (len(xs) - 1) if len(xs) > 1 else 1.0
        dy = (ys[-1] - ys[0]) / (len(ys) - 1) if len(ys) > 1 else 1.0
        finite = grid[np.isfinite(grid)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        if hi - lo < 1e-9:
            lo, hi = lo - 0.05, hi + 0.05
        if self.image is None or self.bar is None:
            self.image = pg.ImageItem(grid)
            self.plot.addItem(self.image)
            self.bar = pg.ColorBarItem(values=(lo, hi), colorMap=pg.colormap.get("viridis"), label="log10 objective",
                                       interactive=False, width=12)
            self.bar.setImageItem(self.image)
            self.view.addItem(self.bar, row=0, col=1)
            self._marks = [self.plot.plot([], [], pen=None, symbol="x", symbolSize=14, symbolPen=FAIL_PEN),
                           self.plot.plot([], [], pen=None, symbol="star", symbolSize=18, symbolBrush="w",
                                          symbolPen=pg.mkPen("k"))]
            self._heat_refs = (xr, yr)
        else:
            self.image.setImage(grid, autoLevels=False)
            self.bar.setLevels((lo, hi))
        self.image.setRect(QtCore.QRectF(xs[0] - dx / 2, ys[0] - dy / 2, dx * len(xs), dy * len(ys)))
        fails = [(float(r[xr]), float(r[yr])) for r in rows if not _ok(r)]
        self._marks[0].setData([x for x, _ in fails], [y for _, y in fails])
        self._marks[1].setData(*(([float(best[xr])], [float(best[yr])]) if best is not None else ([], [])))
        self.plot.setLabel("bottom", xr)
        self.plot.setLabel("left", yr)
        self.plot.getAxis("bottom").setTicks(swept_ticks(xs))
        self.plot.getAxis("left").setTicks(swept_ticks(ys))
        self.plot.setXRange(xs[0] - dx / 2, xs[-1] + dx / 2, padding=0.02)
        self.plot.setYRange(ys[0] - dy / 2, ys[-1] + dy / 2, padding=0.02)

    def show_convergence(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Objective per evaluation and the best so far (walking runs only)."""
        self.clear()
        self.plot.setTitle("convergence: objective per evaluation, best so far", size="9pt")
        self.plot.setLabel("bottom", "evaluation")
        self.plot.setLabel("left", "objective")
        ok = [(i + 1, float(r["objective"])) for i, r in enumerate(rows) if _ok(r)]
        if ok:
            xs, ys = zip(*ok)
            self.plot.plot(xs, ys, pen=None, symbol="o", symbolSize=6, symbolBrush="#1f77b4")
            best = np.minimum.accumulate(ys)
            self.plot.plot(xs, best, pen=pg.mkPen("#ff7f0e", width=2), stepMode=None)
        fails = [i + 1 for i, r in enumerate(rows) if not _ok(r)]
        if fails:
            top = self._top([y for _, y in ok])
            self.plot.plot(fails, [top] * len(fails), pen=None, symbol="x", symbolSize=12, symbolPen=FAIL_PEN)
