"""The Compare view's plots and the choice of its table's columns.

:class:`CyclePlots`: trunk angle, knee angles and vertical GRF against % of the gait cycle, one
colour per condition (:data:`~app.gui.scopes.scope_specs.PALETTE`, a qualitative palette). Each condition
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

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.scopes.scope_specs import PALETTE

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
        self._shape: list[tuple[Any, ...]] = []

    def draw(self, results: Sequence[Any]) -> None:
        """Draw each result's mean cycle, its ±SD band and the recording (module doc), at once."""
        for _ in self.drawing(results):
            pass

    def drawing(self, results: Sequence[Any]) -> Iterator[str]:
        """:meth:`draw` in steps: yields each plot's key once it is drawn (the Compare view draws one
        plot per event-loop turn). Results of the same shape as the last ones (names, curves, bands)
        get new data in the same items: making the items anew took about 0.2 s."""
        shown = [r for r in results if "pct" in r.cycle]
        shape = [_shape(r) for r in shown]
        same = bool(shape) and shape == self._shape
        if not same:
            keys = list(self.plot_items)
            self.means, self.bands, self.recorded = ({k: [] for k in keys} for _ in range(3))
            self._shape = shape
        for _, key, _, rec_key in PLOTS:
            if not same:
                self.plot_items[key].clear()
            for i, r in enumerate(shown):
                if key not in r.cycle:
                    continue
                if same:
                    self._update(i, r, key, rec_key)
                else:
                    self._draw_one(key, r.cycle, PALETTE[i % len(PALETTE)], str(r.name), rec_key)
            yield key
        names = []
        for i, r in enumerate(shown):
            n = int(np.asarray(r.cycle.get("n_cycles", [0]))[0])
            names.append(f"<span style='color:{PALETTE[i % len(PALETTE)]}; font-weight:bold'>&#9644;</span>&nbsp;"
                         f"{r.name} <span style='color:#666'>({n} cycles)</span>")
        notes = ["shaded: mean ± 1 SD over cycles"]
        if any(self.recorded.values()):
            notes.append("dashed: the recording")
        self.legend.setText("&nbsp;&nbsp; ".join(names) + ("&nbsp;&nbsp; · &nbsp;" if names else "")
                            + f"<span style='color:#555'>{' · '.join(notes)}</span>")

    def _update(self, i: int, r: Any, key: str, rec_key: str | None) -> None:
        """New data for condition ``i``'s items on plot ``key`` (the same shape, :func:`_shape`)."""
        cyc = r.cycle
        x, y, sd = _xy_sd(cyc, key)
        self.means[key][i].setData(x, y)
        if sd is not None:
            lo, hi = self.bands[key][i].curves
            lo.blockSignals(True)          # the band's path is made once, on the second curve's change
            lo.setData(x, y - sd)
            lo.blockSignals(False)
            hi.setData(x, y + sd)
        if rec_key is not None and rec_key in cyc:
            self.recorded[key][i].setData(x, np.asarray(cyc[rec_key], dtype=float))

    def _draw_one(self, key: str, cyc: dict[str, Any], colour: str, name: str, rec_key: str | None) -> None:
        plot = self.plot_items[key]
        x, y, sd = _xy_sd(cyc, key)
        if sd is not None:
            band = pg.FillBetweenItem(pg.PlotCurveItem(x, y - sd), pg.PlotCurveItem(x, y + sd),
                                      brush=_band_brush(colour))
            band.setZValue(-10)
            plot.addItem(band)
            self.bands[key].append(band)
        self.means[key].append(plot.plot(x, y, pen=pg.mkPen(colour, width=2), name=name))
        if rec_key is not None and rec_key in cyc:
            self.recorded[key].append(plot.plot(x, np.asarray(cyc[rec_key], dtype=float),
                                                pen=pg.mkPen(colour, width=1.2, style=QtCore.Qt.PenStyle.DashLine)))


def _xy_sd(cyc: dict[str, Any], key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``pct``, the mean of ``key`` and its SD (None when not given or all NaN; NaN read as 0)."""
    sd = cyc.get(f"{key}_sd")
    has_sd = sd is not None and bool(np.any(np.isfinite(sd)))
    return (np.asarray(cyc["pct"], dtype=float), np.asarray(cyc[key], dtype=float),
            np.nan_to_num(np.asarray(sd, dtype=float)) if has_sd else None)


def _shape(r: Any) -> tuple[Any, ...]:
    """What the items of result ``r`` are: its name, and per plot whether a curve, a band and a recording."""
    cyc = r.cycle
    return (str(r.name), *((key in cyc, key in cyc and _xy_sd(cyc, key)[2] is not None,
                            rec is not None and rec in cyc) for _, key, _, rec in PLOTS))
