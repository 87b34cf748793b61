"""Measuring on the scopes: a second cursor with Δt and Δvalue, values on hover, y linked by unit,
and a sensible y axis for a flat or noise-only signal.

* **Δ cursors** (:class:`DeltaCursor`): cursor A is the scopes' red time cursor; cursor B is a
  second, purple dashed line on every time scope. B's label reads

      Δt = t_B - t_A [s],     Δy_i = y_i(t_B) - y_i(t_A)   (each trace i, display units),

  from the recorded samples at the ticks nearest to ``t_A`` and ``t_B`` (the same samples the
  cursors' read-outs show).
* **Hover** (:class:`HoverReadout`): the mouse over a time scope shows the value of the curve
  nearest to the pointer (within :data:`HOVER_PX` pixels, vertically) at the sample nearest to the
  pointer's time: ``label  t = … s  value unit``, and a dot on the curve. Overlaid runs count too.
* **Linked y** (:func:`link_y_by_unit`): time scopes of the same display unit share one y range
  (``setYLink`` to the first of them); zooming one zooms the others.
* **Least y span** (:func:`~app.gui.scopes.scope_units.min_span`): a scope's y range is never narrower than
  :data:`~app.gui.scopes.scope_units.MIN_SPAN` of its unit (pyqtgraph ``setLimits(minYRange=…)``, which
  auto-ranging obeys too), so an all-zero trace or one of ±5e-08 noise reads ``0`` in the middle
  of a small, round range instead of an axis of ``1e-08`` ticks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from app.gui.scopes.scope_units import pretty

if TYPE_CHECKING:
    from app.gui.scopes.scope_plot import Scope
    from app.gui.session.session import SimSession

__all__ = ["HOVER_PX", "DeltaCursor", "HoverReadout", "fmt_value", "link_y_by_unit"]

HOVER_PX = 12.0            # a curve this close to the pointer (vertically, px) is read out
B_COLOUR = "#7b3fa0"


def fmt_value(v: float, digits: int = 4) -> str:
    """``v`` with ``digits`` significant digits; ``0`` for an exact or negligible zero (below 1e-12)."""
    return "0" if abs(v) < 1e-12 else f"{v:.{digits}g}"


class DeltaCursor:
    """Cursor B of one time scope and its Δ read-out (module doc)."""

    def __init__(self, plot: pg.PlotItem) -> None:
        # holds the plot, not the Scope: a Scope <-> DeltaCursor cycle would leave a replaced scope to
        # the cyclic garbage collector, whose tear-down order breaks pyqtgraph's LabelItems
        self.line = pg.InfiniteLine(angle=90, movable=True,
                                    pen=pg.mkPen(B_COLOUR, width=1, style=QtCore.Qt.PenStyle.DashLine),
                                    label="", labelOpts={"position": 0.92, "color": B_COLOUR,
                                                         "fill": (255, 255, 255, 220), "anchors": [(0, 0), (0, 0)]})
        font = self.line.label.textItem.font()
        font.setPointSizeF(7.5)
        self.line.label.setFont(font)
        plot.addItem(self.line, ignoreBounds=True)
        self.line.setVisible(False)
        self.deltas: list[tuple[str, float]] = []     # (trace label, Δy) of every trace, last read-out

    def show(self, scope: Scope, s: SimSession, t_a: float, t_b: float, k_a: int, k_b: int) -> None:
        """Put B at ``t_b`` [s] and write Δt and each trace's Δy between ticks ``k_a`` and ``k_b``."""
        self.line.blockSignals(True)
        self.line.setValue(t_b)
        self.line.blockSignals(False)
        self.line.setVisible(True)
        self.deltas = []
        n = s.runner.recorder.length
        if 0 <= k_a < n and 0 <= k_b < n:
            for tr in scope.spec.traces:
                y = scope.trace_data(s, tr, min(k_a, k_b), max(k_a, k_b) + 1)
                dy = float(y[-1] - y[0]) if k_b >= k_a else float(y[0] - y[-1])
                self.deltas.append((tr.label, dy))
        unit = pretty(scope.unit)
        solid = {tr.label for tr in scope.spec.traces if not tr.dashed}    # references: tooltip only
        parts = [f"Δ{lab} {fmt_value(dy)}" for lab, dy in self.deltas if lab in solid]
        self.line.setToolTip("\n".join(f"Δ{lab} = {fmt_value(dy)} {unit}" for lab, dy in self.deltas))
        self.line.label.setText(f"Δt={t_b - t_a:.3f} s  " + "  ".join(parts) + (f" {unit}" if parts else ""))

    def hide(self) -> None:
        self.line.setVisible(False)


class HoverReadout:
    """The value under the mouse on the time scopes of a stack (module doc)."""

    def __init__(self) -> None:
        self.text = pg.TextItem("", color="#111111", anchor=(0, 1), fill=(255, 255, 224, 230))
        self.dot = pg.ScatterPlotItem(size=7, pen=pg.mkPen("#111111"), brush=None)
        self.text.setZValue(100)      # over the cursors' read-outs
        self.dot.setZValue(100)
        self.scope: Scope | None = None
        self.reading: tuple[str, float, float] | None = None    # (label, t [s], value) shown

    def _move_to(self, scope: Scope | None) -> None:
        if scope is self.scope:
            return
        if self.scope is not None:
            for it in (self.text, self.dot):
                if it.scene() is not None:
                    self.scope.plot.removeItem(it)
        self.scope = scope
        if scope is not None:
            for it in (self.text, self.dot):
                scope.plot.addItem(it, ignoreBounds=True)

    def clear(self) -> None:
        self._move_to(None)
        self.reading = None

    def at(self, scopes: list[Scope], scene_pos: QtCore.QPointF) -> tuple[str, float, float] | None:
        """Read the curve nearest to ``scene_pos`` (a scene point) on the time scope under it."""
        scope = next((sc for sc in scopes if not sc.is_xy and
                      sc.plot.getViewBox().sceneBoundingRect().contains(scene_pos)), None)
        if scope is None:
            self.clear()
            return None
        vb = scope.plot.getViewBox()
        p = vb.mapSceneToView(scene_pos)
        px_per_y = abs(vb.mapViewToScene(QtCore.QPointF(0, 1)).y() - vb.mapViewToScene(QtCore.QPointF(0, 0)).y())
        best: tuple[float, str, float, float] | None = None
        names = [(c, tr.label) for tr, c in zip(scope.spec.traces, scope.curves)]
        names += [(c, c.toolTip()) for c in scope.overlay.curves.values()]
        for curve, label in names:
            x, y = curve.xData, curve.yData
            if x is None or y is None or not x.size or not curve.isVisible():
                continue
            i = int(np.clip(np.searchsorted(x, p.x()), 1, x.size - 1)) if x.size > 1 else 0
            i = i - 1 if x.size > 1 and abs(x[i - 1] - p.x()) <= abs(x[i] - p.x()) else i
            if not np.isfinite(y[i]):
                continue
            d = abs(float(y[i]) - p.y()) * px_per_y
            if d <= HOVER_PX and (best is None or d < best[0]):
                best = (d, label, float(x[i]), float(y[i]))
        if best is None:
            self.clear()
            return None
        _, label, t, v = best
        self._move_to(scope)
        self.text.setText(f"{label}  t = {t:.3f} s  {fmt_value(v)} {pretty(scope.unit)}")
        self.text.setPos(t, v)
        self.dot.setData([t], [v])
        self.reading = (label, t, v)
        return self.reading


def link_y_by_unit(scopes: list[Scope], on: bool) -> None:
    """Link (``on``) the y axes of the time scopes of the same display unit to the first of them, and
    fit that range to all their curves; or unlink them (each auto-ranges again)."""
    groups: dict[str, list[Scope]] = {}
    for sc in scopes:
        if not sc.is_xy:
            groups.setdefault(sc.unit, []).append(sc)
    for group in groups.values():
        master = group[0]
        for sc in group:
            sc.plot.setYLink(master.plot if on and sc is not master else None)
            if not on:
                sc.plot.enableAutoRange(axis="y")
        if on and len(group) > 1:
            ys = [c.yData for sc in group for c in sc.curves if c.yData is not None and c.yData.size]
            finite = [y[np.isfinite(y)] for y in ys]
            finite = [y for y in finite if y.size]
            if finite:
                lo, hi = min(float(y.min()) for y in finite), max(float(y.max()) for y in finite)
                for sc in group:
                    sc.plot.enableAutoRange(axis="y", enable=False)
                master.plot.setYRange(lo, hi, padding=0.05)
