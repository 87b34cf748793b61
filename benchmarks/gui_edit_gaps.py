"""Longest event-loop gap of the editing flows of issue 32 §3 on the default diagram, beside the 100 ms target.

Run: ``QT_QPA_PLATFORM=offscreen python benchmarks/gui_edit_gaps.py [--profile FLOW]``; also part of
``benchmarks/gui_flow_gaps.py`` (its ``edit`` rows). Prints figures; never passes or fails on time.
The probe is :func:`gui_flow_gaps.gap_and_cpu` (a 10 ms timer, kept 0.3 s after the flow is done).

Flows, each until its result is on screen (a paste's background compile included: the copy's
inputs are open, so the compile fails fast and the error is drawn): copy ``pid_hip`` and paste it
(Ctrl+C, Ctrl+V), duplicate it (Ctrl+D), undo both, select all, select a block of a subsystem in
the model tree (the subsystem opens), set a gain in the tree, undo it, fit (F), and pan with the minimap.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gui_flow_gaps import ROWS, idle_compile, markdown, measure, settle
from PySide6 import QtCore, QtWidgets

from app.gui.editing.canvas_clipboard import release_clipboard
from app.gui.main_window import MainWindow
from app.gui.session.session import SimSession


def edit_flows(app: QtWidgets.QApplication, win: MainWindow, profile: str | None) -> None:
    """Measure the editing flows (module docstring) in ``win``, on its diagram's ``pid_hip``."""
    c, tree, stack = win.canvas, win.tree, win.canvas.editor.undo_stack
    c.open_subsystem(None)
    settle(app, win)
    c.clipboard.select(["pid_hip"])
    c.clipboard.copy()
    measure(app, "edit", "paste a copied block (Ctrl+V; compiled in the background)", c.clipboard.paste,
            lambda: idle_compile(win), profile)
    settle(app, win)
    measure(app, "edit", "duplicate it (Ctrl+D; compiled in the background)", c.clipboard.duplicate,
            lambda: idle_compile(win), profile)
    settle(app, win)
    measure(app, "edit", "undo the duplicate and the paste", lambda: (stack.undo(), stack.undo()),
            lambda: idle_compile(win), profile)
    settle(app, win)
    measure(app, "edit", "select all blocks (Ctrl+A)", c.clipboard.select_all, lambda: True, profile)
    win.side.setCurrentWidget(tree)
    settle(app, win)
    measure(app, "edit", "pick a block of a subsystem in the model tree (opens it)", lambda: tree.select("trunk"),
            lambda: c.editor.level is not None, profile)
    settle(app, win)
    tree.tree.expandItem(tree.blocks["pid_hip"])
    kp = tree.params["pid_hip.kp"]
    measure(app, "edit", "set pid_hip.kp in the model tree", lambda: kp.setText(1, "1234"), lambda: True, profile)
    settle(app, win)
    measure(app, "edit", "undo it", stack.undo, lambda: True, profile)
    settle(app, win)
    c.open_subsystem(None)
    c.scale(3.0, 3.0)
    settle(app, win)
    m = c.minimap
    measure(app, "edit", "pan with the minimap (a click)",
            lambda: m._pan(QtCore.QPointF(0.8 * m.width(), 0.7 * m.height())), lambda: True, profile)
    settle(app, win)
    measure(app, "edit", "fit the diagram (F)", c.fit, lambda: True, profile)
    settle(app, win)


def main() -> None:
    profile = sys.argv[sys.argv.index("--profile") + 1] if "--profile" in sys.argv else None
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    settings = QtCore.QSettings(QtCore.QSettings.Format.IniFormat, QtCore.QSettings.Scope.UserScope, "gaitblocks",
                                "bench-edit")
    win = MainWindow(SimSession(t_end=3.0), settings=settings, hook_exceptions=False)
    win.resize(1920, 1080)
    win.show()
    settle(app, win, 1.0)
    load = os.getloadavg()
    print(f"load: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min)")
    edit_flows(app, win, profile)
    worst = max(g for _, _, g, _, _ in ROWS)
    print(f"worst gap {1000 * worst:.0f} ms")
    print()
    print(markdown(load, 0.0))
    release_clipboard()


if __name__ == "__main__":
    main()
