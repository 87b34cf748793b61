"""The scopes as a figure a journal takes: PDF, SVG or 300-dpi PNG at 85 or 180 mm wide (matplotlib).

The figure is drawn again from the data, not grabbed from the screen, so it holds the curves and
nothing of the GUI's measuring: no cursors, no hover read-out, no statistics in the titles. Each
scope is one row (its title, its unit on y, a legend of its traces and overlaid runs above the
plot, right-aligned), the time scopes share the time axis (labelled once, at the bottom); an XY
scope has its own x axis. The fall line and the "no plate: filled" bands are drawn as on screen;
the stance shading and parameter-change markers are not.

* **Sizes**: ``width_mm`` (:data:`JOURNAL_WIDTHS_MM`: 85 mm one column, 180 mm two), each row
  :data:`ROW_MM` high; every text at least :data:`FONT_PT` (7 pt), titles 8 pt. The file says its
  size: the SVG's ``width="…pt"``, the PDF's media box, the PNG's pixels and its 300-dpi ``pHYs``.
* **Simplified to the display resolution**: each curve is peak-decimated
  (:func:`~app.gui.scopes.scope_math.peak_decimate`) to two samples per column of
  :data:`COLUMNS_PER_INCH` over the plot's width, which keeps every extremum a reader can see;
  XY curves keep every k-th sample, at most as many. Text stays text in SVG (``svg.fonttype =
  none``) and embedded TrueType in PDF.
* **Data**: the curves as the scopes hold them after a full refresh (the whole run, the mean cycle
  in the % gait-cycle view with its ± 1 SD band), in the units shown; a flat or noise-only trace
  gets the scopes' least y span (:func:`~app.gui.scopes.scope_measure.min_span`), so it reads 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.gui.scopes.scope_math import peak_decimate
from app.gui.scopes.scope_measure import min_span
from app.gui.scopes.scope_units import pretty
from app.journal import FONT_PT, JOURNAL_WIDTHS_MM, MM, PNG_DPI, RC, TITLE_PT
from models.errors import UserError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from app.gui.scopes.scope_plot import Scope
    from app.gui.scopes.scopes import ScopeStack

__all__ = ["COLUMNS_PER_INCH", "FIGURE_FORMATS", "FONT_PT", "JOURNAL_WIDTHS_MM", "PNG_DPI", "ROW_MM",
           "export_figure", "scope_figure"]

ROW_MM = 27.0                       # height of one scope's row [mm]
COLUMNS_PER_INCH = 150              # curve columns per inch of plot width (two samples each)
FIGURE_FORMATS = (".pdf", ".svg", ".png")
_STYLES = {1: "-", 2: "--", 3: ":", 4: "-.", 5: (0, (3, 1, 1, 1, 1, 1))}   # Qt pen styles -> matplotlib


def _line_style(qt_style: object) -> Any:
    return _STYLES.get(int(getattr(qt_style, "value", qt_style)), "-")   # type: ignore[call-overload]


def _simplify(x: np.ndarray, y: np.ndarray, bins: int, monotonic: bool) -> tuple[np.ndarray, np.ndarray]:
    """Two samples per column of ``bins``: peak decimation of a time series, every k-th sample of an XY curve."""
    if monotonic:
        return peak_decimate(x, y, bins)
    step = max(1, -(-x.size // (2 * bins)))
    return x[::step], y[::step]


def _curves(sc: Scope) -> list[tuple[np.ndarray, np.ndarray, str, Any, float, str]]:
    """``(x, y, colour, line style, width, label)`` of the scope's traces and overlaid runs."""
    out: list[tuple[np.ndarray, np.ndarray, str, Any, float, str]] = []
    for tr, c in zip(sc.spec.traces, sc.curves):
        if c.xData is not None and c.xData.size:
            out.append((c.xData, c.yData, tr.color, "--" if tr.dashed else "-", 0.6 if tr.dashed else 0.9, tr.label))
    for c in sc.overlay.curves.values():
        if c.xData is not None and c.xData.size:
            pen = c.opts["pen"]
            out.append((c.xData, c.yData, pen.color().name(), _line_style(pen.style()), 0.7, c.toolTip()))
    return out


def _legend_columns(title: str, labels: list[str], width_pt: float) -> int:
    """Columns of a legend beside ``title`` on one row of ``width_pt``: all labels in one row if the
    title and they fit (a 7 pt character about 4.2 pt wide, a line sample and gaps 2.8 em), else two rows."""
    em = FONT_PT
    need = 0.6 * TITLE_PT * len(title) + sum(0.6 * em * len(lab) + 2.8 * em for lab in labels)
    n = len(labels)
    return n if need <= width_pt else max(1, -(-n // 2))


def _draw_scope(ax: Axes, sc: Scope, bins: int, cycle: bool, width_pt: float) -> None:
    monotonic = not sc.is_xy
    for x, y, colour, style, width, label in _curves(sc):
        xs, ys = _simplify(np.asarray(x, float), np.asarray(y, float), bins, monotonic)
        ax.plot(xs, ys, color=colour, linestyle=style, linewidth=width, label=label)
    for band in sc.bands.data:
        mean, sd, colour = band
        pct = np.linspace(0.0, 100.0, mean.size)
        ax.fill_between(pct, mean - sd, mean + sd, color=colour, alpha=0.18, linewidth=0)
    if not cycle and not sc.is_xy:
        for region in sc.filled:
            a, b = region.getRegion()
            ax.axvspan(a, b, color="#6e6e6e", alpha=0.18, linewidth=0)
        if sc.fall_line is not None:
            ax.axvline(float(sc.fall_line.value()), color="#b35c00", linestyle="--", linewidth=0.9)
            ax.text(float(sc.fall_line.value()), 0.97, " fell", transform=ax.get_xaxis_transform(), va="top",
                    color="#b35c00", fontsize=FONT_PT)
    lo, hi = ax.get_ylim()
    span = min_span(sc.unit)
    if hi - lo < span:
        mid = 0.5 * (lo + hi)
        ax.set_ylim(mid - span / 2, mid + span / 2)
    ax.set_ylabel(f"[{pretty(sc.unit)}]")
    ax.set_title(sc.spec.title, loc="left", fontsize=TITLE_PT, pad=2)
    if sc.is_xy:
        x_label = sc.spec.x.label if sc.spec.x is not None else "x"
        ax.set_xlabel(f"{x_label} [{pretty(getattr(sc, 'x_unit', ''))}]")
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="lower right", bbox_to_anchor=(1.0, 1.0),
                  ncol=_legend_columns(sc.spec.title, labels, width_pt),
                  frameon=False, fontsize=FONT_PT, borderaxespad=0.1, handlelength=1.6, columnspacing=0.8,
                  handletextpad=0.4)
    ax.grid(True, axis="y", color="#dddddd", linewidth=0.4)
    ax.tick_params(labelsize=FONT_PT, length=2, width=0.5, pad=1.5)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def scope_figure(stack: ScopeStack, width_mm: float = JOURNAL_WIDTHS_MM[0]) -> Figure:
    """The stack's scopes over the whole run as a matplotlib figure ``width_mm`` wide (module doc)."""
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    if stack.session is None or not stack.scopes:
        raise UserError("nothing to export: no scopes")
    if stack.session.recorded_time().size < 2:
        raise UserError("nothing to export yet: run the simulation first")
    follow = stack.follow
    stack.follow = False
    try:
        stack.refresh(full=True)
    finally:
        stack.follow = follow
    n = len(stack.scopes)
    import matplotlib as mpl

    with mpl.rc_context({**RC, "axes.linewidth": 0.5}):
        fig = Figure(figsize=(width_mm * MM, (n * ROW_MM + 8.0) * MM),
                     layout=ConstrainedLayoutEngine(h_pad=0.02, w_pad=0.02, hspace=0.02))
        axes = fig.subplots(n, 1, squeeze=False)[:, 0]
        time_axes = [ax for ax, sc in zip(axes, stack.scopes) if not sc.is_xy]
        for ax in time_axes[1:]:
            ax.sharex(time_axes[0])
        bins = max(50, int(round(0.8 * width_mm * MM * COLUMNS_PER_INCH)))    # the plot is about 80 % of the width
        for ax, sc in zip(axes, stack.scopes):
            _draw_scope(ax, sc, bins, stack.cycle, 0.8 * width_mm * MM * 72.0)
        for ax in time_axes[:-1]:
            ax.tick_params(labelbottom=False)
        if time_axes:
            time_axes[-1].set_xlabel("% gait cycle (mean ± SD)" if stack.cycle else "time [s]")
            if not stack.cycle:
                t = stack.session.recorded_time()
                time_axes[0].set_xlim(float(t[0]), float(t[-1]))
    return fig


def export_figure(stack: ScopeStack, path: str | Path, width_mm: float = JOURNAL_WIDTHS_MM[0]) -> Path:
    """Write :func:`scope_figure` as PDF, SVG or PNG (300 dpi) by the suffix of ``path``."""
    path = Path(path)
    if path.suffix.lower() not in FIGURE_FORMATS:
        raise UserError(f"figure export: use a .pdf, .svg or .png file name, not {path.name!r}")
    fig = scope_figure(stack, width_mm)
    import matplotlib as mpl

    with mpl.rc_context(RC):
        fig.savefig(path, dpi=PNG_DPI, metadata={"Date": None} if path.suffix.lower() == ".pdf" else None)
    return path
