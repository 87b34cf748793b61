"""While a window is open, Python's cyclic collector runs on the GUI thread only (app/gui/session/gui_gc.py):
a collection on a worker thread can free a Qt wrapper there and deadlock against the GUI thread."""

from __future__ import annotations

import gc
import threading

import pytest

pytestmark = pytest.mark.gui


class _Cycle:
    """An object in a reference cycle that records the thread that collected it."""

    def __init__(self, seen: list[str]) -> None:
        self.me, self.seen = self, seen

    def __del__(self) -> None:
        self.seen.append(threading.current_thread().name)


def test_cycles_are_collected_on_the_gui_thread_while_a_window_is_open(qtbot, window) -> None:
    assert not gc.isenabled()  # no automatic collection: it could run on the compile thread
    seen: list[str] = []
    kept: list[list[int]] = []

    def make_garbage() -> None:  # a worker allocating past gen-0's threshold, as a numba compile does
        for _ in range(5):
            _Cycle(seen)
        kept.extend([i] for i in range(20 * gc.get_threshold()[0]))

    worker = threading.Thread(target=make_garbage, name="worker")
    worker.start()
    worker.join()
    assert seen == []  # the worker's allocations collected nothing
    qtbot.waitUntil(lambda: len(seen) == 5, timeout=10000)  # the GUI thread's timer did
    assert set(seen) == {threading.main_thread().name}


def test_automatic_collection_is_back_when_the_last_window_closes(qtbot, settings) -> None:
    from tests.gui.conftest import open_window

    opened = open_window(qtbot, settings, 0.5)
    next(opened)
    assert not gc.isenabled()
    next(opened, None)  # closes the window
    assert gc.isenabled()


def test_the_startup_heap_is_frozen_and_later_cycles_are_still_collected(qtbot, window) -> None:
    """The GUI tests freeze the heap once collected (as ``gaitblocks gui`` does before its first window): the
    imports' objects are out of every collection, and a cycle made since is collected as before."""
    frozen = gc.get_freeze_count()
    assert frozen > 50_000          # Qt, pyqtgraph, numba and scipy's objects (about 170,000 in the window's process)
    seen: list[str] = []
    _Cycle(seen)
    gc.collect()
    assert seen == [threading.current_thread().name]
    assert gc.get_freeze_count() == frozen                # nothing frozen since
