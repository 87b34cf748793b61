"""Running the simulation in the main window: the frame timer, the views it redraws, the timeline.

A ``QTimer`` (``FRAME_MS`` = 16 ms, created by the window) calls :meth:`RunControl.frame`,
which steps the session within a frame budget at the chosen speed and then updates the
figure, the scopes (``setData``) and the status bar; the run is paused on a blow-up (the
message names block, port, time, value) and the recorded results are kept.

Frame cost (``benchmarks/gui_fps.py``): the stick figure is redrawn every frame; the scopes
are refreshed round-robin, one or two plots per frame at about 12 Hz each
(:meth:`~app.gui.scopes.ScopeStack.refresh_live`); the timeline and status bar at 10 Hz;
pyqtgraph's deferred range updates are run before Qt paints, so each view is painted once
per frame.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtWidgets

from app.gui.canvas import DiagramCanvas
from app.gui.controls import ControlBar, Timeline
from app.gui.errors import ErrorReporter, show_error
from app.gui.gain_panel import GainPanel
from app.gui.scopes import ScopeStack
from app.gui.session import SimSession
from app.gui.stick_figure import StickFigure, draw_mechanism
from app.gui.validity_panel import ValidityPanel, status_text

__all__ = ["BUDGET_S", "FRAME_MS", "STATUS_S", "RunControl"]

FRAME_MS = 16
BUDGET_S = 0.010
STATUS_S = 0.1      # while running, the status bar and timeline are rewritten at most every STATUS_S

if TYPE_CHECKING:
    _Window = QtWidgets.QMainWindow
else:
    _Window = object


class RunControl(_Window):
    """Run, pause, step, reset and scrub for :class:`~app.gui.main_window.MainWindow` (a mixin:
    it uses the window's session, widgets and ``timer``)."""

    session: SimSession
    controls: ControlBar
    timeline: Timeline
    canvas: DiagramCanvas
    figure: StickFigure
    gains: GainPanel
    scopes: ScopeStack
    errors: ErrorReporter
    timer: QtCore.QTimer
    status_time: QtWidgets.QLabel
    status_rtf: QtWidgets.QLabel
    status_fps: QtWidgets.QLabel
    status_state: QtWidgets.QLabel
    validity: ValidityPanel

    def _init_run_state(self) -> None:
        self.running = False
        self._last = time.perf_counter()
        self._fps_frames: list[float] = []
        self._rtf = (time.perf_counter(), 0.0)
        self._status_at = -1.0
        self.frames = 0

    def set_running(self, on: bool) -> None:
        if on and not self.timeline.at_end():
            self.session.rewind(self.timeline.position())
            self.gains.sync()
        if on and (self.session.finished or self.session.failed):
            on = False
        self.running = on
        self.controls.run_action.blockSignals(True)
        self.controls.run_action.setChecked(on)
        self.controls.run_action.blockSignals(False)
        self.controls._run_toggled(on)
        self.scopes.follow = True
        self._last = time.perf_counter()
        self.scopes.set_live(on)
        if on:
            self.timer.start()
        else:
            self.timer.stop()
            self.scopes.refresh(full=True, stats=True)
            self._update_status(follow=self.timeline.at_end())   # catch up unless the user scrubbed

    def frame(self) -> None:
        """One GUI frame: step within the budget, then redraw."""
        now = time.perf_counter()
        wall_dt = min(now - self._last, 0.1)
        self._last = now
        s = self.session
        if self.running:
            # half of the measured frame interval goes to the solver (at least BUDGET_S), so a slow
            # display still keeps up with real time when the engine can
            s.advance_frame(max(BUDGET_S, 0.5 * wall_dt), self.controls.speed_value(), wall_dt)
        self.update_views(now=now)
        # let pyqtgraph's deferred range/matrix updates run now, not inside the paint event, where
        # they would dirty the views again and make Qt paint them twice per frame
        self.scopes.scene().prepareForPaint()
        self.figure.plot.scene().prepareForPaint()
        self._count_frame(now)
        if s.failed:
            self.set_running(False)
            assert s.error is not None
            self.evaluate()
            self.errors.dialogs.append(_warn(self, "Simulation stopped", s.error.text()))
        elif s.finished and self.running:
            self.set_running(False)
            self.evaluate()

    def evaluate(self) -> dict[str, Any]:
        """Summarise the run so far: the validity panel, a fall marker on the scopes, the status bar."""
        summary = self.session.summary()
        self.validity.show_summary(summary)
        self.scopes.mark_fall(summary.get("fell_at_s"))
        self.status_state.setText(f"{status_text(summary)} · t = {self.session.time:.3f} s · "
                                  f"dataset {self.session.dataset} · preset {self.session.preset}")
        return summary

    def step_frame(self) -> None:
        """Advance one display frame of simulated time (20 ms) and redraw."""
        self.set_running(False)
        self.session.step(max(1, int(round(0.02 / self.session.dt))))
        self.update_views()

    def reset(self) -> None:
        self.set_running(False)
        self.session.reset()
        self.gains.sync()
        self.update_views()

    def update_views(self, tick: int | None = None, now: float | None = None) -> None:
        """Redraw the figure at ``tick`` (None: the newest sample, and then also the scopes,
        timeline and tooltips). While running, the scopes refresh round-robin
        (:meth:`ScopeStack.refresh_live`) and the timeline and status bar every ``STATUS_S``;
        ``now`` is the frame's ``time.perf_counter()``."""
        s = self.session
        now = time.perf_counter() if now is None else now
        n = s.runner.recorder.length
        follow = tick is None
        k = n - 1 if tick is None else min(max(tick, 0), n - 1)
        if k >= 0:
            self._draw_figure(k)
        if follow:
            if self.running:
                self.scopes.refresh_live(now)
            else:
                self.scopes.refresh(full=True)
            if self.frames % 15 == 0:
                self.canvas.refresh_tooltips()
        if not self.running or now - self._status_at >= STATUS_S:
            self._status_at = now
            self._update_status(follow)

    def _update_status(self, follow: bool = True) -> None:
        """Timeline range (when following the run) and the status-bar texts."""
        s = self.session
        if follow:
            self.timeline.set_end(s.time - s.runner.t0, True)
        self.status_time.setText(f"sim t = {s.time:.3f} s")
        state = "FAILED" if s.failed else ("running" if self.running else ("finished" if s.finished else "paused"))
        self.status_state.setText(f"{state} · dataset {s.dataset} · preset {s.preset}")

    def _draw_figure(self, k: int) -> None:
        s = self.session
        qn = s.find("FiveLinkDynamics", "q")
        if qn is None:
            pts = s.find("PlanarMechanism", "points")
            if pts is not None:
                draw_mechanism(self.figure, s.diagram, pts, float(s.runner.t0 + k * s.dt), s.recorded(pts)[k])
            return
        if self.figure.mechanism is not None:
            self.figure.set_mechanism(None)
        names = [s.find("GrfSource", "F"), s.find("PhaseDetector", "stance"), s.find("PhaseDetector", "phase")]
        grf, st, ph = (s.recorded(n)[k] if n else None for n in names)
        com = s.find("BipedKinematics", "com")
        trail = s.recorded(com)[max(0, k - int(2.0 / s.dt)): k + 1: 20] if com else None
        self.figure.show_state(float(s.runner.t0 + k * s.dt), s.recorded(qn)[k], grf, st,
                               None if ph is None else int(ph), trail)

    def _count_frame(self, now: float) -> None:
        self.frames += 1
        self._fps_frames = [t for t in self._fps_frames if now - t < 1.0] + [now]
        t0, sim0 = self._rtf
        if now - t0 >= 0.5:
            self.status_fps.setText(f"{self.fps():.0f} frames/s")
            rtf = (self.session.time - sim0) / (now - t0)
            self.status_rtf.setText(f"real-time factor {rtf:.2f}×")
            self._rtf = (now, self.session.time)

    def fps(self) -> float:
        f = self._fps_frames
        return (len(f) - 1) / (f[-1] - f[0]) if len(f) > 1 and f[-1] > f[0] else 0.0

    # ----------------------------------------------------------------- timeline
    def scrub(self, t: float) -> None:
        """Show the recorded state at time ``t`` without changing the run (Run resumes from ``t``)."""
        if self.running:
            self.set_running(False)
        s = self.session
        k = int(round(t / s.dt))
        self.update_views(tick=k)
        self.scopes.set_cursor(s.runner.t0 + k * s.dt)

    def _cursor_moved(self, t: float) -> None:
        self.update_views(tick=int(round((t - self.session.runner.t0) / self.session.dt)))


def _warn(parent: QtWidgets.QWidget, title: str, text: str) -> QtWidgets.QMessageBox:
    return show_error(parent, title, text, icon=QtWidgets.QMessageBox.Icon.Warning)
