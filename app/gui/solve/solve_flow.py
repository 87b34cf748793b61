"""The window's *Solve posture* flow: solve in the background, then show the solved gait everywhere.

:class:`SolveFlow` composes the pieces and is given the widgets it drives:

* :class:`~app.gui.solve.solve_control.SolveControl` -- the action, the job, the progress and Cancel;
* on ``finished`` it reads the folder (:func:`~app.gui.solve.solve_data.load_solved`) and shows it:
  the *Solved gait* tab (:class:`~app.gui.solve.solve_view.SolvedView`: solved and recorded trunk, hip
  and knee over the cycle), the Validity panel (:meth:`ValidityPanel.show_solution`), and the
  stick figure (:class:`~app.gui.solve.solve_view.SolvedPlayer`, from *Play on the stick figure*), with
  the recording as the ghost;
* ``run_on(folder)``, the window's hook that makes the diagram run on the new solution
  (``RunSpec.solution``), is called when the spec has that field.

The *Solved gait* view is made when first needed (:attr:`SolveFlow.view`: 70 ms that most windows
never spend). The window's tab is not switched to *Solved gait* when a solve finishes: the first paint
of its three plots takes about 100 ms on a loaded machine, and the solve's end must not stall the event
loop; the status bar says where the solution is, and the stick figure shows its first pose at once.

The solution is part of the session's saved state: :attr:`SolveFlow.folder` goes into the session
file (``view["solution"]``), and :meth:`SolveFlow.open` shows a saved folder again without
solving (a folder that has gone is named in the status bar).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtWidgets

from app.gui.figure.stick_figure import StickFigure
from app.gui.session.session import Plan, SimSession
from app.gui.solve.solve_control import SolveControl
from app.gui.solve.solve_data import SolvedGait, load_solved
from app.gui.solve.solve_view import SolvedPlayer, SolvedView
from app.gui.solve.validity_panel import ValidityPanel
from models.errors import DataFormatError, UserError

__all__ = ["SolveFlow", "solution_plan", "spec_takes_solution"]


def spec_takes_solution() -> bool:
    """True when :class:`~app.runs.RunSpec` has a ``solution`` field (a diagram can walk a given solve)."""
    from app.runs import RunSpec

    return "solution" in {f.name for f in fields(RunSpec)}


def solution_plan(session: SimSession, folder: str) -> Plan:
    """The session's run with ``RunSpec.solution = folder`` (only when :func:`spec_takes_solution`)."""
    solution: dict[str, Any] = {"solution": folder}   # a field of the solved-gait diagrams' RunSpec
    return session._plan(_spec=replace(session.spec, **solution))


class SolveFlow(QtCore.QObject):
    """Solve posture, then show the solution (module doc)."""

    shown = QtCore.Signal(str)     # a solution folder is on screen

    def __init__(self, parent: QtWidgets.QWidget, *, spec: Callable[[], Any], figure: StickFigure,
                 validity: ValidityPanel, status: Callable[[str], None], report: Callable[[str, BaseException], Any],
                 before_play: Callable[[], None], run_on: Callable[[str], None]) -> None:
        super().__init__(parent)
        self.spec, self.status, self.report, self.run_on = spec, status, report, run_on
        self.validity, self.before_play = validity, before_play
        self.control = SolveControl(parent)
        self._view: SolvedView | None = None
        self.player = SolvedPlayer(figure, self)
        self.gait: SolvedGait | None = None
        self.control.action.triggered.connect(self.start)
        self.control.finished.connect(self._finished)
        self.control.failed.connect(lambda text: self.report("Posture solve failed", UserError(text)))
        self.control.cancelled.connect(lambda: self.status("Posture solve cancelled: nothing kept"))
        self.player.stopped.connect(lambda: None if self._view is None else self._view.play.setChecked(False))

    @property
    def view(self) -> SolvedView:
        """The *Solved gait* view, made when first asked for: by the window's tab when first shown
        (:mod:`app.gui.lazy_tabs`), or by :meth:`open`, which shows a solution in it."""
        if self._view is None:
            self._view = SolvedView()
            self._view.play.toggled.connect(self._play)
        return self._view

    @property
    def folder(self) -> str | None:
        """The folder of the solution on screen (None: none)."""
        return None if self.gait is None else str(self.gait.folder)

    def start(self) -> None:
        """Solve the session's dataset in the background (the action's slot)."""
        if not self.control.running:
            self.control.start(self.spec())

    def _finished(self, folder: str) -> None:
        if self.open(folder):
            self.status(f"Posture solved: {self.gait.status if self.gait else ''}. The Solved gait tab, the "
                        f"Validity panel and the stick figure show it ({folder})")
            if spec_takes_solution():
                self.run_on(folder)

    def open(self, folder: str | Path | None) -> bool:
        """Show the solution in ``folder`` (no solving); False (and a status message) if it cannot be read."""
        if not folder:
            return False
        try:
            gait = load_solved(folder)
        except DataFormatError as exc:
            self.status(f"The session's posture solution cannot be shown: {exc}")
            return False
        self.player.stop()
        self.gait = gait
        self.view.show_gait(gait)
        self.validity.show_solution(gait.summary)
        self.player.gait = gait
        self.player.show_at(0.0)
        self.shown.emit(str(gait.folder))
        return True

    def _play(self, on: bool) -> None:
        if on and self.gait is not None:
            self.before_play()
            self.player.play(self.gait)
        elif not on:
            self.player.stop()

    def close(self) -> None:
        self.player.stop()
        self.control.cancel()
