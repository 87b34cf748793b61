"""``gaitblocks gui``: open the desktop GUI (or take a headless screenshot)."""

from __future__ import annotations

import argparse
import os
import sys

from models.errors import UserError

HELP = "open the desktop GUI (diagram, animation, scopes, live gains, footwear comparison)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--screenshot", metavar="FILE", help="run headless, save a PNG of the window and exit")
    parser.add_argument("--run-for", type=float, default=3.0, metavar="SECONDS",
                        help="simulated seconds before the screenshot (default 3)")
    parser.add_argument("--grf", default="", metavar="NAME|FILE", help="dataset (bundled name or file)")
    parser.add_argument("--compare", nargs="+", metavar="NAME", help="run the compare view on these datasets")
    parser.add_argument("--diagram", metavar="FILE", help="diagram file (default assets/diagrams/grf_walk.json)")
    parser.add_argument("--preset", default="tracking", help="preset: tracking (alias default), emergent or paper")


def run(args: argparse.Namespace) -> int:
    if args.run_for < 0:
        raise UserError(f"--run-for must be >= 0, got {args.run_for}")
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from app.gui.screenshot import take_screenshot

        path = take_screenshot(args.screenshot, run_for=args.run_for, dataset=args.grf, preset=args.preset,
                               diagram=args.diagram, compare=args.compare)
        print(f"screenshot written to {path}")
        return 0
    from PySide6 import QtWidgets

    from app.gui.main_window import MainWindow
    from app.gui.session import SimSession

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    app.setOrganizationName("gaitblocks")
    app.setApplicationName("gaitblocks")
    win = MainWindow(SimSession(args.diagram, dataset=args.grf, preset=args.preset))
    win.show()
    if args.compare:
        win.tabs.setCurrentWidget(win.compare)
        win.compare.start(list(args.compare))
    return int(app.exec())
