"""Compare view: run several datasets with the same diagram and gains, overlay in % gait cycle.

The work is done by :func:`app.comparison.compare` (the same code as ``gaitblocks compare``)
in a worker thread, with a progress bar and a Cancel button. What runs: a preset of the default
diagram, :data:`app.defaults.COMPARE_PRESET` (``emergent``, the solved gait) unless another is
chosen, as ``gaitblocks compare --preset NAME`` runs it; or, with the main window, "simulation
tab": its diagram, preset and parameter changes (:attr:`~app.gui.session.session.SimSession.spec`).
The results are overlaid (:class:`~app.gui.runs.compare_plots.CyclePlots`: mean ± SD over cycles,
the recording dashed, the legend above the plots): trunk angle, knee angles and vertical GRF
(in body weights) against % of the gait cycle. The metrics table
(:func:`app.comparison.metrics_table`) sits underneath, its recording and difference columns
behind a toggle (:func:`~app.gui.runs.compare_plots.key_columns`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from app.defaults import COMPARE_PRESET
from app.gui.runs.compare_plots import CyclePlots, key_columns, wrapped_header
from app.gui.runs.worker_thread import WorkerThread
from app.gui.session.handover import Mailbox, next_turn, without_frames
from app.gui.session.session import available_datasets, available_presets

__all__ = ["SIM_TAB", "CompareView", "CompareWorker", "load_compare"]

CompareFn = Callable[..., list[Any]]
TableFn = Callable[[list[Any]], list[list[str]]]
SIM_TAB = "simulation tab"     # the preset choice that runs the main window's session as set up there


def load_compare() -> tuple[CompareFn, TableFn]:
    """``app.comparison.compare`` and ``metrics_table`` (imported when the view is built). The
    window runs threads (its background compile holds numba's compiler lock while it compiles), so
    compare's worker processes are spawned, never forked (:class:`blocks.executors.ProcessExecutor`)."""
    from functools import partial

    from app.comparison import compare, metrics_table
    from blocks.executors import THREADED_START_METHOD

    return partial(compare, start_method=THREADED_START_METHOD), metrics_table


class CompareWorker(QtCore.QObject):
    """Runs ``compare`` off the GUI thread; posts ``progress`` ``(i, n, message)``, then ``finished``
    (the results) or ``failed`` (the error) to ``mailbox`` (:mod:`app.gui.session.handover`: no Python object
    goes through a Qt signal from this thread)."""

    def __init__(self, fn: CompareFn, specs: list[str], preset: str, duration: float | None,
                 mailbox: Mailbox, base: Any = None) -> None:
        super().__init__()
        self.fn, self.specs, self.preset, self.duration = fn, specs, preset, duration
        self.mailbox, self.base = mailbox, base
        self.cancelled = False

    @QtCore.Slot()
    def run(self) -> None:
        extra = {} if self.base is None else {"base": self.base}
        try:
            results = self.fn(self.specs, preset=self.preset, duration=self.duration,
                              progress=lambda i, n, msg: self.mailbox.post("progress", (int(i), int(n), str(msg))),
                              cancel=lambda: self.cancelled, **extra)
        except BaseException as exc:  # reported in the GUI thread
            self.mailbox.post("failed", without_frames(exc))
            return
        self.mailbox.post("finished", results)


class CompareView(QtWidgets.QWidget):
    """Choose datasets, run, and look at the overlays and the metrics table.

    The preset chosen here (default :data:`~app.defaults.COMPARE_PRESET`) runs on the default
    diagram. With ``spec_source`` (the main window passes its session's
    :attr:`~app.gui.session.session.SimSession.spec`) the choice :data:`SIM_TAB` runs the GUI's current
    diagram, preset and parameter changes on every dataset instead.
    """

    done = QtCore.Signal()
    error = QtCore.Signal(object)

    def __init__(self, parent: QtWidgets.QWidget | None = None, compare_fn: CompareFn | None = None,
                 table_fn: TableFn | None = None, spec_source: Callable[[], Any] | None = None) -> None:
        super().__init__(parent)
        self.spec_source = spec_source
        fn, tab = load_compare()
        self.compare_fn = compare_fn or fn
        self.table_fn = table_fn or tab
        self.results: list[Any] = []
        self.job = WorkerThread(self)      # the comparison's worker thread
        self._mailbox = Mailbox(self._deliver, self)
        self._generation = 0          # results drawn so far: a drawing in steps stops when newer ones start
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        top = QtWidgets.QHBoxLayout()
        top.addWidget(QtWidgets.QLabel("Datasets"))
        self.checks: dict[str, QtWidgets.QCheckBox] = {}
        for name in available_datasets():
            cb = QtWidgets.QCheckBox(name)
            cb.setChecked(True)
            self.checks[name] = cb
            top.addWidget(cb)
        top.addStretch(1)
        lay.addLayout(top)
        top = QtWidgets.QHBoxLayout()
        self.preset = QtWidgets.QComboBox()
        self.preset.addItems(list(available_presets()) + ([SIM_TAB] if spec_source is not None else []))
        self.preset.setCurrentText(COMPARE_PRESET)
        self.preset.setToolTip(f"a preset of the default diagram, as gaitblocks compare --preset runs it "
                               f"(default {COMPARE_PRESET}: the solved gait)"
                               + (f"; {SIM_TAB}: the diagram, preset and parameter changes set up there"
                                  if spec_source is not None else ""))
        top.addWidget(QtWidgets.QLabel("preset"))
        top.addWidget(self.preset)
        top.addWidget(QtWidgets.QLabel("duration"))
        self.duration = QtWidgets.QDoubleSpinBox()
        self.duration.setRange(1.0, 120.0)
        self.duration.setValue(10.0)
        self.duration.setSuffix(" s")
        top.addWidget(self.duration)
        self.run_btn = QtWidgets.QPushButton("Run comparison")
        self.run_btn.clicked.connect(lambda: self.start(self.selected()))
        top.addWidget(self.run_btn)
        top.addStretch(1)
        lay.addLayout(top)
        bar = QtWidgets.QHBoxLayout()
        self.progress = QtWidgets.QProgressBar()
        self.progress.setFormat("%v / %m  %p%")
        self.status = QtWidgets.QLabel("")
        # a new status text must not re-lay out the view: that repainted the four plots (0.1-0.3 s)
        self.status.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        self.status.setFixedHeight(self.status.fontMetrics().height() + 4)
        self.cancel_btn = QtWidgets.QPushButton("Cancel")
        self.cancel_btn.setEnabled(False)
        self.cancel_btn.clicked.connect(self.cancel)
        bar.addWidget(self.progress, 1)
        bar.addWidget(self.cancel_btn)
        lay.addLayout(bar)
        lay.addWidget(self.status)
        self.plots = CyclePlots()
        self.plot_items: dict[str, pg.PlotItem] = self.plots.plot_items
        lay.addWidget(self.plots, 3)
        self.all_columns = QtWidgets.QCheckBox("recording and difference columns")
        self.all_columns.setToolTip("show each metric's recorded value and simulation - recording too")
        self.all_columns.toggled.connect(self._show_columns)
        lay.addWidget(self.all_columns)
        self.table = QtWidgets.QTableWidget()
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setDefaultAlignment(QtCore.Qt.AlignmentFlag.AlignLeft
                                                          | QtCore.Qt.AlignmentFlag.AlignVCenter)
        fm = self.table.fontMetrics()     # compact rows; the two-line header and four rows stay in view
        self.table.verticalHeader().setDefaultSectionSize(fm.height() + 6)
        self.table.setMinimumHeight(2 * fm.height() + 12 + 4 * self.table.verticalHeader().defaultSectionSize()
                                    + self.table.horizontalScrollBar().sizeHint().height())
        lay.addWidget(self.table, 2)
        self._key: list[bool] = []

    def selected(self) -> list[str]:
        return [n for n, cb in self.checks.items() if cb.isChecked()]

    def start(self, specs: list[str]) -> None:
        """Run the comparison of ``specs`` in a worker thread."""
        if len(specs) < 1 or self.job.running:
            return
        self.progress.setRange(0, len(specs))
        self.progress.setValue(0)
        self.status.setText(f"running {', '.join(specs)} …")
        self.run_btn.setEnabled(False)
        self.cancel_btn.setEnabled(True)
        preset = self.preset.currentText()
        base = self.spec_source() if self.spec_source is not None and preset == SIM_TAB else None
        self.job.start(CompareWorker(self.compare_fn, specs, "" if base is not None else preset,
                                     self.duration.value(), self._mailbox, base))

    def cancel(self) -> None:
        if self.job.worker is not None:
            self.job.worker.cancelled = True
            self.status.setText("cancelling …")

    def shutdown(self) -> None:
        """Cancel, then wait for the dataset in flight (the window closes: :mod:`app.gui.runs.worker_thread`)."""
        self.cancel()
        self._stop_thread()

    def _stop_thread(self) -> None:
        self.job.stop()
        self.run_btn.setEnabled(True)
        self.cancel_btn.setEnabled(False)

    def _deliver(self, kind: str, value: Any) -> None:
        if kind == "progress":
            self._on_progress(*value)
        elif kind == "finished":
            self._on_finished(value)
        else:
            self._on_failed(value)

    def _on_progress(self, i: int, n: int, msg: str) -> None:
        self.progress.setRange(0, max(n, 1))
        self.progress.setValue(i)
        self.status.setText(msg)

    def _on_failed(self, exc: BaseException) -> None:
        self._stop_thread()
        self.status.setText(f"comparison stopped: {exc}")
        self.error.emit(exc)

    def _on_finished(self, results: list[Any]) -> None:
        """The results arrived: drawn one plot per event-loop turn, then the table
        (:meth:`_drawing`), and ``done`` emitted; all at once, the four plots' curves and legends
        and the table froze the window 0.2-0.7 s."""
        self._stop_thread()
        self._generation += 1
        generation, steps = self._generation, self._drawing(results)

        def step() -> None:
            if generation != self._generation:      # newer results are being drawn
                return
            if next(steps, None) is None:
                self.done.emit()
            else:
                next_turn(self, step)

        step()

    def show_results(self, results: list[Any]) -> None:
        """Overlay each condition's mean cycle with its ±SD band and fill the metrics table (at once)."""
        self._generation += 1
        for _ in self._drawing(results):
            pass

    def _drawing(self, results: list[Any]) -> Iterator[str]:
        """Draw ``results``: yields after each plot and before the table (one step per event-loop
        turn in :meth:`_on_finished`)."""
        self.results = list(results)
        yield from self.plots.drawing(self.results)
        rows = self.table_fn(self.results) if self.table_fn is not None else [["condition"]] + [
            [str(r.name)] for r in self.results]
        header, body = rows[0], rows[1:]
        self.table.setColumnCount(len(header))
        self.table.setRowCount(len(body))
        for j, h in enumerate(header):
            item = QtWidgets.QTableWidgetItem(wrapped_header(str(h)))
            item.setData(QtCore.Qt.ItemDataRole.UserRole, str(h))
            self.table.setHorizontalHeaderItem(j, item)
        for i, row in enumerate(body):
            for j, cell in enumerate(row):
                self.table.setItem(i, j, QtWidgets.QTableWidgetItem(str(cell)))
        self._key = key_columns(header)
        self._show_columns(self.all_columns.isChecked())
        self.status.setText(f"{len(self.results)} condition(s) compared")
        self.progress.setValue(self.progress.maximum())
        yield "table"

    def _show_columns(self, everything: bool) -> None:
        """The key columns (:func:`~app.gui.runs.compare_plots.key_columns`), or all of them."""
        for j, key in enumerate(self._key):
            self.table.setColumnHidden(j, not (key or everything))
        self.table.resizeColumnsToContents()

    def visible_columns(self) -> list[str]:
        """The headers of the columns shown (one line each)."""
        return [self._header(j) for j in range(self.table.columnCount()) if not self.table.isColumnHidden(j)]

    def _header(self, j: int) -> str:
        item = self.table.horizontalHeaderItem(j)
        return "" if item is None else str(item.data(QtCore.Qt.ItemDataRole.UserRole) or item.text())

    def table_rows(self) -> list[list[str]]:
        def text(item: QtWidgets.QTableWidgetItem | None) -> str:
            return item.text() if item is not None else ""

        cols = range(self.table.columnCount())
        out = [[self._header(j) for j in cols]]
        for i in range(self.table.rowCount()):
            out.append([text(self.table.item(i, j)) for j in cols])
        return out
