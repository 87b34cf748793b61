"""What one scope draws besides the live run: kept runs overlaid, and parameter-change markers.

* :class:`RunOverlay`: for each ticked kept run (:class:`~app.gui.runs.run_store.KeptRun`) one curve per
  solid trace of the scope (references and estimates, drawn dashed, are not overlaid), in the
  run's own colour (stable per run, :func:`~app.gui.runs.run_store.run_style`); the scope's first solid
  trace solid, the second dashed, the third dotted, ... so left and right stay apart. The data
  are the run's recorded samples times the trace scale and the display factor, against time [s]
  or, in the % gait-cycle view, the run's mean cycle. The scope's legend names each overlaid run
  (a solid line in its colour; a long name is cut to :data:`LEGEND_CHARS` characters, whole in the
  tooltip of its curves).
* :class:`ChangeMarkers`: a dotted vertical line at the simulated time [s] of each parameter
  change applied while the live run ran (``Runner.registry.log``), labelled ``name = value``,
  like the fall marker; the steps of one slider drag (one parameter, each within
  :data:`MERGE_S` of the last) share one line (:func:`merge_changes`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from app.gui.runs.run_store import KeptRun
from app.gui.scopes.scope_math import SAMPLES_PER_PX
from app.gui.scopes.scope_specs import Trace

__all__ = ["FILLED_LABEL", "LEGEND_CHARS", "MERGE_S", "ChangeMarkers", "RunOverlay", "fall_line", "filled_bands",
           "legend_name", "merge_changes",
           "time_xy", "trace_style"]

_STYLES = (QtCore.Qt.PenStyle.SolidLine, QtCore.Qt.PenStyle.DashLine, QtCore.Qt.PenStyle.DotLine,
           QtCore.Qt.PenStyle.DashDotLine, QtCore.Qt.PenStyle.DashDotDotLine)


LEGEND_CHARS = 14     # a run's name in a scope's side legend (92 px at 6.5 pt)


def legend_name(name: str) -> str:
    """``name`` as the side legend shows it: at most :data:`LEGEND_CHARS` characters."""
    return name if len(name) <= LEGEND_CHARS else name[:LEGEND_CHARS - 1] + "…"


def trace_style(i: int) -> QtCore.Qt.PenStyle:
    """Line style of the scope's ``i``-th trace in an overlaid run."""
    return _STYLES[i % len(_STYLES)]


def _fmt(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


class RunOverlay:
    """Curves of the kept runs on one plot; ``curves[(run key, trace index)]``; ``entries[run key]``
    the legend sample naming the run (with ``legend``).

    :meth:`show` is incremental: a curve whose run, trace, display factor and x mode are unchanged
    is kept as it is (ticking one more run adds only that run's curves, unticking removes only its
    own); a curve whose factor or x mode changed gets new data in place (``setData``), so no plot
    item is built again. Each curve peak-downsamples to the view's pixel columns and clips to
    the view (pyqtgraph), so a 10 s run at 1 ms draws about two points per pixel column."""

    def __init__(self, plot: pg.PlotItem, legend: pg.LegendItem | None = None) -> None:
        self.plot, self.legend = plot, legend
        self.curves: dict[tuple[int, int], pg.PlotDataItem] = {}
        self._drawn: dict[tuple[int, int], tuple[Any, ...]] = {}     # what each curve shows
        self.entries: dict[int, pg.PlotDataItem] = {}
        self._named: list[tuple[int, str, str]] = []    # (run key, legend name, colour) of the entries

    def clear(self) -> None:
        for c in self.curves.values():
            self.plot.removeItem(c)
        self.curves, self._drawn = {}, {}
        self._clear_legend()

    def _clear_legend(self) -> None:
        if self.legend is not None:
            for sample in self.entries.values():
                self.legend.removeItem(sample)
        self.entries = {}
        self._named = []

    def legend_names(self) -> list[str]:
        """The run names the legend shows, in order."""
        if self.legend is None:
            return []
        samples = set(map(id, self.entries.values()))
        return [label.text for sample, label in self.legend.items if id(getattr(sample, "item", sample)) in samples]

    def show(self, runs: Sequence[KeptRun], traces: Sequence[Trace], factor: float,
             xy: Callable[[KeptRun, Trace, float], tuple[np.ndarray, np.ndarray] | None]) -> None:
        """Draw every run in ``runs`` for every trace; ``xy(run, trace, factor)`` gives the data
        (None: the run did not record that signal, nothing is drawn)."""
        solid = [i for i, tr in enumerate(traces) if not tr.dashed]
        wanted: dict[tuple[int, int], tuple[KeptRun, Trace, int, tuple[Any, ...]]] = {}
        for run in runs:
            for k, i in enumerate(solid):
                tr = traces[i]
                sig = (id(run), run.name, tr.signal, tr.col, tr.scale, factor, xy, run.colour, k)
                wanted[(run.key, i)] = (run, tr, k, sig)
        for key in [key for key in self.curves if key not in wanted]:
            self.plot.removeItem(self.curves.pop(key))
            self._drawn.pop(key, None)
        for key, (run, tr, k, sig) in wanted.items():
            if self._drawn.get(key) == sig:
                continue
            data = xy(run, tr, factor)
            curve = self.curves.get(key)
            if data is None:
                if curve is not None:
                    self.plot.removeItem(self.curves.pop(key))
                self._drawn.pop(key, None)
                continue
            pen = pg.mkPen(run.colour, width=1.3, style=trace_style(k))
            if curve is None:
                curve = pg.PlotDataItem(*data, pen=pen, autoDownsampleFactor=SAMPLES_PER_PX)
                curve.setZValue(-5)
                self.plot.addItem(curve)
                curve.setClipToView(True)       # once in the plot: clipping asks its view box
                curve.setDownsampling(auto=True, method="peak")
                self.curves[key] = curve
            else:
                curve.setData(*data)
                curve.setPen(pen)
            curve.setToolTip(f"{run.name}: {tr.label}")
            self._drawn[key] = sig
        if self.legend is None:
            return
        named = [(run.key, legend_name(run.name), run.colour) for run in runs
                 if any(shown == run.key for shown, _ in self.curves)]
        tail = [getattr(s, "item", s) for s, _ in self.legend.items[len(self.legend.items) - len(named):]]
        if named == self._named and tail == list(self.entries.values()):   # the same entries, last in the
            return                                                           # legend (a unit switch): kept
        self._clear_legend()            # a rename, a new order, a run more or less: named anew
        for run_key, name, colour in named:
            sample = pg.PlotDataItem(pen=pg.mkPen(colour, width=1.6))
            self.legend.addItem(sample, name)
            self.entries[run_key] = sample
        self._named = named


def time_xy(run: KeptRun, tr: Trace, factor: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The run's samples of trace ``tr`` against time [s], in display units."""
    data = run.signals.get(tr.signal)
    if data is None:
        return None
    y = data if tr.col is None or data.ndim == 1 else data[:, tr.col]
    return run.t, y * (tr.scale * factor)


MERGE_S = 0.25   # changes of one parameter this close in simulated time [s] share a marker (a slider drag)


def merge_changes(changes: Sequence[dict[str, Any]], within_s: float = MERGE_S) -> list[dict[str, Any]]:
    """The markers of ``changes`` (``{"t", "name", "old", "new"}``, in time order): changes of the
    same parameter that follow each other within ``within_s`` [s] of simulated time (a slider
    drag posts one per step) merge into one ``{"t", "t_last", "name", "old", "new", "count"}`` at
    the first one's time, from its old value to the last one's new value."""
    out: list[dict[str, Any]] = []
    for c in changes:
        t = float(c["t"])
        last = out[-1] if out else None
        if last is not None and last["name"] == c["name"] and t - last["t_last"] <= within_s:
            last.update(new=c["new"], t_last=t, count=last["count"] + 1)
        else:
            out.append({"t": t, "t_last": t, "name": c["name"], "old": c["old"], "new": c["new"], "count": 1})
    return out


class ChangeMarkers:
    """Vertical lines at the times [s] of the live run's parameter changes (:func:`merge_changes`)."""

    def __init__(self, plot: pg.PlotItem) -> None:
        self.plot = plot
        self.lines: list[pg.InfiniteLine] = []
        self.shown: list[dict[str, Any]] = []      # the merged changes the lines show

    def show(self, changes: Sequence[dict[str, Any]]) -> None:
        """Draw ``changes`` (``{"t", "name", "old", "new"}``), merged (:func:`merge_changes`).
        Incremental: a marker already drawn keeps its line, and a marker that a drag extends only
        gets its label rewritten, so a drag of ``n`` steps makes one line, not ``n (n + 1) / 2``
        as drawing all of them again at each step did."""
        merged = merge_changes(changes)
        if merged == self.shown:
            return
        keep = 0
        while keep < min(len(merged), len(self.shown)) and \
                (merged[keep]["t"], merged[keep]["name"]) == (self.shown[keep]["t"], self.shown[keep]["name"]):
            keep += 1
        for ln in self.lines[keep:]:
            self.plot.removeItem(ln)
        self.lines = self.lines[:keep]
        pen = pg.mkPen("#555555", width=1, style=QtCore.Qt.PenStyle.DotLine)
        for k, m in enumerate(merged):
            if k < keep:
                if m != self.shown[k]:
                    self._label(self.lines[k], m)
                continue
            # label at the top, right of the line, staggered down when changes follow each other
            ln = pg.InfiniteLine(pos=m["t"], angle=90, movable=False, pen=pen, label="",
                                 labelOpts={"position": 0.97 - 0.2 * (k % 3), "color": "#333333",
                                            "fill": (255, 255, 255, 190), "anchors": [(0, 0), (0, 0)]})
            font = ln.label.textItem.font()
            font.setPointSizeF(7.0)
            ln.label.setFont(font)
            self._label(ln, m)
            self.plot.addItem(ln, ignoreBounds=True)
            self.lines.append(ln)
        self.shown = merged

    @staticmethod
    def _label(ln: pg.InfiniteLine, m: dict[str, Any]) -> None:
        ln.label.setFormat(f"{m['name']} = {_fmt(m['new'])}")
        span = f"{m['t']:.3f} s" if m["count"] == 1 else f"{m['t']:.3f}-{m['t_last']:.3f} s ({m['count']} steps)"
        ln.setToolTip(f"t = {span}: {m['name']} {_fmt(m['old'])} → {_fmt(m['new'])}")


FILLED_LABEL = "no plate: filled"


def filled_bands(plot: pg.PlotItem, legend: pg.LegendItem,
                 spans: Sequence[tuple[float, float, str]]) -> list[pg.LinearRegionItem]:
    """Grey bands over ``(t_start, t_end, foot)`` [s]: force the loader filled because no
    plate measured that contact (legend entry :data:`FILLED_LABEL`); returns the bands."""
    brush = pg.mkBrush(110, 110, 110, 45)
    bands = []
    for a, b, foot in spans:
        band = pg.LinearRegionItem(values=(a, b), movable=False, brush=brush, pen=pg.mkPen(None))
        band.setToolTip(f"{'left' if foot == 'l' else 'right'} foot on no force plate: "
                        "its force is a copy of a measured contact (see the dataset warnings)")
        band.setZValue(-20)
        plot.addItem(band, ignoreBounds=True)
        bands.append(band)
    if spans:
        legend.addItem(pg.BarGraphItem(x=[0], height=[1], width=1, brush=brush, pen=None), FILLED_LABEL)
    return bands


def fall_line(plot: pg.PlotItem, t_fall: float) -> pg.InfiniteLine:
    """A dashed vertical line labelled "fell" at ``t_fall`` [s], added to ``plot``."""
    pen = pg.mkPen("#b35c00", width=2, style=QtCore.Qt.PenStyle.DashLine)
    line = pg.InfiniteLine(pos=t_fall, angle=90, movable=False, pen=pen, label="fell",
                           labelOpts={"position": 0.9, "color": "#b35c00"})
    plot.addItem(line, ignoreBounds=True)
    return line
