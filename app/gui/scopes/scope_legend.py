"""A scope's legend in its own column right of the plot, so it never covers the curves.

pyqtgraph's :meth:`PlotItem.addLegend` anchors the legend inside the view box, over the data
(issue 20: "legends overlap the curves"). :func:`side_legend` puts a one-column legend in the
plot item's grid layout instead, over rows 1-3 (top axis, view box, bottom axis), column 3 (right of the right
axis), with small labels; curves added to the plot afterwards with a ``name`` join it as before
(``plot.legend``). The title row spans the legend's column too, and the title is a
:class:`TitleLabel`, which never asks for more width than it gets: a title with its statistics
wider than the plot is cut at its right end. (pyqtgraph's label asks for its whole text: the CoP
scope's 590 px made every scope of the stack that wide, and at 1366 x 768, 538 px of viewport,
the legends were cut to "L re", "L es".)
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

__all__ = ["LEGEND_WIDTH", "TitleLabel", "side_legend"]

LEGEND_WIDTH = 92   # px: a line sample and "R estimator" at 6.5 pt


class TitleLabel(pg.LabelItem):
    """A plot title that may be narrower than its text: no minimum width; a text wider than the
    label starts at its left edge and is clipped at its right one (else centred, as pyqtgraph's)."""

    def __init__(self, parent: pg.PlotItem) -> None:
        super().__init__("", size="11pt", parent=parent)
        self.setFlag(self.GraphicsItemFlag.ItemClipsChildrenToShape)

    def updateMin(self) -> None:
        super().updateMin()
        self.setMinimumWidth(0)
        self._sizeHint[QtCore.Qt.SizeHint.MinimumSize] = (0, self.itemRect().height())
        self.updateGeometry()

    def resizeEvent(self, ev: object) -> None:
        super().resizeEvent(ev)
        if self.itemRect().width() > self.rect().width():
            self.item.setPos(0, self.item.pos().y())


def side_legend(plot: pg.PlotItem) -> pg.LegendItem:
    """A compact legend right of ``plot``'s view box (module doc); returns it."""
    # a given ``size`` stops the legend from setting its own geometry (the plot's layout does)
    legend = pg.LegendItem(size=(LEGEND_WIDTH, 10), labelTextSize="6.5pt", colCount=1, verSpacing=-12,
                           horSpacing=0, brush=None)
    legend.layout.setContentsMargins(0, 0, 0, 0)
    legend.setMinimumHeight(0)   # never makes the plot taller: entries beyond its height are clipped
    legend.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred,   # nor asks for height: an entry more
                         QtWidgets.QSizePolicy.Policy.Ignored)     # would lay out (and repaint) every scope
    legend.setFlag(legend.GraphicsItemFlag.ItemClipsChildrenToShape)
    plot.layout.addItem(legend, 1, 3, 3, 1)   # beside the top axis, view box and bottom axis
    plot.layout.setColumnFixedWidth(3, LEGEND_WIDTH)
    plot.legend = legend
    old = plot.titleLabel                             # the title (with the statistics) may use the
    plot.layout.removeItem(old)                       # legend's column, and is cut rather than widen
    if old.scene() is not None:                       # the plot (TitleLabel)
        old.scene().removeItem(old)
    plot.titleLabel = TitleLabel(plot)
    plot.titleLabel.setVisible(old.isVisible())
    plot.layout.addItem(plot.titleLabel, 0, 1, 1, 3)
    return legend
