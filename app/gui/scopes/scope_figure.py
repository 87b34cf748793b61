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
  gets the scopes' least y span (:func:`~app.gui.scopes.scope_units.min_span`), so it reads 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.gui.scopes.scope_math import peak_decimate
from app.gui.scopes.scope_units import min_span, pretty
from app.journal import FONT_PT, JOURNAL_WIDTHS_MM, MM, PNG_DPI, RC, TITLE_PT
from models.errors import UserError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from app.gui.scopes.scope_plot import Scope
    from app.gui.scopes.scopes import ScopeStack

__all__ = ["COLUMNS_PER_INCH", "FIGURE_FORMATS", "FONT_PT", "JOURNAL_WIDTHS_MM", "PNG_DPI", "ROW_MM", "FigureData",
           "Row", "check_figure_path", "draw_figure", "export_figure", "figure_data", "save_figure",
           "save_figure_reporting", "scope_figure"]

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


Curve = tuple[np.ndarray, np.ndarray, str, Any, float, str]   # x, y, colour, line style, width [pt], label


@dataclass
class Row:
    """One scope's row of the figure, copied out of the scope on the GUI thread (no Qt object):
    its ``curves`` (traces, then overlaid runs), the % cycle view's ± SD ``bands`` ``(mean, sd,
    colour)``, the filled-GRF spans ``filled`` [s], the fall time ``fall`` [s], the display ``unit``
    and, for an XY scope, ``x_label`` and ``x_unit``."""

    title: str
    unit: str
    is_xy: bool
    curves: list[Curve]
    bands: list[tuple[np.ndarray, np.ndarray, str]] = field(default_factory=list)
    filled: list[tuple[float, float]] = field(default_factory=list)
    fall: float | None = None
    x_label: str = "x"
    x_unit: str = ""


@dataclass
class FigureData:
    """What :func:`draw_figure` draws: the rows, the x axis (% cycle or time) and the run's span [s]."""

    rows: list[Row]
    cycle: bool
    t_span: tuple[float, float]


def _curves(sc: Scope) -> list[Curve]:
    """``(x, y, colour, line style, width, label)`` of the scope's traces and overlaid runs (copies)."""
    out: list[Curve] = []
    for tr, c in zip(sc.spec.traces, sc.curves):
        if c.xData is not None and c.xData.size:
            out.append((np.array(c.xData, float), np.array(c.yData, float), tr.color, "--" if tr.dashed else "-",
                        0.6 if tr.dashed else 0.9, tr.label))
    for c in sc.overlay.curves.values():
        if c.xData is not None and c.xData.size:
            pen = c.opts["pen"]
            out.append((np.array(c.xData, float), np.array(c.yData, float), pen.color().name(),
                        _line_style(pen.style()), 0.7, c.toolTip()))
    return out


def _row(sc: Scope) -> Row:
    return Row(sc.spec.title, sc.unit, sc.is_xy, _curves(sc),
               bands=[(np.array(m, float), np.array(sd, float), colour) for m, sd, colour in sc.bands.data],
               filled=[tuple(map(float, r.getRegion())) for r in sc.filled],    # type: ignore[misc]
               fall=float(sc.fall_line.value()) if sc.fall_line is not None else None,
               x_label=sc.spec.x.label if sc.spec.x is not None else "x", x_unit=str(getattr(sc, "x_unit", "")))


def _holds_whole_run(stack: ScopeStack, n: int) -> bool:
    """Whether every scope's curves already hold all ``n`` recorded samples (a paused run shown in
    full, time scopes only); a live run, scopes waiting for their turn (settling, redrawn), a window
    view, the % cycle view or an XY scope: no."""
    return not (stack.live or stack.settling.pending or stack.redraw.pending or stack.cycle) and all(
        not sc.is_xy and all(c.xData is not None and c.xData.size == n for c in sc.curves) for sc in stack.scopes)


def figure_data(stack: ScopeStack) -> FigureData:
    """The stack's scopes over the whole run (a full refresh first), copied for :func:`draw_figure`:
    the GUI thread's part of an export (tens of ms), the drawing can then run in a worker thread."""
    if stack.session is None or not stack.scopes:
        raise UserError("nothing to export: no scopes")
    t = stack.session.recorded_time()
    if t.size < 2:
        raise UserError("nothing to export yet: run the simulation first")
    if not _holds_whole_run(stack, t.size):      # a refresh repaints every plot: 30-50 ms here
        follow = stack.follow
        stack.follow = False
        try:
            stack.refresh(full=True)
        finally:
            stack.follow = follow
    return FigureData([_row(sc) for sc in stack.scopes], stack.cycle, (float(t[0]), float(t[-1])))


def _legend_columns(title: str, labels: list[str], width_pt: float) -> int:
    """Columns of a legend beside ``title`` on one row of ``width_pt``: all labels in one row if the
    title and they fit (a 7 pt character about 4.2 pt wide, a line sample and gaps 2.8 em), else two rows."""
    em = FONT_PT
    need = 0.6 * TITLE_PT * len(title) + sum(0.6 * em * len(lab) + 2.8 * em for lab in labels)
    n = len(labels)
    return n if need <= width_pt else max(1, -(-n // 2))


def _draw_row(ax: Axes, row: Row, bins: int, cycle: bool, width_pt: float) -> None:
    for x, y, colour, style, width, label in row.curves:
        xs, ys = _simplify(x, y, bins, not row.is_xy)
        ax.plot(xs, ys, color=colour, linestyle=style, linewidth=width, label=label)
    for mean, sd, colour in row.bands:
        pct = np.linspace(0.0, 100.0, mean.size)
        ax.fill_between(pct, mean - sd, mean + sd, color=colour, alpha=0.18, linewidth=0)
    if not cycle and not row.is_xy:
        for a, b in row.filled:
            ax.axvspan(a, b, color="#6e6e6e", alpha=0.18, linewidth=0)
        if row.fall is not None:
            ax.axvline(row.fall, color="#b35c00", linestyle="--", linewidth=0.9)
            ax.text(row.fall, 0.97, " fell", transform=ax.get_xaxis_transform(), va="top",
                    color="#b35c00", fontsize=FONT_PT)
    lo, hi = ax.get_ylim()
    span = min_span(row.unit)
    if hi - lo < span:
        mid = 0.5 * (lo + hi)
        ax.set_ylim(mid - span / 2, mid + span / 2)
    ax.set_ylabel(f"[{pretty(row.unit)}]")
    ax.set_title(row.title, loc="left", fontsize=TITLE_PT, pad=2)
    if row.is_xy:
        ax.set_xlabel(f"{row.x_label} [{pretty(row.x_unit)}]")
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles, labels, loc="lower right", bbox_to_anchor=(1.0, 1.0),
                  ncol=_legend_columns(row.title, labels, width_pt),
                  frameon=False, fontsize=FONT_PT, borderaxespad=0.1, handlelength=1.6, columnspacing=0.8,
                  handletextpad=0.4)
    ax.grid(True, axis="y", color="#dddddd", linewidth=0.4)
    ax.tick_params(labelsize=FONT_PT, length=2, width=0.5, pad=1.5)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def draw_figure(data: FigureData, width_mm: float = JOURNAL_WIDTHS_MM[0]) -> Figure:
    """``data`` as a matplotlib figure ``width_mm`` wide (module doc); no Qt: safe in a worker thread."""
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    n = len(data.rows)
    import matplotlib as mpl

    with mpl.rc_context({**RC, "axes.linewidth": 0.5}):
        fig = Figure(figsize=(width_mm * MM, (n * ROW_MM + 8.0) * MM),
                     layout=ConstrainedLayoutEngine(h_pad=0.02, w_pad=0.02, hspace=0.02))
        axes = fig.subplots(n, 1, squeeze=False)[:, 0]
        time_axes = [ax for ax, row in zip(axes, data.rows) if not row.is_xy]
        for ax in time_axes[1:]:
            ax.sharex(time_axes[0])
        bins = max(50, int(round(0.8 * width_mm * MM * COLUMNS_PER_INCH)))    # the plot is about 80 % of the width
        for ax, row in zip(axes, data.rows):
            _draw_row(ax, row, bins, data.cycle, 0.8 * width_mm * MM * 72.0)
        for ax in time_axes[:-1]:
            ax.tick_params(labelbottom=False)
        if time_axes:
            time_axes[-1].set_xlabel("% gait cycle (mean ± SD)" if data.cycle else "time [s]")
            if not data.cycle:
                time_axes[0].set_xlim(*data.t_span)
    return fig


def scope_figure(stack: ScopeStack, width_mm: float = JOURNAL_WIDTHS_MM[0]) -> Figure:
    """The stack's scopes over the whole run as a matplotlib figure ``width_mm`` wide (module doc)."""
    return draw_figure(figure_data(stack), width_mm)


def check_figure_path(path: str | Path) -> Path:
    """``path`` if its suffix is a figure format (:data:`FIGURE_FORMATS`), else a :class:`UserError`."""
    path = Path(path)
    if path.suffix.lower() not in FIGURE_FORMATS:
        raise UserError(f"figure export: use a .pdf, .svg or .png file name, not {path.name!r}")
    return path


def save_figure(data: FigureData, path: str | Path, width_mm: float = JOURNAL_WIDTHS_MM[0]) -> Path:
    """Draw ``data`` and write it as PDF, SVG or PNG (300 dpi) by the suffix of ``path`` (no Qt:
    the worker thread's part of an export, seconds for a 10 s run)."""
    path = check_figure_path(path)
    fig = draw_figure(data, width_mm)
    import matplotlib as mpl

    with mpl.rc_context(RC):
        fig.savefig(path, dpi=PNG_DPI, metadata={"Date": None} if path.suffix.lower() == ".pdf" else None)
    return path


def export_figure(stack: ScopeStack, path: str | Path, width_mm: float = JOURNAL_WIDTHS_MM[0]) -> Path:
    """Write the stack's scopes as a figure (:func:`figure_data`, then :func:`save_figure`), here and now."""
    path = check_figure_path(path)
    return save_figure(figure_data(stack), path, width_mm)


def save_figure_reporting(data: FigureData, path: str, width_mm: float, out: Any) -> None:
    """:func:`save_figure`, then ``""`` or the error's text on queue ``out``: the body of the spawned
    process of a window export (:class:`app.gui.session.figure_helper.FigureHelper`)."""
    try:
        save_figure(data, path, width_mm)
    except BaseException as exc:     # the message goes back; the parent raises it
        out.put(f"{type(exc).__name__}: {exc}")
    else:
        out.put("")


def figure_server(jobs: Any, out: Any) -> None:
    """The body of the window's figure helper process (:mod:`app.gui.session.figure_helper`): import
    matplotlib and write a small PDF, SVG and PNG to memory (its fonts, the Agg, PDF and SVG back
    ends: the 4-8 s a first export waited for), then draw each ``(data, path, width_mm)`` taken
    from queue ``jobs`` (:func:`save_figure_reporting` answers on ``out``) until ``None``."""
    import io

    import matplotlib as mpl
    from matplotlib.figure import Figure

    with mpl.rc_context(RC):
        fig = Figure(figsize=(40 * MM, 20 * MM))
        ax = fig.subplots()
        ax.plot([0.0, 1.0], [0.0, 1.0], label="warm-up")
        ax.set_title("warm-up")
        ax.legend()
        for fmt in ("pdf", "svg", "png"):
            fig.savefig(io.BytesIO(), format=fmt, dpi=PNG_DPI)
    while (job := jobs.get()) is not None:
        data, path, width_mm = job
        save_figure_reporting(data, path, width_mm, out)
