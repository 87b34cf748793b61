"""Fit at 1366 x 768 (issue 32 §6): the Validity panel's FELL line wraps instead of widening the side
panel and squeezing the stick figure; the scopes keep a usable height and scroll."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from app.gui.fit_screen import fit_geometry
from app.gui.main_window import MainWindow
from app.gui.scopes.scopes import MIN_SCOPE_PX
from app.gui.session.session import SimSession
from tests.gui.conftest import run_until

LAPTOP = QtCore.QRect(0, 0, 1366, 768)


def test_a_fall_at_1366x768_leaves_the_figure_its_width_and_the_scopes_scroll(qtbot, settings) -> None:
    win = MainWindow(SimSession(dataset="sneakers", preset="paper", t_end=2.0), settings=settings,
                     hook_exceptions=False)
    qtbot.addWidget(win)
    fit_geometry(win, LAPTOP, LAPTOP.size())
    win.show()
    win.controls.speed.setCurrentIndex(win.controls.speed.count() - 1)
    qtbot.wait(50)
    before = win.figure.width()
    run_until(qtbot, win, 2.0)
    win.side.setCurrentWidget(win.validity)
    qtbot.wait(50)
    status = win.validity.status
    assert status.text().startswith("FELL at") and status.wordWrap()
    assert status.fontMetrics().horizontalAdvance(status.text()) > status.width()   # it would not fit on one line
    assert win.figure.width() >= before >= 300     # measured: 335 px (123 px before the wrap)
    for label in (win.status_time, win.status_rtf, win.status_fps):     # the long FELL line elides
        assert label.width() >= label.sizeHint().width(), label.text()  # instead of cutting these
    assert win.status_state.full_text().startswith("FELL at") and win.status_state.text().endswith("…")
    controls = win.figure.controls
    for box in (controls.ghost, controls.follow):   # "ghost" and "follow" are not clipped
        assert box.width() >= box.sizeHint().width()
    # the 8 scopes keep MIN_SCOPE_PX each and scroll; only those in view count as visible
    area = win.scope_panel.area
    assert isinstance(area, QtWidgets.QScrollArea) and area.widget() is win.scopes
    assert len(win.scopes.scopes) == 8
    assert all(sc.plot.height() >= MIN_SCOPE_PX - 1 for sc in win.scopes.scopes)
    bar = area.verticalScrollBar()
    assert bar.maximum() > 0
    shown = win.scopes.visible_scopes()
    assert 0 < len(shown) < 8 and win.scopes.scopes[0] in shown and win.scopes.scopes[-1] not in shown
    bar.setValue(bar.maximum())
    qtbot.wait(20)
    shown = win.scopes.visible_scopes()
    assert win.scopes.scopes[-1] in shown and win.scopes.scopes[0] not in shown


def test_at_1366x768_the_scopes_and_their_legends_fit_the_view(qtbot, settings) -> None:
    """A long statistics title (the CoP scope's, 590 px) made every scope that wide, 62 px more
    than the 538 px view: the legends were cut to "L re", "L es". Titles are cut instead."""
    win = MainWindow(SimSession(t_end=1.0), settings=settings, hook_exceptions=False)
    qtbot.addWidget(win)
    fit_geometry(win, LAPTOP, LAPTOP.size())
    win.show()
    win.controls.speed.setCurrentIndex(win.controls.speed.count() - 1)
    run_until(qtbot, win, 1.0)
    qtbot.waitUntil(lambda: not win.scopes.settling.pending, timeout=5000)
    stack = win.scopes
    qtbot.wait(50)
    view = stack.viewport().width()
    titles = [sc.plot.titleLabel for sc in stack.scopes]
    assert max(t.itemRect().width() for t in titles) > view - 100       # some title is longer than its room
    for sc in stack.scopes:
        right = stack.mapFromScene(sc.legend.sceneBoundingRect().topRight()).x()
        assert right <= view + 1, (sc.spec.title, right, view)        # the legend column is in view
        assert sc.legend.width() >= 90                                  # and not squeezed
