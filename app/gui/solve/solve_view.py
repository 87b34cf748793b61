"""The *Solved gait* tab: the solved trunk, hip and knee over the gait cycle, the recording's dashed.

Three plots (:data:`app.gui.solve.solve_data.CURVES`) over 0..100 % of the solved cycle (the right heel
strike at 0, as the solver cuts it): solved solid, left blue and right orange as in the scopes and
the stick figure; the recording at the same instants grey and dashed in front, like the stick
figure's ghost. Above them the solve's status and key figures, the residual verdicts, convergence
and trunk-CoM sensitivity (as in the Validity panel, :func:`~app.gui.solve.solve_validity.solve_html`);
**Play on the stick figure** plays the solved gait with the recording as the ghost
(:class:`SolvedPlayer`).
"""

from __future__ import annotations

import time

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from app.gui.figure.stick_figure import LEFT, RIGHT, TRUNK, StickFigure
from app.gui.figure.stick_ghost import GHOST
from app.gui.scopes.axes import use_opaque_grid
from app.gui.solve.solve_data import CURVES, SolvedGait
from app.gui.solve.solve_validity import solve_html

__all__ = ["SolvedPlayer", "SolvedView", "solved_headline"]

STATUS_COLOURS = {"converged": "#1b7f3b", "no_periodic_gait": "#b35c00", "implausible": "#b35c00",
                  "failed": "#b00020"}


def solved_headline(g: SolvedGait) -> str:
    """``converged · high_heels: trunk 4.1° mean, stride 1.21 m, 1.19 m/s`` (HTML, status coloured)."""
    s = g.summary
    colour = STATUS_COLOURS.get(g.status, "#000")
    return (f"<b style='color:{colour}'>{g.status}</b> · GRF {s.get('grf', '?')}, swing {s.get('kinematics', '?')}: "
            f"trunk {s['trunk_mean_deg']['mean']:.1f}° mean, stride {s['stride_m']['mean']:.2f} m, "
            f"{s['speed_m_s']['mean']:.2f} m/s")


def _legend(recorded: bool) -> str:
    rec = "grey dashed: the recording" if recorded else "no recorded angles to compare"
    return (f"solid: solved · {rec} · <span style='color:{LEFT}'>■ left</span> "
            f"<span style='color:{RIGHT}'>■ right</span> · x: % of the solved cycle (right heel strike = 0)")


class SolvedPlayer(QtCore.QObject):
    """Plays a :class:`SolvedGait` on a :class:`StickFigure` in real time, looping (about 30 frames/s)."""

    stopped = QtCore.Signal()

    def __init__(self, figure: StickFigure, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.figure = figure
        self.gait: SolvedGait | None = None
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(33)
        self.timer.timeout.connect(self._frame)
        self._t0 = 0.0
        self.frames = 0

    @property
    def playing(self) -> bool:
        return self.timer.isActive()

    def play(self, gait: SolvedGait) -> None:
        self.gait, self._t0, self.frames = gait, time.perf_counter(), 0
        self.show_at(0.0)
        self.timer.start()

    def stop(self) -> None:
        if self.timer.isActive():
            self.timer.stop()
            self.stopped.emit()

    def show_at(self, t: float) -> None:
        """Draw the solved pose ``t`` [s] after the cycle's first node, the recording as the ghost."""
        if self.gait is None:
            return
        q, grf, stance, rec = self.gait.pose(t)
        phase = {(True, True): 0, (True, False): 1, (False, True): 2}.get((bool(stance[0]), bool(stance[1])), 3)
        self.figure.show_state(float(self.gait.t[0] + t), q, grf, stance, phase=phase, ref_angles=rec)
        self.figure.header.setText(f"solved gait · {self.figure.state_text}")
        self.frames += 1

    def _frame(self) -> None:
        self.show_at(time.perf_counter() - self._t0)


class SolvedView(QtWidgets.QWidget):
    """Headline, Play button and the three cycle plots (module doc)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        self.headline = QtWidgets.QLabel("No solved gait yet: Simulation ▸ Solve posture (or the toolbar).")
        self.headline.setWordWrap(True)
        self.headline.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        lay.addWidget(self.headline)
        self.account = QtWidgets.QLabel("")     # the Validity panel's account of the solve, repeated here
        self.account.setWordWrap(True)
        self.account.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.account.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.account.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        lay.addWidget(self.account)
        row = QtWidgets.QHBoxLayout()
        self.play = QtWidgets.QPushButton("Play on the stick figure")
        self.play.setCheckable(True)
        self.play.setEnabled(False)
        self.play.setToolTip("animate the solved gait, looping, with the recording as the grey ghost")
        self.folder = QtWidgets.QLabel("")
        self.folder.setObjectName("panelStatus")
        self.folder.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.folder.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        row.addWidget(self.play)
        row.addWidget(self.folder, 1)
        lay.addLayout(row)
        self.legend = QtWidgets.QLabel(_legend(True))
        self.legend.setWordWrap(True)
        self.legend.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        lay.addWidget(self.legend)
        self.plots = pg.GraphicsLayoutWidget()
        self.plots.setBackground("w")
        lay.addWidget(self.plots, 1)
        self.gait: SolvedGait | None = None
        # made once; a new solution only sets their data
        self.curves: dict[str, list[tuple[pg.PlotDataItem, pg.PlotDataItem]]] = {}
        for i, (title, qcols, _) in enumerate(CURVES):
            p = self.plots.addPlot(row=i, col=0)
            use_opaque_grid(p)
            p.showGrid(x=True, y=True, alpha=0.2)
            p.setTitle(title, size="9pt")
            p.setLabel("left", "deg")
            p.setXRange(0, 100, padding=0.01)
            if i == len(CURVES) - 1:
                p.setLabel("bottom", "gait cycle [%]")
            colours = (TRUNK,) if len(qcols) == 1 else (LEFT, RIGHT)
            # the recording grey dashed in front, as the stick figure's ghost: where the solve recovers it
            # to a fraction of a degree it shows as dashes along the solved curve
            self.curves[title] = [
                (p.plot(pen=pg.mkPen(col, width=2.5)),
                 p.plot(pen=pg.mkPen(GHOST, width=1.5, style=QtCore.Qt.PenStyle.DashLine))) for col in colours]
            for _, dashed in self.curves[title]:
                dashed.setZValue(5)

    def show_gait(self, gait: SolvedGait) -> None:
        """Draw ``gait`` (replaces what was drawn)."""
        self.gait = gait
        self.headline.setText(solved_headline(gait))
        self.account.setText(solve_html(gait.summary).split("<br>", 1)[-1])
        self.folder.setText(str(gait.folder))
        self.folder.setToolTip(str(gait.folder))
        self.play.setEnabled(True)
        pct, curves = gait.cycle_curves()
        for title, solved, recorded in curves:
            for (line, dashed), y, r in zip(self.curves[title], solved, recorded):
                line.setData(pct, y)
                if r is None:
                    dashed.setData([], [])
                else:
                    dashed.setData(pct, r)
        self.legend.setText(_legend(gait.recorded is not None))

    def drawn(self, title: str) -> list[np.ndarray]:
        """The y data drawn in plot ``title`` (tests)."""
        out = []
        for pair in self.curves.get(title, []):
            for c in pair:
                y = c.getData()[1]
                if y is not None and len(y):
                    out.append(np.asarray(y))
        return out
