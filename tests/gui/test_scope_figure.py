"""Exports a journal takes: the scopes as PDF, SVG and 300-dpi PNG at 85 and 180 mm, no cursors or
statistics, text of at least 7 pt, SVG simplified (a 10 s run's figure <= 500 kB); the stick
figure as GIF (and MP4 with the video extra) at a chosen size and frame rate."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from app.gui.figure import export
from app.gui.main_window import MainWindow
from app.gui.scopes.scope_figure import FONT_PT, JOURNAL_WIDTHS_MM, PNG_DPI
from app.gui.scopes.scope_measure import B_COLOUR
from tests.gui.conftest import open_window, run_until

pytestmark = pytest.mark.gui

MM_PER_PT = 25.4 / 72.0
SVG_MAX_BYTES = 500_000


def _svg_width_mm(text: str) -> float:
    m = re.search(r'<svg[^>]*\swidth="([\d.]+)pt"', text)
    assert m is not None
    return float(m.group(1)) * MM_PER_PT


def _pdf_width_mm(path: Path) -> float:
    m = re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", path.read_bytes())
    assert m is not None
    return float(m.group(1)) * MM_PER_PT


@pytest.fixture
def window_10s(qtbot, settings) -> Iterator[MainWindow]:
    """The main window on a 10 s run of the default diagram and dataset."""
    yield from open_window(qtbot, settings, 10.0)


@pytest.mark.slow
def test_figure_of_a_10_s_run_at_journal_widths(qtbot, window_10s: MainWindow, tmp_path: Path) -> None:
    window = window_10s
    s = window.session
    run_until(qtbot, window, 10.0)                           # a real 10 s run
    assert s.recorded_time()[-1] == pytest.approx(10.0)
    stack = window.scopes
    stack.set_cursor(3.0)
    stack.set_delta(True, 4.0)                               # both cursors on screen: neither is exported
    cursor_colour = stack.scopes[0].cursor.pen.color().name()
    for mm in JOURNAL_WIDTHS_MM:
        svg = window.scope_panel.export("figure", tmp_path / f"f{mm:.0f}.svg", width_mm=mm)
        assert svg is not None
        text = svg.read_text(encoding="utf-8")
        size = svg.stat().st_size
        print(f"SVG {mm:.0f} mm of a 10 s run: {size / 1000:.0f} kB")
        assert size <= SVG_MAX_BYTES
        assert _svg_width_mm(text) == pytest.approx(mm, abs=0.01)
        sizes = [float(v) for v in re.findall(r"font-size: ([\d.]+)px", text)]   # px of a pt-sized viewBox
        assert sizes and min(sizes) >= FONT_PT
        words = " ".join(re.findall(r">([^<]+)</text>", text))       # every text of the figure
        assert "Hip flexion β" in words and "time [s]" in words and "[N·m]" in words
        for absent in ("min/max/mean/RMS", "Δt", "t=", "fell"):         # no statistics, cursor read-outs
            assert absent not in words, absent
        for colour in (cursor_colour, B_COLOUR):                        # no cursor lines
            assert colour.lower() not in text.lower(), colour
        pdf = window.scope_panel.export("figure", tmp_path / f"f{mm:.0f}.pdf", width_mm=mm)
        assert pdf is not None and _pdf_width_mm(pdf) == pytest.approx(mm, abs=0.01)
        png = window.scope_panel.export("figure", tmp_path / f"f{mm:.0f}.png", width_mm=mm)
        assert png is not None
        from PIL import Image

        with Image.open(png) as im:
            dpi = im.info["dpi"][0]
            assert dpi == pytest.approx(PNG_DPI, abs=0.01)
            assert im.width / dpi * 25.4 == pytest.approx(mm, abs=25.4 / PNG_DPI)
    # simplified, not dropped: the knee curve keeps its extremes (the SVG's path of the L knee holds
    # far fewer points than the 10001 samples)
    n_paths = len(re.findall(r"<path d=", text))
    assert n_paths >= sum(len(sc.spec.traces) for sc in stack.scopes)


def test_figure_refuses_other_formats_and_an_empty_run(qtbot, window: MainWindow, tmp_path: Path) -> None:
    from app.gui.scopes.scope_figure import export_figure
    from models.errors import UserError

    with pytest.raises(UserError, match="run the simulation first"):
        export_figure(window.scopes, tmp_path / "f.pdf")
    run_until(qtbot, window, 0.2)
    with pytest.raises(UserError, match=r"\.pdf, \.svg or \.png"):
        export_figure(window.scopes, tmp_path / "f.jpg")


def test_gif_at_a_chosen_size_and_frame_rate(qtbot, window: MainWindow, tmp_path: Path) -> None:
    s = window.session
    run_until(qtbot, window, 0.5)
    gif = window.files.export("gif", tmp_path / "a.gif", size=(320, 240), fps=20.0)
    assert gif is not None
    from PIL import Image

    with Image.open(gif) as im:
        assert im.size == (320, 240)
        assert im.n_frames == 11                              # 0, 0.05, ..., 0.5 s
        assert im.info["duration"] == 50                      # ms per frame
        first = np.asarray(im.convert("RGB"))
        im.seek(10)
        last = np.asarray(im.convert("RGB"))
    assert np.abs(first.astype(int) - last.astype(int)).sum() > 0    # the figure moved
    assert s.recorded_time()[-1] == pytest.approx(0.5)


@pytest.mark.skipif(importlib.util.find_spec("imageio_ffmpeg") is None,
                    reason="the video extra (imageio-ffmpeg) is not installed")   # before the window opens
def test_mp4_frame_count_and_size(qtbot, window: MainWindow, tmp_path: Path) -> None:
    import imageio.v2 as iio

    run_until(qtbot, window, 0.4)
    mp4 = export.export_animation(window.session, tmp_path / "a.mp4", fps=30.0, size=(427, 240))
    reader = iio.get_reader(str(mp4))
    frames = [f for f in reader]
    assert len(frames) == 13 and frames[0].shape[:2] == (240, 426)      # 0 … 0.4 s at 30 fps; width made even
