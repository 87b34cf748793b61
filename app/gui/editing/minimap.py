"""A minimap over a corner of the diagram canvas: the whole level drawn small, with the visible part.

The overlay (bottom right of the canvas's viewport, at most :data:`MAP_W` x :data:`MAP_H` px and
:data:`SHARE` of the viewport's width and height) draws
each node of the level shown as a rectangle and the part the canvas shows as a blue frame.
Clicking or dragging in it centres the canvas on that point. It is hidden while the whole
diagram is already visible. It is drawn again only when the scene changes (an edit, a move) or
the view scrolls or zooms, never on a simulation tick: it reads the item rectangles, not a
rendering of the scene, so a repaint costs a few dozen rectangles.

Map coordinates: with the diagram's bounding rectangle ``B`` (scene px, plus a margin) and
``s = min((w - 2m) / B.width, (h - 2m) / B.height)``, a scene point ``p`` is drawn at
``m + s (p - B.topLeft)`` and a map point ``q`` stands for ``B.topLeft + (q - m) / s``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui, QtWidgets

if TYPE_CHECKING:
    from app.gui.editing.canvas import DiagramCanvas

__all__ = ["MAP_H", "MAP_W", "Minimap"]

MAP_W, MAP_H = 200, 130   # largest size of the minimap [px]
MARGIN = 6                # inner margin of the map and its distance from the viewport's corner [px]
SHARE = 0.3               # the map takes at most this share of the viewport's width and height


class Minimap(QtWidgets.QWidget):
    """The minimap of one :class:`DiagramCanvas` (a child of the canvas, over its viewport)."""

    def __init__(self, canvas: DiagramCanvas) -> None:
        super().__init__(canvas)     # not the viewport's child: scrolling the viewport would move it
        self.canvas = canvas
        self.paints = 0                       # repaints so far (the tests count them)
        self._bounds = QtCore.QRectF()
        self._scale = 1.0
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Minimap: click or drag to move the view (F fits the whole diagram)")
        canvas.scene().changed.connect(lambda _rects: self.refresh())
        for bar in (canvas.horizontalScrollBar(), canvas.verticalScrollBar()):
            bar.valueChanged.connect(lambda _v: self.refresh())
        self.hide()

    def _nodes(self) -> list[QtCore.QRectF]:
        return [i.sceneBoundingRect() for i in self.canvas.items_by_name.values()]

    def visible_rect(self) -> QtCore.QRectF:
        """The part of the scene the canvas shows [scene px]."""
        return self.canvas.mapToScene(self.canvas.viewport().rect()).boundingRect()

    def refresh(self) -> None:
        """Place and size the map for the diagram shown, show it if part of the diagram is out of
        view (else hide it), and schedule a repaint."""
        nodes = self._nodes()
        if not nodes:
            self.hide()
            return
        bounds = nodes[0]
        for r in nodes[1:]:
            bounds = bounds.united(r)
        seen = self.visible_rect()
        if seen.contains(bounds):
            self.hide()
            return
        self._bounds = bounds.adjusted(-20, -20, 20, 20)
        vp = self.canvas.viewport().geometry()     # in the canvas's coordinates
        most_w, most_h = min(MAP_W, SHARE * vp.width()), min(MAP_H, SHARE * vp.height())
        self._scale = min((most_w - 2 * MARGIN) / self._bounds.width(), (most_h - 2 * MARGIN) / self._bounds.height())
        w = int(self._bounds.width() * self._scale) + 2 * MARGIN
        h = int(self._bounds.height() * self._scale) + 2 * MARGIN
        self.setGeometry(vp.right() - w - MARGIN, vp.bottom() - h - MARGIN, w, h)
        self.show()
        self.raise_()
        self.update()

    def to_map(self, r: QtCore.QRectF) -> QtCore.QRectF:
        """A scene rectangle in map px."""
        s, o = self._scale, self._bounds.topLeft()
        return QtCore.QRectF(MARGIN + s * (r.left() - o.x()), MARGIN + s * (r.top() - o.y()),
                             s * r.width(), s * r.height())

    def to_scene(self, q: QtCore.QPointF) -> QtCore.QPointF:
        """A map point in scene px."""
        o = self._bounds.topLeft()
        return QtCore.QPointF(o.x() + (q.x() - MARGIN) / self._scale, o.y() + (q.y() - MARGIN) / self._scale)

    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        self.paints += 1
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QtGui.QColor(255, 255, 255, 225))
        p.setPen(QtGui.QPen(QtGui.QColor("#999999"), 1))
        p.drawRect(self.rect().adjusted(0, 0, -1, -1))
        p.setBrush(QtGui.QColor("#c9d3df"))
        p.setPen(QtGui.QPen(QtGui.QColor("#6b7b8c"), 0.8))
        for r in self._nodes():
            p.drawRect(self.to_map(r))
        p.setBrush(QtGui.QColor(31, 119, 180, 40))
        p.setPen(QtGui.QPen(QtGui.QColor("#1f77b4"), 1.6))
        p.drawRect(self.to_map(self.visible_rect()).intersected(QtCore.QRectF(self.rect()).adjusted(1, 1, -1, -1)))
        p.end()

    def _pan(self, at: QtCore.QPointF) -> None:
        self.canvas.centerOn(self.to_scene(at))
        self.canvas.fitted = False

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        if event.button() == QtCore.Qt.MouseButton.LeftButton:
            self._pan(event.position())
        event.accept()

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:
        if event.buttons() & QtCore.Qt.MouseButton.LeftButton:
            self._pan(event.position())
        event.accept()
