"""Hand Python values from a worker thread to the GUI thread without Qt ever touching them.

:class:`Mailbox` lives in the GUI thread. A worker calls :meth:`Mailbox.post` ``(kind, value)``:
the pair goes into a Python deque (under a :class:`threading.Lock`, taken with the GIL held) and
the worker emits ``ready``, a signal **without arguments**, queued to the GUI thread, whose slot
takes every pair out and calls ``deliver(kind, value)`` there, in the order they were posted.

Why not a signal carrying the value (``Signal(object)``)? PySide releases the GIL while Qt
activates a signal, and a queued connection copies each argument into the event it posts; the
copy (and the destruction) of a Python ``object`` argument takes the GIL back, inside Qt's
signal machinery, where Qt may hold one of its internal mutexes (a connection lock, the receiving
thread's event-queue lock). If the GUI thread meanwhile holds the GIL and calls into Qt for that
same mutex (a connect, a destroyed object, a posted event: PySide does not release the GIL for
those), each waits for the other for good: the hang of issue 34 (``docs/gui-threads.md``). An
emit without arguments copies nothing, so the worker never needs the GIL while Qt holds a lock.

An exception posted by a worker goes through :func:`without_frames` first: its traceback's frames
(and every local they hold, the worker's own Qt objects among them) would otherwise be freed
later by the GUI thread.

:func:`next_turn` hands work from the GUI thread to itself, later: the second half of a long
step (evaluating a run that ended, the next plot of Compare's results) runs
:data:`NEXT_TURN_MS` later, so that the event loop paints and takes input in between. A
zero-delay timer did not do that: Qt ran it in the same pass as the paint it was meant to let
through, and the two halves made one freeze.
"""

from __future__ import annotations

import threading
import traceback
from collections import deque
from collections.abc import Callable
from typing import Any

from PySide6 import QtCore

__all__ = ["NEXT_TURN_MS", "Mailbox", "next_turn", "without_frames"]

NEXT_TURN_MS = 15   # delay of a deferred GUI step [ms]: longer than one pass of the event loop's timers


def next_turn(context: QtCore.QObject, fn: Callable[[], None]) -> None:
    """Call ``fn`` on ``context``'s thread :data:`NEXT_TURN_MS` from now (not at all if ``context``
    is deleted first)."""
    QtCore.QTimer.singleShot(NEXT_TURN_MS, context, fn)


class Mailbox(QtCore.QObject):
    """``post(kind, value)`` from any thread; ``deliver(kind, value)`` runs on this object's thread.

    **Deletion.** A worker may outlive the mailbox's owner (a window closed, then deleted, while an
    export or a compile still runs). ``post`` checks that the mailbox is open and emits while it
    holds the lock, and ``destroyed`` (emitted first thing in the C++ destructor, on the deleting
    thread) takes the same lock to close it: so a deletion waits for an emit in flight, and no emit
    starts on a half-deleted object (that use-after-free segfaulted a test worker). The closing
    function holds the lock and a flag only, never the Qt wrapper. Waiting on the lock releases the
    GIL, and the emit releases it too (module doc), so neither side can block the other for good.
    """

    ready = QtCore.Signal()   # no arguments: Qt copies nothing (module doc)

    def __init__(self, deliver: Callable[[str, Any], None], parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._deliver = deliver
        self._lock = threading.Lock()
        self._open = [True]                   # a list: the ``destroyed`` handler shares it without ``self``
        self._items: deque[tuple[str, Any]] = deque()
        self.ready.connect(self._drain, QtCore.Qt.ConnectionType.QueuedConnection)
        lock, is_open = self._lock, self._open

        def close(*_: Any) -> None:
            with lock:
                is_open[0] = False
        self.destroyed.connect(close)

    def post(self, kind: str, value: Any = None) -> bool:
        """Queue ``(kind, value)`` for ``deliver``; False when the mailbox is closed or gone (its
        window closed, its C++ object deleted)."""
        with self._lock:
            if not self._open[0]:
                return False
            self._items.append((kind, value))
            try:
                self.ready.emit()
            except RuntimeError:   # the C++ object was deleted: nobody to tell
                self._open[0] = False
                return False
        return True

    def _drain(self) -> None:
        """One ``ready`` per post, one pair per call: an error in one delivery leaves the others queued."""
        with self._lock:
            if not self._items:
                return
            kind, value = self._items.popleft()
        self._deliver(kind, value)


def without_frames(exc: BaseException) -> BaseException:
    """``exc`` with its formatted traceback in ``exc.worker_traceback`` and the traceback objects of
    it and its chained causes dropped, so that no worker frame (nor the locals it holds) is freed on
    the GUI thread."""
    exc.worker_traceback = "".join(traceback.format_exception(exc))  # type: ignore[attr-defined]
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        e.__traceback__ = None
        e = e.__cause__ or e.__context__
    return exc
