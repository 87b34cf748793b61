"""A slider with fine drag: hold Shift while dragging and the handle moves a tenth as fast.

A gain slider spans five decades (:class:`app.gui.editing.param_panel.SliderMap`, logarithmic), so at
300 px a plain 25 px drag changes Kp by about x2.6. With Shift held the drag is relative (the
value follows the mouse's travel, not its position) at :data:`FINE` of the normal rate: the same
25 px then change it by about x1.1. Shift may be pressed or let go mid-drag: the drag goes on
from where the handle is, at the new rate. Without Shift, :class:`QtWidgets.QSlider` as usual.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

__all__ = ["FINE", "FineSlider"]

FINE = 0.1   # rate of a Shift-drag: a tenth of the normal


class FineSlider(QtWidgets.QSlider):
    """A horizontal :class:`QtWidgets.QSlider` with a fine (Shift) drag (module docstring)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(QtCore.Qt.Orientation.Horizontal, parent)
        self._anchor: tuple[float, float, bool] | None = None   # (mouse x [px], value, fine) of a relative drag
        self._pressed = False
        self._last_x = 0.0     # the mouse's x at the last event of a relative drag [px]
        self.setToolTip("drag; hold Shift to drag finely (a tenth as fast)")

    def steps_per_px(self) -> float:
        """Slider steps per pixel of a normal drag: the range over the groove's length."""
        opt = QtWidgets.QStyleOptionSlider()
        self.initStyleOption(opt)
        handle = self.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_SliderLength, opt, self)
        return (self.maximum() - self.minimum()) / max(1, self.width() - handle)

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:  # Qt's name
        self._pressed = event.button() == QtCore.Qt.MouseButton.LeftButton
        self._anchor = None
        if self._pressed and event.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier:
            self._start(event.position().x(), True)
            event.accept()
            return
        super().mousePressEvent(event)

    def _start(self, x: float, fine: bool) -> None:
        self._anchor = (x, float(self.value()), fine)
        self._last_x = x
        self.setSliderDown(True)

    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:  # Qt's name
        fine = bool(event.modifiers() & QtCore.Qt.KeyboardModifier.ShiftModifier)
        x = event.position().x()
        if self._pressed and self._anchor is None and fine:
            self._start(x, True)           # Shift pressed mid-drag: relative from here
        if self._anchor is None:
            super().mouseMoveEvent(event)
            return
        x0, v0, was_fine = self._anchor
        if fine != was_fine:               # the rate changes: go on from where the handle is
            self._anchor = x0, v0, was_fine = self._last_x, float(self.value()), fine
        rate = self.steps_per_px() * (FINE if fine else 1.0)
        self.setValue(int(round(v0 + (x - x0) * rate)))
        self._last_x = x
        event.accept()

    def mouseReleaseEvent(self, event: QtGui.QMouseEvent) -> None:  # Qt's name
        self._pressed = False
        if self._anchor is not None:
            self._anchor = None
            self.setSliderDown(False)
            event.accept()
            return
        super().mouseReleaseEvent(event)
