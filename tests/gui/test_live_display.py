"""The cheap live display: peak decimation, opaque grid axes, round-robin scope refresh, one
paint per frame. (Speed itself is measured by ``benchmarks/gui_fps.py``, never asserted.)"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.main_window import MainWindow
from app.gui.scopes.axes import OpaqueGridAxis, use_opaque_grid
from app.gui.scopes.scope_math import peak_decimate
from tests.gui.conftest import run_until

pytestmark = pytest.mark.gui


def _blocks(lo: int, n: int, ds: int) -> list[tuple[int, int]]:
    """Absolute index ranges of the whole blocks of ``ds`` samples inside ``[lo, lo + n - 1)``: the
    newest sample is never in a block."""
    first = -(-lo // ds) * ds
    return [(b, b + ds) for b in range(first, lo + n - ds, ds)]


@pytest.mark.parametrize("n", [4000, 4001, 4007, 4008])
def test_peak_decimate_ends_on_the_newest_sample(n: int) -> None:
    """Whatever the window's length against the block size (8 here), the live curve ends on the
    newest sample (with ``n - origin`` a whole number of blocks it used to end up to 7 samples early)."""
    t = 0.001 * np.arange(n)
    y = np.random.default_rng(n).normal(0.0, 1.0, n)
    y[-1] = 0.0                                            # neither the smallest nor the largest of its block
    td, yd = peak_decimate(t, y, 500, origin=0)
    assert td[-1] == t[-1] and yd[-1] == y[-1]


def test_peak_decimate_keeps_block_extrema_as_real_samples_in_time_order() -> None:
    rng = np.random.default_rng(3)
    dt, total = 0.001, 6000
    t_all = dt * np.arange(total)
    y_all = 40.0 * np.sin(2 * math.pi * 0.9 * t_all) + rng.normal(0.0, 2.0, total)
    y_all[2500] = 400.0                                    # a one-sample spike
    y_all[3000:3030] = np.nan                              # a gap longer than a block
    lo, n, bins = 1234, 4001, 500
    t, y = t_all[lo:lo + n], y_all[lo:lo + n]
    td, yd = peak_decimate(t, y, bins, origin=lo)
    ds = n // bins
    assert ds == 8
    idx = np.rint(td / dt).astype(int)                     # absolute sample index of every output point
    assert np.all(np.diff(idx) >= 0)                       # a subset of the samples, in time order
    np.testing.assert_array_equal(yd, y_all[idx])
    blocks = _blocks(lo, n, ds)
    assert blocks[0][0] % ds == 0 and blocks[0][0] - lo < ds
    assert td.size == (blocks[0][0] - lo) + 2 * len(blocks) + (lo + n - blocks[-1][1])
    for b0, b1 in blocks:
        mine = y_all[idx[(idx >= b0) & (idx < b1)]]
        seg = y_all[b0:b1]
        assert mine.size == 2
        if np.isfinite(seg).any():
            assert np.nanmin(mine) == np.nanmin(seg) and np.nanmax(mine) == np.nanmax(seg)
        else:
            assert np.isnan(mine).all()                    # the gap stays a gap
    assert 400.0 in yd
    assert np.nanmax(yd) == np.nanmax(y) and np.nanmin(yd) == np.nanmin(y)
    # sliding the window by 3 samples leaves the points of the shared whole blocks unchanged
    td2, yd2 = peak_decimate(t_all[lo + 3:lo + 3 + n], y_all[lo + 3:lo + 3 + n], bins, origin=lo + 3)
    idx2 = np.rint(td2 / dt).astype(int)
    shared = [blk for blk in _blocks(lo + 3, n, ds) if blk in blocks]
    assert len(shared) >= len(blocks) - 1 > 400
    for b0, b1 in shared:
        np.testing.assert_array_equal(idx[(idx >= b0) & (idx < b1)], idx2[(idx2 >= b0) & (idx2 < b1)])
    # fewer than two samples per bin: unchanged
    t3, y3 = peak_decimate(t[:900], y[:900], 500)
    assert t3 is t[:900].base or np.array_equal(t3, t[:900])
    np.testing.assert_array_equal(y3, y[:900])


def test_opaque_grid_axis_blends_grid_colour_over_background(qtbot) -> None:
    plain, opaque = pg.PlotWidget(), pg.PlotWidget()
    qtbot.addWidget(plain)
    qtbot.addWidget(opaque)
    use_opaque_grid(opaque.getPlotItem(), "#f0f4f8")
    for w in (plain, opaque):
        w.resize(400, 300)
        w.showGrid(x=True, y=True, alpha=0.3)
        w.setRange(xRange=(0.0, 10.0), yRange=(-5.0, 5.0), padding=0)
        w.show()
    qtbot.waitExposed(opaque)
    ax_plain, ax_opaque = plain.getPlotItem().getAxis("left"), opaque.getPlotItem().getAxis("left")
    assert isinstance(ax_opaque, OpaqueGridAxis) and not ax_opaque.autoSIPrefix
    assert ax_opaque.zValue() < opaque.getPlotItem().getViewBox().zValue()
    img = QtGui.QImage(10, 10, QtGui.QImage.Format.Format_ARGB32_Premultiplied)
    painter = QtGui.QPainter(img)
    try:
        _, ticks_plain, _ = ax_plain.generateDrawSpecs(painter)
        _, ticks_opaque, _ = ax_opaque.generateDrawSpecs(painter)
    finally:
        painter.end()
    assert len(ticks_plain) == len(ticks_opaque) > 5
    bg = (0xF0, 0xF4, 0xF8)
    translucent = 0
    for (pen_a, p1a, p2a), (pen_b, p1b, p2b) in zip(ticks_plain, ticks_opaque):
        assert (p1a, p2a) == (p1b, p2b)
        c, d = pen_a.color(), pen_b.color()
        a = c.alpha() / 255.0
        translucent += a < 1.0
        assert d.alpha() == 255
        for got, fg, back in zip((d.red(), d.green(), d.blue()), (c.red(), c.green(), c.blue()), bg):
            assert got == pytest.approx(a * fg + (1.0 - a) * back, abs=1.0)
    assert translucent > 5


def test_live_scopes_round_robin_unlinked_and_decimated(qtbot, window: MainWindow) -> None:
    s, stack = window.session, window.scopes
    # the 2.5 s session run on to 6 s holds its last GRF sample past 2.5 s and falls at 3.52 s (hip
    # below half the leg): this test is about live refreshing, so it runs on past the fall
    window.stop_at_fall.setChecked(False)
    run_until(qtbot, window, 4.6)
    s.t_end = 6.0
    window.controls.speed.setCurrentIndex(3)               # 1x real time: a few ms per hand-driven frame
    window.run_control.set_running(True)
    window.run_control.timer.stop()  # drive the frames by hand
    stack.live_hz = 1e9                                    # every scope due at every frame
    first = stack.scopes[0].plot.getViewBox()
    for sc in stack.scopes[1:]:
        assert sc.plot.getViewBox().linkedView(0) is None  # one refresh repaints one plot
        assert not sc.plot.getViewBox().autoRangeEnabled()[1]
    before = stack.live_refreshes
    shown = stack.visible_scopes()           # the scopes scroll (MIN_SCOPE_PX each): those in view refresh
    assert stack.scopes[0] in shown
    for k in range(4):
        window.run_control.frame()
        assert stack.live_refreshes - before == stack.per_frame * (k + 1)   # the stalest visible first
    assert all(math.isfinite(sc.refreshed_at) == (sc in shown) for sc in stack.scopes)
    hip = stack.scopes[0]
    hip.refreshed_at = -math.inf                           # the most stale: refreshed in the next frame
    window.run_control.frame()
    n = s.runner.recorder.length
    t_rec = s.recorded_time()
    q = s.recorded("body.q")
    lo = n - int(round(stack.window_s / s.dt)) - 1
    assert lo > 0
    x, y = hip.curves[0].getData()
    k = np.rint((x - t_rec[0]) / s.dt).astype(int)
    assert k[0] >= lo - 1 and k[-1] == n - 1 and np.all(np.diff(k) > 0)
    assert x.size < (n - lo) // 2                          # decimated: about two samples per pixel column
    np.testing.assert_allclose(y, np.degrees(q[k, 3]), rtol=1e-12)
    window_y = np.degrees(q[lo:, 3])
    assert y.max() == pytest.approx(window_y.max()) and y.min() == pytest.approx(window_y.min())
    y0, y1 = hip.plot.getViewBox().viewRange()[1]
    assert y0 < window_y.min() and window_y.max() < y1     # sticky range holds the data
    assert first.viewRange()[0][1] == pytest.approx(t_rec[-1])
    turns = stack.settling.turns
    window.run_control.set_running(False)                  # paused: the x master now, the others a turn each
    assert stack.settling.pending == stack.scopes[1:] and stack.settling.turns == turns + 1
    assert hip.curves[0].xData.size == n                   # the whole history again (clipped to view)
    assert stack.scopes[1].plot.getViewBox().linkedView(0) is None      # still live until its turn
    qtbot.waitUntil(lambda: not stack.settling.pending, timeout=5000)
    assert stack.settling.turns == turns + len(stack.scopes)
    for sc in stack.scopes[1:]:
        assert sc.plot.getViewBox().linkedView(0) is first
        assert sc.plot.getViewBox().autoRangeEnabled()[1]
        assert sc.curves[0].xData.size == n


class _PaintCount(QtCore.QObject):
    def __init__(self, widget: QtWidgets.QWidget) -> None:
        super().__init__()
        self.n = 0
        widget.installEventFilter(self)

    def eventFilter(self, obj: QtCore.QObject, event: QtCore.QEvent) -> bool:
        self.n += event.type() == QtCore.QEvent.Type.Paint
        return False


def test_each_frame_paints_the_figure_once_and_time_axis_has_no_si_prefix(qtbot, window: MainWindow) -> None:
    run_until(qtbot, window, 0.3)
    qtbot.waitExposed(window)
    window.session.t_end = 2.0
    window.controls.speed.setCurrentIndex(3)               # 1x real time
    window.run_control.set_running(True)
    window.run_control.timer.stop()
    for _ in range(3):
        QtWidgets.QApplication.processEvents()
    fig, scopes = _PaintCount(window.figure.plot.viewport()), _PaintCount(window.scopes.viewport())
    for _ in range(6):
        window.run_control.frame()
        QtWidgets.QApplication.processEvents()
    window.run_control.set_running(False)
    assert fig.n == 6                                      # pyqtgraph's deferred updates done before painting
    assert scopes.n <= 6
    bottom = window.scopes.scopes[-1].plot.getAxis("bottom")
    assert window.session.time < 1.0 and bottom.autoSIPrefixScale == 1.0
    assert bottom.tickStrings([0.2, 0.4], bottom.autoSIPrefixScale, 0.2) == ["0.2", "0.4"]
    assert bottom.labelText == "time [s]" and "x0.001" not in bottom.labelString()
