"""GUI test fixtures: an offscreen main window over a short run, settings in a temporary file."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtCore

from app.gui.editing.canvas_clipboard import release_clipboard
from app.gui.main_window import MainWindow
from app.gui.session.gui_gc import freeze_startup_heap
from app.gui.session.session import SimSession


def pytest_collection_finish(session: pytest.Session) -> None:
    """Every test module imported and nothing run yet: freeze the heap, as ``gaitblocks gui`` does before its
    first window (:func:`~app.gui.session.gui_gc.freeze_startup_heap`), so that a window's closing collection
    walks what the tests made, not the imports."""
    freeze_startup_heap()


@pytest.fixture(autouse=True, scope="session")
def _clipboard_released() -> Iterator[None]:
    """After the last test, a canvas copy left on the clipboard becomes plain text, as when the
    application quits (:func:`~app.gui.editing.canvas_clipboard.release_clipboard`: else the process
    crashes at exit)."""
    yield
    release_clipboard()


@pytest.fixture(autouse=True, scope="module")
def _qt_garbage_collected_on_the_main_thread() -> Iterator[None]:
    """After a file of GUI tests, its windows' deferred deletions done and the cyclic garbage collected here,
    on the main thread: a Qt wrapper left in a cycle was freed by a collection on a Dask IO-loop thread of a
    later test file in the same worker, whose destructor then deadlocked against the main thread's (the
    deadlock of docs/gui-threads.md rule 0; a whole CI run hung on it)."""
    yield
    QtCore.QCoreApplication.sendPostedEvents(None, QtCore.QEvent.Type.DeferredDelete)
    gc.collect()


@pytest.fixture
def settings(tmp_path: Path) -> QtCore.QSettings:
    return QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)


def open_window(qtbot: Any, settings: QtCore.QSettings, t_end: float) -> Iterator[MainWindow]:
    """The main window on the default diagram and dataset, ``t_end`` [s] long, as fast as possible
    (a fixture's body: yields the window, closes it after)."""
    win = MainWindow(SimSession(t_end=t_end), settings=settings)
    qtbot.addWidget(win)
    win.show()
    win.controls.speed.setCurrentIndex(win.controls.speed.count() - 1)
    yield win
    win.errors.close_all()
    win.close()


@pytest.fixture
def window(qtbot, settings: QtCore.QSettings) -> Iterator[MainWindow]:
    """The main window on the default diagram and dataset, 2.5 s long, as fast as possible."""
    yield from open_window(qtbot, settings, 2.5)


def given(curve: Any) -> tuple[np.ndarray, np.ndarray]:
    """The data a scope gave ``curve`` (a ``PlotDataItem``), before pyqtgraph peak-downsamples it
    to the view's pixel columns (``getData()`` returns what is drawn)."""
    return curve.xData, curve.yData


def drawn(qtbot: Any, win: MainWindow) -> None:
    """Wait until every scope has had its turn of a staged redraw (a units or x-axis switch, a run
    ticked to overlay: :class:`~app.gui.scopes.scope_redraw.Redraw`)."""
    qtbot.waitUntil(lambda: not win.scopes.redraw.pending, timeout=10000)


def run_until(qtbot, win: MainWindow, t: float) -> None:
    """Press Run and let the timer step until the session reaches ``t`` (or stops)."""
    win.session.t_end = t
    win.run_control.set_running(True)
    qtbot.waitUntil(lambda: win.session.time >= t - 1e-9 or not win.run_control.running, timeout=30000)
    win.run_control.set_running(False)
    win.run_control.finish_ending()     # a run that reached its end: evaluated and kept now, not a turn later
