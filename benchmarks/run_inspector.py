"""Memory of the runs the GUI's run inspector keeps, against every logged signal.

Run: ``QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/run_inspector.py [--duration 3]``.
Prints figures; asserts nothing.

One GUI session (offscreen main window, default diagram and dataset) runs ``--duration`` seconds;
the run is kept (:class:`app.gui.runs.run_store.KeptRun`: the scoped signals only, full resolution).
Printed: bytes per kept run and per simulated second, the columns kept against all logged
columns, and what :data:`~app.gui.runs.run_store.MAX_RUNS` such runs take.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=3.0, help="simulated seconds [s]")
    args = ap.parse_args()
    from PySide6 import QtCore, QtWidgets

    from app.gui.main_window import MainWindow
    from app.gui.runs.run_store import MAX_RUNS
    from app.gui.session.session import SimSession

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    tmp = tempfile.TemporaryDirectory()
    settings = QtCore.QSettings(str(Path(tmp.name) / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(SimSession(t_end=args.duration), settings=settings, hook_exceptions=False)
    s = win.session
    s.step(10**9)
    run = win.inspector.keep()
    assert run is not None
    rec = s.runner.recorder
    all_cols = sum(len(rec.labels[n]) for n in rec.names)
    kept_cols = sum(1 if a.ndim == 1 else a.shape[1] for a in run.signals.values())
    all_bytes = 8 * rec.length * (all_cols + 1)
    print(f"run: {run.duration():.2f} s simulated, {rec.length} ticks")
    print(f"kept run: {run.nbytes / 1e6:.2f} MB ({run.nbytes / 1e6 / run.duration():.3f} MB per simulated s), "
          f"{kept_cols} of {all_cols} logged columns ({len(run.signals)} signals)")
    print(f"every logged signal would be: {all_bytes / 1e6:.2f} MB")
    print(f"{MAX_RUNS} such runs: {MAX_RUNS * run.nbytes / 1e6:.1f} MB")
    win.close()
    app.processEvents()
    tmp.cleanup()


if __name__ == "__main__":
    main()
