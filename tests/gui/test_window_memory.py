"""A closed and deleted window gives back its scopes and its session (runner, compiled engine, record
buffers): nothing outside the window keeps them, not the scope menus pyqtgraph makes without a parent."""

from __future__ import annotations

import gc
import weakref

from PySide6 import QtCore

from app.gui.main_window import MainWindow
from app.gui.session.session import SimSession


def _close_and_delete(qtbot, settings: QtCore.QSettings) -> tuple[weakref.ref, weakref.ref]:
    """Open a window, step its run, close and delete it; weak references to its scopes and session."""
    win = MainWindow(SimSession(t_end=0.5), settings=settings)
    win.show()
    qtbot.waitUntil(lambda: not win.compiler.busy, timeout=60000)
    win.session.step(5)
    refs = weakref.ref(win.scopes), weakref.ref(win.session)
    win.close()
    win.deleteLater()
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    return refs


def test_a_deleted_window_frees_its_scopes_and_session(qtbot, settings: QtCore.QSettings) -> None:
    stack, session = _close_and_delete(qtbot, settings)
    gc.collect()
    assert stack() is None, "the scope stack outlived its window"
    assert session() is None, "the session outlived its window"
