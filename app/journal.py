"""Journal figure sizes and text, one source for every figure the project writes (no Qt).

Widths of one and two journal columns [mm], the smallest text [pt], the PNG resolution [dpi] and
the matplotlib settings that keep text as text in SVG (``svg.fonttype = none``) and embed TrueType
in PDF (``pdf.fonttype = 42``). Used by the footwear report (:mod:`app.footwear_report.figures`)
and the GUI's scope figures (:mod:`app.gui.scopes.scope_figure`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["FONT_PT", "JOURNAL_WIDTHS_MM", "MM", "PNG_DPI", "RC", "TITLE_PT"]

MM = 1 / 25.4                        # inch per mm
JOURNAL_WIDTHS_MM = (85.0, 180.0)    # one column, two columns
FONT_PT = 7.0                        # the smallest text [pt]
TITLE_PT = FONT_PT + 1
PNG_DPI = 300
#: matplotlib settings: every text FONT_PT but titles; text kept as text in SVG and PDF
RC: Any = {"font.size": FONT_PT, "axes.titlesize": TITLE_PT, "axes.labelsize": FONT_PT, "legend.fontsize": FONT_PT,
           "xtick.labelsize": FONT_PT, "ytick.labelsize": FONT_PT, "font.family": "DejaVu Sans",
           "svg.fonttype": "none", "pdf.fonttype": 42}
