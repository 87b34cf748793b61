"""The scope stack's signal editing, as a mixin of :class:`~app.gui.scopes.scopes.ScopeStack`.

A signal added to a scope or to a new one, an XY scope, a trace or a scope removed (the signal
browser, drops, the plots' context menus). Each makes the layout the user's own (``custom``: kept
across recompiles while the diagram logs its signals). The mixin uses the stack's ``session``,
``scopes``, ``runs``, ``custom``, ``specs``, ``bind`` and ``refresh``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.gui.scopes.scope_specs import PALETTE, ScopeSpec, Trace
from app.gui.scopes.scope_units import angle_unit
from app.gui.scopes.scope_xy import XYScope, next_colour, xy_spec
from blocks.units import column_units

if TYPE_CHECKING:
    from app.gui.runs.run_store import KeptRun
    from app.gui.scopes.scope_plot import Scope
    from app.gui.session.session import SimSession

__all__ = ["EditMixin"]


class EditMixin:
    """Signals and scopes added and removed (module doc)."""

    session: SimSession | None
    scopes: list[Scope]
    runs: list[KeptRun]
    custom: bool

    if TYPE_CHECKING:
        def specs(self) -> list[ScopeSpec]: ...

        def bind(self, s: SimSession, specs: list[ScopeSpec] | None = None,
                 staged: bool = False, later: bool = False) -> list[Scope]: ...

        def refresh(self, full: bool = False, stats: bool = False) -> None: ...

    def make_trace(self, name: str, col: int, color: str | None = None) -> tuple[Trace, str]:
        """A trace of column ``col`` of logged signal ``name`` (radians shown in degrees) and its unit."""
        assert self.session is not None
        s = self.session
        unit, scale = angle_unit(column_units(s.unit(name), s.labels(name))[col])
        label = f"{name}[{s.labels(name)[col]}]"
        return Trace(label, name, col, scale, color or PALETTE[len(label) % len(PALETTE)]), unit

    def add_signal(self, index: int, name: str, col: int) -> Trace:
        """Add column ``col`` of logged signal ``name`` to scope ``index`` (-1 = a new scope)."""
        assert self.session is not None
        self.custom = True
        if 0 <= index < len(self.scopes):
            sc = self.scopes[index]
            tr, _ = self.make_trace(name, col, next_colour(sc.spec) if sc.is_xy else None)
            sc.add_trace(tr)
            sc.show_runs(self.runs)
        else:
            tr, unit = self.make_trace(name, col)
            self.bind(self.session, self.specs() + [ScopeSpec(name, unit, [tr])])
        self.refresh(full=True)
        return tr

    def add_xy(self, x: tuple[str, int], y: tuple[str, int]) -> XYScope:
        """A new XY scope of column ``y[1]`` of signal ``y[0]`` against column ``x[1]`` of ``x[0]``."""
        assert self.session is not None
        tx, ux = self.make_trace(*x, color="#222222")
        ty, uy = self.make_trace(*y, color=PALETTE[0])
        self.custom = True
        self.bind(self.session, self.specs() + [xy_spec(tx, ty, ux, uy)])
        self.refresh(full=True, stats=True)
        scope = self.scopes[-1]
        assert isinstance(scope, XYScope)
        return scope

    def remove_trace(self, index: int, trace: int) -> Trace:
        """Remove trace ``trace`` of scope ``index``."""
        self.custom = True
        tr = self.scopes[index].remove_trace(trace)
        self.scopes[index].show_runs(self.runs)
        return tr

    def remove_scope(self, index: int) -> ScopeSpec:
        """Remove scope ``index`` (the others keep their traces)."""
        specs = self.specs()
        gone = specs.pop(index)
        assert self.session is not None
        self.custom = True
        self.bind(self.session, specs)
        self.refresh(full=True, stats=True)
        return gone
