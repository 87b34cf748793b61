"""``gaitblocks gui``: open the desktop GUI (or take a headless screenshot).

Before Qt starts, :func:`display_problem` checks that a window can open at all: on Linux with no
``QT_QPA_PLATFORM`` set, Qt needs ``DISPLAY`` (X11, the ``xcb`` plugin) or ``WAYLAND_DISPLAY``,
and the ``xcb`` plugin needs the system libraries of :data:`XCB_LIBS`. Without them Qt aborts
the process (``qt.qpa.plugin: Could not load the Qt platform plugin "xcb"``, exit 134); the
command instead exits 2 with what to install, or how to take a ``--screenshot`` offscreen.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from app.defaults import DEFAULT_PRESET
from models.errors import UserError

HELP = "open the desktop GUI (diagram, animation, scopes, live gains, footwear comparison)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--screenshot", metavar="FILE", help="run headless, save a PNG of the window and exit")
    parser.add_argument("--size", default="1600x1000", metavar="WxH",
                        help="screenshot: the screen's size in pixels, e.g. 1366x768 (default 1600x1000)")
    parser.add_argument("--run-for", type=float, default=3.0, metavar="SECONDS",
                        help="simulated seconds before the screenshot (default 3)")
    parser.add_argument("--grf", default="", metavar="NAME|FILE", help="dataset (bundled name or file)")
    parser.add_argument("--compare", nargs="+", metavar="NAME", help="run the compare view on these datasets")
    parser.add_argument("--diagram", metavar="FILE", help="diagram file (default assets/diagrams/grf_walk.json)")
    parser.add_argument("--preset", default=DEFAULT_PRESET,
                        help="preset: tracking (alias default), emergent, setpoint or paper")


def parse_size(text: str) -> tuple[int, int]:
    """``"1366x768"`` -> ``(1366, 768)``; anything else (or below 200 x 200) is a user error."""
    w, sep, h = text.lower().partition("x")
    if not (sep and w.strip().isdigit() and h.strip().isdigit()) or min(int(w), int(h)) < 200:
        raise UserError(f"--size must be WIDTHxHEIGHT in pixels, at least 200x200 (e.g. 1366x768), got {text!r}")
    return int(w), int(h)


#: shared library the ``xcb`` platform plugin links against -> its Debian/Ubuntu package (docs/gui.md)
XCB_LIBS = {
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxcb-icccm.so.4": "libxcb-icccm4", "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1", "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render-util.so.0": "libxcb-render-util0", "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-xkb.so.1": "libxcb-xkb1", "libxkbcommon-x11.so.0": "libxkbcommon-x11-0", "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1", "libfontconfig.so.1": "libfontconfig1",
}
HEADLESS = ("on a machine without a display take a picture of the window instead: "
            "gaitblocks gui --screenshot window.png (Qt's offscreen platform: no display, no xcb library)")


def _loadable(soname: str) -> bool:
    """The library loads from the system or sits in PySide6's own ``Qt/lib``."""
    try:
        ctypes.CDLL(soname)
        return True
    except OSError:
        pass
    try:
        import PySide6
    except ImportError:
        return False
    return (Path(PySide6.__file__).parent / "Qt" / "lib" / soname).exists()


def _qt_app_running() -> object | None:
    """The QApplication already running in this process (tests, an embedding program), if any:
    its platform is settled, so nothing is checked."""
    widgets = sys.modules.get("PySide6.QtWidgets")
    return None if widgets is None else widgets.QApplication.instance()


def display_problem(environ: Mapping[str, str] | None = None, platform: str | None = None,
                    loadable: Callable[[str], bool] = _loadable) -> str | None:
    """Why Qt cannot open a window here (one message), or None. Linux only: elsewhere, or with
    ``QT_QPA_PLATFORM`` set to anything but ``xcb``, Qt is left to decide."""
    env = os.environ if environ is None else environ
    if not (platform or sys.platform).startswith("linux"):
        return None
    chosen = env.get("QT_QPA_PLATFORM", "").split(":")[0].strip()
    if chosen and chosen != "xcb":
        return None
    if not env.get("DISPLAY") and (chosen == "xcb" or not env.get("WAYLAND_DISPLAY")):
        unset = "DISPLAY is unset" if chosen else "DISPLAY and WAYLAND_DISPLAY are unset"
        return (f"no display: {unset}, so Qt cannot open a window; run it in a desktop session "
                "(ssh -X forwards one), or " + HEADLESS)
    if env.get("WAYLAND_DISPLAY") and not chosen:
        return None   # a Wayland session: Qt's wayland plugin needs no xcb library
    missing = sorted({pkg for lib, pkg in XCB_LIBS.items() if not loadable(lib)})
    if missing:
        return ("Qt's xcb platform plugin cannot load: the system lacks " + " ".join(missing)
                + f" (Debian/Ubuntu: sudo apt-get install {' '.join(missing)}; docs/gui.md lists them); or " + HEADLESS)
    return None


def run(args: argparse.Namespace) -> int:
    if args.run_for < 0:
        raise UserError(f"--run-for must be >= 0, got {args.run_for}")
    size = parse_size(args.size)
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from app.gui.figure.screenshot import take_screenshot

        path = take_screenshot(args.screenshot, run_for=args.run_for, dataset=args.grf, preset=args.preset,
                               diagram=args.diagram, compare=args.compare, size=size)
        print(f"screenshot written to {path}")
        return 0
    problem = display_problem()
    if problem is not None and _qt_app_running() is None:
        raise UserError(problem)
    from PySide6 import QtWidgets

    from app.gui.session.gui_gc import freeze_startup_heap
    from app.gui.session.startup import open_window

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    app.setOrganizationName("gaitblocks")
    app.setApplicationName("gaitblocks")
    freeze_startup_heap()     # the imports' objects: out of every later collection (gui_gc)
    win = open_window(args.diagram, dataset=args.grf, preset=args.preset)   # shown before a first compile
    if args.compare:
        win.tabs.setCurrentWidget(win.compare)
        win.compare.start(list(args.compare))
    return int(app.exec())
