"""Screenshots of the Runs and Compare views: ``python -m app.gui.runs.views_screenshot [WIDTHxHEIGHT]``.

Regenerates ``docs/img/gui-runs-1366x768.png``, ``gui-compare-1366x768.png`` and
``gui-compare-emergent-1366x768.png`` (issue 32 §5), the window offscreen at that size:

* **Runs**: four runs of 2 s kept as a user makes them (the ``tracking`` preset on sneakers; again
  with the hip PID at a tenth of its gains, renamed; barefoot; the ``setpoint`` preset), all ticked,
  so every scope overlays them in their own colours and names them in its legend;
* **Compare**: the three bundled sets for 10 s, mean ± SD bands over cycles, the recording dashed,
  the key columns: under ``setpoint`` (whose simulated knee varies from cycle to cycle, SD up to
  5 deg, so the bands show), then under the tab's default ``emergent`` (the solved gait: one periodic
  cycle walked again and again on the bundled sets, themselves periodic, so its SD over cycles is a
  few thousandths of a degree and the band is too thin to see).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["take_views_screenshots"]

IMG = Path(__file__).resolve().parents[3] / "docs" / "img"


def _play(app: Any, win: Any, t_end: float) -> None:
    """Run the session to ``t_end`` [s] as the Run button does, frame by frame."""
    win.session.t_end = t_end
    win.run_control.set_running(True)
    while win.run_control.running:
        win.run_control.frame()
        app.processEvents()


def take_views_screenshots(size: tuple[int, int] = (1366, 768), out_dir: Path = IMG,
                           timeout_s: float = 900.0) -> list[Path]:
    """Save the Runs and the Compare screenshots (module doc); returns their paths."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtCore, QtWidgets

    from app.gui.fit_screen import fit_geometry
    from app.gui.main_window import MainWindow
    from app.gui.session.session import SimSession

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    settings = QtCore.QSettings(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope,
                                "gaitblocks", "screenshot")
    win = MainWindow(SimSession(dataset="sneakers", t_end=2.0), settings=settings, hook_exceptions=False)
    fit_geometry(win, QtCore.QRect(0, 0, *size), QtCore.QSize(*size))
    win.show()
    app.processEvents()
    win.controls.speed.setCurrentIndex(win.controls.speed.count() - 1)
    _play(app, win, 2.0)                                         # run 1
    win.run_control.reset()
    while win.compiler.busy:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)
    for ref in ("pid_hip.kp", "pid_hip.kd"):
        win.session.set_param(ref, 0.1 * float(win.session.param_value(ref)))
    _play(app, win, 2.0)                                         # run 2
    win.files.open_dataset("barefoot")
    _play(app, win, 2.0)                                         # run 3
    win.files.set_preset("setpoint")
    _play(app, win, 2.0)                                         # run 4
    ins = win.inspector
    ins.rename(ins.store.runs[1].key, "soft hip PID")
    for r in ins.store.runs:
        ins.set_ticked(r.key, True)
    win.side.setCurrentWidget(ins)
    win.tabs.setCurrentWidget(win.scope_panel)
    for _ in range(5):
        app.processEvents()
    paths = [out_dir / f"gui-runs-{size[0]}x{size[1]}.png"]
    win.grab().save(str(paths[0]))
    win.tabs.setCurrentWidget(win.compare)
    cmp = win.compare
    for preset, name in (("setpoint", "compare"), (cmp.preset.currentText(), "compare-emergent")):
        cmp.preset.setCurrentText(preset)
        cmp.results = []
        cmp.start(cmp.selected())
        t0 = time.monotonic()
        while cmp.job.running and time.monotonic() - t0 < timeout_s:
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 50)
        if not cmp.results:
            raise RuntimeError(f"the comparison gave no result: {cmp.status.text()}")
        for _ in range(5):
            app.processEvents()
        paths.append(out_dir / f"gui-{name}-{size[0]}x{size[1]}.png")
        win.grab().save(str(paths[-1]))
    win.close()
    return paths


if __name__ == "__main__":
    w, h = (int(v) for v in (sys.argv[1] if len(sys.argv) > 1 else "1366x768").split("x"))
    for p in take_views_screenshots((w, h)):
        print(p)
