"""GUI frame rate while simulating in real time with all default scopes (offscreen), and the
delay from a gain-slider move to its effect in the engine, in frames.

Run: ``QT_QPA_PLATFORM=offscreen python benchmarks/gui_fps.py [--seconds 5] [--speed 1]``.
Prints figures; never passes or fails on time.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtCore, QtWidgets  # noqa: E402

from app.gui.controls import SPEEDS  # noqa: E402
from app.gui.main_window import MainWindow  # noqa: E402
from app.gui.session import SimSession  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=5.0, help="simulated seconds at the chosen speed")
    ap.add_argument("--speed", type=float, default=1.0, help="x real time (default 1)")
    args = ap.parse_args()
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    settings = QtCore.QSettings(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope, "gaitblocks",
                                "bench")
    win = MainWindow(SimSession(t_end=args.seconds + 1.0), settings=settings, hook_exceptions=False)
    win.show()
    labels = [s for _, s in SPEEDS]
    win.controls.speed.setCurrentIndex(labels.index(args.speed) if args.speed in labels else 3)
    frame_wall: list[float] = []
    orig = win.frame

    def timed() -> None:
        t0 = time.perf_counter()
        orig()
        frame_wall.append(time.perf_counter() - t0)

    win.timer.timeout.disconnect(win.frame)
    win.timer.timeout.connect(timed)
    start = time.perf_counter()
    win.set_running(True)
    while win.running and win.session.time < args.seconds:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    wall = time.perf_counter() - start
    win.set_running(False)
    s = win.session
    print(f"scopes: {len(win.scopes.scopes)} plots, {sum(len(sc.curves) for sc in win.scopes.scopes)} curves")
    print(f"simulated {s.time:.2f} s in {wall:.2f} s wall: real-time factor {s.time / wall:.2f} "
          f"(target {args.speed:g})")
    print(f"frames: {len(frame_wall)}  ->  {len(frame_wall) / wall:.1f} frames/s (goal >= 50)")
    fw = sorted(frame_wall)
    print(f"frame work: median {1e3 * fw[len(fw) // 2]:.1f} ms, 95th percentile {1e3 * fw[int(0.95 * len(fw))]:.1f} ms")
    # slider -> effect: move Kp, count frames until the registry applied it in the engine
    row = next(iter(win.gains.rows.values()))
    ref = f"{row.block}.{row.gain}"
    n_log = len(s.param_log())
    s.t_end = s.time + 2.0
    win.set_running(True)
    row.slider.setValue(row.slider.value() + 20)
    frames = 0
    while len(s.param_log()) == n_log and frames < 100:
        win.frame()
        frames += 1
    win.set_running(False)
    change = s.param_log()[-1] if len(s.param_log()) > n_log else None
    print(f"slider -> engine delay: {frames} frame(s); {ref} applied at t = "
          f"{change['t'] if change else float('nan'):.3f} s (goal <= 1 frame)")
    win.close()


if __name__ == "__main__":
    main()
