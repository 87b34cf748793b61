"""The Compare view's plots and the choice of its table's columns.

:class:`CyclePlots`: trunk angle, knee angles and vertical GRF against % of the gait cycle, one
colour per condition (:data:`~app.gui.scope_specs.PALETTE`, a qualitative palette). Each condition
draws its mean over complete cycles, ``m(p) = (1/N) sum_i y_i(p)``, and a shaded band
``m(p) +/- s(p)`` with ``s`` the standard deviation over those ``N`` cycles
(:func:`app.comparison.cycle_curves`: ``name_sd``), plus the recording's mean dashed where the
run kept it (trunk and left knee). The legend is a line of text of its own above the plots, so it
never covers a curve; it names each condition in its colour with its ``N`` and says what the band
and the dashes are.

:func:`key_columns`: of the metrics table (:func:`app.comparison.metrics_table`: condition,
status, five metrics each as simulation, recording and difference, cadence, residuals: 19
columns) the ones shown by default: every column but the recordings' and the differences'.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.scope_specs import PALETTE

__all__ = ["PLOTS", "SD_ALPHA", "CyclePlots", "key_columns", "wrapped_header"]

#: (title, cycle key, unit, recording's cycle key or None)
PLOTS = (("Trunk angle α", "trunk_deg", "deg", "rec_trunk_deg"),
         ("Knee flexion γ (left)", "knee_l_deg", "deg", "rec_knee_l_deg"),
         ("Knee flexion γ (right)", "knee_r_deg", "deg", None),
         ("Vertical GRF (left)", "grf_ly_bw", "BW", None))
SD_ALPHA = 70          # opacity of the ±SD band (of 255)
_HIDDEN = (" recording", " sim - recording")   # header endings of the columns behind the toggle


def key_columns(header: Sequence[str]) -> list[bool]:
    """For each column of the metrics table's ``header``, whether it is shown by default (module doc)."""
    return [not str(h).endswith(_HIDDEN) for h in header]


def wrapped_header(text: str) -> str:
    """A header on two lines: the metric, then its unit and label (``trunk min\\n[deg] (solved)``)."""
    head, sep, tail = str(text).partition(" [")
    return f"{head}\n[{tail}" if sep else str(text)


def _band_brush(colour: str) -> QtGui.QBrush:
    c = QtGui.QColor(colour)
    c.setAlpha(SD_ALPHA)
    return pg.mkBrush(c)


class CyclePlots(QtWidgets.QWidget):
    """The four % gait-cycle plots under a one-line legend (module doc); ``legend`` is a rich-text
    label above the plots, ``plot_items[key]`` the plots, ``means``/``bands``/``recorded`` their
    items per plot in condition order."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        self.legend = QtWidgets.QLabel("")
        self.legend.setWordWrap(True)
        self.legend.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.view = pg.GraphicsLayoutWidget()
        self.view.setBackground("w")
        lay.addWidget(self.legend)
        lay.addWidget(self.view, 1)
        self.plot_items: dict[str, pg.PlotItem] = {}
        for i, (title, key, unit, _) in enumerate(PLOTS):
            p = self.view.addPlot(row=i // 2, col=i % 2)
            p.setTitle(f"<b>{title}</b> [{unit}]", size="9pt")
            p.setLabel("bottom", "gait cycle [%]" if i >= 2 else "")   # once, under the lower row
            p.setLabel("left", unit)
            p.showGrid(x=True, y=True, alpha=0.2)
            self.plot_items[key] = p
        self.means: dict[str, list[pg.PlotDataItem]] = {}
        self.bands: dict[str, list[pg.FillBetweenItem]] = {}
        self.recorded: dict[str, list[pg.PlotDataItem]] = {}

    def draw(self, results: Sequence[Any]) -> None:
        """Draw each result's mean cycle, its ±SD band and the recording (module doc)."""
        for p in self.plot_items.values():
            p.clear()
        keys = list(self.plot_items)
        self.means, self.bands, self.recorded = ({k: [] for k in keys} for _ in range(3))
        names = []
        for i, r in enumerate(results):
            cyc = r.cycle
            if "pct" not in cyc:
                continue
            colour = PALETTE[i % len(PALETTE)]
            x = np.asarray(cyc["pct"], dtype=float)
            for _, key, _, rec_key in PLOTS:
                if key in cyc:
                    self._draw_one(key, x, cyc, colour, str(r.name), rec_key)
            n = int(np.asarray(cyc.get("n_cycles", [0]))[0])
            names.append(f"<span style='color:{colour}; font-weight:bold'>&#9644;</span>&nbsp;{r.name} "
                         f"<span style='color:#666'>({n} cycles)</span>")
        notes = ["shaded: mean ± 1 SD over cycles"]
        if any(self.recorded.values()):
            notes.append("dashed: the recording")
        self.legend.setText("&nbsp;&nbsp; ".join(names) + ("&nbsp;&nbsp; · &nbsp;" if names else "")
                            + f"<span style='color:#555'>{' · '.join(notes)}</span>")

    def _draw_one(self, key: str, x: np.ndarray, cyc: dict[str, Any], colour: str, name: str,
                  rec_key: str | None) -> None:
        plot, y = self.plot_items[key], np.asarray(cyc[key], dtype=float)
        sd = cyc.get(f"{key}_sd")
        if sd is not None and np.any(np.isfinite(sd)):
            sd = np.nan_to_num(np.asarray(sd, dtype=float))
            band = pg.FillBetweenItem(pg.PlotCurveItem(x, y - sd), pg.PlotCurveItem(x, y + sd),
                                      brush=_band_brush(colour))
            band.setZValue(-10)
            plot.addItem(band)
            self.bands[key].append(band)
        self.means[key].append(plot.plot(x, y, pen=pg.mkPen(colour, width=2), name=name))
        if rec_key is not None and rec_key in cyc:
            self.recorded[key].append(plot.plot(x, np.asarray(cyc[rec_key], dtype=float),
                                                pen=pg.mkPen(colour, width=1.2, style=QtCore.Qt.PenStyle.DashLine)))
