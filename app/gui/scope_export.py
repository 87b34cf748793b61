"""Exports of the scopes over the whole run (not only the visible window).

* PNG at a chosen width [px] (height in proportion), with pyqtgraph's ``ImageExporter``, and SVG,
  rendered by Qt's ``QSvgGenerator`` (vector paths and text). pyqtgraph's own ``SVGExporter``
  (0.14) fails on the path syntax of current Qt 6 (``ValueError`` in ``correctCoordinates``,
  pyqtgraph issue #3485). Both show the whole stack after every scope was given the whole run
  and its x range fitted to it; the follow/window state is restored afterwards.
* CSV: one row per recorded tick, ``time [s]`` then one column per trace of every scope, in the
  units shown (the header names scope, trace and unit, e.g. ``Vertical GRF: L [BW]``); an XY
  scope gives its x column first (``knee vs rate: q[gamma_l] (x) [deg]``), then its y traces.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pyqtgraph.exporters as pg_exporters
from PySide6 import QtCore, QtGui, QtSvg

from app.gui.scopes import ScopeStack
from models.errors import UserError

__all__ = ["DEFAULT_PNG_WIDTH", "csv_columns", "export_scopes_csv", "export_scopes_image"]

DEFAULT_PNG_WIDTH = 1600


def csv_columns(stack: ScopeStack) -> tuple[list[str], list[np.ndarray]]:
    """Headers and (n,) columns of the whole run, in display units."""
    s = stack.session
    if s is None:
        raise UserError("nothing to export: no session")
    t = s.recorded_time()
    heads, cols = ["time [s]"], [np.asarray(t)]
    for sc in stack.scopes:
        for head, col in sc.export_columns(s, t.size):
            heads.append(head)
            cols.append(col)
    return heads, cols


def export_scopes_csv(stack: ScopeStack, path: str | Path) -> Path:
    """Every trace of every scope over the whole run, units in the headers."""
    path = Path(path)
    heads, cols = csv_columns(stack)
    if cols[0].size == 0:
        raise UserError("nothing to export yet: run the simulation first")
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(heads)
        w.writerows(np.column_stack(cols).tolist())
    return path


def export_scopes_image(stack: ScopeStack, path: str | Path, width: int = DEFAULT_PNG_WIDTH) -> Path:
    """The whole stack as PNG (``width`` px wide) or SVG, by the file's suffix, showing the whole run."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise UserError(f"scope export: use a .png or .svg file name, not {path.name!r}")
    if not stack.scopes:
        raise UserError("nothing to export: no scopes")
    follow = stack.follow
    stack.follow = False
    try:
        stack.refresh(full=True, stats=True)
        stack.fit_x()
        for sc in stack.scopes:
            sc.plot.getViewBox().updateAutoRange()
        stack.scene().prepareForPaint()
        if suffix == ".png":
            exporter = pg_exporters.ImageExporter(stack.ci)
            exporter.parameters()["width"] = int(width)
            exporter.parameters()["antialias"] = True
            exporter.export(str(path))
        else:
            _write_svg(stack, path)
    finally:
        stack.follow = follow
    if not path.is_file():
        raise UserError(f"cannot write {path}")
    return path




def _write_svg(stack: ScopeStack, path: Path) -> None:
    """Render the stack's scene into an SVG file with ``QSvgGenerator`` (sizes in px)."""
    rect = stack.ci.sceneBoundingRect()
    gen = QtSvg.QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(QtCore.QSize(int(rect.width()), int(rect.height())))
    gen.setViewBox(QtCore.QRectF(0, 0, rect.width(), rect.height()))
    gen.setTitle("gaitblocks scopes")
    gen.setResolution(stack.logicalDpiX())   # as on screen: pyqtgraph sizes some items by device dpi
    painter = QtGui.QPainter(gen)
    try:
        painter.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        stack.scene().render(painter, QtCore.QRectF(0, 0, rect.width(), rect.height()), rect)
    finally:
        painter.end()
