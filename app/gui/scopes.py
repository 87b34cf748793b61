"""Scopes: stacked pyqtgraph plots on one shared time axis.

Each :class:`Scope` plots the traces of a :class:`~app.gui.scope_specs.ScopeSpec`; angles are
shown in degrees (``scale = 180/pi``). The curves are created once per compiled model and
updated with ``setData`` on views of the recorder. A shared cursor (``InfiniteLine``) reads
out every trace at its time; each scope's title carries min / max / mean / RMS of its traces
over the visible window.

Two refresh modes keep the display cheap (measured with ``benchmarks/gui_fps.py``):

* **paused** (:meth:`ScopeStack.refresh`): every scope gets the whole history (or the window),
  the time axes are linked, y auto-ranges, pyqtgraph clips and peak-downsamples to the view;
* **live** (:meth:`ScopeStack.set_live`, :meth:`ScopeStack.refresh_live`): while running,
  the x links are cut and the scopes are refreshed round-robin, at most ``per_frame`` per GUI
  frame and at about ``live_hz`` each, so one frame repaints one plot rather than seven. Each
  refresh plots the last ``window_s`` seconds peak-decimated to two samples per pixel column
  (:func:`~app.gui.scope_math.peak_decimate`), keeps a sticky y range (changed only when the
  data leave it or fill less than 40 % of it, so the axis is not re-laid out every frame) and
  rewrites the statistics title at most ``stats_hz`` times a second.

Display options (:class:`~app.gui.scope_panel.ScopePanel` sets them): units
(:mod:`app.gui.scope_units`: SI, or forces in body weights and torques per kg), the x axis
(time [s], or % gait cycle with mean ± SD over cycles, :mod:`app.gui.scope_cycle`), kept runs
overlaid (:meth:`ScopeStack.set_overlays`) and parameter-change markers
(:meth:`ScopeStack.mark_changes`), both drawn by :mod:`app.gui.scope_overlay`.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.axes import use_opaque_grid
from app.gui.run_store import KeptRun
from app.gui.scope_browser import extend_menu
from app.gui.scope_cycle import CYCLE_LABEL, CycleBands, cycle_mean_sd, cycle_xy
from app.gui.scope_legend import side_legend
from app.gui.scope_math import peak_decimate, trace_stats
from app.gui.scope_overlay import ChangeMarkers, RunOverlay, fall_line, filled_bands, time_xy
from app.gui.scope_specs import DEG, PALETTE, ScopeSpec, Trace, default_scopes
from app.gui.scope_units import display_unit
from app.gui.session import SimSession
from app.gui.stick_figure import LEFT, RIGHT

__all__ = ["Scope", "ScopeStack", "Trace", "default_scopes", "peak_decimate", "trace_stats"]


class Scope:
    """One plot: its traces' curves, stance shading, cursor label and statistics title."""

    def __init__(self, plot: pg.PlotItem, spec: ScopeSpec, bottom: bool, unit: str | None = None,
                 factor: float = 1.0, cycle: bool = False) -> None:
        """``unit``/``factor``: the display unit and the factor the trace values are multiplied by
        (:func:`~app.gui.scope_units.display_unit`); ``cycle``: x is % gait cycle, not time."""
        self.plot, self.spec = plot, spec
        self.unit = spec.unit if unit is None else unit
        self.factor, self.cycle = factor, cycle
        use_opaque_grid(plot)
        plot.showGrid(x=False, y=True, alpha=0.15)
        plot.setLabel("left", self.unit.replace("*", "·"), **{"font-size": "8pt"})
        plot.getAxis("left").setWidth(46)
        plot.setLabel("bottom", (CYCLE_LABEL if cycle else "time [s]") if bottom else "")
        plot.getAxis("bottom").setStyle(showValues=bottom)
        plot.setClipToView(True)
        plot.setDownsampling(auto=True, mode="peak")
        self.shades: list[pg.PlotDataItem] = []
        if spec.shade_stance and not cycle:
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
        self.cursor = pg.InfiniteLine(angle=90, movable=True, pen=pg.mkPen("#d62728", width=1),
                                      label="", labelOpts={"position": 0.08, "color": "#d62728",
                                                           "fill": (255, 255, 255, 210), "anchors": [(0, 0), (0, 0)]})
        plot.addItem(self.cursor, ignoreBounds=True)
        self.cursor.setVisible(not cycle)
        self.overlay, self.markers, self.bands = RunOverlay(plot), ChangeMarkers(plot), CycleBands(plot)
        self.stats: list[tuple[float, float, float, float]] = []
        self.fall_line: pg.InfiniteLine | None = None
        self.refreshed_at = -math.inf      # perf_counter time of the last live refresh
        self.stats_at = -math.inf          # ... and of the last statistics title
        self.set_title()

    def mark_filled(self, spans: list[tuple[float, float, str]]) -> None:
        """Grey bands over ``(t_start, t_end, foot)`` [s] (:func:`~app.gui.scope_overlay.filled_bands`)."""
        filled_bands(self.plot, self.legend, spans)

    def mark_fall(self, t_fall: float | None) -> None:
        """A dashed vertical line at the time the walker fell (``fell_at_s``); None removes it."""
        if self.fall_line is not None:
            self.plot.removeItem(self.fall_line)
        self.fall_line = None if t_fall is None else fall_line(self.plot, t_fall)

    def _add_curve(self, tr: Trace) -> None:
        pen = pg.mkPen(tr.color, width=tr.width)
        if tr.dashed:
            pen.setStyle(QtCore.Qt.PenStyle.DashLine)
        curve = self.plot.plot(pen=pen, name=tr.label)
        self.curves.append(curve)

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

    def trace_data(self, s: SimSession, tr: Trace, lo: int, hi: int) -> np.ndarray:
        data = s.recorded(tr.signal)
        y = data[lo:hi] if tr.col is None or data.ndim == 1 else data[lo:hi, tr.col]
        return y * (tr.scale * self.factor)

    def update(self, s: SimSession, t: np.ndarray, lo: int, hi: int, stance: np.ndarray | None,
               bins: int = 0) -> None:
        """Push samples ``lo:hi`` into the curves (``setData``); ``bins > 0`` peak-decimates them
        to ``bins`` pixel columns (:func:`~app.gui.scope_math.peak_decimate`). In the % cycle
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
                y = stance[:, i] * top
                item.setData(*(peak_decimate(t, y, bins, lo) if bins else (t, y)))

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
        """Overlay the kept ``runs`` (time or mean cycle, :class:`~app.gui.scope_overlay.RunOverlay`)."""
        self.overlay.show(runs, self.spec.traces, self.factor, cycle_xy if self.cycle else time_xy)

    def sticky_y_range(self, margin: float = 0.08, fill: float = 0.4) -> None:
        """Fit y to the curves only when they leave the current range or fill less than
        ``fill`` of it (then with ``margin`` padding), so the axis rarely changes."""
        lo, hi = math.inf, -math.inf
        for c in self.curves:
            y = c.yData
            if y is not None and y.size:
                y = y[np.isfinite(y)]
                if y.size:
                    lo, hi = min(lo, float(y.min())), max(hi, float(y.max()))
        if not math.isfinite(lo):
            return
        span = max(hi - lo, 1e-6 + 1e-3 * abs(hi))
        y0, y1 = self.plot.getViewBox().viewRange()[1]
        if lo < y0 or hi > y1 or span < fill * (y1 - y0):
            self.plot.setYRange(lo - margin * span, hi + margin * span, padding=0.0)

    def update_stats(self, s: SimSession, lo: int, hi: int) -> None:
        self.stats = [trace_stats(self.trace_data(s, tr, lo, hi)) for tr in self.spec.traces]
        parts = [f"{tr.label}: {a:.1f}/{b:.1f}/{m:.1f}/{r:.1f}" for tr, (a, b, m, r) in
                 zip(self.spec.traces, self.stats) if not tr.dashed and math.isfinite(a)][:3]
        self.set_title(("min/max/mean/RMS " + " · ".join(parts)) if parts else "")

    def read_cursor(self, s: SimSession, tick: int) -> str:
        vals = []
        for tr in self.spec.traces:
            d = s.recorded(tr.signal)
            if 0 <= tick < d.shape[0]:
                v = (d[tick] if d.ndim == 1 or tr.col is None else d[tick, tr.col]) * tr.scale * self.factor
                vals.append(f"{tr.label} {float(v):.2f}")
        return "  ".join(vals)


class ScopeStack(pg.GraphicsLayoutWidget):
    """Stacked scopes sharing one time axis (``setXLink``) and one cursor time."""

    cursor_moved = QtCore.Signal(float)

    def __init__(self, parent: QtWidgets.QWidget | None = None, window_s: float = 4.0, live_hz: float = 12.0,
                 per_frame: int = 2, stats_hz: float = 2.0) -> None:
        super().__init__(parent)
        self.setBackground("w")
        self.window_s = window_s
        self.live_hz, self.per_frame, self.stats_hz = live_hz, per_frame, stats_hz
        self.live = False
        self.live_refreshes = 0
        self.scopes: list[Scope] = []
        self.session: SimSession | None = None
        self._cursor_t = 0.0
        self._frames = 0
        self.follow = True
        self.ci.layout.setSpacing(0)
        self.ci.setContentsMargins(2, 2, 8, 2)
        self.units = "SI"            # app.gui.scope_units.UNIT_MODES
        self.cycle = False           # x axis: % gait cycle (mean ± SD) instead of time
        self.runs: list[KeptRun] = []
        self.changes: list[dict[str, object]] = []
        self.browser: QtWidgets.QDialog | None = None      # the signal browser, while open

    def specs(self) -> list[ScopeSpec]:
        """The specs of the scopes shown (the live objects: edits show at the next bind)."""
        return [sc.spec for sc in self.scopes]

    def bind(self, s: SimSession, specs: list[ScopeSpec] | None = None) -> None:
        """(Re)create the scopes for session ``s`` (after every compile, never per frame)."""
        self.session = s
        live, self.live = self.live, False
        self.clear()
        self.scopes = []
        specs = specs if specs is not None else default_scopes(s)
        mass = float(s.biped_params().total_mass)
        for i, spec in enumerate(specs):
            plot = self.addPlot(row=i, col=0)
            unit, factor = display_unit(spec.unit, self.units, mass)
            scope = Scope(plot, spec, bottom=i == len(specs) - 1, unit=unit, factor=factor, cycle=self.cycle)
            if self.scopes:
                plot.setXLink(self.scopes[0].plot)
            scope.cursor.sigPositionChanged.connect(self._on_cursor)
            if spec.mark_filled and not self.cycle:
                scope.mark_filled(s.filled_spans())
            extend_menu(self, plot, i)
            self.scopes.append(scope)
        self.changes = []
        self.set_live(live)
        self.set_overlays(self.runs)

    def rebind(self) -> None:
        """Rebuild the scopes with their current specs and options, then redraw the whole run."""
        if self.session is not None:
            self.bind(self.session, self.specs())
            self.refresh(full=True, stats=True)
            if self.scopes:
                self.scopes[0].plot.enableAutoRange(axis="x")

    def set_units(self, mode: str) -> None:
        """``"SI"`` or ``"BW"`` (:mod:`app.gui.scope_units`)."""
        self.units = mode
        self.rebind()

    def set_cycle(self, on: bool) -> None:
        """x axis in % gait cycle (mean ± SD over the run's complete cycles) or in time."""
        self.cycle = on
        self.follow = not on
        self.rebind()

    def set_overlays(self, runs: list[KeptRun]) -> None:
        """Overlay the kept ``runs`` on every scope (an empty list removes the overlays)."""
        self.runs = list(runs)
        for sc in self.scopes:
            sc.show_runs(self.runs)

    def mark_changes(self, changes: list[dict[str, object]]) -> None:
        """Mark the live run's parameter changes ``{"t", "name", "old", "new"}`` on every scope."""
        if changes == self.changes:
            return
        self.changes = list(changes)
        if not self.cycle:
            for sc in self.scopes:
                sc.markers.show(self.changes)

    def add_signal(self, index: int, name: str, col: int) -> Trace:
        """Add column ``col`` of logged signal ``name`` to scope ``index`` (-1 = a new scope)."""
        assert self.session is not None
        s = self.session
        unit = s.unit(name)
        scale = DEG if unit.strip() == "rad" else 1.0
        label = f"{name}[{s.labels(name)[col]}]"
        tr = Trace(label, name, col, scale, PALETTE[len(label) % len(PALETTE)])
        if index < 0 or index >= len(self.scopes):
            specs = self.specs() + [ScopeSpec(name, "deg" if scale != 1.0 else unit or "-", [tr])]
            self.bind(s, specs)
        else:
            self.scopes[index].add_trace(tr)
            self.scopes[index].show_runs(self.runs)
        self.refresh(full=True)
        return tr

    def remove_trace(self, index: int, trace: int) -> Trace:
        """Remove trace ``trace`` of scope ``index``."""
        tr = self.scopes[index].remove_trace(trace)
        self.scopes[index].show_runs(self.runs)
        return tr

    def remove_scope(self, index: int) -> ScopeSpec:
        """Remove scope ``index`` (the others are rebuilt, keeping their traces)."""
        specs = self.specs()
        gone = specs.pop(index)
        assert self.session is not None
        self.bind(self.session, specs)
        self.refresh(full=True, stats=True)
        return gone

    def _on_cursor(self, line: pg.InfiniteLine) -> None:
        t = float(line.value())
        if abs(t - self._cursor_t) > 1e-12:
            self.set_cursor(t)
            self.cursor_moved.emit(t)

    def mark_fall(self, t_fall: float | None) -> None:
        """Mark (or, with None, unmark) the time of a fall on every scope."""
        for sc in self.scopes:
            sc.mark_fall(t_fall)

    def set_cursor(self, t: float) -> None:
        """Move every scope's cursor to ``t`` [s] and update the read-outs."""
        self._cursor_t = t
        s = self.session
        if s is None:
            return
        tick = int(round((t - s.runner.t0) / s.dt))
        for sc in self.scopes:
            sc.cursor.blockSignals(True)
            sc.cursor.setValue(t)
            sc.cursor.blockSignals(False)
            sc.cursor.label.setText(f"t={t:.3f} s  " + sc.read_cursor(s, tick))

    def set_live(self, on: bool) -> None:
        """Enter (``on``, the run starts) or leave (the run stops) live refreshing.

        Live: the time axes are unlinked so that refreshing one scope repaints only that plot,
        and y auto-ranging is off (:meth:`Scope.sticky_y_range`). Leaving relinks the time axes
        to the first scope, turns y auto-ranging back on and refreshes every scope in full.
        """
        if on == self.live:
            return
        self.live = on
        for i, sc in enumerate(self.scopes):
            if on:
                sc.plot.enableAutoRange(axis="y", enable=False)
                sc.refreshed_at = sc.stats_at = -math.inf
                if i:
                    sc.plot.setXLink(None)
            else:
                sc.plot.enableAutoRange(axis="y")
                if i:
                    sc.plot.setXLink(self.scopes[0].plot)

    def refresh_live(self, now: float) -> int:
        """Refresh the scopes due at wall time ``now`` [s] (``time.perf_counter``): the most
        stale first, at most ``per_frame`` of them, each at most ``live_hz`` times a second.
        Returns how many were refreshed."""
        s = self.session
        if s is None or not self.scopes:
            return 0
        due = sorted((sc for sc in self.scopes if now - sc.refreshed_at >= 1.0 / self.live_hz),
                     key=lambda sc: sc.refreshed_at)[: self.per_frame]
        if not due:
            return 0
        t_all = s.recorded_time()
        n = t_all.size
        lo = 0 if self.cycle else max(0, n - int(round(self.window_s / s.dt)) - 1)
        t = t_all[lo:n]
        stance_name = s.find("PhaseDetector", "stance")
        stance = s.recorded(stance_name)[lo:n] if stance_name else None
        for sc in due:
            sc.refreshed_at = now
            sc.update(s, t, lo, n, stance, bins=max(100, int(sc.plot.getViewBox().width())))
            sc.sticky_y_range()
            if self.follow and n and not self.cycle:
                t_end = float(t_all[-1])
                sc.plot.setXRange(max(float(t_all[0]), t_end - self.window_s), max(t_end, float(t_all[0]) + 0.2),
                                  padding=0.0)
            if now - sc.stats_at >= 1.0 / self.stats_hz:
                sc.stats_at = now
                sc.update_stats(s, lo, n)
        self.mark_changes(s.param_log())
        self.live_refreshes += len(due)
        return len(due)

    def refresh(self, full: bool = False, stats: bool = False) -> None:
        """Push recorded data into every curve: the last ``window_s`` seconds, or all of it."""
        s = self.session
        if s is None or not self.scopes:
            return
        t_all = s.recorded_time()
        n = t_all.size
        lo = 0 if full or self.cycle else max(0, n - int(round(self.window_s / s.dt)) - 1)
        t = t_all[lo:n]
        stance_name = s.find("PhaseDetector", "stance")
        stance = s.recorded(stance_name)[lo:n] if stance_name else None
        for sc in self.scopes:
            sc.update(s, t, lo, n, stance)
        self._frames += 1
        if stats or self._frames % 10 == 0:
            for sc in self.scopes:
                sc.update_stats(s, lo, n)
        self.mark_changes(s.param_log())
        if self.follow and n and not self.cycle:
            t_end = float(t_all[-1])
            self.scopes[0].plot.setXRange(max(t_all[0], t_end - self.window_s), max(t_end, t_all[0] + 0.2),
                                          padding=0.0)
