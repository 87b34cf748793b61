"""Stick-figure animation of the five-link biped (pyqtgraph).

Drawn from ``q`` (the geometry of :meth:`models.biped.FiveLinkBiped.points`):
trunk with head, thighs and shanks (left blue, right orange; a stance leg solid and thick,
a swing leg dashed and thin), the rolling feet's arcs when the model has them, the ground
line ``y = 0`` with hatching, GRF arrows at the contact points scaled to body weight
(``arrow_m_per_bw`` metres per BW), the whole-body CoM marker and its trail. The camera
follows the hip. Every item is created once and moved with ``setData``.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.axes import use_opaque_grid
from models.biped import FiveLinkBiped
from models.params import BipedParams

__all__ = ["StickFigure", "PHASE_NAMES", "LEFT", "RIGHT"]

PHASE_NAMES = {0: "double support", 1: "left single support", 2: "right single support", 3: "flight"}
LEFT = "#1f77b4"
RIGHT = "#e8710a"
TRUNK = "#333333"
SOLE_RANGE_RAD = np.linspace(-0.35, 0.9, 14)  # shank angles of a stance, heel strike to toe-off


def _pen(color: str, width: float, dashed: bool = False) -> QtGui.QPen:
    pen = pg.mkPen(color, width=width, cap=QtCore.Qt.PenCapStyle.RoundCap)
    if dashed:
        pen.setStyle(QtCore.Qt.PenStyle.DashLine)
    return pen


class StickFigure(QtWidgets.QWidget):
    """Animated biped with a header line showing time and gait phase.

    Call :meth:`set_model` once per compiled model, then :meth:`show_state` per frame.
    """

    def __init__(self, parent: QtWidgets.QWidget | None = None, arrow_m_per_bw: float = 0.45,
                 half_width_m: float = 1.1, trail_s: float = 2.0) -> None:
        super().__init__(parent)
        self.arrow_m_per_bw = arrow_m_per_bw
        self.half_width = half_width_m
        self.trail_s = trail_s
        self.biped = FiveLinkBiped(BipedParams.paper())
        self.body_weight = self.biped.total_mass * 9.81
        self.header = QtWidgets.QLabel("t = 0.000 s")
        self.header.setObjectName("figureHeader")
        self.header.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.footer = QtWidgets.QLabel(
            f"<span style='color:{LEFT}'>&#9632; left</span> &nbsp;<span style='color:{RIGHT}'>&#9632; right</span>"
            " &nbsp;· solid = stance, dashed = swing · <span style='color:#2ca02c'>&#9679; CoM</span> + trail"
            " · arrows: GRF, 0.45 m = 1 body weight")
        self.footer.setObjectName("panelStatus")
        self.footer.setWordWrap(True)
        self.footer.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.plot = pg.PlotWidget()
        self.plot.setBackground("w")
        self.plot.setAspectLocked(True)
        self.plot.setMouseEnabled(False, False)
        self.plot.hideButtons()
        self.plot.setMenuEnabled(False)
        pi = self.plot.getPlotItem()
        use_opaque_grid(pi)
        pi.setLabel("bottom", "x (walking direction)", units="m")
        pi.setLabel("left", "height", units="m")
        pi.showGrid(x=True, y=True, alpha=0.15)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.header)
        lay.addWidget(self.plot, 1)
        lay.addWidget(self.footer)
        self._make_items()
        self.state_text = ""
        self.set_view(0.0)

    def _make_items(self) -> None:
        p = self.plot
        xs = np.arange(-20.0, 200.0, 0.1)
        hatch = np.empty((2 * xs.size, 2))
        hatch[0::2, 0], hatch[0::2, 1] = xs, 0.0
        hatch[1::2, 0], hatch[1::2, 1] = xs - 0.06, -0.06
        p.addItem(pg.PlotDataItem([-20.0, 200.0], [0.0, 0.0], pen=_pen("#555555", 2)))
        p.addItem(pg.PlotDataItem(hatch[:, 0], hatch[:, 1], pen=_pen("#999999", 1), connect="pairs"))
        self.trail = pg.PlotDataItem(pen=_pen("#2ca02c", 1.5, dashed=True))
        p.addItem(self.trail)
        self.legs = {side: pg.PlotDataItem(pen=_pen(col, 6), symbol="o", symbolSize=7, symbolBrush=col,
                                           symbolPen=None) for side, col in (("l", LEFT), ("r", RIGHT))}
        self.trunk = pg.PlotDataItem(pen=_pen(TRUNK, 9))
        self.head = pg.ScatterPlotItem(size=0.2, pxMode=False, brush=pg.mkBrush("#f2d2b6"), pen=_pen(TRUNK, 2))
        p.addItem(self.legs["r"])
        p.addItem(self.trunk)
        p.addItem(self.head)
        p.addItem(self.legs["l"])
        self.soles = {side: pg.PlotDataItem(pen=_pen(col, 2)) for side, col in (("l", LEFT), ("r", RIGHT))}
        for sole in self.soles.values():
            p.addItem(sole)
        self.feet = pg.ScatterPlotItem(size=12, symbol="t1")
        # per-stance styles, made once; re-applied only when a foot's stance flag changes
        self._leg_pens = {(side, st): _pen(col, 7 if st else 3.5, dashed=not st)
                          for side, col in (("l", LEFT), ("r", RIGHT)) for st in (True, False)}
        self._foot_brushes = {(col, st): pg.mkBrush(col) if st else pg.mkBrush("w") for col in (LEFT, RIGHT)
                              for st in (True, False)}
        self._foot_pens = [_pen(LEFT, 2), _pen(RIGHT, 2)]
        self._stance_drawn: tuple[bool, bool] | None = None
        p.addItem(self.feet)
        self.com = pg.ScatterPlotItem(size=14, symbol="o", brush=pg.mkBrush("#2ca02c"), pen=_pen("w", 2))
        p.addItem(self.com)
        self.grf_shaft: dict[str, pg.PlotDataItem] = {}
        self.grf_head: dict[str, pg.ArrowItem] = {}
        for side, col in (("l", LEFT), ("r", RIGHT)):
            self.grf_shaft[side] = pg.PlotDataItem(pen=_pen(col, 3))
            self.grf_head[side] = pg.ArrowItem(headLen=14, tipAngle=35, brush=col, pen=None)
            p.addItem(self.grf_shaft[side])
            p.addItem(self.grf_head[side])

    def set_model(self, params: BipedParams) -> None:
        self.biped = FiveLinkBiped(params)
        self.body_weight = float(self.biped.total_mass) * 9.81

    def set_view(self, x_center: float) -> None:
        """Camera: follow ``x_center`` horizontally; fixed height range (ground to above the head)."""
        w = self.half_width
        self.plot.setRange(xRange=(x_center - w, x_center + w), yRange=(-0.15, 1.85), padding=0)

    def show_state(self, t: float, q: np.ndarray, grf: np.ndarray | None = None, stance: np.ndarray | None = None,
                   phase: int | None = None, trail: np.ndarray | None = None) -> None:
        """Draw the biped at time ``t`` [s].

        Parameters
        ----------
        q : (7,) generalised coordinates [m, rad].
        grf : (4,) ``[F_lx, F_ly, F_rx, F_ry]`` N, or None.
        stance : (2,) flags ``[l, r]``, or None (both drawn as stance).
        phase : gait-phase code (0 double, 1 left single, 2 right single, 3 flight), or None.
        trail : (n, 2) recent CoM positions [m], or None.
        """
        pts = self.biped.points(np.asarray(q, dtype=float))
        st = (True, True) if stance is None else (bool(stance[0] > 0.5), bool(stance[1] > 0.5))
        hip = pts["hip"]
        self.trunk.setData([hip[0], pts["head"][0]], [hip[1], pts["head"][1]])
        a = float(q[2])
        r_head = 0.1
        hc = pts["head"] + r_head * np.array([math.sin(a), math.cos(a)])
        self.head.setData([hc[0]], [hc[1]])
        restyle = st != self._stance_drawn
        self._stance_drawn = st
        for i, side in enumerate(("l", "r")):
            knee, foot = pts[f"knee_{side}"], pts[f"foot_{side}"]
            if restyle:
                self.legs[side].setPen(self._leg_pens[side, st[i]])
            self.legs[side].setData([hip[0], knee[0], foot[0]], [hip[1], knee[1], foot[1]])
            self._arrow(side, pts[f"contact_{side}"], None if grf is None else grf[2 * i: 2 * i + 2])
            self._sole(side, foot, a - float(q[3 + i]) + float(q[5 + i]))
        self.feet.setData([pts["foot_l"][0], pts["foot_r"][0]], [pts["foot_l"][1], pts["foot_r"][1]],
                          brush=[self._foot_brushes[col, s] for col, s in zip((LEFT, RIGHT), st)],
                          pen=self._foot_pens)
        com = pts["com"]
        self.com.setData([com[0]], [com[1]])
        if trail is not None and len(trail):
            self.trail.setData(trail[:, 0], trail[:, 1])
        self.set_view(float(hip[0]))
        phase_txt = PHASE_NAMES.get(int(phase), "?") if phase is not None else "-"
        feet_txt = " | ".join(f"{n}: {'stance' if s else 'swing'}" for n, s in zip(("left", "right"), st))
        self.state_text = f"t = {t:.3f} s · {phase_txt} ({feet_txt})"
        self.header.setText(self.state_text)

    def _sole(self, side: str, foot: np.ndarray, th2: float) -> None:
        """The rolling foot's arc (models.biped): the shank's points that touch the ground for
        shank angles ``SOLE_RANGE_RAD``; nothing for a point foot."""
        radius = self.biped.params.foot_radius
        if radius <= 0.0:
            self.soles[side].setData([], [])
            return
        centre = foot + radius * np.array([math.sin(th2), math.cos(th2)])
        rel = th2 - SOLE_RANGE_RAD
        self.soles[side].setData(centre[0] - radius * np.sin(rel), centre[1] - radius * np.cos(rel))

    def _arrow(self, side: str, foot: np.ndarray, f: np.ndarray | None) -> None:
        shaft, head = self.grf_shaft[side], self.grf_head[side]
        if f is None or math.hypot(float(f[0]), float(f[1])) < 0.02 * self.body_weight:
            shaft.setData([], [])
            head.setVisible(False)
            return
        v = np.asarray(f, dtype=float) / self.body_weight * self.arrow_m_per_bw
        tip = foot + v
        shaft.setData([foot[0], tip[0]], [foot[1], tip[1]])
        head.setPos(float(tip[0]), float(tip[1]))
        head.setStyle(angle=180.0 - math.degrees(math.atan2(v[1], v[0])))
        head.setVisible(True)

    def arrow_length(self, side: str) -> float:
        """Drawn GRF arrow length [m] of foot ``side`` ('l' or 'r'), 0 when hidden."""
        x, y = self.grf_shaft[side].getData()
        if x is None or len(x) < 2:
            return 0.0
        return float(math.hypot(x[1] - x[0], y[1] - y[0]))
