"""Simulink-style diagram canvas (QGraphicsView/Scene).

A rectangle per block (name in bold, type in italics), labelled port stubs (inputs on the
left, outputs on the right) and orthogonally routed wires with arrowheads. Hovering a wire
shows its live signal value; clicking a block emits :attr:`DiagramCanvas.block_clicked`,
double-clicking :attr:`DiagramCanvas.block_activated`. Dragging a block writes its position
into the diagram's UI fields (``ui.blocks``), which are saved with the diagram.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.session import SimSession

__all__ = ["BlockItem", "DiagramCanvas", "WireItem", "format_value"]

BLOCK_W = 150.0
PORT_DY = 20.0
STUB = 10.0
TYPE_COLORS = {"GrfSource": "#e3f0fb", "ReferenceSource": "#e3f0fb", "PhaseDetector": "#fdf2dc",
               "NetTorqueEstimator": "#f1e6fa", "PID": "#e2f5e2", "TorqueSwitch": "#fdf2dc",
               "FiveLinkDynamics": "#fde2e2", "BipedKinematics": "#fde2e2"}


def format_value(v: np.ndarray, labels: tuple[str, ...] = ()) -> str:
    """``label = value`` lines (5 significant digits)."""
    if len(labels) != v.size:
        labels = tuple(str(i) for i in range(v.size))
    return "\n".join(f"{lab} = {float(x):.5g}" for lab, x in zip(labels, v))


class BlockItem(QtWidgets.QGraphicsRectItem):
    """A block: rectangle, name, type and port stubs; movable."""

    def __init__(self, canvas: DiagramCanvas, name: str, type_name: str, inputs: tuple[Any, ...],
                 outputs: tuple[Any, ...]) -> None:
        n = max(len(inputs), len(outputs), 1)
        h = 44.0 + PORT_DY * n
        super().__init__(0.0, 0.0, BLOCK_W, h)
        self.canvas, self.name, self.type_name = canvas, name, type_name
        self.inputs, self.outputs = [p.name for p in inputs], [p.name for p in outputs]
        self.setBrush(QtGui.QColor(TYPE_COLORS.get(type_name, "#f2f2f2")))
        self.setPen(QtGui.QPen(QtGui.QColor("#333333"), 1.6))
        self.setFlags(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsMovable
                      | QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
                      | QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges)
        self.setCursor(QtCore.Qt.CursorShape.OpenHandCursor)
        self.setToolTip(f"{name} ({type_name})\nclick: parameters, double-click: dialog, drag: move")
        title = QtWidgets.QGraphicsSimpleTextItem(name, self)
        f = QtGui.QFont()
        f.setPixelSize(15)
        f.setBold(True)
        title.setFont(f)
        title.setPos((BLOCK_W - title.boundingRect().width()) / 2, 4)
        typ = QtWidgets.QGraphicsSimpleTextItem(type_name, self)
        f2 = QtGui.QFont()
        f2.setPixelSize(11)
        f2.setItalic(True)
        typ.setFont(f2)
        typ.setBrush(QtGui.QColor("#555555"))
        typ.setPos((BLOCK_W - typ.boundingRect().width()) / 2, 22)
        pf = QtGui.QFont()
        pf.setPixelSize(11)
        for side, ports in ((0, self.inputs), (1, self.outputs)):
            for i, pname in enumerate(ports):
                y = self.port_y(i, len(ports))
                x0 = -STUB if side == 0 else BLOCK_W
                stub = QtWidgets.QGraphicsLineItem(x0, y, x0 + STUB, y, self)
                stub.setPen(QtGui.QPen(QtGui.QColor("#333333"), 2))
                lab = QtWidgets.QGraphicsSimpleTextItem(pname, self)
                lab.setFont(pf)
                w = lab.boundingRect().width()
                lab.setPos(4 if side == 0 else BLOCK_W - w - 4, y - 7)

    def port_y(self, i: int, n: int) -> float:
        top = 40.0
        return top + (self.rect().height() - top) * (i + 0.5) / max(n, 1)

    def port_pos(self, port: str, is_input: bool) -> QtCore.QPointF:
        ports = self.inputs if is_input else self.outputs
        i = ports.index(port)
        x = -STUB if is_input else BLOCK_W + STUB
        return self.mapToScene(QtCore.QPointF(x, self.port_y(i, len(ports))))

    def itemChange(self, change: QtWidgets.QGraphicsItem.GraphicsItemChange, value: Any) -> Any:
        if change == QtWidgets.QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            self.canvas.block_moved(self)
        return super().itemChange(change, value)

    def mousePressEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        super().mousePressEvent(event)
        self.canvas.block_clicked.emit(self.name)

    def mouseDoubleClickEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        super().mouseDoubleClickEvent(event)
        self.canvas.block_activated.emit(self.name)


class WireItem(QtWidgets.QGraphicsPathItem):
    """A connection ``src`` (block.output) -> ``dst`` (block.input), routed orthogonally."""

    def __init__(self, canvas: DiagramCanvas, src: str, dst: str, lane: int) -> None:
        super().__init__()
        self.canvas, self.src, self.dst, self.lane = canvas, src, dst, lane
        self.setPen(QtGui.QPen(QtGui.QColor("#3a3a3a"), 1.6))
        self.setAcceptHoverEvents(True)
        self.setZValue(-1)
        self.head = QtWidgets.QGraphicsPolygonItem(self)
        self.head.setBrush(QtGui.QColor("#3a3a3a"))
        self.head.setPen(QtGui.QPen(QtCore.Qt.PenStyle.NoPen))

    def route(self) -> None:
        sb, sp = self.src.split(".")
        db, dp = self.dst.split(".")
        a = self.canvas.items_by_name[sb].port_pos(sp, False)
        b = self.canvas.items_by_name[db].port_pos(dp, True)
        path = QtGui.QPainterPath(a)
        off = 6.0 * (self.lane % 5)
        if b.x() > a.x() + 20:
            mx = min(a.x() + 18 + off, b.x() - 8)
            path.lineTo(mx, a.y())
            path.lineTo(mx, b.y())
        else:  # feedback: leave right, run below both blocks, come in from the left
            sblock, dblock = self.canvas.items_by_name[sb], self.canvas.items_by_name[db]
            low = max(sblock.sceneBoundingRect().bottom(), dblock.sceneBoundingRect().bottom()) + 24 + off
            path.lineTo(a.x() + 14 + off, a.y())
            path.lineTo(a.x() + 14 + off, low)
            path.lineTo(b.x() - 14 - off, low)
            path.lineTo(b.x() - 14 - off, b.y())
        path.lineTo(b)
        self.setPath(path)
        self.head.setPolygon(QtGui.QPolygonF([b, QtCore.QPointF(b.x() - 9, b.y() - 4.5),
                                              QtCore.QPointF(b.x() - 9, b.y() + 4.5)]))

    def shape(self) -> QtGui.QPainterPath:
        stroker = QtGui.QPainterPathStroker()
        stroker.setWidth(8)
        return stroker.createStroke(self.path())

    def live_text(self) -> str:
        s = self.canvas.session
        if s is None:
            return ""
        try:
            value = s.latest(self.src)
        except KeyError:
            return f"{self.src} → {self.dst}"
        sb, sp = self.src.split(".")
        spec = next((p for p in s.block_ports(sb)[1] if p.name == sp), None)
        labels = tuple(spec.labels) if spec is not None else ()
        unit = f" [{spec.unit}]" if spec is not None and spec.unit else ""
        return f"{self.src} → {self.dst}{unit}  at t = {s.time:.3f} s\n" + format_value(value, labels)

    def hoverEnterEvent(self, event: QtWidgets.QGraphicsSceneHoverEvent) -> None:
        self.setToolTip(self.live_text())
        self.setPen(QtGui.QPen(QtGui.QColor("#d62728"), 2.4))
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: QtWidgets.QGraphicsSceneHoverEvent) -> None:
        self.setPen(QtGui.QPen(QtGui.QColor("#3a3a3a"), 1.6))
        super().hoverLeaveEvent(event)


class DiagramCanvas(QtWidgets.QGraphicsView):
    """The diagram of a :class:`SimSession`, drawn from its blocks, connections and UI fields."""

    block_clicked = QtCore.Signal(str)
    block_activated = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QtWidgets.QGraphicsScene(self))
        self.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        self.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing)
        self.setBackgroundBrush(QtGui.QColor("#fbfbfb"))
        self.setDragMode(QtWidgets.QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QtWidgets.QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.session: SimSession | None = None
        self.items_by_name: dict[str, BlockItem] = {}
        self.wires: list[WireItem] = []
        self._building = False

    def bind(self, s: SimSession) -> None:
        """Draw ``s.diagram``; blocks without a saved position get a column layout."""
        self._building = True
        self.session = s
        scene = self.scene()
        scene.clear()
        self.items_by_name, self.wires = {}, []
        pos = s.block_positions()
        below = max((y for _, y in pos.values()), default=-100.0) + 160.0
        unplaced = 0
        for name in s.diagram.blocks:
            ins, outs = s.block_ports(name)
            item = BlockItem(self, name, s.block_type(name), ins, outs)
            if name in pos:
                x, y = pos[name]
            else:  # no saved position: a row under the placed blocks
                x, y = 40.0 + 200.0 * (unplaced % 6), below + 170.0 * (unplaced // 6)
                unplaced += 1
            item.setPos(x, y)
            scene.addItem(item)
            self.items_by_name[name] = item
        for lane, (src, dst) in enumerate(s.diagram.connections):
            w = WireItem(self, src, dst, lane)
            scene.addItem(w)
            self.wires.append(w)
        self._building = False
        self.reroute()
        self.fit()

    def reroute(self) -> None:
        for w in self.wires:
            w.route()

    def fit(self) -> None:
        rect = self.scene().itemsBoundingRect().adjusted(-16, -16, 16, 16)
        self.setSceneRect(rect)
        self.fitInView(rect, QtCore.Qt.AspectRatioMode.KeepAspectRatio)

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.items_by_name:
            self.fit()

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:
        f = 1.15 if event.angleDelta().y() > 0 else 1 / 1.15
        self.scale(f, f)

    def block_moved(self, item: BlockItem) -> None:
        if self._building or self.session is None:
            return
        self.session.set_block_position(item.name, round(item.pos().x(), 1), round(item.pos().y(), 1))
        for w in self.wires:
            if w.src.startswith(item.name + ".") or w.dst.startswith(item.name + "."):
                w.route()

    def refresh_tooltips(self) -> None:
        """Refresh every wire's tooltip with its live value (called a few times a second)."""
        for w in self.wires:
            w.setToolTip(w.live_text())

    def wire(self, src: str, dst: str) -> WireItem:
        return next(w for w in self.wires if w.src == src and w.dst == dst)
