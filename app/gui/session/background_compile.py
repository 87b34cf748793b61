"""Load and compile in a worker thread, with a busy indicator, so the window never freezes.

A change that recompiles (dataset, preset, diagram file, structural parameter) is planned on
the GUI thread (:meth:`SimSession.plan_dataset` & co.: cheap, validates, changes nothing), then
:class:`BackgroundCompile` runs :meth:`SimSession.compile` (``app.runs.build``: data loading,
model fitting, compile; 0.3-4 s) on a Python worker thread (a one-thread
:class:`concurrent.futures.ThreadPoolExecutor`: no Qt object is made, run or deleted there, see
``docs/gui-threads.md``). Meanwhile the
previous session stays on screen, :class:`BusyIndicator` shows the task in the status bar with
an indeterminate progress bar and a busy cursor, and the widgets it was given are disabled.
The result comes back to the GUI thread through a :class:`~app.gui.session.handover.Mailbox` (a
Python queue and an argument-less queued signal: no Python object ever goes through Qt, see
``docs/gui-threads.md``): ``adopt(plan, built)`` on success, the error dialog otherwise (the
session unchanged). A request made while one runs
supersedes it (the older result is dropped when it arrives).

A plan may also be submitted as a function that makes it (``submit(lambda: session.plan_preset(name),
…)``): then planning runs in the worker too, and ``on_done`` gets ``(plan, built)``. The toolbar
and File menu do so, since a plan that copies the diagram (a preset, a diagram file) took
20-60 ms of the GUI thread; a planning error arrives in ``on_error`` like a compile error.
:meth:`BackgroundCompile.call` runs any other slow function there the same way (opening a
session file builds a new session: :meth:`SimSession.load`).

**First compile.** The compiled engine (:mod:`blocks.compiled`) compiles a diagram structure's
step with numba the first time it ever meets it (10-25 s; cached afterwards) and says so
beforehand through its ``NOTIFY`` hooks, on the thread that compiles. :class:`BackgroundCompile`
adds a hook that forwards the line to the GUI thread through the mailbox: while a job runs
the busy indicator then reads "compiling the diagram for the first time (about N s; cached
afterwards)…" (:func:`first_compile_message`), and :attr:`BackgroundCompile.noticed` carries the
text (the window shows it in the status bar when the compile runs elsewhere: Compare, Tuning).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.session.handover import Mailbox, without_frames
from app.gui.session.session import Plan, SimSession
from blocks import compiled as compiled_engine

__all__ = ["FIRST_COMPILE", "BackgroundCompile", "BusyIndicator", "first_compile_message"]

FIRST_COMPILE = "compiling the diagram for the first time (about {s} s; cached afterwards)…"


def first_compile_message(notice: str) -> str:
    """The busy indicator's text for a compiled engine's first-compile ``notice`` (its estimate
    ``about N s`` kept; a line without one is shown as it is)."""
    m = re.search(r"about (\d+(?:\.\d+)?) s", notice)
    return FIRST_COMPILE.format(s=m.group(1)) if m else notice


def _run_job(job_id: int, work: Callable[[], Any], mailbox: Mailbox) -> None:
    """Worker thread: runs ``work()`` (touches no widget) and posts its result or its exception.

    Nothing may leave this function: an exception escaping it would end the job unreported, its
    window busy and disabled for good. So every exception, ``BaseException`` too, is posted as
    ``failed`` (without its frames: :func:`~app.gui.session.handover.without_frames`); a post after the
    window closed (its mailbox deleted) is dropped."""
    try:
        result = work()
    except BaseException as exc:  # every failure goes to the error dialog
        mailbox.post("failed", (job_id, without_frames(exc)))
        return
    mailbox.post("done", (job_id, result))


def _compile_work(plan: Plan | Callable[[], Plan]) -> Callable[[], Any]:
    """:meth:`SimSession.compile` of ``plan``, made first if a function was given: returns
    ``built``, or ``(plan, built)`` for a function."""
    def work() -> Any:
        if callable(plan):
            made = plan()
            return made, SimSession.compile(made)
        return SimSession.compile(plan)
    return work


class BusyIndicator(QtWidgets.QWidget):
    """Status-bar message, indeterminate progress bar and busy cursor; disables ``widgets``
    (and ``actions``) while shown."""

    def __init__(self, widgets: Sequence[QtWidgets.QWidget] = (), actions: Sequence[QtGui.QAction] = (),
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.widgets, self.actions_ = list(widgets), list(actions)
        self.label = QtWidgets.QLabel()
        self.bar = QtWidgets.QProgressBar()
        self.bar.setRange(0, 0)          # indeterminate
        self.bar.setMaximumWidth(140)
        self.bar.setMaximumHeight(14)
        self.bar.setTextVisible(False)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.label)
        lay.addWidget(self.bar)
        self.setVisible(False)
        self.busy = False
        self._focus: QtWidgets.QWidget | None = None

    def start(self, message: str) -> None:
        self.label.setText(message)
        if not self.busy:
            QtWidgets.QApplication.setOverrideCursor(QtCore.Qt.CursorShape.BusyCursor)
            self._focus = QtWidgets.QApplication.focusWidget()   # disabling it moves the focus away
            for w in self.widgets:
                w.setEnabled(False)
            for a in self.actions_:
                a.setEnabled(False)
        self.busy = True
        self.setVisible(True)

    def stop(self) -> None:
        if self.busy:
            QtWidgets.QApplication.restoreOverrideCursor()
            for w in self.widgets:
                w.setEnabled(True)
            for a in self.actions_:
                a.setEnabled(True)
            self._give_focus_back()
        self.busy = False
        self.setVisible(False)


    def _give_focus_back(self) -> None:
        """The widget that had the focus when the compile started gets it back (after a paste on the
        canvas, Ctrl+D or Delete go to the canvas again, not to the next widget in the tab chain)."""
        w, self._focus = self._focus, None
        try:
            if w is not None and w.isEnabled() and any(w is x or x.isAncestorOf(w) for x in self.widgets):
                w.setFocus()
        except RuntimeError:     # deleted meanwhile
            pass


class BackgroundCompile(QtCore.QObject):
    """Compile plans off the GUI thread (module doc).

    ``submit(plan, message, on_done, on_error)``: ``on_done(built)`` or ``on_error(exc)`` is
    called on the GUI thread when the compile ends, unless a later submit superseded it.
    """

    arrived = QtCore.Signal()    # the last submitted job's result reached the GUI thread (before it is adopted)
    finished = QtCore.Signal()   # ... and was adopted or reported
    noticed = QtCore.Signal(str)  # a first-ever compile began (:func:`first_compile_message`), here or elsewhere

    def __init__(self, indicator: BusyIndicator, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.indicator = indicator
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gaitblocks-compile")
        self._futures: set[Future[None]] = set()
        self._mailbox = Mailbox(self._deliver, self)
        compiled_engine.NOTIFY.append(self._hook)
        self._last = 0
        self._callbacks: dict[int, tuple[Callable[[Any], None], Callable[[Exception], None]]] = {}

    @property
    def busy(self) -> bool:
        return bool(self._callbacks)

    def submit(self, plan: Plan | Callable[[], Plan], message: str, on_done: Callable[[Any], None],
               on_error: Callable[[Exception], None]) -> None:
        """Compile ``plan`` (or the plan a function makes) in the worker (class doc)."""
        self.call(_compile_work(plan), message, on_done, on_error)

    def call(self, work: Callable[[], Any], message: str, on_done: Callable[[Any], None],
             on_error: Callable[[Exception], None]) -> None:
        """Run ``work()`` in the worker with the busy indicator showing ``message``; ``on_done(result)``
        or ``on_error(exc)`` on the GUI thread, unless a later job superseded it."""
        self._last += 1
        self._callbacks[self._last] = (on_done, on_error)
        self.indicator.start(message)
        future = self.pool.submit(_run_job, self._last, work, self._mailbox)
        self._futures.add(future)
        future.add_done_callback(self._futures.discard)

    def _hook(self, notice: str) -> None:
        """``NOTIFY`` hook: may run on any thread; the mailbox takes it to the GUI thread."""
        if not self._mailbox.post("notice", notice):   # the window is gone (its C++ objects deleted)
            self.detach()

    def _deliver(self, kind: str, value: Any) -> None:
        if kind == "notice":
            self._notice(value)
        elif kind == "done":
            self._done(*value)
        else:
            self._failed(*value)

    def detach(self) -> None:
        """Remove the ``NOTIFY`` hook and let the worker thread end once idle (the window closes)."""
        if self._hook in compiled_engine.NOTIFY:
            compiled_engine.NOTIFY.remove(self._hook)
        self.pool.shutdown(wait=False)

    def _notice(self, notice: str) -> None:
        text = first_compile_message(notice)
        if self.busy:
            self.indicator.start(text)
        self.noticed.emit(text)

    def _take(self, job_id: int) -> tuple[Callable[[Any], None], Callable[[Exception], None]] | None:
        callbacks = self._callbacks.pop(job_id, None)
        if job_id != self._last:
            return None   # superseded
        self.arrived.emit()
        self.indicator.stop()
        return callbacks

    def _done(self, job_id: int, built: Any) -> None:
        cb = self._take(job_id)
        if cb is not None:
            cb[0](built)
            self.finished.emit()

    def _failed(self, job_id: int, exc: Exception) -> None:
        cb = self._take(job_id)
        if cb is not None:
            cb[1](exc)
            self.finished.emit()

    def wait(self, msecs: int = 60000) -> bool:
        """Block until the worker is idle (closing, tests), at most ``msecs``; queued results still
        need the event loop. (A Python wait: the GIL is free meanwhile.)"""
        _, pending = futures_wait(list(self._futures), timeout=msecs / 1000)
        return not pending
