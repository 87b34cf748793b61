"""The GUI's worker threads and worker processes cannot stall the window (docs/gui-threads.md).

* Compare's worker processes are spawned, not forked: the window's background compile holds
  numba's compiler lock for the whole compile (10-25 s the first time), and a child forked
  meanwhile kept a copy of that lock, locked, for ever: it blocked on its first compile and the
  Compare tab (and the test suite) waited for it with the machine idle.
* Whatever a background job raises (``BaseException`` too) comes back to the GUI thread as an
  error; before, it escaped the worker thread and the window stayed busy, Run disabled, for good.
"""

from __future__ import annotations

import multiprocessing
import threading
import time

import pytest

from app.gui.runs.compare_view import load_compare
from app.gui.session.background_compile import BackgroundCompile, BusyIndicator


def _until(cond, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return bool(cond())


@pytest.mark.slow
def test_compare_workers_start_while_another_thread_holds_the_numba_compiler_lock() -> None:
    from numba.core.compiler_lock import global_compiler_lock

    compare, _ = load_compare()
    held, release = threading.Event(), threading.Event()

    def background_compile() -> None:   # as BackgroundCompile's worker does for 10-25 s
        with global_compiler_lock:
            held.set()
            release.wait(120.0)

    holder = threading.Thread(target=background_compile, daemon=True)
    holder.start()
    assert held.wait(10.0)
    before = set(multiprocessing.active_children())
    results: list[object] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.extend(compare(["barefoot", "sneakers"], duration=0.2, workers=2))
        except BaseException as exc:  # reported below
            errors.append(exc)

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    try:
        # the workers exist while the lock is held (a forked one has it, locked, for ever) ...
        assert _until(lambda: len(set(multiprocessing.active_children()) - before) == 2 or not runner.is_alive(), 60.0)
    finally:
        release.set()                       # ... then the "compile" ends in this process
        holder.join(10.0)
    runner.join(180.0)
    stuck = runner.is_alive()
    if stuck:                               # free the blocked workers, so the suite goes on
        for child in set(multiprocessing.active_children()) - before:
            child.kill()
        runner.join(30.0)
    assert not stuck, "compare's worker processes never finished (forked with the compiler lock held)"
    assert not errors, errors
    assert [r.name for r in results] == ["barefoot", "sneakers"]   # type: ignore[attr-defined]


class _Stop(BaseException):
    """Not an ``Exception`` (as ``SystemExit``, ``KeyboardInterrupt`` or pytest's outcomes)."""


def test_a_base_exception_in_a_background_job_is_reported_and_the_window_is_not_left_busy(qtbot) -> None:
    indicator = BusyIndicator()
    qtbot.addWidget(indicator)
    compiler = BackgroundCompile(indicator)
    done: list[object] = []
    failed: list[BaseException] = []

    def work() -> None:
        raise _Stop("the job stopped")

    compiler.call(work, "loading…", done.append, failed.append)
    qtbot.waitUntil(lambda: not compiler.busy, timeout=10000)
    assert done == [] and len(failed) == 1 and isinstance(failed[0], _Stop)
    assert indicator.isHidden()
    compiler.wait()
    compiler.detach()


def test_closing_a_window_stops_its_comparison_thread_so_it_can_be_deleted(qtbot, settings) -> None:
    """A comparison still running when the window closes: ``closeEvent`` cancels it and waits for
    its ``QThread`` (deleting a running ``QThread`` aborts the process, and its worker would post
    into a deleted mailbox); the window is then deleted with no worker left."""
    import shiboken6

    from app.gui.main_window import MainWindow
    from app.gui.session.session import SimSession

    window = MainWindow(SimSession(t_end=2.5), settings=settings)   # not qtbot's: this test deletes it
    window.show()
    ticks: list[int] = []

    def slow_compare(specs, preset, duration, progress, cancel, **_):  # type: ignore[no-untyped-def]
        while not cancel():          # runs until cancelled, posting progress all the while
            ticks.append(1)
            progress(len(ticks), 0, "running")
            time.sleep(0.005)
        raise RuntimeError("cancelled")

    cmp = window.compare
    cmp.compare_fn = slow_compare
    cmp.start(["bf"])
    thread = cmp.job.thread
    assert thread is not None
    qtbot.waitUntil(lambda: len(ticks) > 5, timeout=10000)
    window.close()
    assert not cmp.job.running and thread.isFinished()
    n = len(ticks)
    shiboken6.delete(window)
    time.sleep(0.05)
    assert len(ticks) == n            # nothing ran after the close
