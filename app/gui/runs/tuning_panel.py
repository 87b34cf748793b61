"""Tuning panel: a parameter sweep or a gain optimisation of the session's run, from the window.

The runs are the CLI's (:mod:`app.tuning.service`, :func:`app.tuning.optimize.optimize`, on a
:mod:`blocks.executors` executor): the base spec is the session's
(:attr:`app.gui.session.session.SimSession.spec` -- its diagram, preset and every parameter changed
since, as the Compare tab uses) with the simulated duration chosen here. Parameters may name one
leg (``pid_hip.kp[0]``). The work is driven from a ``QThread``; the runs go to ``workers`` worker
processes (started with ``spawn``), or, with ``workers = 0``, run in that thread (no start-up, but
the simulation then competes with the window for the GIL). A progress bar and Cancel (the runs
in flight finish, no new one starts).

* **Sweep**: a grid over one or two parameters, ``n`` values each from ``lo`` to ``hi``; the
  heat map (two) or the line (one) of the objective (:mod:`app.gui.runs.tuning_plot`).
* **Optimise**: Nelder-Mead over the chosen parameters within ``[lo, hi]``, at most ``budget``
  simulations, from the session's values; the convergence plot.

The best run is the ``ok`` run of smallest objective: a run that fell or failed is never the
best (:func:`app.tuning.service.best_row`). "Apply best" sets its values in the live session;
``best.json`` (the file ``gaitblocks tune`` writes) can be loaded, applied and saved.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtWidgets

from app.gui.editing.param_edit import ParamSetter
from app.gui.runs.tuning_parts import AxisEditor, Job, TuningWorker
from app.gui.runs.tuning_plot import TuningPlot
from app.gui.runs.worker_thread import WorkerThread
from app.gui.session.handover import Mailbox
from app.gui.session.session import SimSession
from app.gui.session.session_catalog import gain_refs
from app.tuning.objective import parse_objective
from app.tuning.service import best_on_edge, best_row, edge_text, read_best, write_best

__all__ = ["TuningPanel"]

MODES = ("Sweep (grid)", "Optimise (Nelder-Mead)")


class TuningPanel(QtWidgets.QWidget):
    """Sweep or optimise the session's run; see the module docstring."""

    done = QtCore.Signal()
    applied = QtCore.Signal(dict)

    def __init__(self, session_source: Callable[[], SimSession], parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session_source = session_source
        self.setter: ParamSetter | None = None   # the window's: "apply best" is then one undo step
        self.rows: list[dict[str, Any]] = []
        self.refs: list[str] = []
        self._ranges: dict[str, tuple[float, float]] | None = None
        self.best: dict[str, Any] | None = None
        self.interrupted = False
        self.job = WorkerThread(self)      # the sweep's or optimisation's worker thread
        self._mailbox = Mailbox(self._deliver, self)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        form = QtWidgets.QFormLayout()
        form.setFieldGrowthPolicy(QtWidgets.QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.mode = QtWidgets.QComboBox()
        self.mode.addItems(list(MODES))
        self.mode.currentIndexChanged.connect(self._mode_changed)
        form.addRow("method", self.mode)
        self.axes = [AxisEditor(), AxisEditor()]
        for ed in self.axes:
            ed.ref.currentTextChanged.connect(lambda _t, e=ed: self._default_range(e))
        self.use2 = QtWidgets.QCheckBox("parameter 2")
        self.use2.setChecked(True)
        self.use2.setToolTip("sweep or tune a second parameter (a heat map for a sweep)")
        self.use2.toggled.connect(self.axes[1].setEnabled)
        form.addRow("parameter 1", self.axes[0])
        form.addRow(self.use2, self.axes[1])
        opts = QtWidgets.QHBoxLayout()
        self.duration = QtWidgets.QDoubleSpinBox()
        self.duration.setRange(0.1, 120.0)
        self.duration.setValue(3.0)
        self.duration.setSuffix(" s")
        self.duration.setToolTip("simulated seconds per run")
        self.budget = QtWidgets.QSpinBox()
        self.budget.setRange(2, 1000)
        self.budget.setValue(20)
        self.budget.setToolTip("simulations allowed (optimise)")
        self.objective = QtWidgets.QComboBox()
        self.objective.addItems(["default", "tracking", "solved"])
        self.objective.setToolTip("objective (docs/tuning.md): default = tracking + trunk + effort + slip")
        self.workers = QtWidgets.QSpinBox()
        self.workers.setRange(0, max(1, os.cpu_count() or 1))
        self.workers.setValue(min(2, os.cpu_count() or 1))
        self.workers.setToolTip("parallel runs in worker processes (started in a few seconds); 0 = in this "
                                "process, a background thread: no start-up, but the window may stutter")
        for label, w in (("duration", self.duration), ("budget", self.budget), ("objective", self.objective),
                         ("workers", self.workers)):
            opts.addWidget(QtWidgets.QLabel(label))
            opts.addWidget(w)
        opts.addStretch(1)
        form.addRow(opts)
        lay.addLayout(form)
        buttons = QtWidgets.QHBoxLayout()
        self.run_btn = QtWidgets.QPushButton("Run")
        self.cancel_btn = QtWidgets.QPushButton("Cancel")
        self.apply_btn = QtWidgets.QPushButton("Apply best")
        self.load_btn = QtWidgets.QPushButton("Load best.json…")
        self.save_btn = QtWidgets.QPushButton("Save best.json…")
        self.run_btn.clicked.connect(self.start)
        self.cancel_btn.clicked.connect(self.cancel)
        self.apply_btn.clicked.connect(self.apply_best)
        self.load_btn.clicked.connect(self._ask_load)
        self.save_btn.clicked.connect(self._ask_save)
        for b in (self.run_btn, self.cancel_btn, self.apply_btn, self.load_btn, self.save_btn):
            buttons.addWidget(b)
        buttons.addStretch(1)
        lay.addLayout(buttons)
        self.progress = QtWidgets.QProgressBar()
        self.progress.setFormat("%v / %m runs")
        lay.addWidget(self.progress)
        self.status = QtWidgets.QLabel("")
        self.status.setWordWrap(True)
        self.status.setObjectName("panelStatus")
        lay.addWidget(self.status)
        self.edge = QtWidgets.QLabel("")      # the best run on the edge of the range tried (a warning)
        self.edge.setWordWrap(True)
        self.edge.setStyleSheet("color:#b35c00; font-weight:bold")
        self.edge.hide()
        lay.addWidget(self.edge)
        self.plot = TuningPlot()
        lay.addWidget(self.plot, 3)
        self.table = QtWidgets.QTableWidget()
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        lay.addWidget(self.table, 2)
        self._mode_changed()
        self._buttons()

    # ----------------------------------------------------------------- setup
    def bind(self) -> None:
        """Offer the session's gains (:func:`~app.gui.session.session_catalog.gain_refs`: the PIDs', both legs
        and each leg, and the solved gait's PD) as parameters, with ranges around their current
        values (half to twice)."""
        refs = gain_refs(self.session_source().diagram)
        for i, ed in enumerate(self.axes):
            ed.ref.blockSignals(True)
            ed.ref.clear()
            ed.ref.addItems(refs)
            ed.ref.blockSignals(False)
            if refs:
                ed.ref.setCurrentIndex(min(i * 2, len(refs) - 1))  # kp and kd of the first PID
            self._default_range(ed)

    def _default_range(self, ed: AxisEditor) -> None:
        s = self.session_source()
        try:
            v = s.diagram.value(ed.ref.currentText().strip())
        except Exception:  # a half-typed name: keep the range
            return
        v = float(v[0]) if isinstance(v, tuple) else float(v)
        ed.lo.setValue(v / 2 if v > 0 else 0.0)
        ed.hi.setValue(v * 2 if v > 0 else 1.0)

    def configure(self, mode: int, axes: list[tuple[str, float, float, int]], duration: float,
                  budget: int = 20, workers: int = 1) -> None:
        """Set the form as a user would (tests, scripts): ``axes`` = ``[(ref, lo, hi, n)]`` (1 or 2)."""
        self.mode.setCurrentIndex(mode)
        self.use2.setChecked(len(axes) == 2)
        for ed, (ref, lo, hi, n) in zip(self.axes, axes):
            ed.ref.setCurrentText(ref)
            ed.lo.setValue(lo)
            ed.hi.setValue(hi)
            ed.n.setValue(n)
        self.duration.setValue(duration)
        self.budget.setValue(budget)
        self.workers.setValue(workers)

    def _mode_changed(self) -> None:
        sweep = self.mode.currentIndex() == 0
        self.budget.setEnabled(not sweep)
        for ed in self.axes:
            ed.n.setEnabled(sweep)

    def _buttons(self) -> None:
        busy = self.job.running
        self.run_btn.setEnabled(not busy)
        self.cancel_btn.setEnabled(busy)
        self.apply_btn.setEnabled(not busy and self.best is not None)
        self.save_btn.setEnabled(self.best is not None)

    # ----------------------------------------------------------------- running
    def base_spec(self) -> Any:
        """The session's run spec with this panel's duration [s]."""
        return replace(self.session_source().spec, duration=self.duration.value())

    def _job(self) -> tuple[Job, int]:
        from app.tuning.optimize import optimize, tune_params
        from app.tuning.service import grid_sweep, sweep_points
        from blocks.executors import THREADED_START_METHOD, Executor, ProcessExecutor

        base = self.base_spec()
        axes = [ed.axis() for ed in self.axes[:2 if self.use2.isChecked() else 1]]
        objective = parse_objective(self.objective.currentText())
        workers = self.workers.value()

        def executor(n: int) -> Executor:  # worker processes keep the GIL away from the window
            return ProcessExecutor(n, THREADED_START_METHOD) if n > 0 else Executor()
        if self.mode.currentIndex() == 0:
            total = len(sweep_points(base, axes))  # checks names and ranges before the thread starts

            def sweep(cancel: threading.Event, emit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
                with executor(min(workers, total)) as ex:
                    out = grid_sweep(base, axes, ex, objective=objective, cancel=cancel, on_row=emit)
                return {"rows": out.rows, "interrupted": out.interrupted}

            return sweep, total
        from app.runs import build_diagram

        params = tune_params(build_diagram(base), [a.ref for a in axes], ranges={a.ref: (a.lo, a.hi) for a in axes})
        budget = self.budget.value()

        def tune(cancel: threading.Event, emit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
            with executor(workers) as ex:
                res = optimize(base, params, ex, budget=budget, objective=objective, cancel=cancel,
                               on_eval=lambda ev: emit(dict(ev.row)))
            return {"rows": None, "interrupted": res.message == "cancelled", "message": res.message}

        return tune, budget

    def start(self) -> None:
        """Check the form, then run the sweep or the optimisation in a worker thread."""
        if self.job.running:
            return
        try:
            job, total = self._job()
        except (ValueError, LookupError) as exc:  # UserError, DiagramError, ParameterValueError
            self.status.setText(f"<span style='color:#c00'>{exc}</span>")
            return
        self.rows, self.best, self.interrupted = [], None, False
        axes = [ed.axis() for ed in self.axes[:2 if self.use2.isChecked() else 1]]
        self.refs = [a.ref for a in axes]
        # a sweep's edges are its grid's; an optimisation's its ranges
        self._ranges = None if self.mode.currentIndex() == 0 else {a.ref: (a.lo, a.hi) for a in axes}
        self.edge.hide()
        self.progress.setRange(0, total)
        self.progress.setValue(0)
        self.plot.blank()
        self.status.setText(f"running {total} simulation(s) of {self.duration.value():g} s …")
        self.job.start(TuningWorker(job, self._mailbox))
        self._buttons()

    def cancel(self) -> None:
        """Stop after the runs in flight; the finished rows are kept."""
        if self.job.worker is not None:
            self.job.worker.cancel.set()
            self.status.setText("cancelling after the runs in flight …")

    @property
    def running(self) -> bool:
        return self.job.running

    def shutdown(self) -> None:
        """Cancel, then wait for the runs in flight (the window closes: :mod:`app.gui.runs.worker_thread`)."""
        self.cancel()
        self._stop_thread()

    def _stop_thread(self) -> None:
        self.job.stop()
        self._buttons()

    def _deliver(self, kind: str, value: Any) -> None:
        if kind == "row":
            self._on_row(value)
        elif kind == "finished":
            self._on_finished(value)
        else:
            self._on_failed(value)

    def _on_row(self, row: dict[str, Any]) -> None:
        row = dict(row)
        row["run"] = len(self.rows)
        self.rows.append(row)
        self.progress.setValue(len(self.rows))
        self._show()

    def _on_failed(self, exc: BaseException) -> None:
        self._stop_thread()
        self.status.setText(f"<span style='color:#c00'>tuning stopped: {exc}</span>")

    def _on_finished(self, out: dict[str, Any]) -> None:
        if out.get("rows") is not None:
            self.rows = [dict(r) for r in out["rows"]]
        self.interrupted = bool(out.get("interrupted"))
        self._stop_thread()
        self.progress.setRange(0, max(1, len(self.rows)))  # an optimiser may converge under its budget
        self.progress.setValue(len(self.rows))
        self._show()
        b = best_row(self.rows)
        failed = sum(r.get("status") != "ok" for r in self.rows)
        self.status.setText(
            f"{len(self.rows)} run(s){' (cancelled)' if self.interrupted else ''}, {failed} fell or failed; "
            + (f"optimiser: {out['message']}; " if out.get("message") and not self.interrupted else "")
            + (f"best objective {float(b['objective']):.4g} at run {b['run']}: " + self._describe(self.best)
               if b is not None else "no run walked to the end: nothing to apply"))
        self.edge.setText(edge_text(best_on_edge(self.rows, self.refs, b, self._ranges), b or {}))
        self.edge.setVisible(bool(self.edge.text()))
        self.done.emit()

    # ----------------------------------------------------------------- showing
    def _show(self) -> None:
        b = best_row(self.rows)
        self.best = None if b is None else {ref: b[ref] for ref in self.refs}
        if self.mode.currentIndex() == 0 and self.rows:
            self.plot.show_sweep(self.rows, self.refs, b)
        elif self.rows:
            self.plot.show_convergence(self.rows)
        header = ["run", *self.refs, "status", "objective"]
        self.table.setColumnCount(len(header))
        self.table.setRowCount(len(self.rows))
        self.table.setHorizontalHeaderLabels(header)
        for i, r in enumerate(self.rows):
            cells = [str(r["run"]), *(f"{float(r[ref]):.4g}" for ref in self.refs), str(r.get("status")),
                     f"{float(r['objective']):.4g}"]
            for j, text in enumerate(cells):
                item = QtWidgets.QTableWidgetItem(text)
                if r is b:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.table.setItem(i, j, item)
        self.table.resizeColumnsToContents()
        best_i = next((i for i, r in enumerate(self.rows) if r is b), None)
        best_item = self.table.item(best_i, 0) if best_i is not None else None
        if best_i is not None and best_item is not None:  # the best run in view, selected
            self.table.selectRow(best_i)
            self.table.scrollToItem(best_item)
        self._buttons()

    @staticmethod
    def _describe(values: dict[str, Any] | None) -> str:
        return ", ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}" for k, v in (values or {}).items())

    # ----------------------------------------------------------------- best gains
    def apply_best(self) -> bool:
        """Set the best values in the live session (returns False when there is none)."""
        if self.best is None:
            return False
        s = self.session_source()
        setter = self.setter
        with setter.macro("apply the best gains") if setter is not None else contextlib.nullcontext():
            for ref, value in self.best.items():
                if setter is not None:
                    setter.set(s, ref, value)
                else:
                    s.set_param(ref, value)
        self.applied.emit(dict(self.best))
        self.status.setText("applied: " + self._describe(self.best))
        return True

    def load_best(self, path: Path) -> None:
        """Read ``best.json`` and check it against the session's diagram; "Apply best" then sets it."""
        s = self.session_source()
        try:
            values = read_best(path)
            for ref, v in values.items():
                values[ref] = s.diagram.param_spec(ref).validate(v, f"{path.name}: {ref}")
        except (ValueError, LookupError) as exc:
            self.status.setText(f"<span style='color:#c00'>{exc}</span>")
            return
        self.best = values
        self.status.setText(f"loaded {path.name}: " + self._describe(values))
        self._buttons()

    def save_best(self, path: Path) -> None:
        if self.best is not None:
            write_best(path, self.best)
            self.status.setText(f"saved {path}")

    def _ask_load(self) -> None:
        name, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Load best.json", "", "Parameter sets (*.json)")
        if name:
            self.load_best(Path(name))

    def _ask_save(self) -> None:
        name, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Save best.json", "best.json", "Parameter sets (*.json)")
        if name:
            self.save_best(Path(name))

