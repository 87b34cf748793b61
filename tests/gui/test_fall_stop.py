"""A fall ends the GUI's run, visibly (issue 32 §1): with Simulation ▸ Stop at fall (on by default) the
run ends ``FALL_MARGIN_S`` after the fall, the stick figure names the fall in red, the scopes show the
whole run and their statistics cover the walk before the fall and say so; unchecked, Run goes on."""

from __future__ import annotations

import numpy as np
import pytest

from app.gui.main_window import MainWindow
from app.gui.scopes.scope_math import trace_stats
from app.gui.session.session import SimSession
from app.walking import FALL_MARGIN_S, status_text
from tests.gui.conftest import drawn, run_until


@pytest.fixture
def fallen(qtbot, settings) -> MainWindow:
    """The paper preset on sneakers (falls at 0.76 s), asked for 2 s, run with the defaults."""
    win = MainWindow(SimSession(dataset="sneakers", preset="paper", t_end=2.0), settings=settings,
                     hook_exceptions=False)
    qtbot.addWidget(win)
    win.controls.speed.setCurrentIndex(win.controls.speed.count() - 1)
    win.scopes.window_s = 0.3   # the scopes follow the last 0.3 s while running: shorter than the walk
    run_until(qtbot, win, 2.0)
    return win


def test_the_run_ends_at_the_fall_and_the_figure_names_it(fallen: MainWindow) -> None:
    win, s = fallen, fallen.session
    fall = s.falls.fall
    assert fall is not None and 0.7 < fall.at_s < 0.8 and "knee hyperextended" in fall.cause
    assert not win.run_control.running and s.finished
    assert s.time == pytest.approx(fall.at_s + FALL_MARGIN_S, abs=1e-9)   # not the 2 s asked for
    assert win.stop_at_fall.isChecked() and s.spec.stop_at_fall
    label = win.figure.fall_label
    assert not label.isHidden()
    assert label.text() == status_text({"status": "fell", "fell_at_s": fall.at_s, "fell_because": fall.cause})
    assert "color: #c62828" in label.styleSheet()
    assert "fallen" in win.figure.header.text()
    assert win.validity.status.text().startswith(f"FELL at {fall.at_s:.2f} s")
    # scrubbing back before the fall: the figure walks again, unlabelled
    win.run_control.scrub(0.5)
    assert label.isHidden() and "fallen" not in win.figure.header.text()


def test_the_scopes_show_the_whole_run_and_statistics_cover_the_walk(fallen: MainWindow) -> None:
    win, s = fallen, fallen.session
    fall = s.falls.fall
    assert fall is not None
    walk = int(np.searchsorted(s.recorded_time(), fall.at_s, side="right"))
    assert walk < s.runner.recorder.length   # the margin after the fall is recorded ...
    win.scopes.scene().prepareForPaint()     # pyqtgraph applies a pending auto-range before it paints
    x0, x1 = win.scopes.master().plot.getViewBox().viewRange()[0]
    assert x0 <= 0.01 and x1 >= s.time - 0.01   # ... and the whole run is on screen, fall marker included
    for sc in win.scopes.scopes:
        if sc.is_xy:
            continue
        assert f"walk before the fall at {fall.at_s:.2f} s" in sc.plot.titleLabel.text
        for tr, stats in zip(sc.spec.traces, sc.stats):
            expect = trace_stats(sc.trace_data(s, tr, 0, walk))
            np.testing.assert_allclose(stats, expect)


def test_unchecking_stop_at_fall_runs_on_and_statistics_stay_on_the_walk(fallen: MainWindow, qtbot) -> None:
    win, s = fallen, fallen.session
    fall = s.falls.fall
    assert fall is not None
    win.stop_at_fall.setChecked(False)
    assert not s.finished and not s.spec.stop_at_fall
    run_until(qtbot, win, 2.0)
    assert s.time == pytest.approx(2.0)
    assert s.falls.fall == fall   # the same fall, still named
    assert not win.figure.fall_label.isHidden()
    hip = next(sc for sc in win.scopes.scopes if not sc.is_xy)
    walk = int(np.searchsorted(s.recorded_time(), fall.at_s, side="right"))
    for tr, stats in zip(hip.spec.traces, hip.stats):
        np.testing.assert_allclose(stats, trace_stats(hip.trace_data(s, tr, 0, walk)))
    # the % cycle view also covers the walk before the fall, and says so
    win.scopes.set_cycle(True)
    drawn(qtbot, win)
    assert all(f"walk before the fall at {fall.at_s:.2f} s" in sc.plot.titleLabel.text
               for sc in win.scopes.scopes if not sc.is_xy)
