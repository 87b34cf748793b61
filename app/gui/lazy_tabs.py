"""Tab pages made the first time they are shown or asked for.

The window's Compare, Tuning and Solved gait tabs are views a user may never open, and making them
took about a fifth of the window's opening (50, 18 and 70 ms of thread CPU, against 700 ms for the whole
window, measured by ``benchmarks/gui_open.py``). :class:`LazyTabs` puts an empty placeholder in the tab
widget and swaps the page in, at the same index and with the same label, when that tab becomes the
current one or when code asks for the page (:meth:`LazyTabs.page`, which the window's ``compare``,
``tuning`` and ``solve.view`` go through): once made, the page *is* the tab's widget, so
``tabs.setCurrentWidget(page)`` and ``tabs.indexOf(page)`` work as for any page.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtWidgets

__all__ = ["LazyTabs"]


class LazyTabs(QtCore.QObject):
    """Pages of ``tabs`` made on first show or first request (module doc)."""

    def __init__(self, tabs: QtWidgets.QTabWidget) -> None:
        super().__init__(tabs)
        self.tabs = tabs
        self._pending: dict[str, tuple[QtWidgets.QWidget, Callable[[], QtWidgets.QWidget]]] = {}
        self._made: dict[str, QtWidgets.QWidget] = {}
        self._swapping = False
        tabs.currentChanged.connect(self._current_changed)

    def add(self, label: str, make: Callable[[], QtWidgets.QWidget]) -> None:
        """A tab ``label`` at the end, whose page ``make()`` returns when it is first needed."""
        placeholder = QtWidgets.QWidget()
        self.tabs.addTab(placeholder, label)
        self._pending[label] = (placeholder, make)

    def made(self, label: str) -> bool:
        """Whether the page of tab ``label`` exists yet."""
        return label in self._made

    def page(self, label: str) -> QtWidgets.QWidget:
        """The page of tab ``label``, made now if it was not."""
        if label in self._made:
            return self._made[label]
        placeholder, make = self._pending.pop(label)
        page = self._made[label] = make()
        i = self.tabs.indexOf(placeholder)
        was_current = self.tabs.currentIndex() == i
        self._swapping = True        # removing the current tab makes a neighbour current for a moment
        try:
            self.tabs.insertTab(i, page, label)
            self.tabs.removeTab(i + 1)
            if was_current:
                self.tabs.setCurrentIndex(i)
        finally:
            self._swapping = False
        placeholder.deleteLater()
        return page

    def _current_changed(self, index: int) -> None:
        if self._swapping:
            return
        shown = self.tabs.widget(index)
        for label, (placeholder, _make) in list(self._pending.items()):
            if placeholder is shown:
                self.page(label)
                return
