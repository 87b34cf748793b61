"""Copy, paste, duplicate and select-all on the diagram canvas (Ctrl+C, Ctrl+V, Ctrl+D, Ctrl+A).

Copy puts the selected blocks and subsystems of the level shown, with their parameters and the
wires between them, on the system clipboard as a fragment (:mod:`app.gui.editing.fragment`):
as :data:`MIME_FRAGMENT` and as plain text (the same JSON), so another window of the program (or
a text editor) can take it. Paste adds it to the level shown as one undoable step with fresh
names and shifted positions and selects what it added; Duplicate does both without touching the
clipboard. The keys work while the canvas (or a child) has the focus, so a text field keeps its
own Ctrl+C; the actions also sit in the Edit menu and the canvas's context menu.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.editing.canvas_items import BlockItem
from app.gui.editing.diagram_view import BLOCK, SUBSYSTEM
from app.gui.editing.fragment import cut_fragment, fragment_text, read_fragment

if TYPE_CHECKING:
    from app.gui.editing.canvas import DiagramCanvas

__all__ = ["MIME_FRAGMENT", "CanvasClipboard", "canvas_action", "release_clipboard"]

MIME_FRAGMENT = "application/x-gaitblocks-fragment+json"


def release_clipboard() -> None:
    """A copy of ours left on the clipboard becomes its plain text (the same JSON).

    Called when the application quits (and by the tests at their end): Qt deleting, at exit, the
    ``QMimeData`` this module made in Python crashes the process (PySide6 6.11, segmentation fault
    after the last window closed); the program's own MIME type cannot outlive it anyway."""
    app = QtWidgets.QApplication.instance()
    mime = QtWidgets.QApplication.clipboard().mimeData() if app is not None else None
    if mime is not None and mime.hasFormat(MIME_FRAGMENT):
        QtWidgets.QApplication.clipboard().setText(mime.text())


def canvas_action(canvas: QtWidgets.QWidget, text: str, key: Any, slot: Any) -> QtGui.QAction:
    """An action of ``canvas`` whose key works while the canvas or a child has the focus."""
    act = QtGui.QAction(text, canvas)
    act.setShortcut(QtGui.QKeySequence(key))
    act.setShortcutContext(QtCore.Qt.ShortcutContext.WidgetWithChildrenShortcut)
    act.triggered.connect(lambda _=False: slot())
    canvas.addAction(act)
    return act


class CanvasClipboard(QtCore.QObject):
    """The clipboard actions of one :class:`DiagramCanvas` (:attr:`actions`, in menu order)."""

    def __init__(self, canvas: DiagramCanvas) -> None:
        super().__init__(canvas)
        self.canvas = canvas
        keys = QtGui.QKeySequence.StandardKey
        self.actions = [canvas_action(canvas, text, key, slot) for text, key, slot in (
            ("&Copy", keys.Copy, self.copy),
            ("&Paste", keys.Paste, self.paste),
            ("D&uplicate", "Ctrl+D", self.duplicate),
            ("Select &all blocks", keys.SelectAll, self.select_all))]

    def selected_fragment(self) -> dict[str, Any] | None:
        """The fragment of the selected blocks and subsystems (``None``: nothing selected)."""
        c = self.canvas
        items = [i for i in c.scene().selectedItems() if isinstance(i, BlockItem) and i.node.kind in (BLOCK, SUBSYSTEM)]
        if not items:
            return None
        blocks = [i.name for i in items if i.node.kind == BLOCK]
        subs = [i.name for i in items if i.node.kind == SUBSYSTEM]
        at = {i.name: (round(i.pos().x(), 1), round(i.pos().y(), 1)) for i in items}
        return cut_fragment(c.editor.current(), blocks, subs, at)

    def copy(self) -> dict[str, Any] | None:
        """Put the selection on the clipboard; returns the fragment (``None``: nothing selected)."""
        frag = self.selected_fragment()
        if frag is None:
            self.canvas.editor.message.emit("Select the blocks to copy first")
            return None
        text = fragment_text(frag)
        mime = QtCore.QMimeData()
        mime.setData(MIME_FRAGMENT, QtCore.QByteArray(text.encode("utf-8")))
        mime.setText(text)
        QtWidgets.QApplication.clipboard().setMimeData(mime)
        app = QtCore.QCoreApplication.instance()
        if app is not None and not app.property("gaitblocks_release_clipboard"):
            app.setProperty("gaitblocks_release_clipboard", True)
            app.aboutToQuit.connect(release_clipboard)
        n = len(frag["blocks"])
        self.canvas.editor.message.emit(f"Copied {n} block{'s' * (n != 1)} and {len(frag['connections'])} wire(s)")
        return frag

    def paste(self) -> list[str]:
        """Paste the clipboard's fragment at the level shown and select it; returns the pasted nodes."""
        mime = QtWidgets.QApplication.clipboard().mimeData()
        if mime is None:
            return []
        if mime.hasFormat(MIME_FRAGMENT):
            text = bytes(mime.data(MIME_FRAGMENT).data()).decode("utf-8")
        else:
            text = mime.text()
        try:
            frag = read_fragment(text)
        except ValueError as exc:
            self.canvas.editor.message.emit(f"Nothing to paste: {exc}")
            return []
        return self._add(frag, "paste")

    def duplicate(self) -> list[str]:
        """Paste a copy of the selection beside it (the clipboard is left as it is)."""
        frag = self.selected_fragment()
        if frag is None:
            self.canvas.editor.message.emit("Select the blocks to duplicate first")
            return []
        return self._add(frag, "duplicate")

    def _add(self, frag: dict[str, Any], text: str) -> list[str]:
        names = self.canvas.editor.paste(frag, text)
        if names:
            self.select(names)
            if names[0] in self.canvas.items_by_name:     # a copy from elsewhere may land out of view
                self.canvas.ensureVisible(self.canvas.items_by_name[names[0]])
        return names

    def select(self, names: list[str]) -> None:
        """Select exactly the nodes ``names`` of the level shown."""
        c = self.canvas
        c.scene().clearSelection()
        for n in names:
            if n in c.items_by_name:
                c.items_by_name[n].setSelected(True)

    def select_all(self) -> None:
        """Select every block and subsystem of the level shown."""
        self.select([n for n, i in self.canvas.items_by_name.items() if i.node.kind in (BLOCK, SUBSYSTEM)])
