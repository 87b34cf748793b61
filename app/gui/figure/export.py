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

__all__ = ["DEFAULT_FPS", "DEFAULT_VIDEO_SIZE", "export_animation", "export_csv", "export_png", "frame_times",
           "qimage_to_array"]


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


def export_animation(s: SimSession, path: str | Path, fps: float = DEFAULT_FPS,
                     size: tuple[int, int] = DEFAULT_VIDEO_SIZE,
                     progress: Callable[[int, int], None] | None = None,
                     cancel: Callable[[], bool] | None = None) -> Path:
    """Render the recorded run as ``.mp4`` (imageio-ffmpeg) or ``.gif`` (Pillow), ``size = (width,
    height)`` [px] (even sizes for MP4: H.264 needs them; odd ones are rounded down), one frame per
    ``1/fps`` s of simulated time (:func:`frame_times`)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".mp4", ".gif"):
        raise UserError(f"animation export: use a .mp4 or .gif file name, not {path.name!r}")
    if suffix == ".mp4" and (importlib.util.find_spec("imageio") is None
                             or importlib.util.find_spec("imageio_ffmpeg") is None):
        raise UserError("MP4 export needs the video extra: pip install 'gaitblocks[video]' "
                        "(imageio and imageio-ffmpeg). GIF export works without it.")
    if suffix == ".mp4":
        size = (size[0] - size[0] % 2, size[1] - size[1] % 2)
    ticks = frame_times(s, fps)
    if ticks.size == 0:
        raise UserError("nothing to export yet: run the simulation first")
    fig = StickFigure()
    fig.resize(*size)
    fig.set_model(s.biped_params())
    q = s.recorded(s.find("FiveLinkDynamics", "q") or "")
    grf_name, st_name = s.find("GrfSource", "F"), s.find("PhaseDetector", "stance")
    ph_name, com_name = s.find("PhaseDetector", "phase"), s.find("BipedKinematics", "com")
    t = s.recorded_time()
    frames: list[np.ndarray] = []
    writer = None
    if suffix == ".mp4":
        import imageio.v2 as iio

        writer = iio.get_writer(str(path), fps=fps, codec="libx264", quality=7, macro_block_size=2)
    try:
        for i, k in enumerate(ticks):
            if cancel is not None and cancel():
                raise UserError("export cancelled")
            trail = s.recorded(com_name)[max(0, k - int(2.0 / s.dt)): k + 1: 20] if com_name else None
            fig.show_state(float(t[k]), q[k], s.recorded(grf_name)[k] if grf_name else None,
                           s.recorded(st_name)[k] if st_name else None,
                           int(s.recorded(ph_name)[k]) if ph_name else None, trail)
            img = qimage_to_array(fig.grab().toImage())
            if writer is not None:
                writer.append_data(img)
            else:
                frames.append(img)
            if progress is not None:
                progress(i + 1, int(ticks.size))
    except BaseException:
        if writer is not None:
            writer.close()
        path.unlink(missing_ok=True)
        raise
    finally:
        fig.deleteLater()
    if writer is not None:
        writer.close()
    else:
        from PIL import Image

        images = [Image.fromarray(f) for f in frames]
        images[0].save(path, save_all=True, append_images=images[1:], duration=int(round(1000 / fps)), loop=0)
    return path
