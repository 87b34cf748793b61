"""Exports: results as CSV, the scopes as PNG, the animation as MP4 or GIF.

MP4 needs the ``video`` extra (``imageio`` + ``imageio-ffmpeg``); without it a clear
:class:`~models.errors.UserError` says what to install. GIF uses Pillow. Animation frames
are rendered offscreen from the recorded ``q``, GRF and stance flags, one per ``1/fps``
seconds of simulated time; ``progress(done, total)`` is called per frame and
``cancel()`` returning True stops the export (the partial file is removed).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6 import QtGui, QtWidgets

from app.gui.figure.stick_figure import StickFigure
from app.gui.session.session import SimSession
from models.errors import UserError

__all__ = ["DEFAULT_FPS", "DEFAULT_VIDEO_SIZE", "AnimationFrames", "AnimationWriter", "check_animation_path",
           "export_animation", "export_csv", "export_png", "frame_times", "qimage_to_array", "video_size"]


DEFAULT_VIDEO_SIZE = (640, 480)   # animation frame [px]
DEFAULT_FPS = 25.0                # frames per simulated second


def export_csv(s: SimSession, path: str | Path) -> Path:
    """All logged signals, one row per tick (``Results.save_csv``)."""
    return Path(s.results().save_csv(path))


def export_png(widget: QtWidgets.QWidget, path: str | Path) -> Path:
    path = Path(path)
    if not widget.grab().save(str(path)):
        raise UserError(f"cannot write image {path}")
    return path


def qimage_to_array(img: QtGui.QImage) -> np.ndarray:
    """(h, w, 3) uint8 RGB copy of a QImage."""
    img = img.convertToFormat(QtGui.QImage.Format.Format_RGB888)
    w, h, bpl = img.width(), img.height(), img.bytesPerLine()
    buf = np.frombuffer(img.constBits(), dtype=np.uint8, count=bpl * h).reshape(h, bpl)
    return buf[:, : 3 * w].reshape(h, w, 3).copy()


def frame_times(s: SimSession, fps: float, t0: float | None = None, t1: float | None = None) -> np.ndarray:
    """Recorded tick indices sampled at ``fps`` frames per simulated second."""
    t = s.recorded_time()
    if t.size == 0:
        return np.zeros(0, dtype=int)
    a = t[0] if t0 is None else t0
    b = t[-1] if t1 is None else t1
    times = np.arange(a, b + 1e-9, 1.0 / fps)
    return np.clip(np.round((times - t[0]) / s.dt).astype(int), 0, t.size - 1)


class AnimationFrames:
    """The frames of the recorded run's animation, rendered one at a time on the GUI thread (a
    widget is drawn: Qt allows that nowhere else): ``size = (width, height)`` [px], one frame per
    ``1/fps`` s of simulated time (:func:`frame_times`); ``len()`` frames, :meth:`render` the i-th
    as an (h, w, 3) RGB array, :meth:`close` when done."""

    def __init__(self, s: SimSession, fps: float, size: tuple[int, int]) -> None:
        self.ticks = frame_times(s, fps)
        if self.ticks.size == 0:
            raise UserError("nothing to export yet: run the simulation first")
        self.fig = StickFigure()
        self.fig.resize(*size)
        self.fig.set_model(s.biped_params())
        # copies: the run may go on, or be reset, while a window export renders (a frame per turn)
        self.dt = s.dt
        self.t = np.array(s.recorded_time())
        self.q = np.array(s.recorded(s.find("FiveLinkDynamics", "q") or ""))
        self.grf, self.stance, self.phase, self.com = (
            None if name is None else np.array(s.recorded(name))
            for name in (s.find("GrfSource", "F"), s.find("PhaseDetector", "stance"),
                         s.find("PhaseDetector", "phase"), s.find("BipedKinematics", "com")))

    def __len__(self) -> int:
        return int(self.ticks.size)

    def render(self, i: int) -> np.ndarray:
        k = int(self.ticks[i])
        trail = self.com[max(0, k - int(2.0 / self.dt)): k + 1: 20] if self.com is not None else None
        self.fig.show_state(float(self.t[k]), self.q[k], self.grf[k] if self.grf is not None else None,
                            self.stance[k] if self.stance is not None else None,
                            int(self.phase[k]) if self.phase is not None else None, trail)
        return qimage_to_array(self.fig.grab().toImage())

    def close(self) -> None:
        self.fig.deleteLater()


class AnimationWriter:
    """Encodes frames into ``path``: ``.mp4`` (imageio-ffmpeg, H.264: even sizes) as they come, or
    ``.gif`` (Pillow) when closed. No Qt: :meth:`append` and :meth:`close` may run in a worker
    thread; :meth:`abort` removes the partial file."""

    def __init__(self, path: str | Path, fps: float) -> None:
        self.path, self.fps = check_animation_path(path), fps
        self.frames: list[np.ndarray] = []
        self.writer = None
        if self.path.suffix.lower() == ".mp4":
            import imageio.v2 as iio

            self.writer = iio.get_writer(str(self.path), fps=fps, codec="libx264", quality=7, macro_block_size=2)

    def append(self, img: np.ndarray) -> None:
        if self.writer is not None:
            self.writer.append_data(img)
        else:
            self.frames.append(img)

    def close(self) -> Path:
        if self.writer is not None:
            self.writer.close()
            return self.path
        from PIL import Image

        images = [Image.fromarray(f) for f in self.frames]
        images[0].save(self.path, save_all=True, append_images=images[1:], duration=int(round(1000 / self.fps)),
                       loop=0)
        return self.path

    def abort(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.path.unlink(missing_ok=True)


def check_animation_path(path: str | Path) -> Path:
    """``path`` if it names a ``.mp4`` (with the video extra installed) or ``.gif``, else a :class:`UserError`."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".mp4", ".gif"):
        raise UserError(f"animation export: use a .mp4 or .gif file name, not {path.name!r}")
    if suffix == ".mp4" and (importlib.util.find_spec("imageio") is None
                             or importlib.util.find_spec("imageio_ffmpeg") is None):
        raise UserError("MP4 export needs the video extra: pip install 'gaitblocks[video]' "
                        "(imageio and imageio-ffmpeg). GIF export works without it.")
    return path


def video_size(path: Path, size: tuple[int, int]) -> tuple[int, int]:
    """The frame size for ``path``: even sides for MP4 (H.264 needs them; odd ones rounded down)."""
    return (size[0] - size[0] % 2, size[1] - size[1] % 2) if path.suffix.lower() == ".mp4" else size


def export_animation(s: SimSession, path: str | Path, fps: float = DEFAULT_FPS,
                     size: tuple[int, int] = DEFAULT_VIDEO_SIZE,
                     progress: Callable[[int, int], None] | None = None,
                     cancel: Callable[[], bool] | None = None) -> Path:
    """Render the recorded run as ``.mp4`` (imageio-ffmpeg) or ``.gif`` (Pillow), ``size = (width,
    height)`` [px] (even sizes for MP4: H.264 needs them; odd ones are rounded down), one frame per
    ``1/fps`` s of simulated time (:func:`frame_times`), here and now (the window renders a frame
    per event-loop turn and encodes in a worker thread: :mod:`app.gui.session.export_job`)."""
    path = check_animation_path(path)
    frames = AnimationFrames(s, fps, video_size(path, size))
    writer = AnimationWriter(path, fps)
    try:
        for i in range(len(frames)):
            if cancel is not None and cancel():
                raise UserError("export cancelled")
            writer.append(frames.render(i))
            if progress is not None:
                progress(i + 1, len(frames))
    except BaseException:
        writer.abort()
        raise
    finally:
        frames.close()
    return writer.close()
