"""Stick-figure animation of the five-link biped (pyqtgraph).

Drawn from ``q`` (the geometry of :meth:`models.biped.FiveLinkBiped.points`):
trunk with head, thighs and shanks (left blue, right orange; a stance leg solid and thick,
a swing leg dashed and thin), the rolling feet's arcs when the model has them, the ground
line ``y = 0`` with hatching, GRF arrows at the contact points scaled to body weight
(``arrow_m_per_bw`` metres per BW), the whole-body CoM marker and its trail. Feet are short
segments (``FOOT_M``: an illustration; the model's foot is a point or the rolling arc), flat on
the ground in stance and square to the shank in swing. The recording's pose is drawn faint and dashed behind it
(:mod:`app.gui.figure.stick_ghost`). Under the plot (:mod:`app.gui.figure.stick_controls`): ghost on/off,
camera follow (the hip kept centred; off, the mouse pans) and zoom (or the mouse wheel). Every
item is created once and moved every frame: light Qt items (:mod:`app.gui.figure.stick_items`), not
pyqtgraph data items, whose ``setData`` cost 5-7 ms per frame; an item whose data did not change is
not touched.

Any planar mechanism (:class:`~blocks.library.mechanism.PlanarMechanism`) is drawn too:
:meth:`set_mechanism` names its points, the links between them (polylines) and the ground
pivots; :meth:`show_mechanism` takes the points' ``[x, y]`` per frame. The biped's items
are hidden meanwhile, and the view grows to hold every point drawn so far.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.figure.stick_controls import FigureControls
from app.gui.figure.stick_ghost import PoseGhost
from app.gui.figure.stick_items import Dot, Polyline
from app.gui.fit_screen import ElidedLabel
from app.gui.scopes.axes import use_opaque_grid
from blocks.diagram import Diagram
from blocks.library.mechanism import PlanarMechanism, mechanism_of
from models.biped import FiveLinkBiped
from models.params import BipedParams

__all__ = ["StickFigure", "NO_BODY", "PHASE_NAMES", "LEFT", "RIGHT", "draw_mechanism"]

NO_BODY = "nothing to draw: the diagram has no FiveLinkDynamics or PlanarMechanism block"

PHASE_NAMES = {0: "double support", 1: "left single support", 2: "right single support", 3: "flight"}
LEFT = "#1f77b4"
RIGHT = "#e8710a"
TRUNK = "#333333"
SOLE_RANGE_RAD = np.linspace(-0.35, 0.9, 14)  # shank angles of a stance, heel strike to toe-off
HATCH_HALF_M = 6.0      # ground hatching drawn this far either side of the camera [m]
FOOT_M = (0.05, 0.15)   # drawn foot: heel behind and toe ahead of the foot point [m], square to the shank
VIEW_CENTRE_Y_M = 0.85  # camera: height of the view's centre [m] (ground to above the head at zoom 1)


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
        self.header = ElidedLabel("t = 0.000 s")
        self.header.setObjectName("figureHeader")
        self.footer = QtWidgets.QLabel(
            f"<span style='color:{LEFT}'>&#9632; left</span> &nbsp;<span style='color:{RIGHT}'>&#9632; right</span>"
            " &nbsp;· solid = stance, dashed = swing · <span style='color:#2ca02c'>&#9679; CoM</span> + trail"
            " · arrows: GRF, 0.45 m = 1 body weight · grey dashed: the recording")
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
        self.fall_label = QtWidgets.QLabel()   # "FELL at 0.76 s: ...", red, from the fall on (show_fall)
        self.fall_label.setObjectName("fallLabel")
        self.fall_label.setStyleSheet("color: #c62828; font-weight: bold;")
        self.fall_label.setWordWrap(True)
        self.fall_label.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.fall_label.hide()
        lay.addWidget(self.header)
        lay.addWidget(self.fall_label)
        lay.addWidget(self.plot, 1)
        self.controls = FigureControls()
        lay.addWidget(self.controls)
        lay.addWidget(self.footer)
        self.zoom, self.follow, self._x_centre = 1.0, True, 0.0
        self._last: tuple[object, ...] | None = None
        self.controls.ghost.toggled.connect(self._set_ghost)
        self.controls.follow.toggled.connect(self._set_follow)
        self.controls.zoom.valueChanged.connect(self._set_zoom)
        self.ghost = PoseGhost(self.plot)
        self._make_items()
        self._biped_items = list(self.plot.getPlotItem().items)
        self._biped_footer = self.footer.text()
        self._make_mechanism_items()
        self.mechanism: tuple[str, ...] | None = None
        self.state_text = ""
        self.set_view(0.0)

    def _make_items(self) -> None:
        p = self.plot
        p.addItem(Polyline(_pen("#555555", 2)).with_data([-20.0, 200.0], [0.0, 0.0]))
        self.hatch = Polyline(_pen("#999999", 1), pairs=True)
        self._hatch_at: float | None = None
        p.addItem(self.hatch)
        self.trail = Polyline(_pen("#2ca02c", 1.5, dashed=True))
        p.addItem(self.trail)
        self.legs = {side: Polyline(_pen(col, 6)) for side, col in (("l", LEFT), ("r", RIGHT))}
        self.joints = {side: [Dot(7, col) for _ in range(3)] for side, col in (("l", LEFT), ("r", RIGHT))}
        self.trunk = Polyline(_pen(TRUNK, 9))
        self.head = QtWidgets.QGraphicsEllipseItem(-0.1, -0.1, 0.2, 0.2)   # 0.2 m across
        self.head.setBrush(pg.mkBrush("#f2d2b6"))
        self.head.setPen(_pen(TRUNK, 2))
        for item in (self.legs["r"], *self.joints["r"], self.trunk, self.head, self.legs["l"], *self.joints["l"]):
            p.addItem(item)
        self.soles = {side: Polyline(_pen(col, 2)) for side, col in (("l", LEFT), ("r", RIGHT))}
        for sole in self.soles.values():
            p.addItem(sole)
        self.feet = {side: Polyline(_pen(col, 5)) for side, col in (("l", LEFT), ("r", RIGHT))}
        # per-stance styles, made once; re-applied only when a foot's stance flag changes
        self._leg_pens = {(side, st): _pen(col, 7 if st else 3.5, dashed=not st)
                          for side, col in (("l", LEFT), ("r", RIGHT)) for st in (True, False)}
        self._foot_pens = {(side, st): _pen(col, 5 if st else 2.5, dashed=not st)
                           for side, col in (("l", LEFT), ("r", RIGHT)) for st in (True, False)}
        self._stance_drawn: tuple[bool, bool] | None = None
        for foot in self.feet.values():
            p.addItem(foot)
        self.com = Dot(14, "#2ca02c", _pen("w", 2))
        p.addItem(self.com)
        self.grf_shaft: dict[str, Polyline] = {}
        self.grf_head: dict[str, pg.ArrowItem] = {}
        self._arrow_angle: dict[str, float] = {}
        for side, col in (("l", LEFT), ("r", RIGHT)):
            self.grf_shaft[side] = Polyline(_pen(col, 3))
            self.grf_head[side] = pg.ArrowItem(headLen=14, tipAngle=35, brush=col, pen=None)
            p.addItem(self.grf_shaft[side])
            p.addItem(self.grf_head[side])

    def _place_hatch(self, x_centre: float) -> None:
        """Ground hatching (0.1 m apart) over ``HATCH_HALF_M`` around the camera, rebuilt only when
        the camera has moved half that far (a 2200-stroke path over the whole track cost paint time)."""
        if self._hatch_at is not None and abs(x_centre - self._hatch_at) < 0.5 * HATCH_HALF_M:
            return
        self._hatch_at = x_centre
        x0 = math.floor((x_centre - HATCH_HALF_M) * 10.0) / 10.0
        xs = x0 + 0.1 * np.arange(int(round(20.0 * HATCH_HALF_M)) + 1)
        hx, hy = np.empty(2 * xs.size), np.empty(2 * xs.size)
        hx[0::2], hy[0::2], hx[1::2], hy[1::2] = xs, 0.0, xs - 0.06, -0.06
        self.hatch.set_xy(hx, hy)

    def _make_mechanism_items(self) -> None:
        self.mech_links = pg.PlotDataItem(pen=_pen(TRUNK, 5), connect="pairs")
        self.mech_joints = pg.ScatterPlotItem(size=9, symbol="o", brush=pg.mkBrush("w"), pen=_pen(TRUNK, 2))
        self.mech_ground = pg.ScatterPlotItem(size=16, symbol="t1", brush=pg.mkBrush("#999999"), pen=_pen("#555555", 1))
        self.mech_labels: list[pg.TextItem] = []
        for item in (self.mech_links, self.mech_ground, self.mech_joints):
            item.setVisible(False)
            self.plot.addItem(item)
        self._mech_pairs = np.zeros(0, dtype=int)
        self._mech_ground_idx = np.zeros(0, dtype=int)
        self._mech_box: np.ndarray | None = None

    def set_mechanism(self, names: Sequence[str] | None, links: Sequence[Sequence[str]] = (),
                      ground: Sequence[str] = (), title: str = "") -> None:
        """Draw a planar mechanism with points ``names`` (``None``: back to the biped; none: nothing,
        :data:`NO_BODY` said); ``links``: polylines of point names; ``ground``: the fixed pivots."""
        biped = names is None
        for item in self._biped_items:
            item.setVisible(biped)
        for item in (self.mech_links, self.mech_ground, self.mech_joints):
            item.setVisible(not biped)
        for label in self.mech_labels:
            self.plot.removeItem(label)
        self.mech_labels = []
        self._mech_box = None
        pi = self.plot.getPlotItem()
        pi.setLabel("bottom", "x (walking direction)" if biped else "x", units="m")
        pi.setLabel("left", "height" if biped else "y", units="m")
        if biped:
            self.mechanism = None
            self.footer.setText(self._biped_footer)
            self.set_view(0.0)
            return
        self.mechanism = tuple(names)  # type: ignore[arg-type]
        index = {n: i for i, n in enumerate(self.mechanism)}
        pairs = [(index[a], index[b]) for line in links for a, b in zip(line[:-1], line[1:])]
        self._mech_pairs = np.array(pairs, dtype=int).reshape(-1)
        self._mech_ground_idx = np.array([index[g] for g in ground], dtype=int)
        for n in self.mechanism:
            label = pg.TextItem(n, color="#555555", anchor=(-0.2, 1.1))
            self.plot.addItem(label)
            self.mech_labels.append(label)
        self.footer.setText(f"{title} · links black, joints o, ground pivots ▲ · points by name" if names else NO_BODY)

    def show_mechanism(self, t: float, points: np.ndarray) -> None:
        """Draw the mechanism at time ``t`` [s]; ``points`` (2 n,) ``[x, y]`` per point [m]."""
        xy = np.asarray(points, dtype=float).reshape(-1, 2)
        seg = xy[self._mech_pairs]
        self.mech_links.setData(seg[:, 0], seg[:, 1])
        self.mech_joints.setData(xy[:, 0], xy[:, 1])
        g = xy[self._mech_ground_idx]
        self.mech_ground.setData(g[:, 0], g[:, 1])
        for label, (x, y) in zip(self.mech_labels, xy):
            label.setPos(float(x), float(y))
        lo, hi = xy.min(axis=0), xy.max(axis=0)
        box = np.concatenate((lo, hi)) if self._mech_box is None else np.concatenate(
            (np.minimum(self._mech_box[:2], lo), np.maximum(self._mech_box[2:], hi)))
        if self._mech_box is None or not np.array_equal(box, self._mech_box):
            self._mech_box = box
            pad = 0.1 * float(max(box[2] - box[0], box[3] - box[1], 1e-6))
            self.plot.setRange(xRange=(box[0] - pad, box[2] + pad), yRange=(box[1] - pad, box[3] + pad), padding=0)
        self.state_text = f"t = {t:.4f} s"
        self.header.setText(self.state_text)

    def set_model(self, params: BipedParams) -> None:
        self.biped = FiveLinkBiped(params)
        self.body_weight = float(self.biped.total_mass) * 9.81

    def set_view(self, x_center: float) -> None:
        """Camera: centre ``x_center`` horizontally, ``VIEW_CENTRE_Y_M`` vertically; half-width
        ``half_width / zoom`` [m], half-height ``1 m / zoom`` (ground to above the head at zoom 1)."""
        self._x_centre = x_center
        w, h = self.half_width / self.zoom, 1.0 / self.zoom
        self._place_hatch(x_center)
        self.plot.setRange(xRange=(x_center - w, x_center + w),
                           yRange=(VIEW_CENTRE_Y_M - h, VIEW_CENTRE_Y_M + h), padding=0)

    def _redraw(self) -> None:
        if self._last is not None and self.mechanism is None:
            self.show_state(*self._last)  # type: ignore[arg-type]

    def _set_ghost(self, on: bool) -> None:
        self.ghost.enabled = on
        self._redraw()

    def _set_follow(self, on: bool) -> None:
        """Follow the hip, or leave the camera where it is (and let the mouse pan it)."""
        self.follow = on
        self.plot.setMouseEnabled(not on, False)
        self._redraw()

    def _set_zoom(self, zoom: float) -> None:
        self.zoom = float(zoom)
        x_range = self.plot.getPlotItem().getViewBox().viewRange()[0]
        self.set_view(self._x_centre if self.follow else 0.5 * (x_range[0] + x_range[1]))
        self._redraw()

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:  # Qt's name
        self.controls.step_zoom(event.angleDelta().y() / 120.0)
        event.accept()

    def show_state(self, t: float, q: np.ndarray, grf: np.ndarray | None = None, stance: np.ndarray | None = None,
                   phase: int | None = None, trail: np.ndarray | None = None,
                   ref_angles: np.ndarray | None = None) -> None:
        """Draw the biped at time ``t`` [s].

        Parameters
        ----------
        q : (7,) generalised coordinates [m, rad].
        grf : (4,) ``[F_lx, F_ly, F_rx, F_ry]`` N, or None.
        stance : (2,) flags ``[l, r]``, or None (both drawn as stance).
        phase : gait-phase code (0 double, 1 left single, 2 right single, 3 flight), or None.
        trail : (n, 2) recent CoM positions [m], or None.
        ref_angles : (5,) the recording's ``[alpha, beta_l, beta_r, gamma_l, gamma_r]`` [rad] for the
            ghost (:mod:`app.gui.figure.stick_ghost`), or None.
        """
        self._last = (t, q, grf, stance, phase, trail, ref_angles)
        pts = self.biped.points(np.asarray(q, dtype=float))
        st = (True, True) if stance is None else (bool(stance[0] > 0.5), bool(stance[1] > 0.5))
        hip = pts["hip"]
        self.trunk.set_xy([hip[0], pts["head"][0]], [hip[1], pts["head"][1]])
        a = float(q[2])
        r_head = 0.1
        hc = pts["head"] + r_head * np.array([math.sin(a), math.cos(a)])
        self.head.setPos(float(hc[0]), float(hc[1]))
        restyle = st != self._stance_drawn
        self._stance_drawn = st
        for i, side in enumerate(("l", "r")):
            knee, foot = pts[f"knee_{side}"], pts[f"foot_{side}"]
            if restyle:
                self.legs[side].setPen(self._leg_pens[side, st[i]])
            self.legs[side].set_xy([hip[0], knee[0], foot[0]], [hip[1], knee[1], foot[1]])
            for dot, pt in zip(self.joints[side], (hip, knee, foot)):
                dot.place(float(pt[0]), float(pt[1]))
            self._arrow(side, pts[f"contact_{side}"], None if grf is None else grf[2 * i: 2 * i + 2])
            th2 = a - float(q[3 + i]) + float(q[5 + i])
            self._sole(side, foot, th2)
            if restyle:
                self.feet[side].setPen(self._foot_pens[side, st[i]])
            # a stance foot lies flat; a swing foot is square to its shank (toe forward)
            fwd = np.array([1.0, 0.0]) if st[i] else np.array([math.cos(th2), -math.sin(th2)])
            heel, toe = foot - FOOT_M[0] * fwd, foot + FOOT_M[1] * fwd
            self.feet[side].set_xy([heel[0], toe[0]], [heel[1], toe[1]])
        self.ghost.show(self.biped, hip, ref_angles)
        com = pts["com"]
        self.com.place(float(com[0]), float(com[1]))
        if trail is not None and len(trail):
            self.trail.set_xy(trail[:, 0], trail[:, 1])
        if self.follow:
            self.set_view(float(hip[0]))
        phase_txt = PHASE_NAMES.get(int(phase), "?") if phase is not None else "-"
        if not self.fall_label.isHidden():
            phase_txt = "fallen"
        feet_txt = " | ".join(f"{n}: {'stance' if s else 'swing'}" for n, s in zip(("left", "right"), st))
        self.state_text = f"t = {t:.3f} s · {phase_txt} ({feet_txt})"
        self.header.setText(self.state_text)

    def show_fall(self, text: str | None) -> None:
        """Name the fall in red above the figure (``text``, e.g. ``FELL at 0.76 s: the left knee ...``),
        and call the phase "fallen"; None hides it (a time before the fall, or no fall)."""
        if text is None:
            if not self.fall_label.isHidden():
                self.fall_label.hide()
            return
        if self.fall_label.text() != text:
            self.fall_label.setText(text)
        if self.fall_label.isHidden():
            self.fall_label.show()

    def _sole(self, side: str, foot: np.ndarray, th2: float) -> None:
        """The rolling foot's arc (models.biped): the shank's points that touch the ground for
        shank angles ``SOLE_RANGE_RAD``; nothing for a point foot."""
        radius = self.biped.params.foot_radius
        if radius <= 0.0:
            self.soles[side].set_xy([], [])
            return
        centre = foot + radius * np.array([math.sin(th2), math.cos(th2)])
        rel = th2 - SOLE_RANGE_RAD
        self.soles[side].set_xy(centre[0] - radius * np.sin(rel), centre[1] - radius * np.cos(rel))

    def _arrow(self, side: str, foot: np.ndarray, f: np.ndarray | None) -> None:
        shaft, head = self.grf_shaft[side], self.grf_head[side]
        if f is None or math.hypot(float(f[0]), float(f[1])) < 0.02 * self.body_weight:
            shaft.set_xy([], [])
            head.setVisible(False)
            return
        v = np.asarray(f, dtype=float) / self.body_weight * self.arrow_m_per_bw
        tip = foot + v
        shaft.set_xy([foot[0], tip[0]], [foot[1], tip[1]])
        head.setPos(float(tip[0]), float(tip[1]))
        angle = 180.0 - math.degrees(math.atan2(v[1], v[0]))
        if abs(angle - self._arrow_angle.get(side, math.inf)) > 0.5:   # setStyle rebuilds the head's path
            self._arrow_angle[side] = angle
            head.setStyle(angle=angle)
        head.setVisible(True)

    def arrow_length(self, side: str) -> float:
        """Drawn GRF arrow length [m] of foot ``side`` ('l' or 'r'), 0 when hidden."""
        x, y = self.grf_shaft[side].getData()
        if x is None or len(x) < 2:
            return 0.0
        return float(math.hypot(x[1] - x[0], y[1] - y[0]))


def draw_mechanism(fig: StickFigure, diagram: Diagram, ref: str, t: float, points: np.ndarray) -> None:
    """Show the recorded ``points`` of the :class:`PlanarMechanism` output ``ref`` on ``fig``."""
    entry = diagram.blocks[ref.split(".")[0]]
    mech = mechanism_of(entry.params.get("mechanism", PlanarMechanism.params["mechanism"].default))
    if fig.mechanism != tuple(mech.points):
        fig.set_mechanism(tuple(mech.points), mech.links, mech.ground, mech.description)
    fig.show_mechanism(t, points)
