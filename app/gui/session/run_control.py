"""Running the simulation in the main window: the frame timer, the views it redraws, the timeline.

:class:`RunController` is an object the window holds (``window.run_control``); it is given the
session and the widgets it drives (:class:`RunViews`) explicitly and knows nothing else of the
window. Its ``QTimer`` (``FRAME_MS`` = 16 ms) calls :meth:`RunController.frame`,
which steps the session within a frame budget at the chosen speed and then updates the
figure, the scopes (``setData``) and the status bar; the run is paused on a blow-up (the
message names block, port, time, value) and the recorded results are kept. A run that reaches
its end (or its fall) is paused in one event-loop turn, its scopes take the whole run one per
turn (:meth:`~app.gui.scopes.scopes.ScopeStack.stop_live`) and it is evaluated in the turn after
(:meth:`RunController.finish_ending`), so that none of it freezes the window for long.

**Playback**: Run on a finished (or failed) run, with the timeline at its end, plays the recorded
run back from the start at the toolbar's speed (0.1x-10x) without simulating (:meth:`RunController.play`);
Pause stops it where it is (Run from there then re-simulates from that time, as after scrubbing).

Frame cost (``benchmarks/gui_fps.py``): the stick figure is redrawn every frame; the scopes
are refreshed round-robin, one or two plots per frame at about 12 Hz each
(:meth:`~app.gui.scopes.scopes.ScopeStack.refresh_live`); the timeline and status bar at 10 Hz;
pyqtgraph's deferred range updates are run before Qt paints, so each view is painted once
per frame.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6 import QtCore, QtWidgets

from app.gui.editing.canvas import DiagramCanvas
from app.gui.editing.gain_panel import GainPanel
from app.gui.figure.stick_figure import StickFigure, draw_mechanism
from app.gui.scopes.scopes import ScopeStack
from app.gui.session.controls import ControlBar, Timeline
from app.gui.session.errors import ErrorReporter, show_error
from app.gui.session.session import Plan, SimSession
from app.gui.solve.validity_panel import ValidityPanel
from app.walking import status_text

__all__ = ["BUDGET_S", "FRAME_MS", "MAX_BUDGET_S", "PLAYBACK_MAX", "STATUS_S", "RunController", "RunViews"]

FRAME_MS = 16
BUDGET_S = 0.010
MAX_BUDGET_S = 0.016   # solver time per frame at most: at 10x real time the frame rate stays >= ~30/s
PLAYBACK_MAX = 10.0  # playback speed [x real time] for "as fast as possible"
STATUS_S = 0.1      # while running, the status bar and timeline are rewritten at most every STATUS_S


@dataclass(frozen=True)
class RunViews:
    """The widgets a run redraws: the toolbar (Run toggle, speed), the timeline, the diagram
    (tooltips), the stick figure, the gain panel (synced on rewind), the scopes, the validity
    panel and the four status-bar labels (sim time, real-time factor, frames per second, state)."""

    controls: ControlBar
    timeline: Timeline
    canvas: DiagramCanvas
    figure: StickFigure
    gains: GainPanel
    scopes: ScopeStack
    validity: ValidityPanel
    status_time: QtWidgets.QLabel
    status_rtf: QtWidgets.QLabel
    status_fps: QtWidgets.QLabel
    status_state: QtWidgets.QLabel


class RunController(QtCore.QObject):
    """Run, pause, step, reset and scrub one :class:`SimSession` and redraw :class:`RunViews`.

    ``session`` is replaced by the window when it opens a session file; ``errors`` collects the
    blow-up dialogs, shown over ``dialog_parent``. ``run_changed`` says ``"ended"`` when a run
    finished or failed and ``"reset"`` after Reset replaced it (the run inspector keeps it then)."""

    run_changed = QtCore.Signal(str)

    def __init__(self, session: SimSession, views: RunViews, errors: ErrorReporter,
                 dialog_parent: QtWidgets.QWidget) -> None:
        super().__init__(dialog_parent)
        self.session = session
        self.views = views
        self.errors = errors
        self._dialog_parent = dialog_parent
        self.timer = QtCore.QTimer(self)
        self.timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)   # coarse: up to 5 % late, and frames slipped
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self.frame)
        self.running = False
        self.playing = False       # playing the recorded run back (:meth:`play`)
        self._play_t = 0.0
        self._cursor_at = -1.0
        self._last = time.perf_counter()
        self._fps_frames: list[float] = []
        self._rtf = (time.perf_counter(), 0.0)
        self._status_at = -1.0
        self.frames = 0
        self.summary: dict[str, Any] | None = None     # of the last run evaluated (:meth:`evaluate`)
        self.ending: SimSession | None = None           # a run ended, not evaluated yet (:meth:`finish_ending`)
        self._ending_runner: Any = None
        # set by the window: compiles a plan off the GUI thread, ``background(plan, on_done)``
        # (app.gui.session.background_compile); None: Reset recompiles here
        self.background: Callable[[Plan, Callable[[Any], None]], None] | None = None

    def set_running(self, on: bool) -> None:
        """Run or pause. Pausing a paused run changes nothing (no redraw: every recompile and file
        action pauses first, and a full redraw of the scopes there cost 12-20 ms plus its paint)."""
        if not on and self.playing:
            self.stop_playback()
        if not on and not self.running:
            return
        if on and (self.session.finished or self.session.failed) and self.views.timeline.at_end() \
                and self.session.runner.recorder.length > 1:
            self.play()
            return
        if on and not self.views.timeline.at_end():
            self.session.rewind(self.views.timeline.position())
            self.views.gains.sync()
        if on and (self.session.finished or self.session.failed):
            on = False
        self.running = on
        self.views.controls.run_action.blockSignals(True)
        self.views.controls.run_action.setChecked(on)
        self.views.controls.run_action.blockSignals(False)
        self.views.controls._run_toggled(on)
        self.views.scopes.follow = True
        self._last = time.perf_counter()
        if on:   # the real-time factor and frame rate count from now, not from the last run or idle time
            self.views.scopes.set_live(True)
            self._rtf, self._fps_frames = (self._last, self.session.time), []
            self.timer.start()
        else:
            self.timer.stop()
            self.views.scopes.stop_live()      # the whole run into the scopes, one plot per event-loop turn
            self._update_status(follow=self.views.timeline.at_end())   # catch up unless the user scrubbed

    # ----------------------------------------------------------------- playback
    def play(self, start: float = 0.0) -> None:
        """Play the recorded run back from ``start`` [s after t0] at the toolbar's speed (0.1x-10x;
        *as fast as possible* plays at :data:`PLAYBACK_MAX`x), without simulating: the figure, the
        scopes' cursor and the timeline follow. Run on a finished run does this; Pause stops it."""
        self.playing, self._play_t = True, start
        self._cursor_at = -1.0
        for sc in self.views.scopes.scopes:
            sc.thin_pens(True)      # every plot repaints when its cursor moves: 1 px pens paint 2.7x faster
        self._set_run_action(True)
        self._last = time.perf_counter()
        self.timer.start()

    def stop_playback(self) -> None:
        self.playing = False
        self.timer.stop()
        for sc in self.views.scopes.scopes:
            sc.thin_pens(False)
        self.views.scopes.set_cursor(self.session.runner.t0 + self._play_t)
        self.views.timeline.show_position(self._play_t)
        self._set_run_action(False)

    def _set_run_action(self, on: bool) -> None:
        self.views.controls.run_action.blockSignals(True)
        self.views.controls.run_action.setChecked(on)
        self.views.controls.run_action.blockSignals(False)
        self.views.controls._run_toggled(on)

    def _playback_frame(self, now: float, wall_dt: float) -> None:
        s = self.session
        speed = self.views.controls.speed_value() or PLAYBACK_MAX
        end = (s.runner.recorder.length - 1) * s.dt
        self._play_t = min(self._play_t + speed * wall_dt, end)
        k = int(round(self._play_t / s.dt))
        self.update_views(tick=k, now=now)
        if now - self._cursor_at >= STATUS_S:       # the scopes' cursors and the timeline at 10 Hz
            self._cursor_at = now
            self.views.scopes.set_cursor(s.runner.t0 + k * s.dt)
            self.views.timeline.show_position(self._play_t)
        self.views.scopes.scene().prepareForPaint()
        self.views.figure.plot.scene().prepareForPaint()
        self._count_frame(now)
        if self._play_t >= end:
            self.stop_playback()

    def frame(self) -> None:
        """One GUI frame: step within the budget, then redraw (or one frame of playback)."""
        now = time.perf_counter()
        wall_dt = min(now - self._last, 0.1)
        self._last = now
        if self.playing:
            self._playback_frame(now, wall_dt)
            return
        s = self.session
        if self.running:
            # half of the measured frame interval goes to the solver (at least BUDGET_S), so a slow
            # display still keeps up with real time when the engine can; at most MAX_BUDGET_S, or a
            # speed the engine cannot reach (10x) would lengthen every frame, and so the budget, in turn
            budget = min(MAX_BUDGET_S, max(BUDGET_S, 0.5 * wall_dt))
            s.advance_frame(budget, self.views.controls.speed_value(), wall_dt)
        self.update_views(now=now)
        # let pyqtgraph's deferred range/matrix updates run now, not inside the paint event, where
        # they would dirty the views again and make Qt paint them twice per frame
        self.views.scopes.scene().prepareForPaint()
        self.views.figure.plot.scene().prepareForPaint()
        self._count_frame(now)
        if s.failed:
            self.set_running(False)
            assert s.error is not None
            self.evaluate()
            self.errors.dialogs.append(_warn(self._dialog_parent, "Simulation stopped", s.error.text()))
            self.run_changed.emit("ended")
        elif s.finished and self.running:
            self.set_running(False)
            if s.falls.fall is not None:   # stopped at a fall: the whole run up to it (drawn in full by the pause)
                self.views.scopes.follow = False
                self.views.scopes.fit_x()
            # the summary, the validity panel and keeping the run in the event-loop turn after the
            # scopes took the whole run (one per turn): all in one turn froze the window 0.2-0.7 s
            self.ending, self._ending_runner = s, s.runner
            self.views.scopes.settling.then(self.finish_ending)

    def finish_ending(self) -> None:
        """Evaluate the run that just reached its end (:meth:`evaluate`) and say ``"ended"`` (the
        run inspector keeps it): the second half of the end of a run, in the event-loop turn after
        the one that stopped it. Nothing if none is pending, or if the session was replaced
        meanwhile (the inspector keeps a replaced run itself)."""
        s, self.ending = self.ending, None
        if s is not None and s is self.session and s.runner is self._ending_runner:
            self.evaluate()
            self.run_changed.emit("ended")

    def evaluate(self) -> dict[str, Any]:
        """Summarise the run so far: the validity panel, a fall marker on the scopes, the status bar."""
        summary = self.summary = self.session.summary()
        self.views.validity.show_summary(summary)
        self.views.scopes.mark_fall(summary.get("fell_at_s"))
        self.views.status_state.setText(f"{status_text(summary)} · t = {self.session.time:.3f} s · "
                                        f"{self.session.label()}")
        return summary

    def step_frame(self) -> None:
        """Advance one display frame of simulated time (20 ms) and redraw."""
        self.set_running(False)
        self.session.step(max(1, int(round(0.02 / self.session.dt))))
        self.update_views()

    def reset(self) -> None:
        """Start again from t0 (a recompile: 80-110 ms, so in the window's background worker when
        :attr:`background` is set; the old run stays on screen until it arrives)."""
        self.set_running(False)
        s = self.session
        if self.background is not None:
            plan = s.plan_reset()

            def done(built: Any) -> None:
                if self.session is s:
                    s.adopt(plan, built)
                    self._reset_done()

            self.background(plan, done)
            return
        s.reset()
        self._reset_done()

    def _reset_done(self) -> None:
        self.run_changed.emit("reset")
        self.views.gains.sync()
        self.update_views()

    def update_views(self, tick: int | None = None, now: float | None = None, scopes: bool = True) -> None:
        """Redraw the figure at ``tick`` (None: the newest sample, and then also the scopes,
        timeline and tooltips). While running, the scopes refresh round-robin
        (:meth:`ScopeStack.refresh_live`) and the timeline and status bar every ``STATUS_S``;
        ``now`` is the frame's ``time.perf_counter()``. Without ``scopes`` the scopes are left
        alone (a bind that redraws them a scope per turn: ``ScopeStack.rebind``)."""
        s = self.session
        now = time.perf_counter() if now is None else now
        n = s.runner.recorder.length
        follow = tick is None
        k = n - 1 if tick is None else min(max(tick, 0), n - 1)
        if k >= 0:
            self._draw_figure(k)
        if follow:
            if scopes and self.running:
                self.views.scopes.refresh_live(now)
            elif scopes:
                self.views.scopes.refresh(full=True)
            if self.frames % 15 == 0:
                self.views.canvas.refresh_tooltips()
        if not self.running or now - self._status_at >= STATUS_S:
            self._status_at = now
            self._update_status(follow)

    def _update_status(self, follow: bool = True) -> None:
        """Timeline range (when following the run) and the status-bar texts."""
        s = self.session
        if follow:
            self.views.timeline.set_end(s.time - s.runner.t0, True)
        self.views.status_time.setText(f"sim t = {s.time:.3f} s")
        state = "FAILED" if s.failed else ("running" if self.running else ("finished" if s.finished else "paused"))
        self.views.status_state.setText(f"{state} · {s.label()}")

    def _draw_figure(self, k: int) -> None:
        s = self.session
        qn = s.find("FiveLinkDynamics", "q")
        if qn is None:
            pts = s.find("PlanarMechanism", "points")
            if pts is not None:
                draw_mechanism(self.views.figure, s.diagram, pts, float(s.runner.t0 + k * s.dt), s.recorded(pts)[k])
            else:                                             # no body to draw: says so, and the time
                if self.views.figure.mechanism != ():
                    self.views.figure.set_mechanism(())
                self.views.figure.header.setText(f"t = {s.runner.t0 + k * s.dt:.4f} s")
            return
        if self.views.figure.mechanism is not None:
            self.views.figure.set_mechanism(None)
        names = [s.find("GrfSource", "F"), s.find("PhaseDetector", "stance"), s.find("PhaseDetector", "phase")]
        grf, st, ph = (s.recorded(n)[k] if n else None for n in names)
        com = s.find("BipedKinematics", "com")
        trail = s.recorded(com)[max(0, k - int(2.0 / s.dt)): k + 1: 20] if com else None
        ref = s.find("ReferenceSource", "angles")
        t = float(s.runner.t0 + k * s.dt)
        fall = s.falls.fall
        self.views.figure.show_fall(status_text({"status": "fell", "fell_at_s": fall.at_s, "fell_because": fall.cause})
                                    if fall is not None and t >= fall.at_s - 1e-9 else None)
        self.views.figure.show_state(t, s.recorded(qn)[k], grf, st,
                                     None if ph is None else int(ph), trail, s.recorded(ref)[k] if ref else None)

    def _count_frame(self, now: float) -> None:
        self.frames += 1
        self._fps_frames = [t for t in self._fps_frames if now - t < 1.0] + [now]
        t0, sim0 = self._rtf
        if now - t0 >= 0.5 or (self.session.finished and now > t0):  # a short run ends within 0.5 s
            self.views.status_fps.setText(f"{self.fps():.0f} frames/s")
            rtf = (self.session.time - sim0) / (now - t0)
            self.views.status_rtf.setText(f"real-time factor {rtf:.2f}×")
            self._rtf = (now, self.session.time)

    def fps(self) -> float:
        f = self._fps_frames
        return (len(f) - 1) / (f[-1] - f[0]) if len(f) > 1 and f[-1] > f[0] else 0.0

    # ----------------------------------------------------------------- timeline
    def scrub(self, t: float) -> None:
        """Show the recorded state at time ``t`` without changing the run (Run resumes from ``t``)."""
        if self.running:
            self.set_running(False)
        if self.playing:
            self.stop_playback()
        s = self.session
        k = int(round(t / s.dt))
        self.update_views(tick=k)
        self.views.scopes.set_cursor(s.runner.t0 + k * s.dt)

    def follow_cursor(self, t: float) -> None:
        """Show the recorded state at the scopes' cursor time ``t`` [s]."""
        self.update_views(tick=int(round((t - self.session.runner.t0) / self.session.dt)))


def _warn(parent: QtWidgets.QWidget, title: str, text: str) -> QtWidgets.QMessageBox:
    return show_error(parent, title, text, icon=QtWidgets.QMessageBox.Icon.Warning)
