"""Graphics items of the diagram canvas: blocks with ports, wires with signal names and widths, junction dots.

Sizes are scene pixels; at zoom 1 the port labels (:data:`PORT_FONT_PX`) are drawn that many px high,
at the canvas's zoom ``z`` (a fit of the whole diagram, or the wheel) ``z`` times as high.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.editing.diagram_view import (
    BLOCK,
    BLOCK_W,
    INPORT,
    OUTPORT,
    PORT_DY,
    SUBSYSTEM,
    TITLE_H,
    Node,
    node_size,
    split_ref,
)

if TYPE_CHECKING:
    from app.gui.editing.canvas import DiagramCanvas

__all__ = ["BLOCK_W", "PORT_DY", "BlockItem", "PortItem", "WireItem", "format_value", "junction_dot"]

STUB = 10.0
TITLE_FONT_PX = 16
PORT_FONT_PX = 13
WIRE_FONT_PX = 12
ERROR_COLOR = "#d62728"
TYPE_COLORS = {"GrfSource": "#e3f0fb", "ReferenceSource": "#e3f0fb", "PhaseDetector": "#fdf2dc",
               "NetTorqueEstimator": "#f1e6fa", "PID": "#e2f5e2", "TorqueSwitch": "#fdf2dc",
               "FiveLinkDynamics": "#fde2e2", "BipedKinematics": "#fde2e2", "SegmentTrig": "#fde2e2",
               SUBSYSTEM: "#dde6f3", INPORT: "#ffffff", OUTPORT: "#ffffff"}
Flag = QtWidgets.QGraphicsItem.GraphicsItemFlag


def format_value(v: np.ndarray, labels: tuple[str, ...] = ()) -> str:
    """``label = value`` lines (5 significant digits)."""
    if len(labels) != v.size:
        labels = tuple(str(i) for i in range(v.size))
    return "\n".join(f"{lab} = {float(x):.5g}" for lab, x in zip(labels, v))


def _font(px: int, bold: bool = False, italic: bool = False) -> QtGui.QFont:
    f = QtGui.QFont()
    f.setPixelSize(px)
    f.setBold(bold)
    f.setItalic(italic)
    return f


class PortItem(QtWidgets.QGraphicsEllipseItem):
    """A port's grab handle: drag from an output onto an input to wire them."""

    def __init__(self, block: BlockItem, name: str, is_input: bool, x: float, y: float) -> None:
        super().__init__(x - 5, y - 5, 10, 10, block)
        self.block, self.name, self.is_input = block, name, is_input
        self.setBrush(QtGui.QColor("#ffffff"))
        self.setPen(QtGui.QPen(QtGui.QColor("#333333"), 1.4))
        self.setAcceptHoverEvents(True)
        self.setCursor(QtCore.Qt.CursorShape.CrossCursor)
        self.setToolTip(f"{self.ref} ({'input' if is_input else 'output: drag onto an input to wire'})")

    @property
    def ref(self) -> str:
        return f"{self.block.name}.{self.name}"

    def hoverEnterEvent(self, event: QtWidgets.QGraphicsSceneHoverEvent) -> None:
        self.setBrush(QtGui.QColor("#1f77b4"))
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: QtWidgets.QGraphicsSceneHoverEvent) -> None:
        self.setBrush(QtGui.QColor("#ffffff"))
        super().hoverLeaveEvent(event)


class BlockItem(QtWidgets.QGraphicsRectItem):
    """A node of the level shown (:class:`~app.gui.editing.diagram_view.Node`): a block, a collapsed
    subsystem (double-click opens it) or a subsystem's inport/outport; labelled ports (inputs
    left, outputs right). Blocks and subsystems are movable; inports and outports are placed."""

    def __init__(self, canvas: DiagramCanvas, node: Node) -> None:
        w, h = node_size(node)
        super().__init__(0.0, 0.0, w, h)
        self.canvas, self.node, self.name, self.type_name = canvas, node, node.name, node.type_name
        self.inputs, self.outputs = list(node.inputs), list(node.outputs)
        self.ports: dict[tuple[str, bool], PortItem] = {}
        self.port_labels: dict[tuple[str, bool], QtWidgets.QGraphicsSimpleTextItem] = {}
        self.setBrush(QtGui.QColor(TYPE_COLORS.get(node.type_name, "#f2f2f2")))
        movable = node.kind in (BLOCK, SUBSYSTEM)
        flags = Flag.ItemIsSelectable | Flag.ItemSendsGeometryChanges
        self.setFlags(flags | Flag.ItemIsMovable if movable else flags)
        self.setCursor(QtCore.Qt.CursorShape.OpenHandCursor if movable else QtCore.Qt.CursorShape.ArrowCursor)
        title = QtWidgets.QGraphicsSimpleTextItem(node.title, self)
        title.setFont(_font(TITLE_FONT_PX, bold=True))
        title.setPos((w - title.boundingRect().width()) / 2, 3)
        kind = {SUBSYSTEM: "Subsystem (double-click: open)", INPORT: "from outside",
                OUTPORT: "to outside"}.get(node.kind, node.type_name)
        typ = QtWidgets.QGraphicsSimpleTextItem(kind, self)
        typ.setFont(_font(PORT_FONT_PX - 1, italic=True))
        typ.setBrush(QtGui.QColor("#555555"))
        typ.setPos((w - typ.boundingRect().width()) / 2, 22)
        if node.kind == SUBSYSTEM:
            self.setPen(QtGui.QPen(QtGui.QColor("#333333"), 2.4))
        for is_input, ports in ((True, self.inputs), (False, self.outputs)):
            for i, pname in enumerate(ports):
                y = self.port_y(i, len(ports))
                x0 = -STUB if is_input else w
                stub = QtWidgets.QGraphicsLineItem(x0, y, x0 + STUB, y, self)
                stub.setPen(QtGui.QPen(QtGui.QColor("#333333"), 2))
                self.ports[(pname, is_input)] = PortItem(self, pname, is_input, x0 if is_input else x0 + STUB, y)
                lab = QtWidgets.QGraphicsSimpleTextItem(pname if node.kind in (BLOCK, SUBSYSTEM) else "", self)
                lab.setFont(_font(PORT_FONT_PX))
                lw = lab.boundingRect().width()
                lab.setPos(4 if is_input else w - lw - 4, y - PORT_FONT_PX / 2 - 1)
                self.port_labels[(pname, is_input)] = lab
        self.set_error(None, set())

    def port_y(self, i: int, n: int) -> float:
        top = TITLE_H - 4.0
        return top + (self.rect().height() - top) * (i + 0.5) / max(n, 1)

    def port_pos(self, port: str, is_input: bool) -> QtCore.QPointF:
        ports = self.inputs if is_input else self.outputs
        i = ports.index(port)
        x = -STUB if is_input else self.rect().width() + STUB
        return self.mapToScene(QtCore.QPointF(x, self.port_y(i, len(ports))))

    def set_error(self, message: str | None, ports: set[str]) -> None:
        """Outline the block in red with ``message`` as tooltip (``None``: clear); ``ports`` in red."""
        self.error, self.error_ports = message, set(ports)
        normal = 2.4 if self.node.kind == SUBSYSTEM else 1.6
        self.setPen(QtGui.QPen(QtGui.QColor(ERROR_COLOR if message else "#333333"), 4.0 if message else normal))
        for (pname, _), lab in self.port_labels.items():
            lab.setBrush(QtGui.QColor(ERROR_COLOR if pname in ports else "#111111"))
        tip = {SUBSYSTEM: f"subsystem {self.name}: {', '.join(self.canvas.members(self.name))}\n"
                          "double-click: open, drag: move, Delete: remove with its blocks, Ctrl+Shift+G: ungroup",
               INPORT: f"{self.node.signal}: a signal from outside the subsystem",
               OUTPORT: f"{self.node.signal}: read outside the subsystem"}.get(
            self.node.kind, f"{self.name} ({self.type_name})\nclick: parameters, double-click: dialog, drag: move, "
                            "Delete: remove")
        self.setToolTip(f"⚠ {message}\n\n{tip}" if message else tip)

    def itemChange(self, change: QtWidgets.QGraphicsItem.GraphicsItemChange, value: Any) -> Any:
        if change == QtWidgets.QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged:
            self.canvas.block_moved(self)
        return super().itemChange(change, value)

    def mousePressEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        super().mousePressEvent(event)
        if self.node.kind == BLOCK:
            self.canvas.block_clicked.emit(self.name)

    def mouseDoubleClickEvent(self, event: QtWidgets.QGraphicsSceneMouseEvent) -> None:
        super().mouseDoubleClickEvent(event)
        self.canvas.activate(self)


def junction_dot(parent: QtWidgets.QGraphicsItem, at: QtCore.QPointF) -> QtWidgets.QGraphicsEllipseItem:
    """A filled dot where a signal branches (fan-out)."""
    dot = QtWidgets.QGraphicsEllipseItem(at.x() - 4, at.y() - 4, 8, 8, parent)
    dot.setBrush(QtGui.QColor("#3a3a3a"))
    dot.setPen(QtGui.QPen(QtCore.Qt.PenStyle.NoPen))
    return dot


class WireItem(QtWidgets.QGraphicsPathItem):
    """A connection ``src`` (block.output) -> ``dst`` (block.input), routed orthogonally.

    Wires from one output share its lane (``lane``) and trunk, so a fan-out branches at one
    point, marked by a junction dot (``fanout`` > 1). The signal name (``label``, default
    ``src``) is shown above the wire's first segment (once per signal: ``lane_first``), and in
    red while the wire is hovered.

    ``width`` is the signal's width from the last compile (0: unknown). A vector (width > 1) is drawn
    thicker, with its width in grey after the signal's name (Simulink's "signal dimensions"; on the
    ``first`` wire of each source only), while the canvas's :attr:`~DiagramCanvas.show_widths` is on."""

    def __init__(self, canvas: DiagramCanvas, src: str, dst: str, lane: int, fanout: int = 1,
                 label: str = "", conns: list[tuple[str, str]] | None = None, lane_first: bool = True,
                 width: int = 0, first: bool = True) -> None:
        super().__init__()
        self.canvas, self.src, self.dst, self.lane, self.fanout = canvas, src, dst, lane, fanout
        self.width, self.first = width, first
        self.signal = label or src
        self.conns = conns if conns is not None else [(src, dst)]   # the diagram connections drawn
        self.setAcceptHoverEvents(True)
        self.setFlag(Flag.ItemIsSelectable)
        self.setZValue(-1)
        self.head = QtWidgets.QGraphicsPolygonItem(self)
        self.head.setBrush(QtGui.QColor("#3a3a3a"))
        self.head.setPen(QtGui.QPen(QtCore.Qt.PenStyle.NoPen))
        self.label = QtWidgets.QGraphicsSimpleTextItem(label or src, self)
        self.label.setFont(_font(WIRE_FONT_PX, bold=True))
        self.label.setBrush(QtGui.QColor("#1f4e79"))
        self.label.setZValue(5)
        self.named = lane_first   # the first wire of a signal always shows its name; the others on hover
        self.dims = QtWidgets.QGraphicsSimpleTextItem("", self)
        self.dims.setFont(_font(WIRE_FONT_PX, bold=True))
        self.dims.setBrush(QtGui.QColor("#7a7a7a"))
        self.dims.setZValue(5)
        self.dot = junction_dot(self, QtCore.QPointF())
        self.set_width(width)

    def vector(self) -> bool:
        """Whether the wire is drawn as a vector: wider than 1, and widths shown."""
        return self.width > 1 and self.canvas.show_widths

    def set_width(self, width: int) -> None:
        """Show the signal's ``width`` (after a compile, or when :attr:`DiagramCanvas.show_widths` changes)."""
        self.width = width
        self.dims.setText(str(width))
        self._style(False)

    def _style(self, hot: bool) -> None:
        color = "#d62728" if hot else ("#1f77b4" if self.isSelected() else "#3a3a3a")
        thick = 1.4 if self.vector() else 0.0
        self.setPen(QtGui.QPen(QtGui.QColor(color), (2.6 if hot or self.isSelected() else 1.6) + thick))
        self.label.setBrush(QtGui.QColor("#d62728" if hot else "#1f4e79"))
        self.label.setVisible(self.named or hot or self.isSelected())
        # after the name; where no name is shown (a subsystem's port names it) in its place, unless hovered
        self.dims.setVisible(self.vector() and self.first and (self.named or not self.label.isVisible()))

    def route(self) -> None:
        sb, sp = split_ref(self.src)
        db, dp = split_ref(self.dst)
        a = self.canvas.items_by_name[sb].port_pos(sp, False)
        b = self.canvas.items_by_name[db].port_pos(dp, True)
        path = QtGui.QPainterPath(a)
        off = 7.0 * (self.lane % 5)
        trunk = a.x() + 14 + off
        if b.x() > trunk + 8:
            path.lineTo(trunk, a.y())
            path.lineTo(trunk, b.y())
        else:  # feedback: leave right, run below both blocks, come in from the left
            sblock, dblock = self.canvas.items_by_name[sb], self.canvas.items_by_name[db]
            low = max(sblock.sceneBoundingRect().bottom(), dblock.sceneBoundingRect().bottom()) + 24 + off
            path.lineTo(trunk, a.y())
            path.lineTo(trunk, low)
            path.lineTo(b.x() - 14 - off, low)
            path.lineTo(b.x() - 14 - off, b.y())
        path.lineTo(b)
        self.setPath(path)
        self.head.setPolygon(QtGui.QPolygonF([b, QtCore.QPointF(b.x() - 9, b.y() - 4.5),
                                              QtCore.QPointF(b.x() - 9, b.y() + 4.5)]))
        self.label.setPos(a.x() + 2, a.y() - WIRE_FONT_PX - 4)
        self.dims.setPos(a.x() + 2 + (self.label.boundingRect().width() + 5 if self.named else 0),
                         a.y() - WIRE_FONT_PX - 4)
        self.dot.setRect(trunk - 4, a.y() - 4, 8, 8)
        self.dot.setVisible(self.fanout > 1)

    def paint(self, painter: QtGui.QPainter, option: QtWidgets.QStyleOptionGraphicsItem,
              widget: QtWidgets.QWidget | None = None) -> None:
        """The path only: selection shows as a blue wire, not Qt's dashed bounding box."""
        opt = QtWidgets.QStyleOptionGraphicsItem(option)
        opt.state &= ~QtWidgets.QStyle.StateFlag.State_Selected
        super().paint(painter, opt, widget)

    def shape(self) -> QtGui.QPainterPath:
        stroker = QtGui.QPainterPathStroker()
        stroker.setWidth(8)
        return stroker.createStroke(self.path())

    def live_text(self) -> str:
        s = self.canvas.session
        src, dst = self.signal, ", ".join(b for _, b in self.conns)
        head = f"{src} → {dst}   (click to select, Delete to remove)"
        if s is None:
            return head
        try:
            value = s.latest(src)
            sb, sp = src.split(".")
            spec = next((p for p in s.block_ports(sb)[1] if p.name == sp), None)
        except KeyError:  # an edit the session does not run yet
            return head
        labels = tuple(spec.labels) if spec is not None else ()
        unit = f" [{spec.unit}]" if spec is not None and spec.unit else ""
        return f"{src} → {dst}{unit}  at t = {s.time:.3f} s\n" + format_value(value, labels)

    def itemChange(self, change: QtWidgets.QGraphicsItem.GraphicsItemChange, value: Any) -> Any:
        if change == QtWidgets.QGraphicsItem.GraphicsItemChange.ItemSelectedHasChanged:
            self._style(False)
        return super().itemChange(change, value)

    def hoverEnterEvent(self, event: QtWidgets.QGraphicsSceneHoverEvent) -> None:
        self.setToolTip(self.live_text())
        self._style(True)
        super().hoverEnterEvent(event)

    def hoverLeaveEvent(self, event: QtWidgets.QGraphicsSceneHoverEvent) -> None:
        self._style(False)
        super().hoverLeaveEvent(event)
