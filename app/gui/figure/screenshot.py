"""Headless screenshot of the GUI: ``python -m app.gui.figure.screenshot [FILE]`` regenerates the README image.

:func:`take_screenshot` opens the window offscreen, simulates ``run_for`` seconds (stepped as
the GUI would, frame by frame), optionally runs the compare view, and saves a PNG of the
whole window. Used by ``gaitblocks gui --screenshot FILE``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from app.defaults import DEFAULT_PRESET

__all__ = ["DEFAULT_OUT", "take_screenshot"]

DEFAULT_OUT = Path(__file__).resolve().parents[3] / "assets" / "screenshot.png"


def take_screenshot(out: str | Path, run_for: float = 3.0, dataset: str = "", preset: str = DEFAULT_PRESET,
                    diagram: str | None = None, compare: list[str] | None = None,
                    size: tuple[int, int] = (1600, 1000)) -> Path:
    """Simulate ``run_for`` seconds and save the window as ``out`` (PNG), ``size`` (width, height)
    px filling a screen of that size (never below the window's minimum size). Returns the path."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtCore, QtWidgets

    from app.gui.fit_screen import fit_geometry
    from app.gui.main_window import MainWindow
    from app.gui.session.session import SimSession

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    session = SimSession(diagram, dataset=dataset, preset=preset, t_end=max(run_for, 0.01))
    settings = QtCore.QSettings(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope,
                                "gaitblocks", "screenshot")
    win = MainWindow(session, settings=settings, hook_exceptions=False)
    fit_geometry(win, QtCore.QRect(0, 0, *size), QtCore.QSize(*size))   # a window of ``size`` on such a screen
    win.show()
    app.processEvents()
    win.controls.speed.setCurrentIndex(win.controls.speed.count() - 1)   # as fast as possible
    win.run_control.set_running(True)
    while win.run_control.running:
        win.run_control.frame()
    win.run_control.finish_ending()
    for d in win.errors.dialogs:   # a blow-up message would cover the window: keep it in the status bar
        d.close()
    win.scopes.refresh(full=False, stats=True)
    win.show_block("pid_hip" if "pid_hip" in session.diagram.blocks else next(iter(session.diagram.blocks)))
    win.side.setCurrentWidget(win.gains)
    if compare:
        win.tabs.setCurrentWidget(win.compare)
        win.compare.start(list(compare))
        while win.compare.job.running:
            app.processEvents()
            QtCore.QThread.msleep(20)
    app.processEvents()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not win.grab().save(str(out)):
        raise OSError(f"cannot write {out}")
    win.close()
    return out


if __name__ == "__main__":  # pragma: no cover - regeneration helper
    print(take_screenshot(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_OUT))
