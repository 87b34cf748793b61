"""``gaitblocks gui``: open the desktop GUI (or take a headless screenshot)."""

from __future__ import annotations

import argparse
import os
import sys

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
    parser.add_argument("--preset", default="tracking",
                        help="preset: tracking (alias default), emergent, setpoint or paper")


def parse_size(text: str) -> tuple[int, int]:
    """``"1366x768"`` -> ``(1366, 768)``; anything else (or below 200 x 200) is a user error."""
    w, sep, h = text.lower().partition("x")
    if not (sep and w.strip().isdigit() and h.strip().isdigit()) or min(int(w), int(h)) < 200:
        raise UserError(f"--size must be WIDTHxHEIGHT in pixels, at least 200x200 (e.g. 1366x768), got {text!r}")
    return int(w), int(h)


def run(args: argparse.Namespace) -> int:
    if args.run_for < 0:
        raise UserError(f"--run-for must be >= 0, got {args.run_for}")
    size = parse_size(args.size)
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from app.gui.screenshot import take_screenshot

        path = take_screenshot(args.screenshot, run_for=args.run_for, dataset=args.grf, preset=args.preset,
                               diagram=args.diagram, compare=args.compare, size=size)
        print(f"screenshot written to {path}")
        return 0
    from PySide6 import QtWidgets

    from app.gui.startup import open_window

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    app.setOrganizationName("gaitblocks")
    app.setApplicationName("gaitblocks")
    win = open_window(args.diagram, dataset=args.grf, preset=args.preset)   # shown before a first compile
    if args.compare:
        win.tabs.setCurrentWidget(win.compare)
        win.compare.start(list(args.compare))
    return int(app.exec())
