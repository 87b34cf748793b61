"""The scope stack's measuring and drop handling, as a mixin of :class:`~app.gui.scopes.scopes.ScopeStack`.

Cursor B and the Δ read-outs, linked y by unit and values on hover (:mod:`app.gui.scopes.scope_measure`),
and signals dropped from the signal browser (:mod:`app.gui.scopes.scope_drop`). The mixin uses the stack's
``session``, ``scopes``, ``_cursor_t``, ``live`` and ``hover``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from app.gui.scopes.scope_drop import decode_ref, drop_signal
from app.gui.scopes.scope_measure import HoverReadout, link_y_by_unit

if TYPE_CHECKING:
    from app.gui.scopes.scope_plot import Scope
    from app.gui.session.session import SimSession

__all__ = ["MeasureMixin"]


class MeasureMixin:
    """Cursor B, linked y, hover and drops of a scope stack (module doc)."""

    session: SimSession | None
    scopes: list[Scope]
    live: bool
    hover: HoverReadout
    delta_on: bool
    cursor_b_t: float
    link_y: bool
    cycle: bool
    _cursor_t: float

    def tick_of(self, t: float) -> int:
        """The recorded sample nearest to time ``t`` [s]."""
        assert self.session is not None
        return int(round((t - self.session.runner.t0) / self.session.dt))

    def set_delta(self, on: bool, t_b: float | None = None) -> None:
        """Show (``on``) cursor B at ``t_b`` [s] (default: where it was, or 0.2 s after cursor A) with
        the Δt and Δy read-outs on every time scope, or hide it."""
        if on and t_b is None and not self.delta_on:
            t_b = self._cursor_t + 0.2
        self.delta_on = on
        if t_b is not None:
            self.cursor_b_t = float(t_b)
        self.show_delta()

    def show_delta(self) -> None:
        s = self.session
        for sc in self.scopes:
            if sc.delta is None:
                continue
            if self.delta_on and s is not None and not self.cycle:     # no time axis in the % cycle view
                sc.delta.show(sc, s, self._cursor_t, self.cursor_b_t, self.tick_of(self._cursor_t),
                              self.tick_of(self.cursor_b_t))
            else:
                sc.delta.hide()

    def _on_cursor_b(self, line: pg.InfiniteLine) -> None:
        self.set_delta(True, float(line.value()))

    def set_link_y(self, on: bool) -> None:
        """Link the y axes of the time scopes of the same unit.

        The linking is :func:`~app.gui.scopes.scope_measure.link_y_by_unit`.
        """
        self.link_y = on
        link_y_by_unit(self.scopes, on)

    def _on_hover(self, pos: QtCore.QPointF) -> None:
        if not self.live:
            self.hover.at(self.scopes, pos)

    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:
        if decode_ref(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)  # type: ignore[misc]

    def dragMoveEvent(self, event: QtGui.QDragMoveEvent) -> None:
        if decode_ref(event.mimeData()) is not None:
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)  # type: ignore[misc]

    def dropEvent(self, event: QtGui.QDropEvent) -> None:
        if drop_signal(self, event) is None:  # type: ignore[arg-type]
            super().dropEvent(event)  # type: ignore[misc]
