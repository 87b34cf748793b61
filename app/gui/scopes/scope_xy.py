"""XY scopes: one or more signals (y) against another signal (x), e.g. a phase portrait
(knee angle against knee angular rate) or the path of the centre of mass (CoM y against x).

An :class:`XYScope` is a :class:`~app.gui.scopes.scope_plot.Scope` whose spec has ``x`` set
(:class:`~app.gui.scopes.scope_specs.ScopeSpec`): each y trace is drawn against the x trace, sample by
sample, both in display units (angles in degrees; forces in BW and torques per kg in the
body-weight mode). Its axes are its own (not linked to the time axis). The cursor is a dot on
each curve at the cursor's time. In the % gait-cycle view it draws the mean cycle of x against
the mean cycle of y (a closed loop). Kept runs are overlaid as x-y curves too; parameter-change
and fall markers, which mark times, are not drawn.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg

from app.gui.runs.run_store import KeptRun
from app.gui.scopes.scope_cycle import cycle_mean_sd
from app.gui.scopes.scope_plot import Scope
from app.gui.scopes.scope_specs import PALETTE, ScopeSpec, Trace
from app.gui.session.session import SimSession

__all__ = ["MAX_XY_POINTS", "XYScope", "xy_spec"]

MAX_XY_POINTS = 4000     # live refreshes draw at most this many samples (every k-th)


def xy_spec(x: Trace, y: Trace, x_unit: str, y_unit: str) -> ScopeSpec:
    """An XY scope of ``y`` against ``x`` titled ``"y vs x"``."""
    return ScopeSpec(f"{y.label} vs {x.label}", y_unit, [y], x=x, x_unit=x_unit)


class XYScope(Scope):
    """y traces against the spec's x trace (module doc)."""

    is_xy = True

    def __init__(self, plot: pg.PlotItem, spec: ScopeSpec, bottom: bool, unit: str | None = None,
                 factor: float = 1.0, cycle: bool = False, x_unit: str | None = None,
                 x_factor: float = 1.0) -> None:
        assert spec.x is not None, "an XY scope needs an x trace"
        self.x_unit = spec.x_unit if x_unit is None else x_unit
        self.x_factor = x_factor
        super().__init__(plot, spec, bottom, unit, factor, cycle)

    def _label_bottom(self) -> None:
        x = self.spec.x
        assert x is not None
        mean = " (mean cycle)" if self.cycle else ""
        self.plot.setLabel("bottom", f"{x.label}{mean} [{self.x_unit.replace('*', '·')}]")
        self.plot.getAxis("bottom").setStyle(showValues=True)

    def _make_cursor(self) -> None:
        self.cursor = pg.ScatterPlotItem(size=8, pen=pg.mkPen("#d62728", width=1.5), brush=None)
        self.cursor_text = pg.TextItem("", color="#d62728", anchor=(0, 1), fill=(255, 255, 255, 210))
        self.plot.addItem(self.cursor, ignoreBounds=True)
        self.plot.addItem(self.cursor_text, ignoreBounds=True)
        self.cursor.setVisible(not self.cycle)
        self.cursor_text.setVisible(not self.cycle)

    def x_data(self, s: SimSession, lo: int, hi: int) -> np.ndarray:
        assert self.spec.x is not None
        return self.trace_data(s, self.spec.x, lo, hi, self.x_factor)

    def export_columns(self, s: SimSession, n: int) -> list[tuple[str, np.ndarray]]:
        """The x column first (``… (x) [unit]``), then the y traces."""
        assert self.spec.x is not None
        head = f"{self.spec.title}: {self.spec.x.label} (x) [{self.x_unit.replace('*', '·')}]"
        return [(head, self.x_data(s, 0, n)), *super().export_columns(s, n)]

    def update(self, s: SimSession, t: np.ndarray, lo: int, hi: int, stance: np.ndarray | None,
               bins: int = 0) -> None:
        """Samples ``lo:hi`` as x-y curves; ``bins > 0`` (live) keeps every k-th sample so that at
        most :data:`MAX_XY_POINTS` are drawn (the newest sample always)."""
        if self.cycle:
            self.update_cycle(s, t, lo, hi, stance)
            return
        x = self.x_data(s, lo, hi)
        step = max(1, -(-x.size // MAX_XY_POINTS)) if bins else 1
        pick = slice(None) if step == 1 else np.r_[np.arange(0, x.size - 1, step), x.size - 1]
        for tr, curve in zip(self.spec.traces, self.curves):
            curve.setData(x[pick], self.trace_data(s, tr, lo, hi)[pick])

    def update_cycle(self, s: SimSession, t: np.ndarray, lo: int, hi: int, stance: np.ndarray | None) -> None:
        """Mean cycle of x against the mean cycle of each y trace (empty without a complete cycle)."""
        x_mean = None
        if stance is not None and t.size:
            x_mean, _, n = cycle_mean_sd(t, stance[:, 0], self.x_data(s, lo, hi))
            x_mean = x_mean if n else None
        for tr, curve in zip(self.spec.traces, self.curves):
            if x_mean is None:
                curve.setData([], [])
                continue
            assert stance is not None
            y_mean, _, _ = cycle_mean_sd(t, stance[:, 0], self.trace_data(s, tr, lo, hi))
            curve.setData(x_mean, y_mean)

    def show_runs(self, runs: list[KeptRun]) -> None:
        """Each kept run's x-y curves (solid traces), in the run's colour."""
        x = self.spec.x
        assert x is not None

        def xy(run: KeptRun, tr: Trace, factor: float) -> tuple[np.ndarray, np.ndarray] | None:
            dx, dy = run.signals.get(x.signal), run.signals.get(tr.signal)
            if dx is None or dy is None or self.cycle:
                return None
            xs = dx if x.col is None or dx.ndim == 1 else dx[:, x.col]
            ys = dy if tr.col is None or dy.ndim == 1 else dy[:, tr.col]
            return xs * (x.scale * self.x_factor), ys * (tr.scale * factor)

        self.overlay.show(runs, self.spec.traces, self.factor, xy)

    def sticky_y_range(self, margin: float = 0.08, fill: float = 0.4) -> None:
        """XY scopes auto-range both axes (nothing to keep sticky)."""

    def mark_fall(self, t_fall: float | None) -> None:
        """No time axis: nothing to mark."""

    def mark_filled(self, spans: list[tuple[float, float, str]]) -> None:
        """No time axis: nothing to mark."""

    def read_cursor(self, s: SimSession, tick: int) -> str:
        xs = self.x_data(s, tick, tick + 1) if 0 <= tick < s.runner.recorder.length else np.empty(0)
        if not xs.size:
            return ""
        parts = [f"{tr.label} {float(self.trace_data(s, tr, tick, tick + 1)[0]):.2f}" for tr in self.spec.traces]
        assert self.spec.x is not None
        return f"{self.spec.x.label} {float(xs[0]):.2f}  " + "  ".join(parts)

    def show_cursor(self, s: SimSession, t: float, tick: int) -> None:
        """A dot on every curve at the sample of time ``t`` [s], with the read-out beside it."""
        if self.cycle or not 0 <= tick < s.runner.recorder.length:
            self.cursor.setData([], [])
            self.cursor_text.setText("")
            return
        x = float(self.x_data(s, tick, tick + 1)[0])
        ys = [float(self.trace_data(s, tr, tick, tick + 1)[0]) for tr in self.spec.traces]
        self.cursor.setData([x] * len(ys), ys)
        self.cursor_text.setText(f"t={t:.3f} s ({x:.3g}, {ys[0]:.3g})" if ys else f"t={t:.3f} s")
        self.cursor_text.setToolTip(self.read_cursor(s, tick))
        self.cursor_text.setPos(x, ys[0] if ys else 0.0)


def next_colour(spec: ScopeSpec) -> str:
    """A palette colour not yet used by the traces of ``spec``."""
    used = {tr.color for tr in spec.traces}
    return next((c for c in PALETTE if c not in used), PALETTE[len(spec.traces) % len(PALETTE)])
