"""The animation export's options: frame size [px] and frame rate [frames per simulated second].

Defaults: :data:`~app.gui.figure.export.DEFAULT_VIDEO_SIZE` and :data:`~app.gui.figure.export.DEFAULT_FPS`.
A GIF stores frame delays in hundredths of a second, so its rate is ``100 / round(100 / fps)``
(25 fps exactly; 30 fps plays at 33.3); an MP4 keeps the rate asked for.
"""

from __future__ import annotations

from PySide6 import QtWidgets

from app.gui.figure.export import DEFAULT_FPS, DEFAULT_VIDEO_SIZE

__all__ = ["VideoOptions", "ask_video_options"]


class VideoOptions(QtWidgets.QDialog):
    """Width, height and frame rate of an animation export."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, kind: str = "mp4") -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Animation as {kind.upper()}")
        self.width_px, self.height_px = QtWidgets.QSpinBox(), QtWidgets.QSpinBox()
        for box, v in ((self.width_px, DEFAULT_VIDEO_SIZE[0]), (self.height_px, DEFAULT_VIDEO_SIZE[1])):
            box.setRange(64, 3840)
            box.setSingleStep(16)
            box.setSuffix(" px")
            box.setValue(v)
        self.fps = QtWidgets.QDoubleSpinBox()
        self.fps.setRange(1.0, 120.0)
        self.fps.setDecimals(1)
        self.fps.setValue(DEFAULT_FPS)
        self.fps.setSuffix(" frames/s")
        self.fps.setToolTip("frames per second of simulated time (GIF: delays in 1/100 s)")
        form = QtWidgets.QFormLayout(self)
        form.addRow("width", self.width_px)
        form.addRow("height", self.height_px)
        form.addRow("frame rate", self.fps)
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Ok
                                             | QtWidgets.QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def values(self) -> tuple[tuple[int, int], float]:
        """``((width, height) [px], fps)``."""
        return (self.width_px.value(), self.height_px.value()), self.fps.value()


def ask_video_options(parent: QtWidgets.QWidget | None, kind: str) -> tuple[tuple[int, int], float] | None:
    """Ask for the size and frame rate (None: cancelled)."""
    dlg = VideoOptions(parent, kind)
    return dlg.values() if dlg.exec() == QtWidgets.QDialog.DialogCode.Accepted else None
