"""Cyclic garbage collection on the GUI thread only, while a window is open (docs/gui-threads.md, rule 0).

Python's cyclic collector runs in whichever thread allocates when a generation fills up. A background
compile allocates heavily inside numba, so the collector often runs on that worker thread; if it frees a
Qt wrapper there, the C++ destructor takes a Qt mutex and then waits for the GIL, while the GUI thread,
holding the GIL, waits for that same mutex in another object's destructor. Seen in a full test run:
every thread at 0 % CPU, for good (the worker in ``gc_collect_main`` -> ``QObject::~QObject`` ->
``GilState::acquire``; the GUI thread in ``QObject::~QObject`` -> ``QBasicMutex::lockInternal``).

:func:`gui_thread_gc` switches automatic collection off and lets pyqtgraph's
:class:`~pyqtgraph.util.garbage_collector.GarbageCollector` collect on a 1 s ``QTimer`` of the GUI
thread (each generation when its count passes the threshold, as the automatic collector would). The
returned function undoes it when the last window closes (a last collection on the GUI thread first), so a
process that goes on without a window collects as usual again.

:func:`freeze_startup_heap` leaves what the imports built out of every later collection (``gc.freeze``,
as ``gaitblocks sweep`` does): a full collection then walks only what the program made since. The
window's last collection, when it closes, took about 55 ms of thread CPU over the 170,000 objects
that Qt, pyqtgraph, numba and scipy make at import; ``gaitblocks gui`` (:mod:`app.commands.gui`) and
the GUI tests (``tests/gui/conftest.py``) freeze once, before any session or window exists. A frozen
object is never collected: nothing that exists at that moment may be left in a cycle later (a leak, never a
collection on another thread).
"""

from __future__ import annotations

import gc
from collections.abc import Callable

from pyqtgraph.util.garbage_collector import GarbageCollector

__all__ = ["freeze_startup_heap", "gui_thread_gc"]

_USERS: list[object] = []
_COLLECTOR: list[GarbageCollector] = []


def freeze_startup_heap() -> None:
    """Collect, then move every object left to the collector's permanent generation (module doc): call it
    once, after the imports and before any session or window is made."""
    gc.collect()
    gc.freeze()


def gui_thread_gc(interval_s: float = 1.0) -> Callable[[], None]:
    """Collect on the GUI thread only (call it there, with a ``QApplication``); the function returned
    ends that for this caller, and automatic collection is back once no caller is left."""
    token = object()
    if not _USERS:
        _COLLECTOR.append(GarbageCollector(interval=interval_s))  # disables automatic collection
    _USERS.append(token)

    def release() -> None:
        if token not in _USERS:
            return
        _USERS.remove(token)
        if not _USERS:
            _COLLECTOR.pop().timer.stop()
            gc.collect()  # here, on the GUI thread: no Qt wrapper left in a cycle for a worker thread's collection
            gc.enable()

    return release
