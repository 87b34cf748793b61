"""Scopes: stacked pyqtgraph plots on one shared time axis, and XY plots.

Each scope is a :class:`~app.gui.scopes.scope_plot.Scope` (traces against time) or an
:class:`~app.gui.scopes.scope_xy.XYScope` (traces against another signal). The time scopes share one
x axis (``setXLink`` to the first of them) and one cursor time.

**Binding** (:meth:`ScopeStack.bind`, after every compile, never per frame) is incremental: a
scope whose :meth:`~app.gui.scopes.scope_specs.ScopeSpec.shape` (title, pens, options) is unchanged
keeps its plot, axes, legend and curves (:meth:`Scope.reset` empties them; a time scope takes
a new units mode or x axis in place, :meth:`Scope.set_display`, and the kept runs' overlays are
updated in place, :class:`~app.gui.scopes.scope_overlay.RunOverlay`); only the others are built
again. A recompile with the same scopes (another dataset or preset), a units switch or an
x-axis switch rebuilds no time scope (an XY scope is built again for new units). The scopes
the user chose (signals added or removed, XY plots, a restored session layout) are kept
across recompiles while the new diagram logs every signal they show; otherwise the default
set comes back.

Two refresh modes keep the display cheap (measured with ``benchmarks/gui_fps.py``):

* **paused** (:meth:`ScopeStack.refresh`): every scope gets the whole history (or the window),
  the time axes are linked, y auto-ranges, pyqtgraph clips and peak-downsamples to the view
  (:data:`~app.gui.scopes.scope_math.SAMPLES_PER_PX`: about two points per pixel column);
* **live** (:meth:`ScopeStack.set_live`, :meth:`ScopeStack.refresh_live`): while running,
  the x links are cut and the *visible* scopes are refreshed round-robin, at most ``per_frame``
  per GUI frame and at about ``live_hz`` each, so one frame repaints one plot rather than seven.
  Each refresh plots the last ``window_s`` seconds peak-decimated to two samples per pixel
  column (:func:`~app.gui.scopes.scope_math.peak_decimate`), keeps a sticky y range and rewrites the
  statistics title at most ``stats_hz`` times a second.

Display options (:class:`~app.gui.scopes.scope_panel.ScopePanel` sets them): units
(:mod:`app.gui.scopes.scope_units`), the x axis (time [s], or % gait cycle with mean ± SD over cycles,
:mod:`app.gui.scopes.scope_cycle`), kept runs overlaid (:meth:`ScopeStack.set_overlays`) and
parameter-change markers (:meth:`ScopeStack.mark_changes`).
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from app.gui.runs.run_store import KeptRun
from app.gui.scopes.scope_browser import extend_menu
from app.gui.scopes.scope_live import Settling, enter_live, leave_live
from app.gui.scopes.scope_math import peak_decimate, trace_stats
from app.gui.scopes.scope_measure import HoverReadout, link_y_by_unit
from app.gui.scopes.scope_plot import Scope
from app.gui.scopes.scope_redraw import Redraw
from app.gui.scopes.scope_specs import ScopeSpec, Trace, default_scopes
from app.gui.scopes.scope_stack_edit import EditMixin
from app.gui.scopes.scope_stack_tools import MeasureMixin
from app.gui.scopes.scope_units import display_unit
from app.gui.scopes.scope_xy import XYScope
from app.gui.session.session import SimSession

__all__ = ["MIN_SCOPE_PX", "Scope", "ScopeStack", "Trace", "XYScope", "default_scopes", "peak_decimate",
           "trace_stats"]


MIN_SCOPE_PX = 100   # least height of a scope [px]: fewer fit, the stack scrolls (app.gui.scopes.scope_panel)
AXIS_PX = 40         # ... plus the bottom scope's time axis


def walk_rows(s: SimSession, t: np.ndarray) -> tuple[int, str]:
    """``(rows, note)``: the recorded rows of the walk before the session's fall (all of them without
    one) and what the statistics and the % cycle view then say they cover."""
    fall = s.falls.fall
    if fall is None:
        return t.size, ""
    return int(np.searchsorted(t, fall.at_s, side="right")), f"walk before the fall at {fall.at_s:.2f} s"


class ScopeStack(EditMixin, MeasureMixin, pg.GraphicsLayoutWidget):
    """Stacked scopes sharing one time axis (``setXLink``) and one cursor time."""

    cursor_moved = QtCore.Signal(float)

    def __init__(self, parent: QtWidgets.QWidget | None = None, window_s: float = 4.0, live_hz: float = 12.0,
                 per_frame: int = 2, stats_hz: float = 2.0) -> None:
        super().__init__(parent)
        self.setBackground("w")
        self.window_s = window_s
        self.live_hz, self.per_frame, self.stats_hz = live_hz, per_frame, stats_hz
        self.live = False
        self.live_refreshes = 0
        self.scopes: list[Scope] = []
        self.session: SimSession | None = None
        self._cursor_t = 0.0
        self._frames = 0
        self.follow = True
        self.ci.layout.setSpacing(0)
        self.ci.setContentsMargins(2, 2, 8, 2)
        self.units = "SI"            # app.gui.scopes.scope_units.UNIT_MODES
        self.cycle = False           # x axis: % gait cycle (mean ± SD) instead of time
        self.custom = False          # the user chose the scopes: keep them across recompiles
        self.built = 0               # plots built (not reused) by bind, for tests and benchmarks
        self.runs: list[KeptRun] = []
        self.changes: list[dict[str, object]] = []
        self.browser: QtWidgets.QDialog | None = None      # the signal browser, while open
        self.delta_on = False        # cursor B and the Δ read-outs (app.gui.scopes.scope_measure)
        self.cursor_b_t = 0.0
        self.link_y = False          # y ranges linked across time scopes of one unit
        self.hover = HoverReadout()
        self.scene().sigMouseMoved.connect(self._on_hover)
        self.setAcceptDrops(True)    # signals dragged from the browser (app.gui.scopes.scope_drop)
        self.settling = Settling(self._settle_one, self)   # leaving live, a scope per turn (stop_live)
        self.redraw = Redraw(self)   # a units or x-axis switch, a run ticked: a scope per turn (scope_redraw)

    def specs(self) -> list[ScopeSpec]:
        """The specs of the scopes shown (the live objects: edits show at the next bind)."""
        return [sc.spec for sc in self.scopes]

    def master(self) -> Scope | None:
        """The first time scope: the others link their x axis to it."""
        return next((sc for sc in self.scopes if not sc.is_xy), None)

    def _keep_custom(self, s: SimSession) -> list[ScopeSpec] | None:
        """The user's scopes, if ``s`` logs every signal they show."""
        if not self.custom:
            return None
        names = set(s.signal_names())
        specs = self.specs()
        return specs if all(tr.signal in names for sp in specs for tr in sp.all_traces()) else None

    def bind(self, s: SimSession, specs: list[ScopeSpec] | None = None, staged: bool = False,
             later: bool = False) -> list[Scope]:
        """Show ``specs`` (default: the user's scopes when ``s`` logs their signals, else
        :func:`default_scopes`) for session ``s``, reusing the plots of unchanged shape; with
        ``staged``, a reused plot takes its new units, x mode, data and overlays in a turn of its own
        (:class:`~app.gui.scopes.scope_redraw.Redraw`; with ``later``, the first too waits for the
        next turn), a new one now (the caller's refresh). Returns the scopes not redrawn in turns of
        their own."""
        self.settling.finish()
        self.redraw.drop()
        deferred: list[Scope] = []
        self.session = s
        live, self.live = self.live, False
        if specs is None:
            kept = self._keep_custom(s)
            specs, self.custom = kept or default_scopes(s), kept is not None
        mass = float(s.biped_params().total_mass)
        old = self.scopes
        self.scopes = []
        for i, spec in enumerate(specs):
            unit, factor = display_unit(spec.unit, self.units, mass)
            x_unit, x_factor = display_unit(spec.x_unit, self.units, mass)
            bottom = i == len(specs) - 1
            prev = old[i] if i < len(old) else None
            if prev is not None and prev.spec.shape() == spec.shape() and (not prev.is_xy or (
                    prev.cycle == self.cycle and (prev.unit, prev.factor) == (unit, factor)
                    and (prev.x_unit, prev.x_factor) == (x_unit, x_factor))):   # type: ignore[attr-defined]
                if staged:
                    deferred.append(prev)
                else:
                    prev.set_display(unit, factor, self.cycle)     # a time scope switches units and x in place
                    prev.reset(spec, s, bottom)
                self.scopes.append(prev)
                continue
            if prev is not None:
                self.removeItem(prev.plot)
            plot = self.addPlot(row=i, col=0)
            if spec.x is not None:
                scope: Scope = XYScope(plot, spec, bottom, unit, factor, self.cycle, x_unit, x_factor)
            else:
                scope = Scope(plot, spec, bottom=bottom, unit=unit, factor=factor, cycle=self.cycle)
                scope.cursor.sigPositionChanged.connect(self._on_cursor)
                assert scope.delta is not None
                scope.delta.line.sigPositionChanged.connect(self._on_cursor_b)
            if spec.mark_filled and not self.cycle:
                scope.mark_filled(s.filled_spans())
            extend_menu(self, plot, i)
            self.scopes.append(scope)
            self.built += 1
        for sc in old[len(specs):]:
            self.removeItem(sc.plot)
        self.setMinimumHeight(MIN_SCOPE_PX * len(specs) + AXIS_PX)
        master = self.master()
        for sc in self.scopes:
            if not sc.is_xy and sc is not master:
                sc.plot.setXLink(master.plot if master is not None else None)
        self.changes = []
        self.hover.clear()
        self.set_live(live)
        for sc in self.scopes:
            if sc not in deferred:
                sc.show_runs(self.runs)
        if deferred:
            self.redraw.start(deferred, stale=True, now=not later)
        if self.link_y:
            link_y_by_unit(self.scopes, True)
        if self.delta_on:
            self.show_delta()
        return [sc for sc in self.scopes if sc not in deferred]

    def rebind(self, s: SimSession | None = None) -> None:
        """Rebuild the scopes, then redraw the whole run: a plot built again now, a reused one in a
        turn of its own (``bind(staged=True)``). Without ``s``, the current session with the current
        specs and options (a units or x-axis switch); with ``s``, a compile's new session with the
        scopes :meth:`bind` chooses for it (``MainWindow.bind_session``: the reused plots, with three
        runs overlaid, no longer all repaint in the turn the compile arrives)."""
        if s is not None:
            fresh = self.bind(s, staged=True, later=True)     # the compile's turn repaints the diagram
        elif self.session is not None:
            fresh = self.bind(self.session, self.specs(), staged=True)
        else:
            return
        self.push(fresh, full=True, stats=True)
        for sc in fresh:
            if sc.is_xy or sc is self.master():
                sc.plot.enableAutoRange(axis="x")

    def fit_x(self) -> None:
        """Fit the shared time axis (and every XY scope) to the data."""
        for sc in self.scopes:
            if sc.is_xy or sc is self.master():
                sc.plot.enableAutoRange(axis="x")

    def set_units(self, mode: str) -> None:
        """``"SI"`` or ``"BW"`` (:mod:`app.gui.scopes.scope_units`)."""
        self.units = mode
        self.rebind()

    def set_cycle(self, on: bool) -> None:
        """x axis in % gait cycle (mean ± SD over the run's complete cycles) or in time."""
        self.cycle = on
        self.follow = not on
        self.rebind()

    def set_overlays(self, runs: list[KeptRun]) -> None:
        """Overlay the kept ``runs`` on every scope (an empty list removes the overlays), a scope per
        event-loop turn (:class:`~app.gui.scopes.scope_redraw.Redraw`)."""
        self.runs = list(runs)
        self.redraw.start(list(self.scopes), stale=False)

    def mark_changes(self, changes: list[dict[str, object]]) -> None:
        """Mark the live run's parameter changes ``{"t", "name", "old", "new"}`` on every time scope."""
        if changes == self.changes:
            return
        self.changes = list(changes)
        if not self.cycle:
            for sc in self.scopes:
                if not sc.is_xy:
                    sc.markers.show(self.changes)

    def _on_cursor(self, line: pg.InfiniteLine) -> None:
        t = float(line.value())
        if abs(t - self._cursor_t) > 1e-12:
            self.set_cursor(t)
            self.cursor_moved.emit(t)

    def mark_fall(self, t_fall: float | None) -> None:
        """Mark (or, with None, unmark) the time of a fall on every scope; the time scopes fit their
        y range to the walk before it (:meth:`Scope.fit_y_before`), not to a tumbling body."""
        self.settling.finish()
        self.redraw.finish()
        s = self.session
        for sc in self.scopes:
            sc.mark_fall(t_fall)
            if t_fall is not None and s is not None and not sc.is_xy and not self.cycle:
                sc.fit_y_before(s, int(np.searchsorted(s.recorded_time(), t_fall, side="right")))

    def set_cursor(self, t: float) -> None:
        """Move every scope's cursor to ``t`` [s] and update the read-outs."""
        self._cursor_t = t
        s = self.session
        if s is None:
            return
        tick = self.tick_of(t)
        for sc in self.scopes:
            sc.show_cursor(s, t, tick)
        self.show_delta()

    def set_live(self, on: bool) -> None:
        """Enter (``on``, the run starts) or leave live refreshing, every scope at once
        (:func:`~app.gui.scopes.scope_live.enter_live`, :func:`~app.gui.scopes.scope_live.leave_live`:
        x links, pens, downsampling, y auto-range); :meth:`stop_live` leaves it a scope per turn."""
        if on == self.live:
            return
        self.live = on
        if on:
            self.redraw.finish()
            self.settling.cancel()      # the scopes not settled yet are still live
        master = self.master()
        for sc in self.scopes:
            if on:
                enter_live(sc, master)
            else:
                leave_live(sc, master)

    def stop_live(self) -> None:
        """Leave live refreshing (the run stopped or paused): each scope back in its paused state
        with the whole run and its statistics, the x master now and the others one per event-loop
        turn (:class:`~app.gui.scopes.scope_live.Settling`). Not live: a full refresh."""
        if not self.live:
            self.refresh(full=True, stats=True)
            return
        self.redraw.finish()
        self.live = False
        master = self.master()
        self.settling.start(sorted(self.scopes, key=lambda sc: sc is not master))

    def _settle_one(self, sc: Scope) -> None:
        leave_live(sc, self.master())
        self.push([sc], full=True, stats=True)

    def visible_scopes(self) -> list[Scope]:
        """The scopes on screen: none when the stack is hidden (another tab), else those whose plot
        intersects the viewport (all of them unless the stack is scrolled or clipped)."""
        shown = self.viewport().visibleRegion().boundingRect()   # clipped by the scroll area
        if not self.isVisible() or shown.isEmpty():
            return []
        view = self.mapToScene(shown).boundingRect()
        return [sc for sc in self.scopes if sc.plot.isVisible() and sc.plot.sceneBoundingRect().intersects(view)]

    def refresh_live(self, now: float) -> int:
        """Refresh the visible scopes due at wall time ``now`` [s] (``time.perf_counter``): the
        most stale first, at most ``per_frame`` of them, each at most ``live_hz`` times a second.
        Returns how many were refreshed."""
        s = self.session
        if s is None or not self.scopes:
            return 0
        due = sorted((sc for sc in self.visible_scopes() if now - sc.refreshed_at >= 1.0 / self.live_hz),
                     key=lambda sc: sc.refreshed_at)[: self.per_frame]
        if not due:
            return 0
        t_all = s.recorded_time()
        n = t_all.size
        walk, note = walk_rows(s, t_all)
        lo = 0 if self.cycle else max(0, n - int(round(self.window_s / s.dt)) - 1)
        hi = walk if self.cycle else n
        t = t_all[lo:hi]
        stance_name = s.find("PhaseDetector", "stance")
        stance = s.recorded(stance_name)[lo:hi] if stance_name else None
        for sc in due:
            sc.refreshed_at = now
            sc.update(s, t, lo, hi, stance, bins=max(100, int(sc.plot.getViewBox().width())))
            sc.sticky_y_range()
            if self.follow and n and not self.cycle and not sc.is_xy:
                t_end = float(t_all[-1])
                sc.plot.setXRange(max(float(t_all[0]), t_end - self.window_s), max(t_end, float(t_all[0]) + 0.2),
                                  padding=0.0)
            if now - sc.stats_at >= 1.0 / self.stats_hz:
                sc.stats_at = now
                sc.update_stats(s, max(0, min(lo, walk - (n - lo))), walk, note)
        self.mark_changes(s.param_log())
        self.live_refreshes += len(due)
        return len(due)

    def refresh(self, full: bool = False, stats: bool = False) -> None:
        """Push recorded data into every curve: the last ``window_s`` seconds, or all of it (the
        scopes still settling from live are settled first)."""
        self.settling.finish()
        self.redraw.finish()
        self._frames += 1
        self.push(self.scopes, full, stats or self._frames % 10 == 0)

    def push(self, scopes: list[Scope], full: bool, stats: bool) -> None:
        """Data (and with ``stats`` the title statistics) into ``scopes``; the x master follows the run's end."""
        s = self.session
        if s is None or not scopes:
            return
        t_all = s.recorded_time()
        n = t_all.size
        walk, note = walk_rows(s, t_all)
        lo = 0 if full or self.cycle else max(0, n - int(round(self.window_s / s.dt)) - 1)
        hi = walk if self.cycle else n
        t = t_all[lo:hi]
        stance_name = s.find("PhaseDetector", "stance")
        stance = s.recorded(stance_name)[lo:hi] if stance_name else None
        for sc in scopes:
            sc.update(s, t, lo, hi, stance)
            if stats:
                sc.update_stats(s, max(0, min(lo, walk - (n - lo))), walk, note)
        self.mark_changes(s.param_log())
        master = self.master()
        if self.follow and n and not self.cycle and master in scopes:
            t_end = float(t_all[-1])
            master.plot.setXRange(max(t_all[0], t_end - self.window_s), max(t_end, t_all[0] + 0.2), padding=0.0)
