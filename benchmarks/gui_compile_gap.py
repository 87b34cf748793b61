"""Event-loop gaps while the GUI recompiles (dataset or preset change), compiled on the GUI
thread (``background=False``: what the toolbar did before) against the worker thread
(``background=True``: what it does now), side by side in one run.

Run: ``QT_QPA_PLATFORM=offscreen python benchmarks/gui_compile_gap.py``. Prints figures;
never passes or fails on time. A 20 ms ``QTimer`` records when the event loop turns; the
longest gap is measured from the request to the moment the new session is bound (so it
includes the GUI-thread part: adopting the compiled model and rebuilding the views).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtCore, QtWidgets  # noqa: E402

from app.gui.main_window import MainWindow  # noqa: E402
from app.gui.session import SimSession, available_datasets  # noqa: E402


def gap(app: QtWidgets.QApplication, win: MainWindow, change: str, value: str, background: bool) -> tuple[float, float]:
    """(longest event-loop gap [s], wall time until the new session is bound [s])."""
    ticks: list[float] = []
    timer = QtCore.QTimer()
    timer.timeout.connect(lambda: ticks.append(time.perf_counter()))
    timer.start(20)
    gen, t0 = win.session.generation, time.perf_counter()
    if change == "dataset":
        win.files.open_dataset(value, background=background)
    else:
        win.files.set_preset(value, background=background)
    while win.session.generation == gen or win.compiler.busy:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 20)
    t1 = time.perf_counter()
    app.processEvents()
    timer.stop()
    marks = [t0, *[t for t in ticks if t <= t1], t1]
    return max(b - a for a, b in zip(marks[:-1], marks[1:])), t1 - t0


def main() -> None:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    settings = QtCore.QSettings(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope, "gaitblocks",
                                "bench-compile")
    win = MainWindow(SimSession(t_end=2.5), settings=settings, hook_exceptions=False)
    win.show()
    app.processEvents()
    datasets = available_datasets()[:3]
    changes = [("preset", p) for p in ("emergent", "paper", "tracking")] + [("dataset", d) for d in datasets]
    print(f"{'change':28s} {'GUI thread: gap / total [s]':>30s} {'worker: gap / total [s]':>26s}")
    for change, value in changes:
        row = []
        for background in (False, True):
            # first back to the previous value, so that both compile the same change
            g, total = gap(app, win, change, value, background)
            row.append(f"{g:6.3f} / {total:6.3f}")
            other = "tracking" if change == "preset" and value != "tracking" else ("emergent" if change == "preset"
                                                                                   else datasets[0])
            gap(app, win, change, other if value != other else datasets[-1], False)
        print(f"{change + ' ' + value:28s} {row[0]:>30s} {row[1]:>26s}")
    data = Path(os.environ.get("GAITBLOCKS_DATA", "")) / "demotu-BMC"
    if (data / "walk2.trc").is_file():   # real recordings, each loaded once (cold): walk1 on the
        # GUI thread, walk2 (same lab, same length) in the worker
        cold = [f"{data / f'walk{i}.forces'}|{data / f'walk{i}.trc'}" for i in (1, 2)]
        g1, t1 = gap(app, win, "dataset", cold[0], False)
        g2, t2 = gap(app, win, "dataset", cold[1], True)
        print(f"{'dataset demotu walk1|walk2':28s} {f'{g1:6.3f} / {t1:6.3f}':>30s} {f'{g2:6.3f} / {t2:6.3f}':>26s}"
              "  (cold load; walk1 on the GUI thread, walk2 in the worker)")
    win.close()


if __name__ == "__main__":
    main()
