"""The stick figure's view controls: recording ghost on/off, camera follow, zoom."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

__all__ = ["FigureControls", "ZOOM_RANGE"]

ZOOM_RANGE = (0.5, 4.0)


class FigureControls(QtWidgets.QWidget):
    """A row of three controls; the figure connects their signals."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.ghost = QtWidgets.QCheckBox("ghost")
        self.ghost.setChecked(True)
        self.ghost.setToolTip("the recording's pose (reference angles), grey dashed, at the simulated hip")
        self.follow = QtWidgets.QCheckBox("follow")
        self.follow.setChecked(True)
        self.follow.setToolTip("camera keeps the hip centred; off: drag to pan")
        self.zoom = QtWidgets.QDoubleSpinBox()
        self.zoom.setRange(*ZOOM_RANGE)
        self.zoom.setSingleStep(0.25)
        self.zoom.setValue(1.0)
        self.zoom.setSuffix("×")
        self.zoom.setToolTip("zoom (or the mouse wheel over the figure)")
        # never widens the window (at 1366 x 768 the figure's column is about 290 px)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(4, 0, 4, 0)
        lay.addWidget(self.ghost)
        lay.addWidget(self.follow)
        lay.addStretch(1)
        lay.addWidget(QtWidgets.QLabel("zoom"))
        lay.addWidget(self.zoom)

    def step_zoom(self, notches: float) -> None:
        """Mouse wheel: each notch multiplies the zoom by 1.25 (within ``ZOOM_RANGE``)."""
        self.zoom.setValue(self.zoom.value() * 1.25 ** notches)

    def sizeHint(self) -> QtCore.QSize:  # Qt's name
        return QtCore.QSize(240, super().sizeHint().height())
