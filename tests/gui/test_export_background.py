"""Exports leave the window responsive (issue 32 §2): a journal figure is drawn and written in a
worker thread, an animation's frames are drawn one per event-loop turn and encoded in a worker;
a progress dialog can cancel, and the status bar gives the result.

"Responsive" is counted, not timed: a 10 ms probe timer keeps firing while the export runs, at
least once per 300 ms of it on average (a blocked loop fires it at most once, when it returns)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from PySide6 import QtCore, QtWidgets

from app.gui.main_window import MainWindow
from app.gui.scopes.scope_figure import figure_data
from models.errors import UserError
from tests.gui.conftest import run_until


class Probe:
    """Counts the turns of the event loop: a 10 ms timer's ticks."""

    def __init__(self) -> None:
        self.ticks = 0
        self.timer = QtCore.QTimer()
        self.timer.timeout.connect(self._tick)
        self.timer.start(10)

    def _tick(self) -> None:
        self.ticks += 1


def test_a_journal_figure_is_written_by_a_worker_while_the_loop_turns(qtbot, window: MainWindow,
                                                                       tmp_path: Path) -> None:
    run_until(qtbot, window, 2.5)
    probe = Probe()
    job = window.scope_panel.start_figure(tmp_path / "f.pdf", 180.0)
    assert job is not None and not job.finished            # returned at once: the work is elsewhere
    assert job.wait(300.0)
    probe.timer.stop()
    assert job.error is None and job.result == tmp_path / "f.pdf"
    assert job.result.read_bytes()[:5] == b"%PDF-" and job.result.stat().st_size > 10_000
    assert job.worker_thread is not None and job.worker_thread != threading.get_ident()
    assert probe.ticks >= max(3, int(job.seconds / 0.3)), (probe.ticks, job.seconds)
    assert job.seconds > 0.5 and job.shown                 # its dialog (Cancel) showed after 0.3 s
    message = window.statusBar().currentMessage()
    assert message.startswith("Exported a figure 180 mm wide to") and "f.pdf" in message


def test_an_animation_is_encoded_by_a_worker_and_its_frames_drawn_a_turn_each(qtbot, window: MainWindow,
                                                                             tmp_path: Path) -> None:
    run_until(qtbot, window, 2.5)
    probe = Probe()
    job = window.files.start_export(tmp_path / "a.gif", (320, 240), 20.0)
    assert job is not None and not job.finished
    assert job.wait(300.0)
    probe.timer.stop()
    assert job.error is None and job.result == tmp_path / "a.gif"
    from PIL import Image

    with Image.open(job.result) as im:
        assert im.size == (320, 240) and im.n_frames == 51        # 0, 0.05, ..., 2.5 s
    assert job.worker_thread is not None and job.worker_thread != threading.get_ident()
    assert probe.ticks >= max(3, int(job.seconds / 0.3)), (probe.ticks, job.seconds)
    assert window.statusBar().currentMessage().startswith("Exported an animation (51 frames) to")


def test_cancel_stops_the_export_and_removes_the_partial_file(qtbot, window: MainWindow, tmp_path: Path) -> None:
    run_until(qtbot, window, 2.5)
    job = window.files.start_export(tmp_path / "a.gif", (320, 240), 20.0)
    assert job is not None
    job.dialog.findChild(QtWidgets.QPushButton).click()       # the dialog's Cancel button
    assert job.wait(300.0)
    assert isinstance(job.error, UserError) and str(job.error) == "export cancelled"
    assert not (tmp_path / "a.gif").exists()
    assert window.statusBar().currentMessage() == "Export of an animation (51 frames) cancelled"
    assert not window.errors.dialogs                         # a cancel is no error


def test_an_export_that_cannot_start_says_why(qtbot, window: MainWindow, tmp_path: Path) -> None:
    assert window.files.start_export(tmp_path / "a.avi") is None      # reported in a dialog, no job
    assert "use a .mp4 or .gif file name" in window.errors.last_text()
    with pytest.raises(UserError, match=r"\.pdf, \.svg or \.png"):
        from app.gui.session.export_job import start_figure_export
        start_figure_export(window.scopes, tmp_path / "f.jpg", 85.0, window)


def test_the_figure_process_reports_its_error_and_cancels(qtbot, window: MainWindow, tmp_path: Path) -> None:
    from app.gui.scopes.scope_figure import figure_data
    from app.gui.session.export_job import figure_in_process

    run_until(qtbot, window, 0.5)
    data = figure_data(window.scopes)
    with pytest.raises(UserError, match="figure export failed: .*No such file"):
        figure_in_process(data, tmp_path / "missing" / "f.pdf", 85.0, lambda: False)
    with pytest.raises(UserError, match="export cancelled"):
        figure_in_process(data, tmp_path / "f.pdf", 85.0, lambda: True)
    assert not (tmp_path / "f.pdf").exists()


def test_the_figure_process_is_started_once_and_kept(qtbot, window: MainWindow, tmp_path: Path) -> None:
    run_until(qtbot, window, 0.5)
    panel = window.scope_panel
    helper = panel.figure_helper
    assert helper.started == 0 and not helper.alive()
    panel.export_button.menu().aboutToShow.emit()         # opening the Export menu starts it, idle
    assert helper.started == 1 and helper.alive()
    for name in ("a.pdf", "b.svg"):
        job = panel.start_figure(tmp_path / name, 85.0)
        assert job is not None and job.wait(300.0) and job.error is None
        assert (tmp_path / name).stat().st_size > 1000
    assert helper.started == 1 and helper.alive()         # before: a process spawned for each export
    with pytest.raises(UserError, match="export cancelled"):
        helper.draw(figure_data(window.scopes), tmp_path / "c.pdf", 85.0, lambda: True)
    assert not helper.alive() and not (tmp_path / "c.pdf").exists()
    job = panel.start_figure(tmp_path / "d.png", 85.0)    # a cancel ended it: the next export starts another
    assert job is not None and job.wait(300.0) and job.error is None and helper.started == 2
    window.close()
    assert not helper.alive()
