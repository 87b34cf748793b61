"""The Scopes tab: a small tool row over the :class:`~app.gui.scopes.scopes.ScopeStack`.

Tool row: **Add signal…** (the searchable :class:`~app.gui.scopes.scope_browser.SignalBrowser`),
**units** (SI, or forces in body weights and torques in N·m/kg, :mod:`app.gui.scopes.scope_units`),
**x axis** (time [s], or % gait cycle with mean ± SD, :mod:`app.gui.scopes.scope_cycle`),
**Measure** (a menu, so the row stays as narrow as before): *Δ cursors* (a second cursor, B, with
Δt and Δvalue read-outs), *link y* (time scopes of one unit share their y range), both
:mod:`app.gui.scopes.scope_measure`, and *Difference…* (two runs and their difference with a tolerance
band, :mod:`app.gui.scopes.scope_diff`); **Export**: a figure for a journal
(PDF, SVG or 300-dpi PNG, 85 or 180 mm wide, :mod:`app.gui.scopes.scope_figure`), the screen as PNG at a
chosen width, or CSV with units in the headers (:mod:`app.gui.scopes.scope_export`). Right-click a plot
to remove a signal or the scope. The scopes are in a scroll area: each keeps at least
:data:`~app.gui.scopes.scopes.MIN_SCOPE_PX` of height, and they scroll when the window is too short to
hold them all (8 scopes at 1366 x 768).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtWidgets

from app.gui.runs.run_store import KeptRun
from app.gui.scopes.scope_browser import SignalBrowser, open_browser
from app.gui.scopes.scope_diff import DiffDialog
from app.gui.scopes.scope_export import DEFAULT_PNG_WIDTH, export_scopes_csv, export_scopes_image
from app.gui.scopes.scope_figure import JOURNAL_WIDTHS_MM, export_figure
from app.gui.scopes.scope_layout import layout_dict, specs_from_state, units_of
from app.gui.scopes.scope_units import UNIT_MODES
from app.gui.scopes.scopes import ScopeStack
from app.gui.session.errors import show_error
from app.gui.session.export_job import ExportJob, announce, start_figure_export
from app.gui.session.figure_helper import FigureHelper
from models.errors import UserError

__all__ = ["UNIT_LABELS", "X_LABELS", "ScopePanel"]

UNIT_LABELS = {"SI": "SI units", "BW": "N/BW · N·m/kg"}
X_LABELS = ("time [s]", "% gait cycle (mean ± SD)")


class ScopePanel(QtWidgets.QWidget):
    """Tool row + scopes (module docstring)."""

    def __init__(self, scopes: ScopeStack, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.scopes = scopes
        self.kept_runs: Callable[[], list[KeptRun]] = lambda: list(scopes.runs)   # the window: every kept run
        self.announce: Callable[[str], object] = lambda text: None   # an export's result (the window: status bar)
        self.export_job: ExportJob | None = None                     # the last figure exported in the background
        self.figure_helper = FigureHelper()     # the figure process: started when the Export menu opens, then kept
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 2, 0, 0)
        lay.setSpacing(2)
        row = QtWidgets.QHBoxLayout()
        row.setContentsMargins(4, 0, 4, 0)
        self.add_button = QtWidgets.QPushButton("Add signal…")
        self.add_button.setToolTip("Search the logged signals and add one to a scope or a new scope")
        self.units = QtWidgets.QComboBox()
        self.units.addItems([UNIT_LABELS[m] for m in UNIT_MODES])
        self.units.setToolTip("Forces in body weights (N / (m g)) and torques per kg of body mass")
        self.xaxis = QtWidgets.QComboBox()
        self.xaxis.addItems(X_LABELS)
        self.xaxis.setToolTip("% gait cycle: left landing to left landing, mean ± 1 SD over the complete cycles")
        self.export_button = QtWidgets.QToolButton()
        self.export_button.setText("Export")
        self.export_button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QtWidgets.QMenu(self.export_button)
        for mm in JOURNAL_WIDTHS_MM:
            menu.addAction(f"Figure {mm:.0f} mm wide (PDF, SVG, PNG 300 dpi)…").triggered.connect(
                lambda _=False, w=mm: self.ask_figure(w))
        menu.addAction("Screen as PNG…").triggered.connect(lambda: self.ask_export("png"))
        menu.addAction("Whole run as CSV (units in headers)…").triggered.connect(lambda: self.ask_export("csv"))
        self.export_button.setMenu(menu)
        menu.aboutToShow.connect(self.figure_helper.start)   # matplotlib warms up while a file is chosen
        self.measure_button = QtWidgets.QToolButton()    # one button: the row fits 1366 x 768 beside the figure
        self.measure_button.setText("Measure")
        self.measure_button.setPopupMode(QtWidgets.QToolButton.ToolButtonPopupMode.InstantPopup)
        measure = QtWidgets.QMenu(self.measure_button)
        self.delta_action = measure.addAction("Δ cursors: a second cursor (B) with Δt and Δvalue")
        self.delta_action.setCheckable(True)
        self.link_action = measure.addAction("Link y across scopes of the same unit")
        self.link_action.setCheckable(True)
        self.diff_action = measure.addAction("Difference between two runs…")
        self.measure_button.setMenu(measure)
        for box in (self.units, self.xaxis):           # long entries elided, the whole text in the list
            box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            box.setMinimumContentsLength(7)
        row.addWidget(self.add_button)
        row.addWidget(QtWidgets.QLabel("units"))
        row.addWidget(self.units)
        row.addWidget(QtWidgets.QLabel("x axis"))
        row.addWidget(self.xaxis)
        row.addWidget(self.measure_button)
        row.addStretch(1)
        row.addWidget(self.export_button)
        lay.addLayout(row)
        self.area = QtWidgets.QScrollArea()   # the scopes keep MIN_SCOPE_PX each and scroll when they do not fit
        self.area.setWidgetResizable(True)
        self.area.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.area.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.area.setWidget(scopes)
        lay.addWidget(self.area, 1)
        self.add_button.clicked.connect(self.open_browser)
        self.units.currentIndexChanged.connect(lambda i: scopes.set_units(UNIT_MODES[i]))
        self.xaxis.currentIndexChanged.connect(lambda i: scopes.set_cycle(i == 1))
        self.delta_action.toggled.connect(lambda on: scopes.set_delta(on))
        self.link_action.toggled.connect(scopes.set_link_y)
        self.diff_action.triggered.connect(self.open_difference)

    def layout_state(self) -> dict[str, Any]:
        """The scope layout for session files (:mod:`app.gui.scopes.scope_layout`)."""
        st = self.scopes
        return layout_dict(st.specs(), st.units, st.cycle, st.custom)

    def apply_layout(self, state: Any) -> None:
        """Restore a :meth:`layout_state`: units, x axis and, if custom and every signal is logged,
        the scopes (else the default scopes)."""
        st = self.scopes
        if not isinstance(state, dict) or st.session is None:
            return
        st.units = units_of(state) or st.units
        st.cycle = bool(state.get("cycle", st.cycle))
        st.follow = not st.cycle
        for box, i in ((self.units, UNIT_MODES.index(st.units)), (self.xaxis, int(st.cycle))):
            box.blockSignals(True)
            box.setCurrentIndex(i)
            box.blockSignals(False)
        specs = specs_from_state(state, set(st.session.signal_names()))
        st.custom = specs is not None
        st.bind(st.session, specs)
        st.refresh(full=True, stats=True)
        st.fit_x()

    def open_browser(self) -> SignalBrowser:
        return open_browser(self.scopes, -1)

    def open_difference(self) -> DiffDialog:
        dlg = DiffDialog(self.scopes, self, self.kept_runs)
        dlg.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.show()
        return dlg

    def ask_figure(self, width_mm: float) -> ExportJob | None:
        """Ask for the file (its type sets the format), then export the figure ``width_mm`` wide
        in the background (:meth:`start_figure`)."""
        path, _ = QtWidgets.QFileDialog.getSaveFileName(
            self, f"Export the scopes as a figure {width_mm:.0f} mm wide", f"scopes_{width_mm:.0f}mm.pdf",
            "PDF (*.pdf);;SVG (*.svg);;PNG, 300 dpi (*.png)")
        return self.start_figure(path, width_mm) if path else None

    def start_figure(self, path: str | Path, width_mm: float = JOURNAL_WIDTHS_MM[0]) -> ExportJob | None:
        """Export the figure ``width_mm`` wide without blocking the window: the data copied here,
        drawn and written in a worker, the result in the status bar (:mod:`app.gui.session.export_job`)."""
        try:
            job = start_figure_export(self.scopes, path, width_mm, self, self.figure_helper)
        except (UserError, OSError) as exc:
            show_error(self, "Export failed", str(exc))
            return None
        self.export_job = announce(job, self.announce, lambda title, exc: show_error(self, title, str(exc)))
        return job

    def ask_export(self, kind: str) -> Path | None:
        """Ask for the file (and, for PNG, the width), then :meth:`export`."""
        filt = {"png": "PNG image (*.png)", "csv": "CSV table (*.csv)"}[kind]
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, f"Export the scopes as {kind.upper()}",
                                                        f"scopes.{kind}", filt)
        if not path:
            return None
        width = DEFAULT_PNG_WIDTH
        if kind == "png":
            width, ok = QtWidgets.QInputDialog.getInt(self, "PNG width", "width [px]", DEFAULT_PNG_WIDTH, 200, 10000)
            if not ok:
                return None
        return self.export(kind, path, width)

    def export(self, kind: str, path: str | Path, width: int = DEFAULT_PNG_WIDTH,
               width_mm: float = JOURNAL_WIDTHS_MM[0]) -> Path | None:
        """Write the whole run as ``kind``: ``figure`` (PDF, SVG or PNG by the suffix, ``width_mm``
        wide; ``svg`` is a figure too), ``png`` (the screen, ``width`` px) or ``csv``; errors show in a dialog."""
        try:
            if kind == "csv":
                return export_scopes_csv(self.scopes, path)
            if kind in ("figure", "svg"):    # matplotlib takes seconds: say so with the busy cursor
                QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.WaitCursor)
                try:
                    return export_figure(self.scopes, path, width_mm)
                finally:
                    QtWidgets.QApplication.restoreOverrideCursor()
            return export_scopes_image(self.scopes, path, width)
        except (UserError, OSError) as exc:
            show_error(self, "Export failed", str(exc))
            return None
