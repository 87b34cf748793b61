"""A worker ``QObject`` run on a ``QThread`` of its own, for Compare and Tuning (docs/gui-threads.md).

:class:`WorkerThread` is composed into a widget (``self.job = WorkerThread(self)``): :meth:`~WorkerThread.start`
moves a worker with a ``run`` slot onto a new thread owned by the widget and runs it; :meth:`~WorkerThread.stop`
quits the thread's event loop, waits until ``run`` has returned and deletes the thread. A widget stops it when
its results arrive and when it closes: deleting a ``QThread`` that still runs aborts the process, and the
worker would post into a mailbox being deleted (:class:`~app.gui.session.handover.Mailbox`). The worker
reports through a mailbox, never through signals with arguments.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore

__all__ = ["WorkerThread"]


class WorkerThread:
    """One worker on one ``QThread`` at a time (module doc); ``worker`` is None when idle."""

    def __init__(self, owner: QtCore.QObject) -> None:
        self.owner = owner
        self.thread: QtCore.QThread | None = None
        self.worker: Any = None

    @property
    def running(self) -> bool:
        return self.thread is not None

    def start(self, worker: Any) -> None:
        """Run ``worker.run`` (a ``QObject``'s slot) on a new thread (one job at a time: the caller
        checks :attr:`running`)."""
        assert self.thread is None, "a job is running"
        self.thread, self.worker = QtCore.QThread(self.owner), worker
        worker.moveToThread(self.thread)
        self.thread.started.connect(worker.run)
        self.thread.start()

    def stop(self) -> None:
        """Wait for the worker's ``run`` to return (a caller that wants it sooner cancels it first), then
        delete the thread."""
        if self.thread is not None:
            self.thread.quit()
            self.thread.wait()
            self.thread.deleteLater()
        self.thread, self.worker = None, None
