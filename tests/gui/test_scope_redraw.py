"""A units or x-axis switch, a run ticked to overlay and a compile's rebind redraw one scope per event-loop turn,
the x master first, then the scopes on screen (issue 32 §2: app.gui.scopes.scope_redraw)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6 import QtCore

from app.gui.main_window import MainWindow
from app.gui.scopes.scope_figure import figure_data
from app.gui.scopes.scope_plot import Scope
from app.gui.scopes.scope_redraw import redraw_order
from tests.gui.conftest import drawn, given, run_until

pytestmark = pytest.mark.gui


def _two_kept_runs(qtbot: Any, window: MainWindow) -> None:
    for _ in range(2):
        run_until(qtbot, window, 2.5)            # complete cycles for the % cycle view
        window.run_control.reset()
        qtbot.waitUntil(lambda: not window.compiler.busy, timeout=30000)


def _two_runs_overlaid(qtbot: Any, window: MainWindow) -> Any:
    """Two kept runs, both ticked to overlay and drawn; the run inspector."""
    _two_kept_runs(qtbot, window)
    ins = window.inspector
    for r in ins.store.runs:
        ins.set_ticked(r.key, True)
    drawn(qtbot, window)
    return ins


def _count(monkeypatch: pytest.MonkeyPatch, name: str) -> list[Scope]:
    """Every call of ``Scope.<name>`` (the scope it was called on)."""
    calls: list[Scope] = []
    real = getattr(Scope, name)

    def spy(self: Scope, *args: Any, **kw: Any) -> Any:
        calls.append(self)
        return real(self, *args, **kw)

    monkeypatch.setattr(Scope, name, spy)
    return calls


def _per_turn(window: MainWindow, calls: list[Scope]) -> list[int]:
    """How many calls each turn of the redraw chain made (its step wrapped)."""
    chain = window.scopes.redraw.chain
    step, counts = chain._step, []

    def counted(sc: Scope) -> None:
        n = len(calls)
        step(sc)
        counts.append(len(calls) - n)

    chain._step = counted
    return counts


def test_a_units_switch_redraws_one_scope_a_turn(qtbot, window: MainWindow,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ins = _two_runs_overlaid(qtbot, window)
    stack = window.scopes
    n = len(stack.scopes)
    grf = next(sc for sc in stack.scopes if "GRF" in sc.spec.title)
    _, y_si = given(grf.overlay.curves[(ins.store.runs[0].key, 0)])
    updates = _count(monkeypatch, "update")
    turns = _per_turn(window, updates)
    window.scope_panel.units.setCurrentIndex(1)                 # forces in body weights
    assert updates == [stack.master()]                          # before: all eight plots in this call
    assert grf.unit == "N" and len(stack.redraw.pending) == n - 1
    drawn(qtbot, window)
    assert sorted(map(id, updates)) == sorted(map(id, stack.scopes))     # each scope once ...
    assert turns == [1] * n                                              # ... in a turn of its own
    assert grf.unit == "BW"
    assert given(grf.overlay.curves[(ins.store.runs[0].key, 0)])[1][-1] == pytest.approx(y_si[-1] * grf.factor)
    updates.clear()
    window.scope_panel.xaxis.setCurrentIndex(1)                 # % gait cycle: the same, one a turn
    assert updates == [stack.master()]
    drawn(qtbot, window)
    assert len(updates) == n and all(sc.cycle for sc in stack.scopes)
    r = ins.store.runs[0]
    assert all(given(sc.overlay.curves[(r.key, 0)])[0][-1] == pytest.approx(100.0) for sc in stack.scopes
               if (r.key, 0) in sc.overlay.curves)                 # the kept runs' mean cycles


def test_ticking_a_run_overlays_it_one_scope_a_turn(qtbot, window: MainWindow,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _two_kept_runs(qtbot, window)
    stack, ins = window.scopes, window.inspector
    shown = _count(monkeypatch, "show_runs")
    turns = _per_turn(window, shown)
    r1 = ins.store.runs[0]
    ins.set_ticked(r1.key, True)
    assert shown == [stack.master()]                            # before: every scope in this call
    assert sum(bool(sc.overlay.curves) for sc in stack.scopes) == 1
    drawn(qtbot, window)
    assert turns == [1] * len(stack.scopes)
    assert all((r1.key, 0) in sc.overlay.curves for sc in stack.scopes)


def test_the_scopes_on_screen_go_first(qtbot, window: MainWindow) -> None:
    window.resize(1366, 600)                                    # the stack scrolls
    qtbot.wait(50)
    stack = window.scopes
    bar = window.scope_panel.area.verticalScrollBar()
    assert bar.maximum() > 0
    bar.setValue(bar.maximum())                                 # the bottom scopes on screen, the master not
    qtbot.wait(50)
    visible = stack.visible_scopes()
    assert visible and stack.master() not in visible and len(visible) < len(stack.scopes)
    order = redraw_order(stack, list(reversed(stack.scopes)))
    assert order[0] is stack.master()
    assert set(map(id, order[1:1 + len(visible)])) == set(map(id, visible))
    assert [stack.scopes.index(sc) for sc in order[1:1 + len(visible)]] == sorted(
        stack.scopes.index(sc) for sc in visible)


class _Paints(QtCore.QObject):
    """The heights [px] of the regions painted in a widget (an event filter)."""

    def __init__(self) -> None:
        super().__init__()
        self.heights: list[int] = []

    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:
        if event.type() == QtCore.QEvent.Type.Paint:
            self.heights.append(event.rect().height())
        return False


def _quiet(qtbot, paints: _Paints, ms: int = 150) -> None:  # type: ignore[no-untyped-def]
    """Wait until no paint has come for ``ms`` (at most 5 s)."""
    for _ in range(5000 // ms):
        n = len(paints.heights)
        qtbot.wait(ms)
        if len(paints.heights) == n:
            return


def test_a_turn_repaints_about_its_own_plot(qtbot, window: MainWindow) -> None:
    window.resize(1920, 1080)
    _two_kept_runs(qtbot, window)
    stack, ins = window.scopes, window.inspector
    row = stack.scopes[1].plot.sceneBoundingRect().height()
    qtbot.waitUntil(lambda: not stack.settling.pending and not stack.redraw.pending, timeout=10000)
    qtbot.wait(300)                     # the reset's own repaint done before counting
    paints = _Paints()
    stack.viewport().installEventFilter(paints)
    for r in ins.store.runs:            # a legend entry more asked for height: every row laid out again
        ins.set_ticked(r.key, True)
        drawn(qtbot, window)
        qtbot.wait(60)
    assert paints.heights and max(paints.heights) <= 2.2 * row
    window.scope_panel.xaxis.setCurrentIndex(1)
    drawn(qtbot, window)
    _quiet(qtbot, paints)               # under load this switch's last paint came late, among the next ones
    paints.heights.clear()
    window.scope_panel.xaxis.setCurrentIndex(0)     # a follower auto-ranging x moved the master and all
    drawn(qtbot, window)
    qtbot.wait(60)
    stack.viewport().removeEventFilter(paints)
    # each turn repaints its own plot; Qt may unite the rows of two or three turns that fall in one paint
    # pass (304 px = 2.8 rows on a clean CI run), never the whole stack (872 px before the staged redraw)
    assert paints.heights and max(paints.heights) <= 3.3 * row < stack.viewport().height() / 2


def test_a_figure_exported_while_scopes_wait_shows_them_all_in_the_new_units(qtbot, window: MainWindow) -> None:
    run_until(qtbot, window, 0.5)
    stack = window.scopes
    window.scope_panel.units.setCurrentIndex(1)                 # the GRF scopes wait for their turn
    assert stack.redraw.pending
    rows = figure_data(stack).rows                              # finishes the redraw first
    assert not stack.redraw.pending
    grf = [row for row in rows if "GRF" in row.title]
    assert grf and all(row.unit == "BW" for row in grf)


def test_a_preset_change_redraws_the_reused_scopes_one_a_turn(qtbot, window: MainWindow,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    ins = _two_runs_overlaid(qtbot, window)
    stack = window.scopes
    built, before = stack.built, list(stack.scopes)
    updates = _count(monkeypatch, "update")
    turns = _per_turn(window, updates)
    own = stack.redraw.chain.turns
    assert window.files.set_preset("setpoint", background=True)
    qtbot.waitUntil(lambda: not window.compiler.busy, timeout=30000)
    drawn(qtbot, window)
    assert window.session.preset == "setpoint"
    reused = [sc for sc in stack.scopes if any(sc is b for b in before)]
    assert reused and stack.built - built == len(stack.scopes) - len(reused)
    assert turns == [1] * len(reused)                           # one Scope.update a turn ...
    assert stack.redraw.chain.turns - own == len(reused)        # ... each in its own turn (before: all in one call)
    assert len(updates) == len(stack.scopes)                    # the built plots once, at the bind
    assert all((r.key, 0) in sc.overlay.curves for sc in stack.scopes for r in ins.store.runs
               if not sc.is_xy)
