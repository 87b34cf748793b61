"""The difference of one signal between two runs, with a tolerance band (as Simulink Data Inspector's compare).

Choose run A and run B (the live run or a kept run of the Runs tab), a trace of the scopes and a
tolerance ``tol`` (in the trace's display unit). The upper plot shows both runs, the lower one

    d(t) = y_A(t) - y_B(t),

on A's samples, B linearly interpolated onto them (only where both runs have data), with the band
``|d| <= tol`` shaded and the samples outside it in red. The summary reads ``max |d|`` (and when),
the RMS of ``d`` and the share of samples outside the band (:func:`difference`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from app.gui.runs.run_store import KeptRun
from app.gui.scopes.scope_measure import fmt_value
from app.gui.scopes.scope_units import pretty

if TYPE_CHECKING:
    from app.gui.scopes.scope_specs import Trace
    from app.gui.scopes.scopes import ScopeStack

__all__ = ["LIVE", "DiffDialog", "DiffResult", "difference"]

LIVE = "live run"


@dataclass
class DiffResult:
    """``t`` [s] and ``d = y_A - y_B`` on A's samples; ``outside`` the samples with ``|d| > tol``."""

    t: np.ndarray
    d: np.ndarray
    tol: float
    outside: np.ndarray

    @property
    def max_abs(self) -> tuple[float, float]:
        """``(max |d|, its time [s])`` (NaNs if there is no common sample)."""
        if not self.d.size:
            return float("nan"), float("nan")
        i = int(np.nanargmax(np.abs(self.d)))
        return float(abs(self.d[i])), float(self.t[i])

    @property
    def rms(self) -> float:
        return float(np.sqrt(np.nanmean(self.d ** 2))) if self.d.size else float("nan")

    @property
    def share_outside(self) -> float:
        """Share of the common samples outside the tolerance band (0 … 1)."""
        return float(self.outside.mean()) if self.d.size else float("nan")


def difference(t_a: np.ndarray, y_a: np.ndarray, t_b: np.ndarray, y_b: np.ndarray, tol: float) -> DiffResult:
    """``y_A - y_B`` on A's samples within B's time span (B interpolated linearly), and which lie beyond ``tol``."""
    keep = (t_a >= t_b[0] - 1e-12) & (t_a <= t_b[-1] + 1e-12) if t_b.size else np.zeros(t_a.size, bool)
    t = t_a[keep]
    d = y_a[keep] - np.interp(t, t_b, y_b)
    return DiffResult(t, d, float(tol), np.abs(d) > tol)


class DiffDialog(QtWidgets.QDialog):
    """Two runs of one scope trace and their difference with a tolerance band (module doc)."""

    def __init__(self, stack: ScopeStack, parent: QtWidgets.QWidget | None = None,
                 runs: Callable[[], list[KeptRun]] | None = None) -> None:
        super().__init__(parent)
        self.stack = stack
        self.kept = runs() if runs is not None else list(stack.runs)
        self.setWindowTitle("Difference between two runs")
        self.resize(760, 560)
        self.run_a, self.run_b, self.trace = QtWidgets.QComboBox(), QtWidgets.QComboBox(), QtWidgets.QComboBox()
        names = [LIVE] + [r.name for r in self.kept]
        self.run_a.addItems(names)
        self.run_b.addItems(names)
        self.run_b.setCurrentIndex(1 if len(names) > 1 else 0)
        self.traces: list[tuple[Trace, float, str]] = []    # (trace, display factor, unit)
        for sc in stack.scopes:
            if sc.is_xy:
                continue
            for tr in sc.spec.traces:
                self.traces.append((tr, sc.factor, sc.unit))
                self.trace.addItem(f"{sc.spec.title}: {tr.label}")
        self.tol = QtWidgets.QDoubleSpinBox()
        self.tol.setDecimals(4)
        self.tol.setRange(0.0, 1e6)
        self.tol.setValue(1.0)
        self.summary = QtWidgets.QLabel()
        self.summary.setWordWrap(True)
        form = QtWidgets.QFormLayout()
        form.addRow("run A", self.run_a)
        form.addRow("run B", self.run_b)
        form.addRow("signal", self.trace)
        form.addRow("tolerance ±", self.tol)
        self.plots = pg.GraphicsLayoutWidget()
        self.plots.setBackground("w")
        self.top = self.plots.addPlot(row=0, col=0)
        self.bottom = self.plots.addPlot(row=1, col=0)
        self.bottom.setXLink(self.top)
        for plot in (self.top, self.bottom):
            for side in ("left", "bottom"):
                plot.getAxis(side).enableAutoSIPrefix(False)    # seconds, not "(x0.001)"
        self.top.addLegend(offset=(-10, 10))
        self.bottom.setLabel("bottom", "time [s]")
        lay = QtWidgets.QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.plots, 1)
        lay.addWidget(self.summary)
        self.diff: DiffResult | None = None
        for box in (self.run_a, self.run_b, self.trace):
            box.currentIndexChanged.connect(self.update_plot)
        self.tol.valueChanged.connect(self.update_plot)
        self.update_plot()

    def series(self, index: int, trace: Trace, factor: float) -> tuple[np.ndarray, np.ndarray] | None:
        """Time [s] and the trace of run ``index`` (0: the live run) in display units, or None."""
        if index == 0:
            s = self.stack.session
            if s is None:
                return None
            data, t = s.recorded(trace.signal), s.recorded_time()
        else:
            run = self.kept[index - 1]
            if trace.signal not in run.signals:
                return None
            data, t = run.signals[trace.signal], run.t
        y = data if trace.col is None or data.ndim == 1 else data[:, trace.col]
        return np.asarray(t, float), np.asarray(y, float) * (trace.scale * factor)

    def update_plot(self) -> DiffResult | None:
        """Draw both runs and their difference; returns it (None when a run lacks the signal)."""
        self.top.clear()
        self.bottom.clear()
        self.diff = None
        if not self.traces:
            self.summary.setText("no time scope to take a signal from")
            return None
        trace, factor, unit = self.traces[self.trace.currentIndex()]
        a = self.series(self.run_a.currentIndex(), trace, factor)
        b = self.series(self.run_b.currentIndex(), trace, factor)
        if a is None or b is None or not a[0].size or not b[0].size:
            self.summary.setText("a run does not hold this signal (runs keep the signals their scopes showed)")
            return None
        u = pretty(unit)
        self.top.setLabel("left", f"[{u}]")
        self.bottom.setLabel("left", f"A − B [{u}]")
        self.top.plot(*a, pen=pg.mkPen("#1f77b4", width=1.5), name=f"A: {self.run_a.currentText()}")
        self.top.plot(*b, pen=pg.mkPen("#e8710a", width=1.2), name=f"B: {self.run_b.currentText()}")
        res = difference(*a, *b, self.tol.value())
        if res.t.size:
            tol = res.tol
            lo = pg.PlotCurveItem([res.t[0], res.t[-1]], [-tol, -tol], pen=pg.mkPen("#2ca02c", width=0.8))
            hi = pg.PlotCurveItem([res.t[0], res.t[-1]], [tol, tol], pen=pg.mkPen("#2ca02c", width=0.8))
            self.bottom.addItem(lo)
            self.bottom.addItem(hi)
            self.bottom.addItem(pg.FillBetweenItem(lo, hi, brush=pg.mkBrush(44, 160, 44, 40)))
            self.bottom.plot(res.t, res.d, pen=pg.mkPen("#333333", width=1.2))
            out = np.where(res.outside, res.d, np.nan)
            self.bottom.plot(res.t, out, pen=pg.mkPen("#d62728", width=2.0), connect="finite")
        m, at = res.max_abs
        self.summary.setText(f"max |A − B| = {fmt_value(m)} {u} at {at:.3f} s · RMS {fmt_value(res.rms)} {u} · "
                             f"{100 * res.share_outside:.1f} % of {res.t.size} samples outside "
                             f"±{fmt_value(res.tol)} {u}")
        self.diff = res
        return res
