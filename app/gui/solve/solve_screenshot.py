"""Screenshots of the window after *Solve posture*: ``python -m app.gui.solve.solve_screenshot [DATASET]``.

Regenerates ``docs/img/gui-solve-1366x768.png`` and ``docs/img/gui-solve-1920x1080.png``: the
window offscreen at each size, Solve posture pressed and waited for (the real background job), the
*Solved gait* tab and the Validity panel in front, and the stick figure paused in the solved gait
at 30 % of its cycle with the recording as the ghost.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

__all__ = ["take_solve_screenshots"]

IMG = Path(__file__).resolve().parents[3] / "docs" / "img"
SIZES = ((1366, 768), (1920, 1080))


def take_solve_screenshots(dataset: str = "", out_dir: Path = IMG, sizes: tuple[tuple[int, int], ...] = SIZES,
                           timeout_s: float = 600.0) -> list[Path]:
    """Solve once, then save one PNG per size (module doc); returns the paths."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtCore, QtWidgets

    from app.gui.fit_screen import fit_geometry
    from app.gui.main_window import MainWindow
    from app.gui.session.session import SimSession

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    settings = QtCore.QSettings(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope,
                                "gaitblocks", "screenshot")
    out_root = Path(tempfile.mkdtemp())
    folder: str | None = None
    paths = []
    for w, h in sizes:
        win = MainWindow(SimSession(dataset=dataset, t_end=2.5), settings=settings, hook_exceptions=False)
        fit_geometry(win, QtCore.QRect(0, 0, w, h), QtCore.QSize(w, h))
        win.show()
        app.processEvents()
        if folder is None:
            win.solve.control.out_root = out_root
            win.solve.start()
            t0 = time.monotonic()
            while win.solve.gait is None and win.solve.control.running and time.monotonic() - t0 < timeout_s:
                app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)
            if win.solve.gait is None:
                raise RuntimeError("the posture solve did not finish")
            folder = str(win.solve.gait.folder)
        else:
            win.solve.open(folder)
        win.tabs.setCurrentWidget(win.solve.view)
        win.side.setCurrentWidget(win.validity)
        gait = win.solve.gait
        assert gait is not None
        win.solve.player.show_at(0.3 * gait.period)
        for _ in range(5):
            app.processEvents()
        path = out_dir / f"gui-solve-{w}x{h}.png"
        win.grab().save(str(path))
        paths.append(path)
        win.close()
    return paths


if __name__ == "__main__":
    for p in take_solve_screenshots(sys.argv[1] if len(sys.argv) > 1 else ""):
        print(p)
