"""Light graphics items for the stick figure, moved every frame without pyqtgraph's data layer.

A ``pg.PlotDataItem.setData`` of a 2-3 point line cost about 0.4 ms of Python (bounds, display
dataset, curve path; a ``ScatterPlotItem`` marker about 0.5 ms), and the figure made 17 of them
per frame: 5-7 ms at 50 frames/s (``benchmarks/gui_fps.py --profile``). These are plain
``QGraphicsItem`` s placed in a pyqtgraph view box (data coordinates, metres):

* :class:`Polyline` - a ``QGraphicsPathItem`` from ``x, y`` arrays (``pairs``: separate segments);
  ``set_xy`` sets the points, ``getData`` returns them as a ``PlotDataItem``'s does;
* :class:`Dot` - a filled circle of a fixed size in pixels at a point (``setPos``), drawn
  untransformed by the view (the joints, the CoM marker).

Their pens come from ``pg.mkPen`` (cosmetic: widths in pixels).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

__all__ = ["Dot", "Polyline"]


class Polyline(QtWidgets.QGraphicsPathItem):
    """A polyline (or, with ``pairs``, segments ``(p0, p1), (p2, p3), ...``) in data coordinates."""

    def __init__(self, pen: QtGui.QPen, pairs: bool = False) -> None:
        super().__init__()
        self.setPen(pen)
        self.pairs = pairs
        self._x = np.zeros(0)
        self._y = np.zeros(0)

    def set_xy(self, x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> None:
        xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        if xs.shape == self._x.shape and np.array_equal(xs, self._x) and np.array_equal(ys, self._y):
            return   # nothing moved: no repaint of this item
        self._x, self._y = xs, ys
        path = QtGui.QPainterPath()
        pts = [QtCore.QPointF(a, b) for a, b in zip(xs.tolist(), ys.tolist())]
        if self.pairs:
            for p0, p1 in zip(pts[0::2], pts[1::2]):
                path.moveTo(p0)
                path.lineTo(p1)
        elif pts:
            path.addPolygon(QtGui.QPolygonF(pts))
        self.setPath(path)

    def with_data(self, x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> Polyline:
        self.set_xy(x, y)
        return self

    def getData(self) -> tuple[np.ndarray, np.ndarray]:  # as PlotDataItem
        return self._x, self._y


class Dot(QtWidgets.QGraphicsEllipseItem):
    """A circle ``size_px`` across at a point, the same size at every zoom."""

    def __init__(self, size_px: float, brush: QtGui.QBrush | QtGui.QColor | str,
                 pen: QtGui.QPen | None = None) -> None:
        r = 0.5 * size_px
        super().__init__(-r, -r, size_px, size_px)
        self.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        self.setBrush(QtGui.QBrush(QtGui.QColor(brush)) if isinstance(brush, str) else QtGui.QBrush(brush))
        self.setPen(pen if pen is not None else QtGui.QPen(QtCore.Qt.PenStyle.NoPen))

    def place(self, x: float, y: float) -> None:
        if self.pos().x() != x or self.pos().y() != y:
            self.setPos(x, y)
