"""Redrawing the scopes one per event-loop turn: a units or x-axis switch, a run (un)ticked to
overlay, the rebind after a compile (``ScopeStack.rebind(s)``: its first turn is the next one, as
the compile's own turn repaints the diagram).

A units switch with three kept runs overlaid gave eight plots new data at once (their traces
and 3 x 2 overlay curves each, the statistics), and Qt then repainted all eight in one turn: 135-219 ms
of GUI-thread CPU at load 3 (issue 32 §2), of which the repaint about 80-130 ms. Ticking a run to
overlay repainted all eight plots with their overlays too (about 100 ms).

:class:`Redraw` does the same work one scope per turn (a
:class:`~app.gui.scopes.scope_live.Settling` chain, :func:`~app.gui.session.handover.next_turn`
apart), so a turn repaints one plot: the x master first (the others link their x axis to it),
then the scopes on screen (:meth:`~app.gui.scopes.scopes.ScopeStack.visible_scopes`), top to
bottom, then the rest of the scrolled stack. A scope waiting for its turn keeps what it showed
(its old units, or its overlays without the new run) and, for an x-axis switch, is unlinked from
the master meanwhile, so that the master's new x range does not repaint it before its turn.
Anything that needs every scope up to date now (a refresh, a new run, a fall marker, a
rebind) calls :meth:`Redraw.finish`; :meth:`Redraw.drop` forgets the waiting scopes when a
bind will redo them anyway.

A scope's turn (:meth:`Redraw.step`): if its display is *stale* (a units or x-axis switch), the new
unit and x mode in place (:meth:`~app.gui.scopes.scope_plot.Scope.set_display`, then
:meth:`~app.gui.scopes.scope_plot.Scope.reset`), its x axis linked back, the whole run and its statistics;
in every case the stack's kept runs overlaid (:meth:`~app.gui.scopes.scope_plot.Scope.show_runs`,
incremental: only what changed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.gui.scopes.scope_live import Settling
from app.gui.scopes.scope_measure import link_y_by_unit
from app.gui.scopes.scope_units import display_unit

if TYPE_CHECKING:
    from app.gui.scopes.scope_plot import Scope
    from app.gui.scopes.scopes import ScopeStack

__all__ = ["Redraw", "redraw_order"]


def redraw_order(stack: ScopeStack, scopes: list[Scope]) -> list[Scope]:
    """``scopes`` in the order of their turns: the x master, those on screen, the others (each
    group top to bottom)."""
    master = stack.master()
    shown = set(map(id, stack.visible_scopes()))
    return sorted(scopes, key=lambda sc: (sc is not master, id(sc) not in shown, stack.scopes.index(sc)))


class Redraw:
    """The scopes of ``stack`` waiting for their turn to be redrawn (module docstring)."""

    def __init__(self, stack: ScopeStack) -> None:
        self.stack = stack
        self.chain = Settling(self.step, stack)
        self.stale: set[int] = set()      # id() of the scopes whose units or x mode changed

    @property
    def pending(self) -> list[Scope]:
        return self.chain.pending

    def start(self, scopes: list[Scope], stale: bool, now: bool = True) -> None:
        """Redraw ``scopes`` (with ``stale``: in the stack's new units and x mode, with the whole
        run), one per turn, the first now (without ``now``: in the next turn, after the caller's
        own repaint); the scopes already waiting keep their place."""
        if stale:
            self.stale |= set(map(id, scopes))
            master = self.stack.master()
            for sc in scopes:       # linked, a scope would follow the master's new x range before its turn
                if not sc.is_xy and sc is not master:
                    sc.plot.setXLink(None)
            if self.stack.link_y:       # grouped by the new units once every scope has them
                self.chain.then(lambda: link_y_by_unit(self.stack.scopes, True))
        waiting = set(map(id, self.chain.pending))
        new = [sc for sc in scopes if id(sc) not in waiting]
        if self.chain.pending:
            self.chain.pending = redraw_order(self.stack, self.chain.pending + new)
        else:
            self.chain.start(redraw_order(self.stack, new), now)

    def step(self, sc: Scope) -> None:
        """Scope ``sc``'s turn (module docstring)."""
        st = self.stack
        s = st.session
        master = st.master()
        follower = not sc.is_xy and sc is not master and master is not None
        if id(sc) in self.stale and s is not None and sc in st.scopes:
            self.stale.discard(id(sc))
            mass = float(s.biped_params().total_mass)
            sc.set_display(*display_unit(sc.spec.unit, st.units, mass), st.cycle)
            sc.reset(sc.spec, s, sc is st.scopes[-1])
            if follower:       # x from the master only: auto-ranged, its new data would move every linked plot
                sc.plot.enableAutoRange(axis="x", enable=False)
            sc.show_runs(st.runs)
            if st.live:        # the live refresh fills it, in its live state (x unlinked)
                return
            if follower and master is not None:
                sc.plot.setXLink(master.plot)
            st.push([sc], full=True, stats=True)
            if sc.is_xy or sc is master:
                sc.plot.enableAutoRange(axis="x")
            sc.show_cursor(s, st._cursor_t, st.tick_of(st._cursor_t))     # read-outs in the new units
            if st.delta_on:
                st.show_delta()
        elif sc in st.scopes:
            if follower:
                sc.plot.enableAutoRange(axis="x", enable=False)
            sc.show_runs(st.runs)

    def finish(self) -> None:
        """Redraw the waiting scopes now."""
        self.chain.finish()

    def drop(self) -> None:
        """Forget the waiting scopes (a bind redoes them)."""
        self.chain.cancel()
        self.stale = set()
