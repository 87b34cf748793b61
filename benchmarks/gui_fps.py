"""GUI frame rate while simulating in real time with all default scopes (offscreen), and the
delay from a gain-slider move to its effect in the engine, in frames.

Run: ``QT_QPA_PLATFORM=offscreen python benchmarks/gui_fps.py [--seconds 5] [--speed 1]``.
Prints figures; never passes or fails on time.

Definition of frames per second (printed with the result): the number of GUI frames after
which the stick-figure view was actually repainted (the animation advances on every GUI
frame; a second repaint of the same frame is not counted) divided by the wall time of the
run, while the window is shown (offscreen platform: Qt paints into the offscreen backing store exactly as it would on
screen), the simulation advances at ``--speed`` x real time and all default scopes are in
the visible Scopes tab. The event loop is driven with ``processEvents`` as ``app.exec()``
would drive it; nothing is grabbed or painted by the benchmark itself. The scopes are
refreshed round-robin while running (see ``app.gui.scopes.scopes``), so their own refresh rate
per plot and their paint count are printed as well.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtCore, QtWidgets

from app.gui.main_window import MainWindow
from app.gui.session.controls import SPEEDS
from app.gui.session.session import SimSession


class PaintCounter(QtCore.QObject):
    """Counts the paint events of the widgets it is installed on, and the distinct GUI frames
    (``window.run_control.frames`` at the time of the paint) in which each was painted."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self.window = window
        self.counts: dict[str, int] = {}
        self.frames: dict[str, set[int]] = {}
        self.names: dict[int, str] = {}

    def watch(self, widget: QtWidgets.QWidget, name: str) -> None:
        self.names[id(widget)] = name
        self.counts[name] = 0
        self.frames[name] = set()
        widget.installEventFilter(self)

    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.Paint and id(obj) in self.names:
            name = self.names[id(obj)]
            self.counts[name] += 1
            self.frames[name].add(self.window.run_control.frames)
        return False


class PartTimer:
    """Wall time spent in named methods (wrapped on their instances) and in Qt's paint events of
    watched widgets (from the Paint event to the widget's next event-filter pass is not measurable
    from outside, so painting is timed by ``QWidget.paintEvent`` of the viewports' views)."""

    def __init__(self) -> None:
        self.spent: dict[str, list[float]] = {}

    def wrap(self, obj: object, name: str, label: str) -> None:
        fn = getattr(obj, name)
        spent = self.spent.setdefault(label, [])

        def timed(*a: object, **k: object) -> object:
            t0 = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                spent.append(time.perf_counter() - t0)

        setattr(obj, name, timed)

    def report(self, frames: int, wall: float) -> None:
        print(f"per-frame cost of the parts ({frames} frames in {wall:.2f} s wall; ms per frame = total / frames):")
        for label, xs in self.spent.items():
            print(f"  {label:<34s} {1e3 * sum(xs) / max(frames, 1):6.2f} ms/frame  ({len(xs)} calls, "
                  f"median {1e3 * sorted(xs)[len(xs) // 2] if xs else 0.0:.2f} ms)")
        busy = sum(sum(xs) for xs in self.spent.values())
        print(f"  {'sum of the parts':<34s} {1e3 * busy / max(frames, 1):6.2f} ms/frame")


def profile_parts(win: MainWindow) -> PartTimer:
    """Wrap the parts of a frame: stepping, the stick figure, scope updates, pyqtgraph's deferred
    updates and the paints of the figure, the scopes and the whole window."""
    parts = PartTimer()
    rc = win.run_control
    parts.wrap(rc.session, "advance_frame", "stepping (advance_frame)")
    parts.wrap(rc, "_draw_figure", "stick figure (setData)")
    parts.wrap(win.scopes, "refresh_live", "scope updates (refresh_live)")
    parts.wrap(rc, "_update_status", "status bar + timeline")
    parts.wrap(win.scopes.scene(), "prepareForPaint", "scopes prepareForPaint")
    parts.wrap(win.figure.plot.scene(), "prepareForPaint", "figure prepareForPaint")
    parts.wrap(win.figure.plot, "paintEvent", "paint: figure view")
    parts.wrap(win.scopes, "paintEvent", "paint: scopes view")
    parts.wrap(win.figure.header, "paintEvent", "paint: figure header")
    return parts


def playback(app: QtWidgets.QApplication, win: MainWindow, painted: PaintCounter, speed: float) -> None:
    """Finish the run, then play it back from the start at ``speed`` (Run on a finished run)."""
    s = win.session
    s.t_end = s.time
    win.run_control.update_views()
    win.timeline.set_end(s.time - s.runner.t0, True)
    frames0, shown0 = win.run_control.frames, set(painted.frames["figure"])
    start = time.perf_counter()
    plays = 0
    while time.perf_counter() - start < 3.0:          # play it again until 3 s of wall time are measured
        win.run_control.set_running(True)
        assert win.run_control.playing, "Run on a finished run should play it back"
        plays += 1
        while win.run_control.playing:
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    wall = time.perf_counter() - start
    shown = len(painted.frames["figure"] - shown0)
    played = s.time - s.runner.t0
    print(f"playback of the {played:.2f} s run at {speed:g}x, {plays} times: {wall:.2f} s wall "
          f"(ideal {plays * played / speed:.2f}); "
          f"{win.run_control.frames - frames0} frames, {shown} painted -> {shown / wall:.1f} frames/s "
          f"(goal at 10x >= 30)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=5.0, help="simulated seconds at the chosen speed")
    ap.add_argument("--speed", type=float, default=1.0, help="x real time (default 1)")
    ap.add_argument("--profile", action="store_true", help="print the per-frame cost of the parts of a frame")
    ap.add_argument("--playback", action="store_true",
                    help="also play the finished run back at --speed (no simulation) and print its frame rate")
    args = ap.parse_args()
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    settings = QtCore.QSettings(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope, "gaitblocks",
                                "bench")
    win = MainWindow(SimSession(t_end=args.seconds + 1.0), settings=settings, hook_exceptions=False)
    win.resize(1600, 1000)   # the window size measured before it was fitted to the screen (offscreen: 800 x 800)
    win.show()
    labels = [s for _, s in SPEEDS]
    win.controls.speed.setCurrentIndex(labels.index(args.speed) if args.speed in labels else 3)
    for _ in range(10):                                    # settle the first layout and paint
        app.processEvents()
    painted = PaintCounter(win)
    painted.watch(win.figure.plot.viewport(), "figure")
    painted.watch(win.scopes.viewport(), "scopes")
    frame_wall: list[float] = []
    orig = win.run_control.frame

    def timed() -> None:
        t0 = time.perf_counter()
        orig()
        frame_wall.append(time.perf_counter() - t0)

    win.run_control.timer.timeout.disconnect(win.run_control.frame)
    win.run_control.timer.timeout.connect(timed)
    parts = profile_parts(win) if args.profile else None
    refreshes0 = win.scopes.live_refreshes
    start = time.perf_counter()
    win.run_control.set_running(True)
    while win.run_control.running and win.session.time < args.seconds:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    wall = time.perf_counter() - start
    win.run_control.set_running(False)
    s = win.session
    n_scopes = len(win.scopes.scopes)
    refreshes = win.scopes.live_refreshes - refreshes0
    print("fps = GUI frames after which the stick-figure view was repainted / wall time; offscreen,")
    print(f"      simulating at {args.speed:g}x real time with all {n_scopes} default scopes visible")
    print(f"scopes: {n_scopes} plots, {sum(len(sc.curves) for sc in win.scopes.scopes)} curves")
    print(f"simulated {s.time:.2f} s in {wall:.2f} s wall: real-time factor {s.time / wall:.2f} "
          f"(target {args.speed:g})")
    shown = len(painted.frames["figure"])
    print(f"GUI frames (timer ticks): {len(frame_wall)}; frames painted: {shown} "
          f"(figure paint events: {painted.counts['figure']})  ->  {shown / wall:.1f} frames/s (goal >= 50)")
    print(f"scopes: {painted.counts['scopes']} paints, {refreshes} plot refreshes = "
          f"{refreshes / wall / max(n_scopes, 1):.1f} refreshes/s per plot (round-robin, "
          f"<= {win.scopes.per_frame} per frame, each <= {win.scopes.live_hz:g}/s)")
    fw = sorted(frame_wall)
    print(f"frame work (stepping + setData, without painting): median {1e3 * fw[len(fw) // 2]:.1f} ms, "
          f"95th percentile {1e3 * fw[int(0.95 * len(fw))]:.1f} ms")
    if parts is not None:
        parts.report(len(frame_wall), wall)
    # slider -> effect: move Kp, count frames until the registry applied it in the engine
    row = next(iter(win.gains.rows.values()))
    ref = f"{row.block}.{row.gain}"
    n_log = len(s.param_log())
    s.t_end = s.time + 2.0
    win.run_control.set_running(True)
    row.slider.setValue(row.slider.value() + 20)
    frames = 0
    while len(s.param_log()) == n_log and frames < 100:
        win.run_control.frame()
        frames += 1
    win.run_control.set_running(False)
    change = s.param_log()[-1] if len(s.param_log()) > n_log else None
    print(f"slider -> engine delay: {frames} frame(s); {ref} applied at t = "
          f"{change['t'] if change else float('nan'):.3f} s (goal <= 1 frame)")
    if args.playback:
        playback(app, win, painted, args.speed)
    win.close()


if __name__ == "__main__":
    main()
