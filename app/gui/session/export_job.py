"""Exports that leave the window responsive: the slow part in a worker thread, a progress and
Cancel dialog meanwhile, the result in the status bar.

A journal figure (matplotlib) and an animation (GIF, MP4) blocked the window 4-9 s (issue 32 §2).
:class:`ExportJob` runs ``work(progress, cancelled) -> Path`` in a daemon thread. ``progress(done,
total)``, the result and any error reach the GUI thread through a
:class:`~app.gui.session.handover.Mailbox`; the dialog (window-modal, never ``exec``-ed, so the
event loop turns) sets an event on Cancel that ``cancelled()`` reads, and the work then raises
``UserError("export cancelled")`` after removing its partial file. The window hears ``done(path)``
or ``failed(exc)`` and shows ``Exported … in 3.2 s`` (or the error) itself.

* **Figure** (:func:`start_figure_export`): the scopes' data are copied on the GUI thread
  (:func:`~app.gui.scopes.scope_figure.figure_data`, tens of ms); drawing and saving,
  :func:`~app.gui.scopes.scope_figure.save_figure`, run in a spawned process that the worker
  thread waits for (:func:`figure_in_process`: matplotlib in a thread held the GIL too long),
  the window's :class:`~app.gui.session.figure_helper.FigureHelper`, started once and kept.
* **Animation** (:func:`start_animation_export`): a frame is drawn from a widget, which Qt
  allows on the GUI thread only, so :class:`FramePump` renders one frame per event-loop turn
  (:class:`~app.gui.figure.export.AnimationFrames`, 5-20 ms each) into a bounded queue; the worker
  encodes them (:class:`~app.gui.figure.export.AnimationWriter`: ffmpeg, or Pillow's GIF at the end).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtWidgets

from app.gui.figure.export import AnimationFrames, AnimationWriter, check_animation_path, video_size
from app.gui.scopes.scope_figure import FigureData, check_figure_path, figure_data
from app.gui.scopes.scopes import ScopeStack
from app.gui.session.figure_helper import FigureHelper
from app.gui.session.handover import Mailbox, without_frames
from app.gui.session.session import SimSession
from models.errors import UserError

__all__ = ["ExportJob", "FramePump", "announce", "figure_in_process", "start_animation_export",
           "start_figure_export"]

Work = Callable[[Callable[[int, int], None], Callable[[], bool]], Path]
QUEUED_FRAMES = 8     # frames rendered ahead of the encoder at most (memory: 8 x w x h x 3 bytes)
SHOW_AFTER_MS = 300   # the progress dialog shows when an export takes longer than this [ms]


class ExportJob(QtCore.QObject):
    """One export: ``work`` in a worker thread, a progress dialog over ``parent`` (module doc)."""

    done = QtCore.Signal(object)      # the file written (Path)
    failed = QtCore.Signal(object)    # the exception (a cancel is a UserError "export cancelled")

    def __init__(self, what: str, work: Work, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent)
        self.what = what
        self.cancel_event = threading.Event()
        self.finished = False
        self.result: Path | None = None
        self.error: BaseException | None = None
        self.worker_thread: int | None = None     # the worker's thread ident (tests: not the GUI thread)
        self.seconds = 0.0                         # wall time to the result [s]
        self._t0 = time.perf_counter()
        self._mail = Mailbox(self._deliver, self)
        self.dialog = QtWidgets.QProgressDialog(f"Exporting {what}…", "Cancel", 0, 0, parent)
        self.dialog.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
        self.dialog.setMinimumDuration(SHOW_AFTER_MS)
        self.dialog.setAutoReset(False)
        self.dialog.setAutoClose(False)
        self.dialog.canceled.connect(self.cancel)
        self.shown = False                         # the dialog was shown (an export over SHOW_AFTER_MS)
        QtCore.QTimer.singleShot(SHOW_AFTER_MS, self, self._show)   # also with no progress to report (a figure)
        self._thread = threading.Thread(target=self._run, args=(work,), name=f"export {what}", daemon=True)
        self._thread.start()

    def _run(self, work: Work) -> None:
        self.worker_thread = threading.get_ident()
        try:
            path = work(self._progress, self.cancel_event.is_set)
        except BaseException as exc:    # every failure goes to the GUI thread
            self._mail.post("failed", without_frames(exc))
        else:
            self._mail.post("done", path)

    def _show(self) -> None:
        if not self.finished:
            self.dialog.show()
            self.shown = True

    def _progress(self, done: int, total: int) -> None:
        self._mail.post("progress", (done, total))

    def cancel(self) -> None:
        """Ask the work to stop (it removes its partial file and fails with "export cancelled")."""
        self.cancel_event.set()

    def _deliver(self, kind: str, value: Any) -> None:
        if kind == "progress":
            i, n = value
            self.dialog.setMaximum(n)
            self.dialog.setValue(min(i, n - 1) if n else 0)     # the dialog stays until the file is written
            return
        self.finished, self.seconds = True, time.perf_counter() - self._t0
        self.dialog.canceled.disconnect(self.cancel)           # closing a QProgressDialog emits canceled
        self.dialog.close()
        self.dialog.deleteLater()
        if kind == "done":
            self.result = value
            self.done.emit(value)
        else:
            self.error = value
            self.failed.emit(value)

    def wait(self, timeout_s: float = 600.0) -> bool:
        """Turn the event loop until the job finished (scripts and tests); True if it did."""
        t0 = time.perf_counter()
        while not self.finished and time.perf_counter() - t0 < timeout_s:
            QtWidgets.QApplication.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 20)
            time.sleep(0.002)
        return self.finished


def start_figure_export(stack: ScopeStack, path: str | Path, width_mm: float,
                        parent: QtWidgets.QWidget, helper: FigureHelper | None = None) -> ExportJob:
    """The scopes as a journal figure ``width_mm`` wide into ``path`` (PDF, SVG, PNG): the data
    copied here, drawn and written by ``helper``'s process (:func:`figure_in_process`)."""
    path = check_figure_path(path)
    data = figure_data(stack)
    return ExportJob(f"a figure {width_mm:.0f} mm wide",
                     lambda progress, cancelled: figure_in_process(data, path, width_mm, cancelled, helper), parent)


def figure_in_process(data: FigureData, path: Path, width_mm: float, cancelled: Callable[[], bool],
                      helper: FigureHelper | None = None) -> Path:
    """:func:`~app.gui.scopes.scope_figure.save_figure` in a **spawned** process: ``helper``'s, kept
    for the next export (:mod:`app.gui.session.figure_helper`), or one of its own, ended after.

    A thread would do, but matplotlib holds the GIL through long C calls (text layout, Agg, zlib):
    the GUI thread then waited 100-300 ms at a time (1 ms of its own CPU) on the loaded 2-core
    machine. The process imports numpy and matplotlib only (no Qt: ``scope_figure`` needs none
    to draw), and never blocks the window. Cancel terminates it and removes the partial file."""
    own = helper or FigureHelper()
    try:
        return own.draw(data, path, width_mm, cancelled)
    finally:
        if helper is None:
            own.stop()


def announce(job: ExportJob, status: Callable[[str], object],
             report: Callable[[str, BaseException], object]) -> ExportJob:
    """Say how ``job`` ended: ``Exported … in 3.2 s`` or ``Export cancelled`` through ``status`` (the
    status bar), an error through ``report`` (a dialog)."""
    job.done.connect(lambda path: status(f"Exported {job.what} to {path} in {job.seconds:.1f} s"))

    def failed(exc: BaseException) -> None:
        if isinstance(exc, UserError) and str(exc) == "export cancelled":
            status(f"Export of {job.what} cancelled")
        else:
            report("Export failed", exc)

    job.failed.connect(failed)
    return job


class FramePump(QtCore.QObject):
    """Renders ``frames`` one per event-loop turn into ``out`` (at most :data:`QUEUED_FRAMES` ahead),
    then puts ``None``. ``ended`` and ``error`` say when it stopped and why (an exception of a
    frame, or ``None``: all done, or :meth:`stop`), for an encoder that finds the queue empty."""

    def __init__(self, frames: AnimationFrames, out: queue.Queue[Any], parent: QtCore.QObject) -> None:
        super().__init__(parent)
        self.frames, self.out, self.i = frames, out, 0
        self.ended = False
        self.error: BaseException | None = None
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(0)
        self.timer.timeout.connect(self._tick)
        self.timer.start()

    def _tick(self) -> None:
        if self.out.full():
            return                      # the encoder is behind: let it catch up
        try:
            self.out.put_nowait(self.frames.render(self.i))
        except Exception as exc:        # handed to the worker, which fails the job with it
            self._end(exc)
            return
        self.i += 1
        if self.i >= len(self.frames):
            self._end(None)

    def stop(self) -> None:
        if not self.ended:
            self._end(None)

    def _end(self, error: BaseException | None) -> None:
        self.timer.stop()
        self.frames.close()
        self.error, self.ended = error, True
        try:
            self.out.put_nowait(error)
        except queue.Full:              # the encoder reads ``ended`` when the queue runs dry
            pass


def start_animation_export(s: SimSession, path: str | Path, fps: float, size: tuple[int, int],
                           parent: QtWidgets.QWidget) -> ExportJob:
    """The recorded run's animation into ``path`` (MP4 or GIF): frames drawn a turn each, encoded in a worker."""
    path = check_animation_path(path)
    frames = AnimationFrames(s, fps, video_size(path, size))
    total = len(frames)
    frames_q: queue.Queue[Any] = queue.Queue(maxsize=QUEUED_FRAMES)
    pump = FramePump(frames, frames_q, parent)

    def work(progress: Callable[[int, int], None], cancelled: Callable[[], bool]) -> Path:
        writer = AnimationWriter(path, fps)
        try:
            done = 0
            while done < total:
                try:
                    img = frames_q.get(timeout=0.1)
                except queue.Empty:
                    img = pump.error if pump.ended else False
                if cancelled() or img is None:
                    raise UserError("export cancelled")
                if isinstance(img, BaseException):
                    raise img
                if img is not False:
                    writer.append(img)
                    done += 1
                    progress(done, total)
        except BaseException:
            writer.abort()
            raise
        return writer.close()

    job = ExportJob(f"an animation ({total} frames)", work, parent)
    pump.setParent(job)
    job.dialog.canceled.connect(pump.stop)
    job.failed.connect(lambda _exc: pump.stop())
    return job
