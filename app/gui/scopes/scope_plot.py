"""One scope: a pyqtgraph plot of the traces of a :class:`~app.gui.scopes.scope_specs.ScopeSpec` against time.

The curves are created once and updated with ``setData`` on views of the recorder; angles are
shown in degrees (``scale = 180/pi``) and every value times the display factor of the units
mode (:func:`~app.gui.scopes.scope_units.display_unit`). A cursor (``InfiniteLine``) reads out every
trace at its time; the title carries min / max / mean / RMS of the traces over the samples
shown. In the % gait-cycle view the curves are the mean cycle with a ± 1 SD band
(:mod:`app.gui.scopes.scope_cycle`). The stack (:class:`~app.gui.scopes.scopes.ScopeStack`) reuses a scope
of the same :meth:`~app.gui.scopes.scope_specs.ScopeSpec.shape` on a recompile (:meth:`Scope.reset`)
instead of building its plot items again.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from app.gui.figure.stick_figure import LEFT, RIGHT
from app.gui.runs.run_store import KeptRun
from app.gui.scopes.axes import use_opaque_grid
from app.gui.scopes.scope_cycle import CYCLE_LABEL, CycleBands, cycle_mean_sd, cycle_xy
from app.gui.scopes.scope_legend import side_legend
from app.gui.scopes.scope_math import SAMPLES_PER_PX, peak_decimate, step_corners, trace_stats
from app.gui.scopes.scope_measure import DeltaCursor
from app.gui.scopes.scope_overlay import FILLED_LABEL, ChangeMarkers, RunOverlay, fall_line, filled_bands, time_xy
from app.gui.scopes.scope_specs import ScopeSpec, Trace
from app.gui.scopes.scope_units import min_span
from app.gui.session.session import SimSession

__all__ = ["Scope", "trace_pen"]


def trace_pen(tr: Trace) -> QtGui.QPen:
    pen = pg.mkPen(tr.color, width=tr.width)
    if tr.dashed:
        pen.setStyle(QtCore.Qt.PenStyle.DashLine)
    return pen


def padded_bounds(arrays: list[np.ndarray | None], margin: float) -> tuple[float, float] | None:
    """``(lo, hi)``: the finite values' range of ``arrays`` widened by ``margin`` of its span on each
    side (a flat trace gets a small span); None when there is no finite value."""
    finite = [y[np.isfinite(y)] for y in arrays if y is not None and y.size]
    finite = [y for y in finite if y.size]
    if not finite:
        return None
    lo, hi = min(float(y.min()) for y in finite), max(float(y.max()) for y in finite)
    span = max(hi - lo, 1e-6 + 1e-3 * abs(hi))
    return lo - margin * span, hi + margin * span


class Scope:
    """One plot: its traces' curves, stance shading, cursor label and statistics title."""

    is_xy = False

    def __init__(self, plot: pg.PlotItem, spec: ScopeSpec, bottom: bool, unit: str | None = None,
                 factor: float = 1.0, cycle: bool = False) -> None:
        """``unit``/``factor``: the display unit and the factor the trace values are multiplied by
        (:func:`~app.gui.scopes.scope_units.display_unit`); ``cycle``: x is % gait cycle, not time."""
        self.plot, self.spec = plot, spec
        self.unit = spec.unit if unit is None else unit
        self.factor, self.cycle, self.bottom = factor, cycle, bottom
        use_opaque_grid(plot)
        plot.showGrid(x=self.is_xy, y=True, alpha=0.15)
        plot.setLabel("left", self.unit.replace("*", "·"), **{"font-size": "8pt"})
        plot.getAxis("left").setWidth(46)
        self._label_bottom()
        plot.getViewBox().setLimits(minYRange=min_span(self.unit))   # a flat trace reads 0 (scope_units)
        plot.setClipToView(not self.is_xy)
        plot.setDownsampling(auto=not self.is_xy, mode="peak")
        self.shades: list[pg.PlotDataItem] = []      # empty in the % cycle view (:meth:`set_display`)
        if spec.shade_stance:
            for col in (LEFT, RIGHT):
                c = QtGui.QColor(col)
                c.setAlpha(28)
                item = pg.PlotDataItem(pen=None, fillLevel=0.0, brush=pg.mkBrush(c))
                plot.addItem(item)
                item.setDownsampling(ds=1, auto=False)
                item.setClipToView(False)
                self.shades.append(item)
        self.legend = side_legend(plot)
        self.curves: list[pg.PlotDataItem] = []
        for tr in spec.traces:
            self._add_curve(tr)
        self._make_cursor()
        self.delta = None if self.is_xy else DeltaCursor(plot)    # cursor B, shown on request
        self.overlay, self.markers, self.bands = RunOverlay(plot, self.legend), ChangeMarkers(plot), CycleBands(plot)
        self.stats: list[tuple[float, float, float, float]] = []
        self.fall_line: pg.InfiniteLine | None = None
        self.y_fitted = False               # y range held by fit_y_before
        self.filled: list[pg.LinearRegionItem] = []
        self.refreshed_at = -math.inf      # perf_counter time of the last live refresh
        self.stats_at = -math.inf          # ... and of the last statistics title
        self.set_title()

    def _label_bottom(self) -> None:
        self.plot.setLabel("bottom", (CYCLE_LABEL if self.cycle else "time [s]") if self.bottom else "")
        self.plot.getAxis("bottom").setStyle(showValues=self.bottom)

    def _make_cursor(self) -> None:
        self.cursor = pg.InfiniteLine(angle=90, movable=True, pen=pg.mkPen("#d62728", width=1), label="",
                                      labelOpts={"position": 0.04, "color": "#d62728",
                                                 "fill": (255, 255, 255, 210), "anchors": [(0, 1), (0, 1)]})
        font = self.cursor.label.textItem.font()
        font.setPointSizeF(7.5)
        self.cursor.label.setFont(font)
        self.plot.addItem(self.cursor, ignoreBounds=True)
        self.cursor.setVisible(not self.cycle)

    def reset(self, spec: ScopeSpec, s: SimSession, bottom: bool) -> None:
        """Reuse this scope for ``spec`` (same :meth:`~app.gui.scopes.scope_specs.ScopeSpec.shape`) on a
        new session ``s``: empty curves, no fall line, markers, bands or overlays; filled-GRF bands
        of ``s``."""
        self.spec = spec
        for c in (*self.curves, *self.shades):
            c.setData([], [])
        self.mark_fall(None)
        self.markers.show([])
        self.bands.clear()     # the overlays stay: the stack's set_overlays updates them in place
        for band in self.filled:
            self.plot.removeItem(band)
        if self.filled:
            self.legend.removeItem(FILLED_LABEL)
        self.filled = []
        if spec.mark_filled and not self.cycle:
            self.mark_filled(s.filled_spans())
        if bottom != self.bottom:
            self.bottom = bottom
            self._label_bottom()
        self.refreshed_at = self.stats_at = -math.inf
        self.stats = []
        self.set_title()

    def set_display(self, unit: str, factor: float, cycle: bool) -> None:
        """Show the traces in ``unit`` (values times ``factor``) against time or, with ``cycle``,
        % gait cycle, keeping the plot and its items (a units or x-axis switch rebuilds no plot
        item; the stack's next refresh and :meth:`show_runs` put in the data)."""
        if cycle != self.cycle:
            self.cycle = cycle
            self._label_bottom()
            self.cursor.setVisible(not cycle)
            for c in (*self.curves, *self.shades):
                c.setData([], [])
            self.bands.clear()
            self.markers.show([])
            if cycle:      # 0-100 % at once: the curves clip to the view, which still shows the time range
                self.plot.setXRange(0.0, 100.0, padding=0.02)
            else:
                self.plot.enableAutoRange(axis="x")
        if (unit, factor) != (self.unit, self.factor):
            self.unit, self.factor = unit, factor
            self.plot.setLabel("left", unit.replace("*", "·"), **{"font-size": "8pt"})
        self.set_title()

    def mark_filled(self, spans: list[tuple[float, float, str]]) -> None:
        """Grey bands over ``(t_start, t_end, foot)`` [s] (:func:`~app.gui.scopes.scope_overlay.filled_bands`)."""
        self.filled = filled_bands(self.plot, self.legend, spans)

    def mark_fall(self, t_fall: float | None) -> None:
        """A dashed vertical line at the time the walker fell (``fell_at_s``); None removes it (and
        gives y back to auto-ranging if :meth:`fit_y_before` had taken it)."""
        if self.fall_line is not None:
            self.plot.removeItem(self.fall_line)
        self.fall_line = None if t_fall is None else fall_line(self.plot, t_fall)
        if t_fall is None and self.y_fitted:
            self.y_fitted = False
            self.plot.enableAutoRange(axis="y")

    def fit_y_before(self, s: SimSession, hi: int, margin: float = 0.08) -> None:
        """Fit y to samples ``0:hi`` of every trace and keep it (y auto-ranging off): after a fall
        the body may tumble or blow up (values of 1e50 and more), and a range fitted to that would
        flatten the walk before it to a line. Zooming out (mouse) still shows the rest."""
        bounds = padded_bounds([self.trace_data(s, tr, 0, hi) for tr in self.spec.traces], margin)
        if bounds is not None:
            self.plot.enableAutoRange(axis="y", enable=False)
            self.plot.setYRange(*bounds, padding=0.0)
            self.y_fitted = True

    def _add_curve(self, tr: Trace) -> None:
        curve = self.plot.plot(pen=trace_pen(tr), name=tr.label, autoDownsampleFactor=SAMPLES_PER_PX)
        self.curves.append(curve)

    def thin_pens(self, on: bool) -> None:
        """Draw the curves (and the overlaid runs) 1 px wide (``on``, while running) or at their
        traces' widths. Qt's raster engine strokes the 1.6-2 px lines about 2.7 times slower than
        1 px ones: a full repaint of the default scopes took 55-59 ms against 21 ms."""
        for tr, curve in zip(self.spec.traces, self.curves):
            pen = trace_pen(tr)
            if on:
                pen.setWidthF(1.0)
            curve.setPen(pen)
        for c in self.overlay.curves.values():
            pen = pg.mkPen(c.opts["pen"])
            pen.setWidthF(1.0 if on else 1.3)
            c.setPen(pen)

    def add_trace(self, tr: Trace) -> None:
        self.spec.traces.append(tr)
        self._add_curve(tr)

    def remove_trace(self, i: int) -> Trace:
        """Remove trace ``i`` (its curve and legend entry); returns it."""
        tr = self.spec.traces.pop(i)
        curve = self.curves.pop(i)
        self.legend.removeItem(curve)
        self.plot.removeItem(curve)
        return tr

    def set_title(self, text: str = "") -> None:
        unit = self.unit.replace("*", "·")
        self.plot.setTitle(f"<b>{self.spec.title}</b> <span style='color:#666'>[{unit}]</span>"
                           f"<span style='color:#555; font-size:7pt'>&nbsp;&nbsp;{text}</span>", size="8pt")

    def trace_data(self, s: SimSession, tr: Trace, lo: int, hi: int, factor: float | None = None) -> np.ndarray:
        """Samples ``lo:hi`` of ``tr`` in display units (``factor``: default the scope's y factor)."""
        data = s.recorded(tr.signal)
        y = data[lo:hi] if tr.col is None or data.ndim == 1 else data[lo:hi, tr.col]
        return y * (tr.scale * (self.factor if factor is None else factor))

    def export_columns(self, s: SimSession, n: int) -> list[tuple[str, np.ndarray]]:
        """``(header, column)`` of every trace over samples ``0:n``, units in the headers."""
        unit = self.unit.replace("*", "·")
        return [(f"{self.spec.title}: {tr.label} [{unit}]", self.trace_data(s, tr, 0, n)) for tr in self.spec.traces]

    def update(self, s: SimSession, t: np.ndarray, lo: int, hi: int, stance: np.ndarray | None,
               bins: int = 0) -> None:
        """Push samples ``lo:hi`` into the curves (``setData``); ``bins > 0`` peak-decimates them
        to ``bins`` pixel columns (:func:`~app.gui.scopes.scope_math.peak_decimate`). In the % cycle
        view the curves get the mean cycle of samples ``lo:hi`` and the bands mean ± SD."""
        if self.cycle:
            self.update_cycle(s, t, lo, hi, stance)
            return
        for tr, curve in zip(self.spec.traces, self.curves):
            y = self.trace_data(s, tr, lo, hi)
            curve.setData(*(peak_decimate(t, y, bins, lo) if bins else (t, y)))
        if self.shades and stance is not None and t.size:
            top = max((float(np.nanmax(np.abs(c.yData))) for c in self.curves if c.yData is not None and
                       c.yData.size and np.isfinite(c.yData).any()), default=1.0) * 1.05
            for i, item in enumerate(self.shades):
                x, y = step_corners(t, stance[:, i])
                item.setData(x, y * top)

    def update_cycle(self, s: SimSession, t: np.ndarray, lo: int, hi: int, stance: np.ndarray | None) -> None:
        """Mean ± SD over the complete cycles of samples ``lo:hi`` (nothing without stance flags)."""
        bands = []
        for tr, curve in zip(self.spec.traces, self.curves):
            if stance is None or not t.size:
                curve.setData([], [])
                continue
            mean, sd, n = cycle_mean_sd(t, stance[:, 0], self.trace_data(s, tr, lo, hi))
            curve.setData(*((np.linspace(0.0, 100.0, mean.size), mean) if n else ([], [])))
            if not tr.dashed:
                bands.append((mean, sd, tr.color))
        self.bands.show(bands)

    def show_runs(self, runs: list[KeptRun]) -> None:
        """Overlay the kept ``runs`` (time or mean cycle, :class:`~app.gui.scopes.scope_overlay.RunOverlay`)."""
        self.overlay.show(runs, self.spec.traces, self.factor, cycle_xy if self.cycle else time_xy)

    def sticky_y_range(self, margin: float = 0.08, fill: float = 0.4) -> None:
        """Fit y to the curves only when they leave the current range or fill less than
        ``fill`` of it (then with ``margin`` padding), so the axis rarely changes."""
        bounds = padded_bounds([c.yData for c in self.curves], margin)
        if bounds is None:
            return
        lo, hi = bounds
        y0, y1 = self.plot.getViewBox().viewRange()[1]
        if lo < y0 or hi > y1 or (hi - lo) < fill * (1.0 + 2.0 * margin) * (y1 - y0):
            self.plot.setYRange(lo, hi, padding=0.0)

    def update_stats(self, s: SimSession, lo: int, hi: int, note: str = "") -> None:
        """Min / max / mean / RMS of samples ``lo:hi`` in the title, after ``note`` (what they cover)."""
        self.stats = [trace_stats(self.trace_data(s, tr, lo, hi)) for tr in self.spec.traces]
        parts = [f"{tr.label}: " + "/".join(f"{v:.1f}" if abs(v) >= 0.05 else "0" for v in st)
                 for tr, st in zip(self.spec.traces, self.stats) if not tr.dashed and math.isfinite(st[0])][:3]
        text = ("min/max/mean/RMS " + " · ".join(parts)) if parts else ""
        self.set_title(f"{note}: {text}" if note and text else text or note)

    def read_cursor(self, s: SimSession, tick: int) -> str:
        vals = []
        for tr in self.spec.traces:
            d = s.recorded(tr.signal)
            if 0 <= tick < d.shape[0]:
                v = (d[tick] if d.ndim == 1 or tr.col is None else d[tick, tr.col]) * tr.scale * self.factor
                vals.append(f"{tr.label} {float(v):.2f}")
        return "  ".join(vals)

    def show_cursor(self, s: SimSession, t: float, tick: int) -> None:
        """Move the cursor to time ``t`` [s] (sample ``tick``) and write its read-out."""
        self.cursor.blockSignals(True)
        self.cursor.setValue(t)
        self.cursor.blockSignals(False)
        self.cursor.label.setText(f"t={t:.3f} s  " + self.read_cursor(s, tick))
