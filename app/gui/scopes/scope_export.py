"""Exports of the scopes over the whole run (not only the visible window).

* PNG of the screen at a chosen width [px] (height in proportion), with pyqtgraph's
  ``ImageExporter``: the whole stack as drawn (cursors, statistics titles) after every scope was
  given the whole run and its x range fitted to it; the follow/window state is restored
  afterwards. Figures for print (PDF, SVG, 300-dpi PNG at 85 or 180 mm, no cursors or
  statistics) are :mod:`app.gui.scopes.scope_figure`'s.
* CSV: one row per recorded tick, ``time [s]`` then one column per trace of every scope, in the
  units shown (the header names scope, trace and unit, e.g. ``Vertical GRF: L [BW]``); an XY
  scope gives its x column first (``knee vs rate: q[gamma_l] (x) [deg]``), then its y traces.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pyqtgraph.exporters as pg_exporters

from app.gui.scopes.scopes import ScopeStack
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
    """The whole stack as drawn on screen, as a PNG ``width`` px wide, showing the whole run."""
    path = Path(path)
    if path.suffix.lower() != ".png":
        raise UserError(f"screen export: use a .png file name, not {path.name!r} (PDF and SVG: export a figure)")
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
        exporter = pg_exporters.ImageExporter(stack.ci)
        exporter.parameters()["width"] = int(width)
        exporter.parameters()["antialias"] = True
        exporter.export(str(path))
    finally:
        stack.follow = follow
    if not path.is_file():
        raise UserError(f"cannot write {path}")
    return path
