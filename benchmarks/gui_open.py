"""The main window's cost to open and to close (offscreen), the figure behind the GUI tests' CPU.

Run: ``QT_QPA_PLATFORM=offscreen python benchmarks/gui_open.py [--repeats 10] [--profile]``.
Prints figures; never passes or fails on time.

Each repeat does what ``tests/gui/conftest.py``'s ``open_window`` does: a ``SimSession`` 2.5 s long, a
:class:`~app.gui.main_window.MainWindow` over it, shown, with the fastest speed chosen (*open*); then
``errors.close_all()``, ``close()`` and the deferred deletions that pytest-qt's ``addWidget`` cleanup sends
(*close*). The heap is frozen first, as ``gaitblocks gui`` and the GUI tests do
(:func:`~app.gui.session.gui_gc.freeze_startup_heap`; ``--no-freeze`` leaves it). A first, unmeasured repeat
warms the caches (numba's, the imports, Qt's fonts). The thread CPU time (``time.thread_time``) and the wall
time of each part are printed as medians over the repeats, with the load average of the machine. ``--profile``
prints a cProfile of the open and close of one more repeat, sorted by cumulative time.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtCore, QtWidgets

from app.gui.main_window import MainWindow
from app.gui.session.gui_gc import freeze_startup_heap
from app.gui.session.session import SimSession


def open_close(settings: QtCore.QSettings) -> tuple[tuple[float, float], tuple[float, float]]:
    """One open and close as the GUI tests' fixture does them: ((open cpu, wall), (close cpu, wall)) [s]."""
    c0, w0 = time.thread_time(), time.perf_counter()
    win = MainWindow(SimSession(t_end=2.5), settings=settings)
    win.show()
    win.controls.speed.setCurrentIndex(win.controls.speed.count() - 1)
    QtWidgets.QApplication.processEvents()
    c1, w1 = time.thread_time(), time.perf_counter()
    win.errors.close_all()
    win.close()
    win.deleteLater()
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    c2, w2 = time.thread_time(), time.perf_counter()
    return (c1 - c0, w1 - w0), (c2 - c1, w2 - w1)


def profiled(fn: Callable[[], object]) -> None:
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(45)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--profile", action="store_true", help="a cProfile of one more open and close")
    ap.add_argument("--no-freeze", action="store_true", help="do not freeze the heap the imports built")
    args = ap.parse_args()
    QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    if not args.no_freeze:
        freeze_startup_heap()
    with tempfile.TemporaryDirectory() as tmp:
        settings = QtCore.QSettings(str(Path(tmp) / "settings.ini"), QtCore.QSettings.Format.IniFormat)
        open_close(settings)
        rows = [open_close(settings) for _ in range(args.repeats)]
        load = os.getloadavg()[0]
        for i, part in enumerate(("open", "close")):
            cpu = statistics.median(r[i][0] for r in rows)
            wall = statistics.median(r[i][1] for r in rows)
            print(f"{part:5s}: median of {args.repeats}: {cpu * 1e3:6.0f} ms CPU, {wall * 1e3:6.0f} ms wall")
        print(f"load average (1 min): {load:.2f} on {os.cpu_count()} cores")
        if args.profile:
            profiled(lambda: open_close(settings))


if __name__ == "__main__":
    main()
