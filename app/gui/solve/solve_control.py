"""*Solve posture*: run the posture solver on the session's dataset in a background process.

:class:`SolveControl` owns the action (toolbar and Simulation menu), the status-bar progress
(:class:`SolveProgress`: a label, a bar over the IPOPT iterations of each stage, Cancel) and the
:class:`~app.solve_job.SolveJob`. The job is a **spawned** process (``docs/gui-threads.md``, rule 1);
nothing crosses threads: a 50 ms ``QTimer`` on the GUI thread drains the job's queue
(:meth:`SolveJob.poll` never blocks), so the event loop keeps turning while IPOPT works.

The job solves the session's dataset (its kinematics pairing and subject mass and height too) with
the default :class:`~app.posture.SolveSpec`, then the trunk-CoM sensitivity (:data:`SENSITIVITY_M`),
into a new folder under ``out_root`` (default ``<user cache>/gui-solutions``). The bar is divided
into one equal part per stage the job announces; within a stage it fills as ``i / (i + 15)`` for
``i`` iterations (IPOPT cannot say in advance how many a stage takes; about 10 is usual), and
it moves to the next part when that stage's first iteration arrives.

Signals: ``finished(str)`` with the output folder; ``failed(str)`` with the message;
``cancelled()``.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from app.solve_job import SolveJob
from models.userdirs import user_dir

__all__ = ["SENSITIVITY_M", "SolveControl", "SolveProgress", "solve_spec_of"]

SENSITIVITY_M = (-0.01, 0.01)   # trunk-CoM shifts of the sensitivity solves [m]
POLL_MS = 50
BAR_STEPS = 1000                # resolution of one stage's part of the bar
HALF_FILL_ITERATIONS = 15       # a stage's part is half full after this many iterations


def solve_spec_of(run_spec: Any) -> Any:
    """The :class:`~app.runs.RunSpec` of a solve of ``run_spec``'s dataset: its dataset, kinematics,
    mass and height, default solver settings (:class:`~app.posture.SolveSpec`)."""
    from app.posture import SolveSpec

    return replace(run_spec, solve=SolveSpec(kinematics=run_spec.kinematics), diagram=None, settings=())


class SolveProgress(QtWidgets.QWidget):
    """Status-bar strip: ``stage (k/N), iteration i, f = objective`` | bar | Cancel (hidden when idle)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.label = QtWidgets.QLabel("")
        # a fixed width: a text that changes length every poll never re-lays out the status bar
        self.label.setFixedWidth(self.label.fontMetrics().horizontalAdvance("M" * 30))
        self.bar = QtWidgets.QProgressBar()
        self.bar.setFixedWidth(160)
        self.bar.setTextVisible(False)
        self.cancel = QtWidgets.QPushButton("Cancel")
        self.cancel.setToolTip("stop the posture solve (nothing is kept)")
        for w in (self.label, self.bar, self.cancel):
            lay.addWidget(w)
        self.setVisible(False)

    def begin(self, text: str) -> None:
        self.bar.setRange(0, 0)        # busy until the job names its stages
        self.label.setText(text)
        self.setVisible(True)

    def plan(self, stages: int) -> None:
        self.bar.setRange(0, max(1, stages) * BAR_STEPS)
        self.bar.setValue(0)

    def step(self, k: int, n: int, stage: str, iteration: int, objective: float) -> None:
        fill = iteration / (iteration + HALF_FILL_ITERATIONS)
        self.bar.setValue(int(BAR_STEPS * (k + fill)))
        self.label.setText(f"Solving: {stage} ({k + 1}/{n}), iteration {iteration}, f = {objective:.3g}")

    def end(self) -> None:
        self.setVisible(False)


class SolveControl(QtCore.QObject):
    """The *Solve posture* action, its job and its progress (module doc)."""

    finished = QtCore.Signal(str)
    failed = QtCore.Signal(str)
    cancelled = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget, out_root: Path | None = None) -> None:
        super().__init__(parent)
        self.out_root = out_root
        self.action = QtGui.QAction("Solve posture", parent)
        self.action.setToolTip("find the periodic gait the recording's GRF and CoP produce (posture solver, "
                               "in the background), with the trunk's sensitivity to ±1 cm of trunk CoM")
        self.progress = SolveProgress()
        self.progress.cancel.clicked.connect(self.cancel)
        self.job: SolveJob | None = None
        self.started = 0                 # jobs started (tests: a reopened session starts none)
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.poll)
        self._stage = -1

    @property
    def running(self) -> bool:
        return self.job is not None and self.job.running

    def folder_for(self, dataset: str) -> Path:
        root = self.out_root or user_dir("cache") / "gui-solutions"
        stem = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in Path(dataset.split("|")[0]).stem or "data")
        return root / f"{stem}-{datetime.now().strftime('%Y%m%d-%H%M%S-%f')}"

    def start(self, run_spec: Any) -> Path:
        """Solve ``run_spec``'s dataset (:func:`solve_spec_of`) in the background; returns the output folder."""
        if self.running:
            raise RuntimeError("a posture solve is running")
        spec = solve_spec_of(run_spec)
        out = self.folder_for(spec.dataset or "sneakers")
        self.job = SolveJob(spec, out, sensitivity=SENSITIVITY_M)
        self.started += 1
        self._stage = -1
        self.action.setEnabled(False)
        self.progress.begin("Solving posture: starting the solver…")
        self.timer.start()
        return out

    def poll(self) -> None:
        """Drain the job's events (GUI thread, never blocks)."""
        job = self.job
        if job is None:
            return
        for ev in job.poll():
            if ev.kind == "plan":
                self.progress.plan(len(ev.stages))
            elif ev.kind == "progress":
                if ev.stage in job.stages:
                    self._stage = max(self._stage, job.stages.index(ev.stage))
                self.progress.step(max(self._stage, 0), len(job.stages) or 1, ev.stage, ev.iteration, ev.objective)
            elif ev.kind == "done":
                self._end()
                self.finished.emit(str(ev.folder))
                return
            elif ev.kind == "error":
                self._end()
                self.failed.emit(ev.message)
                return

    def cancel(self) -> None:
        """Stop the running solve (nothing is kept)."""
        if self.job is not None and self.job.running:
            self.job.cancel()
            self._end()
            self.cancelled.emit()

    def _end(self) -> None:
        self.timer.stop()
        self.progress.end()
        self.action.setEnabled(True)
