"""A scope's legend in its own column right of the plot, so it never covers the curves.

pyqtgraph's :meth:`PlotItem.addLegend` anchors the legend inside the view box, over the data
(issue 20: "legends overlap the curves"). :func:`side_legend` puts a one-column legend in the
plot item's grid layout instead, over rows 1-3 (top axis, view box, bottom axis), column 3 (right of the right
axis), with small labels; curves added to the plot afterwards with a ``name`` join it as before
(``plot.legend``). The title row spans the legend's column too, so a long statistics title
does not make the plot wider than its view (which cut the legend off at 1366 x 768).
"""

from __future__ import annotations

import pyqtgraph as pg

__all__ = ["LEGEND_WIDTH", "side_legend"]

LEGEND_WIDTH = 92   # px: a line sample and "R estimator" at 6.5 pt


def side_legend(plot: pg.PlotItem) -> pg.LegendItem:
    """A compact legend right of ``plot``'s view box (module doc); returns it."""
    # a given ``size`` stops the legend from setting its own geometry (the plot's layout does)
    legend = pg.LegendItem(size=(LEGEND_WIDTH, 10), labelTextSize="6.5pt", colCount=1, verSpacing=-12,
                           horSpacing=0, brush=None)
    legend.layout.setContentsMargins(0, 0, 0, 0)
    legend.setMinimumHeight(0)   # never makes the plot taller: entries beyond its height are clipped
    legend.setFlag(legend.GraphicsItemFlag.ItemClipsChildrenToShape)
    plot.layout.addItem(legend, 1, 3, 3, 1)   # beside the top axis, view box and bottom axis
    plot.layout.setColumnFixedWidth(3, LEGEND_WIDTH)
    plot.legend = legend
    plot.layout.removeItem(plot.titleLabel)           # the title (with the statistics) may use the
    plot.layout.addItem(plot.titleLabel, 0, 1, 1, 3)  # legend's column: it is not pushed wider
    return legend
