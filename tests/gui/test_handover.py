"""Worker -> GUI hand-over (``app.gui.session.handover``): values never go through a Qt signal's arguments."""

from __future__ import annotations

import threading

import shiboken6

from app.gui.session.background_compile import BackgroundCompile, BusyIndicator
from app.gui.session.errors import ErrorReporter
from app.gui.session.handover import Mailbox, without_frames


def test_posts_from_a_python_thread_arrive_in_order_on_the_gui_thread(qtbot) -> None:
    got: list[tuple[str, object, int]] = []
    box = Mailbox(lambda kind, value: got.append((kind, value, threading.get_ident())))
    payloads = [{"i": i, "blob": [i] * 5} for i in range(500)]

    def worker() -> None:
        for p in payloads:
            assert box.post("row", p)

    t = threading.Thread(target=worker)
    t.start()
    t.join(30)
    qtbot.waitUntil(lambda: len(got) == len(payloads), timeout=10000)
    assert [v for _, v, _ in got] == payloads                       # the same objects, in order
    assert {tid for _, _, tid in got} == {threading.main_thread().ident}


def test_a_post_to_a_deleted_mailbox_is_dropped() -> None:
    box = Mailbox(lambda kind, value: None)
    shiboken6.delete(box)
    assert box.post("done", 1) is False


def test_deleting_the_owner_while_a_worker_posts_closes_the_mailbox_first(qtbot) -> None:
    """A window deleted while its export still posts: ``destroyed`` closes the mailbox under the
    lock ``post`` emits under, so every later post is refused and none touches the deleted object
    (before, the race was a use-after-free that segfaulted a test worker)."""
    from PySide6 import QtCore

    def worker(box: Mailbox, started: threading.Event, stop: threading.Event, refused: list[int]) -> None:
        while not stop.is_set():
            started.set()
            if not box.post("progress", 1):
                refused.append(1)
                return

    for _ in range(20):
        owner = QtCore.QObject()
        box = Mailbox(lambda kind, value: None, owner)
        started, stop, refused = threading.Event(), threading.Event(), []
        t = threading.Thread(target=worker, args=(box, started, stop, refused))
        t.start()
        started.wait(5)
        shiboken6.delete(owner)          # deletes the mailbox, its child, on this thread
        t.join(5)
        stop.set()
        assert not t.is_alive() and refused == [1]
        assert box.post("done", 1) is False


def test_an_exception_crosses_without_its_frames_but_with_its_text() -> None:
    def compile_step() -> None:
        try:
            raise KeyError("inner")
        except KeyError as inner:
            raise ValueError("outer") from inner

    try:
        compile_step()
    except ValueError as exc:
        out = without_frames(exc)
    assert out.__traceback__ is None and out.__cause__ is not None and out.__cause__.__traceback__ is None
    text = out.worker_traceback  # type: ignore[attr-defined]
    assert "in compile_step" in text and "KeyError: 'inner'" in text and text.rstrip().endswith("ValueError: outer")
    box = ErrorReporter().report("Cannot compile", out)
    assert box.detailedText() == text
    box.close()


def test_background_jobs_run_on_a_python_thread_and_hand_back_through_the_mailbox(qtbot) -> None:
    """No QRunnable: the job runs on the executor's thread; done and failed reach the GUI thread."""
    indicator = BusyIndicator()
    qtbot.addWidget(indicator)
    compiler = BackgroundCompile(indicator)
    where: list[str] = []
    done: list[object] = []
    failed: list[BaseException] = []

    def work() -> dict[str, int]:
        where.append(threading.current_thread().name)
        return {"built": 1}

    compiler.call(work, "loading…", done.append, failed.append)
    qtbot.waitUntil(lambda: not compiler.busy, timeout=10000)
    assert done == [{"built": 1}] and failed == [] and where[0].startswith("gaitblocks-compile")

    def broken() -> None:
        raise RuntimeError("no such column 'Fz'")

    compiler.call(broken, "loading…", done.append, failed.append)
    qtbot.waitUntil(lambda: not compiler.busy, timeout=10000)
    assert len(failed) == 1 and failed[0].__traceback__ is None
    assert "in broken" in failed[0].worker_traceback  # type: ignore[attr-defined]
    assert compiler.wait(5000)
    compiler.detach()
