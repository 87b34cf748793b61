"""The first-ever compile and session files run in the background compile worker, never on the GUI
thread, and the busy indicator says a first compile is under way (issue 20, responsiveness).

The compiled engine announces a first compile through ``blocks.compiled.NOTIFY`` on the thread
that compiles; these tests drive that hook directly (a real first compile takes 10-25 s) from a
compile that is held open until the test has looked at the window.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6 import QtCore

from app.gui.main_window import MainWindow
from app.gui.session import startup
from app.gui.session.background_compile import BackgroundCompile, BusyIndicator, first_compile_message
from app.gui.session.session import Plan, SimSession
from blocks import compiled

NOTICE = ("compiling the diagram 'grf_walk' (22 blocks; first run only, about 19 s; "
          "cached in /nonexistent/compiled)…")
SHOWN = "compiling the diagram for the first time (about 19 s; cached afterwards)…"


def _main_thread() -> QtCore.QThread:
    return QtCore.QCoreApplication.instance().thread()


class HeldCompile:
    """Replaces ``SimSession.compile``: records the thread, announces a first compile through every
    NOTIFY hook (as the engine does), waits for :meth:`release`, then compiles for real."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, when: Callable[[Plan], bool] = lambda plan: True,
                 engine: str | None = None) -> None:
        self.threads: list[QtCore.QThread] = []
        self.go = threading.Event()
        self.when = when
        original = SimSession.compile

        def compile_(plan: Plan) -> Any:
            if self.when(plan):
                self.threads.append(QtCore.QThread.currentThread())
                for cb in list(compiled.NOTIFY):
                    cb(NOTICE)
                assert self.go.wait(30.0), "the test never released the compile"
            if engine is not None:   # a new structure: the Python engine spares the test a real first compile
                plan = replace(plan, spec=replace(plan.spec, engine=engine))
            return original(plan)

        monkeypatch.setattr(SimSession, "compile", staticmethod(compile_))

    def release(self) -> None:
        self.go.set()


def test_message_keeps_the_engine_estimate() -> None:
    assert first_compile_message(NOTICE) == SHOWN
    assert first_compile_message("something else") == "something else"


def test_notice_from_the_worker_reaches_the_busy_indicator(qtbot) -> None:
    indicator = BusyIndicator()
    qtbot.addWidget(indicator)
    compiler = BackgroundCompile(indicator)
    go, threads, results = threading.Event(), [], []

    def work() -> int:
        threads.append(QtCore.QThread.currentThread())
        for cb in list(compiled.NOTIFY):
            cb(NOTICE)
        go.wait(30.0)
        return 42

    noticed: list[str] = []
    compiler.noticed.connect(noticed.append)
    compiler.call(work, "loading…", results.append, lambda exc: pytest.fail(str(exc)))
    qtbot.waitUntil(lambda: indicator.label.text() == SHOWN, timeout=10000)
    assert compiler.busy and not indicator.isHidden() and noticed == [SHOWN]
    go.set()
    qtbot.waitUntil(lambda: results == [42], timeout=10000)
    assert threads and threads[0] is not _main_thread()
    assert not compiler.busy and indicator.isHidden()
    compiler.detach()
    assert compiler._hook not in compiled.NOTIFY


def test_preset_change_first_compile_runs_in_the_worker(window: MainWindow, qtbot, monkeypatch) -> None:
    held = HeldCompile(monkeypatch)
    old = window.session.generation
    window.files.set_preset("setpoint", background=True)
    qtbot.waitUntil(lambda: window.busy.label.text() == SHOWN, timeout=10000)
    assert window.compiler.busy and not window.controls.run_action.isEnabled()
    assert window.session.generation == old            # the old run stays on screen meanwhile
    held.release()
    qtbot.waitUntil(lambda: not window.compiler.busy, timeout=60000)
    assert held.threads and all(t is not _main_thread() for t in held.threads)
    assert window.session.preset == "setpoint" and window.session.generation == old + 1
    assert window.controls.run_action.isEnabled() and window.busy.isHidden()


def test_session_file_opens_in_the_worker(window: MainWindow, qtbot, monkeypatch, tmp_path: Path) -> None:
    window.session.set_param("pid_hip.kp", 123.0)
    path = tmp_path / "s.gbsession.json"
    window.files.save_session(path)
    window.session.set_param("pid_hip.kp", 50.0)
    before = window.session
    held = HeldCompile(monkeypatch)
    assert window.files.open_path(path, background=True)
    assert window.session is before and window.compiler.busy       # returned before compiling
    qtbot.waitUntil(lambda: window.busy.label.text() == SHOWN, timeout=10000)
    held.release()
    with qtbot.waitSignal(window.files.session_opened, timeout=60000):
        pass
    assert held.threads and all(t is not _main_thread() for t in held.threads)
    assert window.session is not before and window.session.param_value("pid_hip.kp") == 123.0
    assert window.files.session_path == path and str(path) in window.files.recent_files()


def test_bad_session_file_in_the_worker_reports_and_keeps_the_session(window: MainWindow, qtbot,
                                                                      tmp_path: Path) -> None:
    path = tmp_path / "bad.gbsession.json"
    path.write_text('{"format": "gaitblocks-session", "version": 1, "diagram": {"blocks": {"x": {"type": "Nope"}}}}',
                    encoding="utf-8")
    before = window.session
    assert window.files.open_path(path, background=True)
    qtbot.waitUntil(lambda: not window.compiler.busy, timeout=30000)
    assert window.session is before
    assert "Cannot open session" in window.errors.dialogs[-1].windowTitle()
    assert "bad.gbsession.json" in window.errors.last_text()


def test_window_opens_before_the_first_compile(qtbot, monkeypatch, settings) -> None:
    monkeypatch.setattr(startup, "needs_first_compile", lambda model: True)
    held = HeldCompile(monkeypatch, when=lambda plan: plan.spec.engine is None)
    win = startup.open_window(settings=settings)
    qtbot.addWidget(win)
    try:
        assert win.isVisible() and win.session.runner.engine == "python"   # shown, drawn, not yet compiled
        qtbot.waitUntil(lambda: win.busy.label.text() == SHOWN, timeout=10000)
        assert not win.controls.run_action.isEnabled()
        held.release()
        qtbot.waitUntil(lambda: not win.compiler.busy, timeout=60000)
        assert held.threads and all(t is not _main_thread() for t in held.threads)
        assert win.session.runner.engine == "compiled" and win.controls.run_action.isEnabled()
        assert win.session.spec.engine is None
    finally:
        win.errors.close_all()
        win.close()


def test_diagram_edit_compiles_in_the_worker(window: MainWindow, qtbot, monkeypatch) -> None:
    """A structural edit makes a new structure (its first compile ever): the worker compiles it,
    the old run stays until it arrives, then the edited diagram runs."""
    held = HeldCompile(monkeypatch, engine="python")
    editor, old = window.canvas.editor, window.session.generation
    blocks = list(window.session.diagram.blocks)
    name = editor.add_block("Constant", 0.0, 900.0)   # a block with no input: compiles
    qtbot.waitUntil(lambda: window.busy.label.text() == SHOWN, timeout=10000)
    assert editor.pending and window.session.generation == old and name not in window.session.diagram.blocks
    held.release()
    qtbot.waitUntil(lambda: not window.compiler.busy, timeout=60000)
    assert held.threads and all(t is not _main_thread() for t in held.threads)
    assert not editor.pending and editor.error is None, editor.error
    assert list(window.session.diagram.blocks) == [*blocks, name] and window.session.generation == old + 1


def test_reset_compiles_in_the_worker(window: MainWindow, qtbot, monkeypatch) -> None:
    from tests.gui.conftest import run_until

    run_until(qtbot, window, 0.3)
    held = HeldCompile(monkeypatch)
    kept = len(window.inspector.store.runs)
    window.run_control.reset()
    assert window.compiler.busy and window.session.time >= 0.3 - 1e-9     # the old run stays meanwhile
    held.release()
    qtbot.waitUntil(lambda: not window.compiler.busy, timeout=30000)
    assert held.threads and all(t is not _main_thread() for t in held.threads)
    assert window.session.time == window.session.runner.t0 and window.session.runner.recorder.length == 1
    assert len(window.inspector.store.runs) == kept == 1         # the ended run was kept once, not again


def test_rate_counters_start_when_run_is_pressed(window: MainWindow, qtbot) -> None:
    """The real-time factor and frame rate count from Run, not from the window's start or idle time
    (the first reading divided the simulated time by the idle time too)."""
    import time

    qtbot.wait(300)
    pressed = time.perf_counter()
    window.run_control.set_running(True)
    t0, sim0 = window.run_control._rtf
    assert t0 >= pressed and sim0 == window.session.time and window.run_control._fps_frames == []
    window.run_control.set_running(False)
