"""Choosing what the scopes show: a searchable signal browser and each plot's context menu.

:class:`SignalBrowser` lists every logged signal as a tree (``block.port`` -> its columns, with
unit and description), filtered as you type (every word must appear in the signal, column or
unit, case-insensitive), and adds the chosen column to a scope or to a new one. **XY plots**:
select a column and press *Use as X*; the target list then offers *a new XY plot against* it,
and *Add* plots the selected column (y) against that x (e.g. a phase portrait: ``q[gamma_l]``
against ``qd[gamma_l]``); adding to an existing XY plot adds another y. The plot's
right-click menu (:func:`extend_menu`) opens it and removes a signal or the whole scope.

**Drag and drop**: drag a column from the tree onto a plot to add it there, or below the last plot
for a new scope (:mod:`app.gui.scopes.scope_drop`). **Units** are the scopes' display units
(:func:`~app.gui.scopes.scope_units.column_display`: ``deg``, ``N·m``, and ``BW`` in the body-weight
mode), so the browser and the plots agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from app.gui.scopes.scope_drop import SIGNAL_MIME, encode_ref
from app.gui.scopes.scope_units import column_display

if TYPE_CHECKING:
    from app.gui.scopes.scopes import ScopeStack

__all__ = ["SignalBrowser", "extend_menu"]

NEW_SCOPE = "a new scope"
NEW_XY = "a new XY plot against {}"
_ROLE = QtCore.Qt.ItemDataRole.UserRole


class SignalTree(QtWidgets.QTreeWidget):
    """The browser's tree: a column (a child row) can be dragged onto a plot (:data:`SIGNAL_MIME`)."""

    def __init__(self) -> None:
        super().__init__()
        self.setDragEnabled(True)
        self.setDragDropMode(QtWidgets.QAbstractItemView.DragDropMode.DragOnly)

    def mimeTypes(self) -> list[str]:
        return [SIGNAL_MIME]

    def mimeData(self, items: object) -> QtCore.QMimeData:
        """The first dragged column as ``block.port<TAB>column`` (a signal's row carries none)."""
        data = QtCore.QMimeData()
        for item in items:   # type: ignore[attr-defined]
            ref = item.data(0, _ROLE)
            if ref is not None:
                data.setData(SIGNAL_MIME, encode_ref(str(ref[0]), int(ref[1])))
                data.setText(item.text(0))
                break
        return data


class SignalBrowser(QtWidgets.QDialog):
    """Search the logged signals and add one column to scope ``target`` (-1: a new scope)."""

    def __init__(self, stack: ScopeStack, target: int = -1, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.stack = stack
        self.setWindowTitle("Add a signal to the scopes")
        self.resize(440, 520)
        lay = QtWidgets.QVBoxLayout(self)
        self.search = QtWidgets.QLineEdit()
        self.search.setPlaceholderText("search: block, port, column or unit (e.g. 'knee r', 'N*m')")
        self.search.setClearButtonEnabled(True)
        self.tree = SignalTree()
        self.tree.setHeaderLabels(["signal / column", "unit"])
        self.tree.setColumnWidth(0, 300)
        self.scope = QtWidgets.QComboBox()
        self.scope.addItems([sc.spec.title for sc in stack.scopes] + [NEW_SCOPE])
        self.scope.setCurrentIndex(target if 0 <= target < len(stack.scopes) else len(stack.scopes))
        form = QtWidgets.QFormLayout()
        form.addRow("add to", self.scope)
        self.count = QtWidgets.QLabel()
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        self.add_button = buttons.addButton("Add", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        self.x_button = buttons.addButton("Use as X", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        self.x_button.setToolTip("the selected column becomes the x axis of a new XY plot (choose it under 'add to')")
        self.x_ref: tuple[str, int] | None = None
        lay.addWidget(self.search)
        lay.addWidget(self.tree, 1)
        lay.addWidget(self.count)
        lay.addLayout(form)
        lay.addWidget(buttons)
        self._fill()
        self.search.textChanged.connect(self.set_filter)
        self.add_button.clicked.connect(self.add_selected)
        self.x_button.clicked.connect(lambda: self.set_x(self.selected()))
        self.tree.itemDoubleClicked.connect(lambda *_: self.add_selected())
        buttons.rejected.connect(self.reject)
        self.search.setFocus()

    def _fill(self) -> None:
        s = self.stack.session
        assert s is not None
        self._rows: list[tuple[QtWidgets.QTreeWidgetItem, list[QtWidgets.QTreeWidgetItem]]] = []
        mode, mass = self.stack.units, float(s.biped_params().total_mass)
        for name in s.signal_names():
            labels = s.labels(name)
            units = [column_display(s.unit(name), labels, c, mode, mass)[0] for c in range(len(labels))]
            top = QtWidgets.QTreeWidgetItem([name, ", ".join(dict.fromkeys(units))])
            children = []
            for col, lab in enumerate(labels):
                child = QtWidgets.QTreeWidgetItem([f"{name}[{lab}]", units[col]])
                child.setData(0, _ROLE, (name, col))
                top.addChild(child)
                children.append(child)
            self.tree.addTopLevelItem(top)
            self._rows.append((top, children))
        self.set_filter("")

    def visible_columns(self) -> list[tuple[str, int]]:
        """``(signal, column)`` of every column the filter leaves visible."""
        return [ch.data(0, _ROLE) for _, children in self._rows for ch in children if not ch.isHidden()]

    def set_filter(self, text: str) -> None:
        """Show the columns whose ``signal[column] unit`` text holds every word of ``text``."""
        words = text.lower().replace("*", "·").split()     # "N*m" finds the N·m shown
        shown = total = 0
        for top, children in self._rows:
            n = 0
            for ch in children:
                ok = all(w in f"{ch.text(0)} {ch.text(1)}".lower() for w in words)
                ch.setHidden(not ok)
                n += int(ok)
            top.setHidden(n == 0)
            top.setExpanded(bool(words) and n > 0)
            shown, total = shown + n, total + len(children)
        self.count.setText(f"{shown} of {total} columns")
        if self.search.text() != text:
            self.search.setText(text)

    def selected(self) -> tuple[str, int] | None:
        """The selected column (or, with one match, the only one)."""
        item = self.tree.currentItem()
        ref = item.data(0, _ROLE) if item is not None and not item.isHidden() else None
        if ref is None:
            vis = self.visible_columns()
            ref = vis[0] if len(vis) == 1 else None
        return None if ref is None else (str(ref[0]), int(ref[1]))

    def set_x(self, ref: tuple[str, int] | None) -> None:
        """Make column ``ref`` the x of a new XY plot and choose that plot as the target."""
        if ref is None:
            return
        self.x_ref = ref
        self._targets(len(self.stack.scopes) + 1)

    def _targets(self, index: int) -> None:
        s = self.stack.session
        titles = [sc.spec.title for sc in self.stack.scopes] + [NEW_SCOPE]
        if self.x_ref is not None and s is not None:
            titles.append(NEW_XY.format(f"{self.x_ref[0]}[{s.labels(self.x_ref[0])[self.x_ref[1]]}]"))
        self.scope.clear()
        self.scope.addItems(titles)
        self.scope.setCurrentIndex(min(index, len(titles) - 1))

    def add_selected(self) -> tuple[str, int] | None:
        """Add the selected column (or, with one match, the only one) to the chosen scope, or
        plot it against the X column (*Use as X*) in a new XY plot."""
        ref = self.selected()
        if ref is None:
            return None
        idx, n = self.scope.currentIndex(), len(self.stack.scopes)
        if idx == n + 1 and self.x_ref is not None:
            self.stack.add_xy(self.x_ref, ref)
            idx = len(self.stack.scopes) - 1      # more y traces go to that plot
        else:
            self.stack.add_signal(idx if idx < n else -1, ref[0], ref[1])
        self._targets(idx)
        return ref


def extend_menu(stack: ScopeStack, plot: pg.PlotItem, index: int) -> None:
    """Add "Add signal…", "Remove signal" and "Remove this scope" to plot ``index``'s menu."""
    menu = plot.getViewBox().menu
    # pyqtgraph makes the menu without a parent; its actions' slots below hold the stack, so an orphan
    # menu would keep the stack (and its session) alive after the window closed: it goes with the stack
    menu.setParent(stack, menu.windowFlags())
    menu.addSeparator()
    menu.addAction("Add signal…").triggered.connect(lambda: open_browser(stack, index))
    rm = menu.addMenu("Remove signal")

    def fill() -> None:
        rm.clear()
        if index >= len(stack.scopes):
            return
        for i, tr in enumerate(stack.scopes[index].spec.traces):
            rm.addAction(tr.label).triggered.connect(lambda _=False, i=i: stack.remove_trace(index, i))

    rm.aboutToShow.connect(fill)
    menu.addAction("Remove this scope").triggered.connect(lambda: stack.remove_scope(index))


def open_browser(stack: ScopeStack, index: int = -1) -> SignalBrowser:
    dlg = SignalBrowser(stack, index, stack)
    dlg.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
    dlg.show()
    stack.browser = dlg
    return dlg
