"""Window geometry that fits the screen it opens on, and a label that elides instead of being cut.

:func:`fit_geometry` gives the window its preferred size (``PREFERRED``, 1600 x 1000 px) when
the screen's available geometry (``QScreen.availableGeometry()``: the desktop minus panels
and docks) holds it with its frame, and otherwise the largest size that does, centred in it.
:class:`ElidedLabel` shows a one-line text elided at the right with "…" when it is wider than
the label, the full text in its tooltip.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

__all__ = ["ElidedLabel", "PREFERRED", "fit_geometry"]

PREFERRED = QtCore.QSize(1600, 1000)


def fit_geometry(window: QtWidgets.QWidget, available: QtCore.QRect | None = None,
                 preferred: QtCore.QSize = PREFERRED) -> QtCore.QRect:
    """Resize and move ``window`` so that its frame lies inside ``available`` (default: the
    available geometry of the screen the window is on). Returns the new frame rectangle."""
    if available is None:
        screen = window.screen() or QtGui.QGuiApplication.primaryScreen()
        available = screen.availableGeometry()
    frame = window.frameGeometry().size() - window.geometry().size()   # decorations (0 before shown)
    w = max(1, min(preferred.width(), available.width() - frame.width()))
    h = max(1, min(preferred.height(), available.height() - frame.height()))
    window.resize(w, h)
    x = available.x() + (available.width() - w - frame.width()) // 2
    y = available.y() + (available.height() - h - frame.height()) // 2
    window.move(x, y)
    return window.frameGeometry()


class ElidedLabel(QtWidgets.QLabel):
    """A one-line label that elides its text to its width ("…"), with the full text as tooltip."""

    def __init__(self, text: str = "", parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self._full = ""
        self.setText(text)

    def full_text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:  # Qt's name
        self._full = text
        self._elide()

    def resizeEvent(self, event: QtGui.QResizeEvent) -> None:  # Qt's name
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = self.contentsRect().width()
        shown = self.fontMetrics().elidedText(self._full, QtCore.Qt.TextElideMode.ElideRight, max(width, 0))
        if shown != self.text():
            super().setText(shown)
        tip = self._full if shown != self._full else ""
        if tip != self.toolTip():      # setToolTip cost 0.6 ms a call (the figure header, every frame)
            self.setToolTip(tip)
