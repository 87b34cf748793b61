"""Block library palette: every registered block type (``blocks.core.BLOCK_TYPES``), grouped by
library module, with a search box. Drag a type onto the diagram canvas, or double-click it to
add it at the centre of the view (:attr:`BlockPalette.activated`)."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from blocks.core import BLOCK_TYPES, load_libraries

__all__ = ["MIME_BLOCK", "BlockPalette", "block_library"]

MIME_BLOCK = "application/x-gaitblocks-block-type"


def block_library() -> dict[str, list[tuple[str, str]]]:
    """``{group: [(type name, first docstring line), ...]}``; the group is the library module."""
    load_libraries()  # every registered library's block types

    groups: dict[str, list[tuple[str, str]]] = {}
    for name, cls in sorted(BLOCK_TYPES.items()):
        group = cls.__module__.rsplit(".", 1)[-1]
        doc = (cls.__doc__ or "").strip().splitlines()
        groups.setdefault(group, []).append((name, doc[0] if doc else ""))
    return dict(sorted(groups.items()))


class _Tree(QtWidgets.QTreeWidget):
    """The tree; a drag carries the block type name as :data:`MIME_BLOCK`."""

    def mimeData(self, items: list[QtWidgets.QTreeWidgetItem]) -> QtCore.QMimeData:  # type: ignore[override]
        data = QtCore.QMimeData()
        types = [it.data(0, QtCore.Qt.ItemDataRole.UserRole) for it in items]
        if types and types[0]:
            data.setData(MIME_BLOCK, QtCore.QByteArray(str(types[0]).encode()))
        return data

    def mimeTypes(self) -> list[str]:
        return [MIME_BLOCK]


class BlockPalette(QtWidgets.QWidget):
    """Search box over a tree of block types."""

    activated = QtCore.Signal(str)  # a block type was double-clicked (or Enter)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QtWidgets.QLineEdit()
        self.search.setPlaceholderText("Search blocks…")
        self.search.setClearButtonEnabled(True)
        self.tree = _Tree()
        self.tree.setHeaderHidden(True)
        self.tree.setIndentation(12)
        self.tree.setDragEnabled(True)
        self.tree.setDragDropMode(QtWidgets.QAbstractItemView.DragDropMode.DragOnly)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.search)
        lay.addWidget(self.tree, 1)
        self._groups: list[tuple[QtWidgets.QTreeWidgetItem, list[QtWidgets.QTreeWidgetItem]]] = []
        for group, types in block_library().items():
            top = QtWidgets.QTreeWidgetItem([group])
            children: list[QtWidgets.QTreeWidgetItem] = []
            top.setFlags(QtCore.Qt.ItemFlag.ItemIsEnabled)
            for name, doc in types:
                it = QtWidgets.QTreeWidgetItem([name])
                it.setData(0, QtCore.Qt.ItemDataRole.UserRole, name)
                it.setToolTip(0, f"{name}: {doc}\ndrag onto the diagram, or double-click to add")
                top.addChild(it)
                children.append(it)
            self.tree.addTopLevelItem(top)
            self._groups.append((top, children))
        self.tree.expandAll()
        self.search.textChanged.connect(self.filter)
        self.search.returnPressed.connect(self._first)
        self.tree.itemActivated.connect(self._activate)

    def visible_types(self) -> list[str]:
        """Block types the search leaves shown, in tree order."""
        return [it.text(0) for _, children in self._groups for it in children if not it.isHidden()]

    def filter(self, text: str) -> None:
        """Show the types whose name, group or description contains ``text`` (case-insensitive)."""
        t = text.strip().lower()
        for top, children in self._groups:
            shown = 0
            for it in children:
                hit = not t or t in it.text(0).lower() or t in top.text(0).lower() or t in it.toolTip(0).lower()
                it.setHidden(not hit)
                shown += hit
            top.setHidden(shown == 0)

    def _first(self) -> None:
        shown = self.visible_types()
        if shown:
            self.activated.emit(shown[0])

    def _activate(self, item: QtWidgets.QTreeWidgetItem, _col: int = 0) -> None:
        name = item.data(0, QtCore.Qt.ItemDataRole.UserRole)
        if name:
            self.activated.emit(str(name))
