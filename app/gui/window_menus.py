"""The main window's menu bar: File, Edit, Simulation and View, each entry wired to the part of the
window that does the work (:class:`~app.gui.session.file_actions.FileActions`, the canvas's editor and
clipboard, the run controls, the scope panel). Sets ``win.stop_at_fall`` and ``win.signal_widths``, the
two checkable entries the window keeps in step with its session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6 import QtGui, QtWidgets

from app.gui.scopes.scope_figure import JOURNAL_WIDTHS_MM

if TYPE_CHECKING:
    from app.gui.main_window import MainWindow

__all__ = ["build_menus"]


def build_menus(win: MainWindow) -> None:
    """The menu bar of ``win`` (module doc)."""
    mb, files = win.menuBar(), win.files
    f = mb.addMenu("&File")
    _act(f, "&Open dataset, diagram or session…", files.ask_open, QtGui.QKeySequence.StandardKey.Open)
    _act(f, "Open &diagram…", files.ask_open_diagram)
    _act(f, "&Import recording…", win.import_recording)
    f.addMenu(files.recent_menu)
    f.addSeparator()
    _act(f, "&Save session", files.save, QtGui.QKeySequence.StandardKey.Save)
    _act(f, "Save session &as…", files.ask_save_session)
    _act(f, "Save diagram as…", files.ask_save_diagram)
    f.addSeparator()
    ex = f.addMenu("&Export")
    _act(ex, "Results as CSV…", lambda: files.ask_export("csv"))
    for mm in JOURNAL_WIDTHS_MM:
        _act(ex, f"Scopes as a figure {mm:.0f} mm wide (PDF, SVG, PNG)…",
             lambda _=False, w=mm: win.scope_panel.ask_figure(w))
    for kind in ("png", "csv"):
        _act(ex, f"Scopes, whole run, as {'screen PNG' if kind == 'png' else 'CSV'}…",
             lambda _=False, k=kind: win.scope_panel.ask_export(k))
    _act(ex, "Animation as MP4…", lambda: files.ask_export("mp4"))
    _act(ex, "Animation as GIF…", lambda: files.ask_export("gif"))
    f.addSeparator()
    _act(f, "&Quit", win.close, QtGui.QKeySequence.StandardKey.Quit)
    edit, stack = mb.addMenu("&Edit"), win.canvas.editor.undo_stack
    for act, key in ((stack.createUndoAction(win, "&Undo"), "Ctrl+Z"),
                     (stack.createRedoAction(win, "&Redo"), "Ctrl+Shift+Z")):
        act.setShortcut(QtGui.QKeySequence(key))
        edit.addAction(act)
    edit.addActions(win.canvas.clipboard.actions)   # copy, paste, duplicate, select all
    _act(edit, "&Delete selected blocks and wires", win.canvas.delete_selected)
    edit.addActions(win.canvas.edit_actions)   # group, ungroup, auto-layout
    sim = mb.addMenu("&Simulation")
    for a in (win.controls.run_action, win.controls.step_action, win.controls.reset_action):
        sim.addAction(a)
    sim.addSeparator()
    sim.addAction(win.solve.control.action)
    sim.addSeparator()
    win.stop_at_fall = sim.addAction("Stop at &fall")
    win.stop_at_fall.setCheckable(True)
    win.stop_at_fall.setChecked(win.session.stop_at_fall)
    win.stop_at_fall.setToolTip("end the run 0.1 s after the walker falls (off: simulate on to the end)")
    win.stop_at_fall.toggled.connect(win.set_stop_at_fall)
    view = mb.addMenu("&View")
    view.addAction(win.canvas.fit_action)
    win.signal_widths = view.addAction("Signal &widths")
    win.signal_widths.setCheckable(True)
    win.signal_widths.setChecked(win.canvas.show_widths)
    win.signal_widths.setToolTip("label each vector wire with its width and draw it thicker (after each compile)")
    win.signal_widths.toggled.connect(win.canvas.set_show_widths)
    _act(view, "Show whole run in scopes", lambda: win.scopes_full(True))
    _act(view, "Follow the run in scopes", lambda: win.scopes_full(False))


def _act(menu: QtWidgets.QMenu, text: str, slot: Any, key: Any = None) -> QtGui.QAction:
    act = menu.addAction(text)
    act.triggered.connect(slot)
    if key is not None:
        act.setShortcut(QtGui.QKeySequence(key))
    return act
