"""Tab pages made when first shown or asked for (app/gui/lazy_tabs.py): the window opens without its
Compare, Tuning and Solved gait views, and each one appears in its own tab, at its index, when needed."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from app.gui.lazy_tabs import LazyTabs
from app.gui.main_window import MainWindow
from app.gui.runs.compare_view import CompareView
from app.gui.runs.tuning_panel import TuningPanel
from app.gui.solve.solve_view import SolvedView

pytestmark = pytest.mark.gui


def _tabs(qtbot) -> tuple[QtWidgets.QTabWidget, LazyTabs, list[str]]:
    tabs = QtWidgets.QTabWidget()
    qtbot.addWidget(tabs)
    tabs.addTab(QtWidgets.QLabel("first"), "First")
    lazy = LazyTabs(tabs)
    made: list[str] = []
    for label in ("B", "C", "D"):
        lazy.add(label, lambda label=label: made.append(label) or QtWidgets.QLabel(label))
    tabs.show()
    return tabs, lazy, made


def test_a_page_is_made_when_its_tab_is_shown_in_place_and_only_once(qtbot) -> None:
    tabs, lazy, made = _tabs(qtbot)
    assert made == [] and not lazy.made("C")
    tabs.setCurrentIndex(2)
    assert made == ["C"] and lazy.made("C")
    page = tabs.currentWidget()
    assert isinstance(page, QtWidgets.QLabel) and page.text() == "C"
    assert tabs.currentIndex() == 2 and [tabs.tabText(i) for i in range(tabs.count())] == ["First", "B", "C", "D"]
    tabs.setCurrentIndex(0)
    tabs.setCurrentIndex(2)
    assert made == ["C"] and lazy.page("C") is page and tabs.indexOf(page) == 2


def test_a_page_asked_for_is_made_without_changing_the_current_tab(qtbot) -> None:
    tabs, lazy, made = _tabs(qtbot)
    tabs.setCurrentIndex(3)                             # D shown (made)
    page = lazy.page("B")
    assert made == ["D", "B"] and tabs.currentIndex() == 3 and tabs.indexOf(page) == 1
    tabs.setCurrentWidget(page)
    assert tabs.currentIndex() == 1 and made == ["D", "B"]


def test_the_window_makes_its_compare_tuning_and_solved_views_on_first_use(window: MainWindow) -> None:
    lazy = window.lazy_tabs
    assert not any(lazy.made(t) for t in ("Compare", "Tuning", "Solved gait"))
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == ["Scopes", "Compare", "Tuning",
                                                                             "Solved gait"]
    window.tabs.setCurrentIndex(2)
    assert isinstance(window.tabs.currentWidget(), TuningPanel) and window.tuning is window.tabs.currentWidget()
    assert window.tuning.axes[0].ref.currentText() == "pid_hip.kp"   # bound to the session when made
    assert isinstance(window.compare, CompareView) and window.tabs.indexOf(window.compare) == 1
    assert window.tabs.currentIndex() == 2 and not lazy.made("Solved gait")
    window.tabs.setCurrentIndex(3)
    assert isinstance(window.tabs.currentWidget(), SolvedView) and window.tabs.currentWidget() is window.solve.view


def test_a_solution_shown_puts_the_solved_view_in_its_tab(window: MainWindow) -> None:
    """``SolveFlow.open`` makes the view to draw the solution in, and its ``shown`` puts it in the tab."""
    view = window.solve.view                             # as open() makes it, before the tab was ever shown
    assert not window.lazy_tabs.made("Solved gait") and window.tabs.indexOf(view) == -1
    window.solve.shown.emit("a folder")
    assert window.tabs.indexOf(view) == 3 and window.tabs.currentIndex() == 0
