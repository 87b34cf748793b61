"""The diagram pane: the block library palette beside the diagram canvas.

Double-clicking a palette entry (or Enter in its search box) adds the block at the centre of
the view; dragging an entry onto the canvas adds it where it is dropped.
"""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from app.gui.editing.canvas import DiagramCanvas
from app.gui.editing.palette import BlockPalette

__all__ = ["DiagramPane"]


class DiagramPane(QtWidgets.QSplitter):
    """``[palette | canvas]``; the palette starts narrow (px) and can be collapsed."""

    PALETTE_W = 190

    def __init__(self, canvas: DiagramCanvas, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(QtCore.Qt.Orientation.Horizontal, parent)
        self.canvas = canvas
        self.library = BlockPalette()
        self.addWidget(self.library)
        self.addWidget(canvas)
        self.setStretchFactor(1, 1)
        self.setSizes([self.PALETTE_W, 1000])
        self.library.activated.connect(canvas.add_at_centre)
