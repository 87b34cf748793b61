"""The recording's pose drawn faint and dashed behind the simulated biped ("ghost").

The reference angles ``[alpha, beta_l, beta_r, gamma_l, gamma_r]`` (rad; the ``angles`` output
of ``ReferenceSource``, which ``ReferenceMotion`` plays back as well) have no base position of
their own, so the ghost is put where the simulated hip is: the generalised coordinates

    q_ref = [x, y, alpha, beta_l, beta_r, gamma_l, gamma_r],   (x, y) = hip + r0 (sin alpha, cos alpha)

(``r0``: hip-to-trunk-CoM distance, so that :meth:`FiveLinkBiped.points` puts the ghost's hip on
the simulated one) are drawn with :meth:`models.biped.FiveLinkBiped.points`. The difference
between the two figures is then the joint-angle tracking error, seen as posture.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from app.gui.figure.stick_items import Polyline
from models.biped import FiveLinkBiped

__all__ = ["GHOST", "PoseGhost", "ghost_q"]

GHOST = "#7f7f7f"


def ghost_q(biped: FiveLinkBiped, hip: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """``q_ref`` (7,) [m, rad] of the reference ``angles`` (5,) [rad] with its hip at ``hip`` (2,) [m]."""
    a = float(angles[0])
    r0 = biped.params.trunk.com
    return np.array([hip[0] + r0 * math.sin(a), hip[1] + r0 * math.cos(a), *np.asarray(angles, dtype=float)[:5]])


class PoseGhost:
    """Thin grey dashed trunk and legs of a reference pose, added to a pyqtgraph plot."""

    def __init__(self, plot: pg.PlotWidget) -> None:
        # thin and in front: where the model tracks the recording to a fraction of a degree,
        # the ghost shows as a dashed line along the limbs rather than vanishing behind them
        pen = pg.mkPen(QtGui.QColor(GHOST), width=2, style=QtCore.Qt.PenStyle.DashLine)
        self.trunk = Polyline(pen)
        self.legs = {side: Polyline(pen) for side in ("l", "r")}
        self.items = [self.trunk, *self.legs.values()]
        for item in self.items:
            item.setOpacity(0.8)
            item.setZValue(5)
            plot.addItem(item)
        self.enabled = True
        self.q: np.ndarray | None = None

    def show(self, biped: FiveLinkBiped, hip: np.ndarray, angles: np.ndarray | None) -> None:
        """Draw the reference ``angles`` at ``hip`` (None, or the ghost switched off: hidden)."""
        visible = self.enabled and angles is not None
        for item in self.items:
            if item.isVisible() != visible:
                item.setVisible(visible)
        if not visible or angles is None:
            self.q = None
            return
        self.q = ghost_q(biped, hip, angles)
        pts = biped.points(self.q)
        self.trunk.set_xy([pts["hip"][0], pts["head"][0]], [pts["hip"][1], pts["head"][1]])
        for side in ("l", "r"):
            chain = [pts["hip"], pts[f"knee_{side}"], pts[f"foot_{side}"]]
            self.legs[side].set_xy([p[0] for p in chain], [p[1] for p in chain])

    def drawn(self) -> dict[str, np.ndarray]:
        """The points drawn (hip, head, knee_l, foot_l, knee_r, foot_r), each (2,) m."""
        tx, ty = self.trunk.getData()
        out = {"hip": np.array([tx[0], ty[0]]), "head": np.array([tx[1], ty[1]])}
        for side in ("l", "r"):
            x, y = self.legs[side].getData()
            out[f"knee_{side}"], out[f"foot_{side}"] = np.array([x[1], y[1]]), np.array([x[2], y[2]])
        return out
