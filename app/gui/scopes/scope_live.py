"""Entering and leaving live refreshing; leaving it one scope per event-loop turn.

While a run goes, the scopes are in their live state (:meth:`~app.gui.scopes.scopes.ScopeStack.set_live`:
x links cut, 1 px pens, y auto-range off, the last seconds only). When it stops, each scope
goes back to its paused state and gets the whole run. Done for the eight default scopes at
once, that was the longest freeze left at the end of a run (issue 32 §2): the eight plots
relinked, refilled and, above all, repainted with their full-width pens in one turn (Qt strokes
1.6-2 px lines about 2.7 times slower than 1 px ones: :meth:`~app.gui.scopes.scope_plot.Scope.thin_pens`).

:class:`Settling` does it one scope per turn (:func:`~app.gui.session.handover.next_turn`), the
first time scope (the x master) first, so each turn repaints one plot. A scope not settled yet
is still in its live state, so a run started again meanwhile simply drops the rest
(:meth:`Settling.cancel`, the callbacks still run); anything that needs every scope settled now (a rebind, a full
refresh, a fall marker) calls :meth:`Settling.finish`. Callbacks given to :meth:`Settling.then`
run in the turn after the last scope (the run's summary and the kept run, so that they follow
the redraw rather than interleave with it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from PySide6 import QtCore

from app.gui.session.handover import next_turn

if TYPE_CHECKING:
    from app.gui.scopes.scope_plot import Scope

__all__ = ["Settling", "enter_live", "leave_live"]


def enter_live(sc: Scope, master: Scope | None) -> None:
    """Scope ``sc`` into its live state: 1 px pens, no pyqtgraph downsampling (live data come
    peak-decimated: not twice), no y auto-range (a sticky range instead), x unlinked from ``master``."""
    sc.thin_pens(True)
    if sc.is_xy:
        return
    for c in sc.curves:   # set in place: the next setData applies it (setDownsampling would recompute
        c.opts["autoDownsample"] = False   # every curve now, for data replaced right after)
    sc.plot.enableAutoRange(axis="y", enable=False)
    sc.refreshed_at = sc.stats_at = -math.inf
    if sc is not master:
        sc.plot.setXLink(None)


def leave_live(sc: Scope, master: Scope | None) -> None:
    """Scope ``sc`` back in its paused state: its traces' pens, downsampled to the view's pixel
    columns by pyqtgraph, y auto-ranged, x linked to ``master`` (the data are the caller's)."""
    sc.thin_pens(False)
    if sc.is_xy:
        return
    for c in sc.curves:
        c.opts["autoDownsample"] = True
    sc.plot.enableAutoRange(axis="y")
    if sc is not master and master is not None:
        sc.plot.setXLink(master.plot)


class Settling(QtCore.QObject):
    """Scopes waiting to leave their live state; ``step(scope)`` settles one of them."""

    def __init__(self, step: Callable[[Scope], None], parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self._step = step
        self.pending: list[Scope] = []
        self._after: list[Callable[[], None]] = []
        self._chain = 0          # the running chain of turns; an older one stops at its next turn
        self.turns = 0           # scopes settled in their own turn (for tests and benchmarks)

    def start(self, scopes: list[Scope], now: bool = True) -> None:
        """Settle ``scopes`` in order: the first now (without ``now``: in the next turn), then one
        per event-loop turn."""
        self.finish()
        self.pending = list(scopes)
        self._chain += 1
        if now:
            self._next(self._chain)
        else:
            next_turn(self, partial(self._next, self._chain))

    def _next(self, chain: int) -> None:
        if chain != self._chain:
            return
        if self.pending:
            self._step(self.pending.pop(0))
            self.turns += 1
        if self.pending:
            next_turn(self, partial(self._next, chain))
        elif self._after:
            next_turn(self, partial(self._run_after, chain))

    def _run_after(self, chain: int) -> None:
        if chain == self._chain and not self.pending:
            after, self._after = self._after, []
            for fn in after:
                fn()

    def then(self, fn: Callable[[], None]) -> None:
        """Call ``fn`` in the turn after every scope settled (at once in the next turn if none waits)."""
        self._after.append(fn)
        if not self.pending:
            next_turn(self, partial(self._run_after, self._chain))

    def finish(self) -> None:
        """Settle the scopes still waiting, now (the callbacks keep their turn)."""
        while self.pending:
            self._step(self.pending.pop(0))
        if self._after:
            next_turn(self, partial(self._run_after, self._chain))

    def cancel(self) -> None:
        """Forget the scopes still waiting (they stay live: a run started again); the callbacks keep their turn."""
        self.pending = []
        self._chain += 1
        if self._after:
            next_turn(self, partial(self._run_after, self._chain))
