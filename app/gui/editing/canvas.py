"""Simulink-style diagram canvas and editor view (QGraphicsView/Scene).

Draws the editor's working diagram (:class:`~app.gui.editing.diagram_editor.DiagramEditor`): a
rectangle per block, labelled ports, orthogonal wires with signal names and junction dots.
Hovering a wire shows its live value; clicking a block emits :attr:`DiagramCanvas.block_clicked`,
double-clicking :attr:`DiagramCanvas.block_activated`.

Editing (each edit undoable, Ctrl+Z / Ctrl+Shift+Z):

* drop a block type from the palette (:mod:`app.gui.editing.palette`), or :meth:`add_at_centre`;
* drag blocks to move them (positions saved in ``ui.blocks``, scene px);
* drag from an output port onto an input port to wire them (a refused wire shows why);
* select blocks and/or wires (click, Ctrl+click, rubber band) and press Delete;
* group selected blocks into a virtual subsystem (Ctrl+G), double-click it to open it, return
  with the bar's *Back* button (or Esc), ungroup it (Ctrl+Shift+G), rename it (F2);
* auto-layout the level shown (Ctrl+Shift+L);
* copy, paste, duplicate and select all (Ctrl+C, Ctrl+V, Ctrl+D, Ctrl+A:
  :mod:`app.gui.editing.canvas_clipboard`), also in the context menu.

The diagram is fitted to the view when it is opened, a subsystem entered or the view resized,
and on F (*View > Fit diagram*); a minimap (:mod:`app.gui.editing.minimap`) in the bottom-right
corner shows the whole level while part of it is out of view.

Blocks a compile error names are outlined in red, with the message as tooltip. Wires show the
signal widths of the last compile (:attr:`DiagramCanvas.show_widths`: a label and a thicker line
for vectors), updated after every compile, never per tick.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.editing.auto_layout import GAP_X
from app.gui.editing.canvas_clipboard import CanvasClipboard, canvas_action
from app.gui.editing.canvas_items import BLOCK_W, BlockItem, PortItem, WireItem, format_value
from app.gui.editing.canvas_scene import Picture, build_scene, sync_scene
from app.gui.editing.diagram_editor import DiagramEditor
from app.gui.editing.diagram_view import BLOCK, INPORT, OUTPORT, SUBSYSTEM, Node, Wire, level_view, split_ref
from app.gui.editing.minimap import Minimap
from app.gui.editing.palette import MIME_BLOCK
from app.gui.editing.subsystem_bar import SubsystemBar
from app.gui.session.session import SimSession
from blocks.subsystems import find

__all__ = ["BlockItem", "DiagramCanvas", "WireItem", "format_value"]

SHOW_WIDTHS = True   # the View menu's "Signal widths", until a session file's view says otherwise


class DiagramCanvas(QtWidgets.QGraphicsView):
    """The diagram of a :class:`SimSession`, drawn from its editor's working diagram."""

    block_clicked = QtCore.Signal(str)
    block_activated = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setScene(QtWidgets.QGraphicsScene(self))
        self.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        self.setRenderHint(QtGui.QPainter.RenderHint.TextAntialiasing)
        self.setBackgroundBrush(QtGui.QColor("#fbfbfb"))
        self.setDragMode(QtWidgets.QGraphicsView.DragMode.RubberBandDrag)
        self.setTransformationAnchor(QtWidgets.QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setAcceptDrops(True)
        self.editor = DiagramEditor(self)
        self.editor.redraw.connect(self.redraw)
        self.editor.moved.connect(self._positions_changed)
        self.session: SimSession | None = None
        self.items_by_name: dict[str, BlockItem] = {}
        self.wires: list[WireItem] = []
        self._building = False
        self._drawn: Picture | None = None   # what the items show (:meth:`redraw`)
        self._wiring: tuple[PortItem, QtWidgets.QGraphicsLineItem] | None = None
        self._pressed_at: dict[str, tuple[float, float]] = {}
        self.show_widths = SHOW_WIDTHS
        self.fitted = False     # the view shows the last fit (a resize fits again); False once zoomed or panned
        self._crumb = SubsystemBar(self)
        self._crumb.back.connect(lambda: self.open_subsystem(None))
        self.clipboard = CanvasClipboard(self)       # copy, paste, duplicate, select all
        self.addAction(self._separator())
        self.edit_actions = [self._action(text, key, slot) for text, key, slot in (
            ("&Group selected blocks into a subsystem", "Ctrl+G", self.group_selected),
            ("&Ungroup subsystem", "Ctrl+Shift+G", self.ungroup_selected),
            ("&Rename subsystem…", "F2", lambda: self.rename_selected()),
            ("&Auto-layout diagram", "Ctrl+Shift+L", self.auto_layout))]
        self.addAction(self._separator())
        self.fit_action = canvas_action(self, "&Fit diagram", "F", self.fit)
        self.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.ActionsContextMenu)
        self.minimap = Minimap(self)

    # ----------------------------------------------------------- drawing
    def bind(self, s: SimSession) -> None:
        """Edit and draw ``s.diagram``; a new diagram is fitted to the view (an edit keeps the view)."""
        self.session = s
        fresh = self.editor.bind(s)
        self.redraw()
        if fresh:
            self.fit()

    def redraw(self) -> None:
        """Draw the level shown (the top, or the open subsystem: :mod:`app.gui.editing.diagram_view`);
        blocks without a saved position get a row under the others. Only what changed since the
        last picture is drawn again (:func:`~app.gui.editing.canvas_scene.sync_scene`)."""
        d = self.editor.diagram
        nodes, wires = level_view(d, self.editor.level)
        saved = d.ui.get("blocks", {})
        pos = {n: (float(saved[n]["x"]), float(saved[n]["y"])) for n, v in nodes.items()
               if v.kind == BLOCK and n in saved}
        for n, v in nodes.items():
            sub = find(d, n) if v.kind == SUBSYSTEM else None
            if sub is not None and "x" in sub:
                pos[n] = (float(sub["x"]), float(sub["y"]))
        picture = Picture(self.editor.level, nodes, wires, pos, self.editor.error,
                          {k: set(v) for k, v in self.editor.error_sites.items()},
                          self.session.model.widths if self.session is not None else {}, self.show_widths)
        old, self._drawn = self._drawn, picture
        # the same picture (a dataset or preset change, a file with this diagram): keep the items
        # (a redraw of the default diagram cost 16-41 ms of the GUI thread)
        if picture == old and self.items_by_name and all(
                (self.items_by_name[n].pos().x(), self.items_by_name[n].pos().y()) == xy for n, xy in pos.items()):
            self._crumb.show_level(self.editor.level)
            return
        self._building = True
        if old is not None and old.level == picture.level and self.items_by_name:
            sync_scene(self, old, picture)
        else:
            build_scene(self, picture)
        self._building = False
        self._crumb.show_level(self.editor.level)
        self.reroute()

    def set_show_widths(self, on: bool) -> None:
        """Show signal widths on the wires (a label and a thicker line for vectors), or not."""
        self.show_widths = bool(on)
        self.redraw()

    def _place_boundary(self, nodes: dict[str, Node], wires: list[Wire]) -> None:
        """Inside a subsystem: its inports left of its blocks, level with the first port each
        feeds, its outports right of them, level with their source; never overlapping."""
        inner = [i for n, i in self.items_by_name.items() if nodes[n].kind == BLOCK]
        if not inner:
            return
        box = inner[0].mapRectToScene(inner[0].rect())       # the boxes, not their pens (an error's is wider)
        for i in inner[1:]:
            box = box.united(i.mapRectToScene(i.rect()))
        for kind, x_of in ((INPORT, lambda it: box.left() - GAP_X - it.rect().width()),
                           (OUTPORT, lambda it: box.right() + GAP_X)):
            free = box.top()
            for name in (n for n, v in nodes.items() if v.kind == kind):
                item = self.items_by_name[name]
                ys = [self._port_scene_y(w.dst, True) if kind == INPORT else self._port_scene_y(w.src, False)
                      for w in wires
                      if (w.src if kind == INPORT else w.dst).startswith(name + ".")]
                y = max((ys[0] if ys else free) - item.port_y(0, 1), free)
                item.setPos(x_of(item), y)
                free = y + item.rect().height() + 16.0

    def _port_scene_y(self, ref: str, is_input: bool) -> float:
        node, port = split_ref(ref)
        return self.items_by_name[node].port_pos(port, is_input).y()

    def _separator(self) -> QtGui.QAction:
        sep = QtGui.QAction(self)
        sep.setSeparator(True)
        return sep

    def _action(self, text: str, key: str, slot: Any) -> QtGui.QAction:
        act = QtGui.QAction(text, self)
        act.setShortcut(QtGui.QKeySequence(key))
        act.triggered.connect(slot)
        self.addAction(act)
        return act

    def members(self, subsystem: str) -> list[str]:
        s = find(self.editor.diagram, subsystem)
        return list(s["blocks"]) if s else []

    def activate(self, item: BlockItem) -> None:
        """Double-click: open a subsystem, or ask for a block's dialog."""
        if item.node.kind == SUBSYSTEM:   # after the event: redrawing clears the scene, this item too
            QtCore.QTimer.singleShot(0, lambda name=item.name: self.open_subsystem(name))
        elif item.node.kind == BLOCK:
            self.block_activated.emit(item.name)

    def open_subsystem(self, name: str | None) -> None:
        """Show subsystem ``name``'s inside (``None``: the top level) and fit it to the view."""
        self.editor.open(name)
        self.fit()

    def reroute(self) -> None:
        for w in self.wires:
            w.route()

    def fit(self) -> None:
        """Fit the whole level shown in the view (with the subsystem bar's room above it)."""
        rect = self.scene().itemsBoundingRect().adjusted(-16, -16, 16, 16)
        if self.editor.level is not None:   # room for the subsystem bar
            rect.adjust(0, -48, 0, 0)
        self.setSceneRect(rect.adjusted(-400, -300, 400, 300))
        self.fitInView(rect, QtCore.Qt.AspectRatioMode.KeepAspectRatio)
        self.fitted = True
        self.minimap.refresh()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:
        """A resized view fits the diagram again, unless the user zoomed or panned since the last fit."""
        super().resizeEvent(event)
        if self.items_by_name and self.fitted:
            self.fit()
        self.minimap.refresh()

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:
        f = 1.15 if event.angleDelta().y() > 0 else 1 / 1.15
        self.scale(f, f)
        self.fitted = False
        self.minimap.refresh()

    def refresh_tooltips(self) -> None:
        """Refresh every wire's tooltip with its live value (called a few times a second)."""
        for w in self.wires:
            w.setToolTip(w.live_text())

    def wire(self, src: str, dst: str) -> WireItem:
        return next(w for w in self.wires if w.src == src and w.dst == dst)

    # ----------------------------------------------------------- editing
    def add_at_centre(self, type_name: str) -> str:
        """Add a block of ``type_name`` at the centre of the view; returns its name."""
        c = self.mapToScene(self.viewport().rect().center())
        return self.editor.add_block(type_name, round(c.x() - BLOCK_W / 2, 1), round(c.y() - 40.0, 1))

    def delete_selected(self) -> None:
        """Delete the selected blocks (with their wires) and wires."""
        items = self.scene().selectedItems()
        blocks = [i.name for i in items if isinstance(i, BlockItem) and i.node.kind == BLOCK]
        blocks += [b for i in items if isinstance(i, BlockItem) and i.node.kind == SUBSYSTEM
                   for b in self.members(i.name)]
        wires = [c for i in items if isinstance(i, WireItem) for c in i.conns]
        self.editor.delete(list(dict.fromkeys(blocks)), list(dict.fromkeys(wires)))

    def selected_blocks(self) -> list[str]:
        """The selected blocks (not subsystems), in diagram order."""
        names = {i.name for i in self.scene().selectedItems() if isinstance(i, BlockItem) and i.node.kind == BLOCK}
        return [n for n in self.editor.diagram.blocks if n in names]

    def group_selected(self) -> str | None:
        """Group the selected blocks into a new subsystem (undoable); returns its name."""
        return self.editor.group(self.selected_blocks())

    def ungroup_selected(self) -> None:
        """Ungroup the selected subsystems, or the open one (undoable)."""
        subs = [i.name for i in self.scene().selectedItems() if isinstance(i, BlockItem) and i.node.kind == SUBSYSTEM]
        if not subs and self.editor.level is not None:
            subs = [self.editor.level]
        if not subs:
            self.editor.message.emit("Select a subsystem to ungroup")
        for name in subs:
            self.editor.ungroup(name)

    def rename_selected(self, new: str | None = None) -> None:
        """Rename the selected (or the open) subsystem to ``new`` (``None``: ask in a dialog; undoable)."""
        subs = [i.name for i in self.scene().selectedItems() if isinstance(i, BlockItem) and i.node.kind == SUBSYSTEM]
        old = subs[0] if len(subs) == 1 else self.editor.level
        if old is None:
            self.editor.message.emit("Select one subsystem to rename")
            return
        if new is None:
            new, ok = QtWidgets.QInputDialog.getText(self, "Rename subsystem", "New name:", text=old)
            if not ok or not new or new == old:
                return
        self.editor.rename(old, new)

    def auto_layout(self) -> None:
        """Place the level shown left to right by signal flow (:mod:`app.gui.editing.auto_layout`; undoable)."""
        self.editor.auto_layout()

    def block_moved(self, item: BlockItem) -> None:
        if self._building:
            return
        if item.node.kind not in (BLOCK, SUBSYSTEM):
            return
        self.editor.set_position(item.name, round(item.pos().x(), 1), round(item.pos().y(), 1))
        for w in self.wires:
            if w.src.startswith(item.name + ".") or w.dst.startswith(item.name + "."):
                w.route()

    def _positions_changed(self) -> None:
        """An undone/redone move: place the items where the diagram says."""
        self.redraw()

    def _positions(self) -> dict[str, tuple[float, float]]:
        return {n: (round(i.pos().x(), 1), round(i.pos().y(), 1)) for n, i in self.items_by_name.items()
                if i.node.kind in (BLOCK, SUBSYSTEM)}

    def keyPressEvent(self, event: QtGui.QKeyEvent) -> None:
        if event.key() in (QtCore.Qt.Key.Key_Delete, QtCore.Qt.Key.Key_Backspace):
            self.delete_selected()
            return
        if event.key() == QtCore.Qt.Key.Key_Escape and self.editor.level is not None:
            self.open_subsystem(None)
            return
        super().keyPressEvent(event)

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        port = self._port_at(event.position().toPoint())
        if port is not None and not port.is_input and event.button() == QtCore.Qt.MouseButton.LeftButton:
            a = port.scenePos() + port.rect().center()
            line = QtWidgets.QGraphicsLineItem(QtCore.QLineF(a, a))
            line.setPen(QtGui.QPen(QtGui.QColor("#1f77b4"), 2, QtCore.Qt.PenStyle.DashLine))
            self.scene().addItem(line)
            self._wiring = (port, line)
            return
        self._pressed_at = self._positions()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:
        if self._wiring is not None:
            line = self._wiring[1]
            line.setLine(QtCore.QLineF(line.line().p1(), self.mapToScene(event.position().toPoint())))
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:
        if self._wiring is not None:
            src, line = self._wiring
            self._wiring = None
            self.scene().removeItem(line)
            dst = self._port_at(event.position().toPoint())
            signal = src.block.node.source_signal(src.name)
            if dst is not None and dst.is_input and dst.block.node.kind != BLOCK:
                self.editor.message.emit(f"Connection refused: {dst.ref} stands for wires inside the subsystem; "
                                         "open it (double-click) and wire the block there")
            elif dst is not None and dst.is_input and signal is not None:
                self.editor.wire(signal, dst.ref)
            elif dst is not None:
                self.editor.message.emit(f"Connection refused: {dst.ref} is an output; drop a wire on an input port")
            return
        super().mouseReleaseEvent(event)
        if self._pressed_at:
            now = self._positions()
            moved = [n for n in now if n in self._pressed_at and now[n] != self._pressed_at[n]]
            self.editor.move({n: self._pressed_at[n] for n in moved}, {n: now[n] for n in moved})
            self._pressed_at = {}

    def _port_at(self, p: QtCore.QPoint) -> PortItem | None:
        for item in self.items(QtCore.QRect(p.x() - 4, p.y() - 4, 9, 9)):
            if isinstance(item, PortItem):
                return item
        return None

    # ----------------------------------------------------------- palette drops
    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(MIME_BLOCK):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QtGui.QDragMoveEvent) -> None:
        if event.mimeData().hasFormat(MIME_BLOCK):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QtGui.QDropEvent) -> None:
        if not event.mimeData().hasFormat(MIME_BLOCK):
            event.ignore()
            return
        type_name = bytes(event.mimeData().data(MIME_BLOCK).data()).decode()
        p = self.mapToScene(event.position().toPoint())
        self.editor.add_block(type_name, round(p.x() - BLOCK_W / 2, 1), round(p.y() - 20.0, 1))
        event.acceptProposedAction()


