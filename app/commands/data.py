"""``gaitblocks data info FILE [--kinematics FILE] [--mass KG] [--knee-sign SIGN] [--json]``: summarise a gait
data file (readable lines, or JSON with ``--json``), including its usable windows and the knee sign chosen.

``gaitblocks data fetch NAME [--cache DIR] [--from URL]``: download a known public trial into the
cache, checked against its sha256 (:mod:`models.gaitdata.fetch`); ``data fetch --list`` lists them.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from models.errors import UserError

HELP = "inspect a gait data file (data info FILE) or download a known public trial (data fetch NAME)"


def add_knee_sign_option(parser: argparse.ArgumentParser) -> None:
    """``--knee-sign {auto,flexion-positive,flexion-negative}`` (``data info`` and ``run``; the choices are
    :data:`models.gaitdata.opensim.KNEE_SIGNS`, written out so that building the parser imports no numpy)."""
    parser.add_argument("--knee-sign", default="auto", choices=("auto", "flexion-positive", "flexion-negative"),
                        help="how an OpenSim IK file's knee angle is signed: auto (read from the data: the swing "
                             "peak is flexion), flexion-positive (Rajagopal 2015) or flexion-negative (gait2392)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    info = sub.add_parser("info", help="print rate, duration, channels, BW, stance windows, cadence, warnings")
    info.add_argument("file", help="GRF file: .mot/.sto, .forces, .c3d, .csv/.txt table")
    info.add_argument("--kinematics", default=None, help="angles file of the same trial (IK .mot, .trc, table)")
    info.add_argument("--mass", type=float, default=None, help="body mass in kg (else estimated from the GRF)")
    add_knee_sign_option(info)
    info.add_argument("--json", action="store_true", help="print the machine-readable JSON summary")
    fetch = sub.add_parser("fetch", help="download a known public trial into the cache (sha256-checked)")
    fetch.add_argument("name", nargs="?", help="trial name (see --list)")
    fetch.add_argument("--list", action="store_true", help="list the known trials")
    fetch.add_argument("--cache", type=Path, default=None, help="cache folder (default: $GAITBLOCKS_CACHE_DIR or "
                       "~/.cache/gaitblocks)")
    fetch.add_argument("--from", dest="base_url", default=None, metavar="URL",
                       help="fetch the files from this folder URL instead of their source (mirror, file://)")


def _fetch(args: argparse.Namespace) -> int:
    from models.gaitdata.fetch import TRIALS, fetch

    if args.list or not args.name:
        for name, trial in TRIALS.items():
            print(f"{name:18s} {trial.description} [{trial.licence}]")
        return 0
    paths = fetch(args.name, cache=args.cache, base_url=args.base_url)
    for p in paths:
        print(p)
    hint = TRIALS[args.name].run_hint.format(*paths)
    print(f"run it: gaitblocks run {hint}" if hint.startswith("--") else hint)
    return 0


def run(args: argparse.Namespace) -> int:
    if getattr(args, "action", None) == "fetch":
        return _fetch(args)
    if getattr(args, "action", None) != "info":
        raise UserError("usage: gaitblocks data info FILE [--kinematics FILE] [--mass KG] | data fetch NAME")
    from models.gaitdata.info import render_text, summarize

    summary = summarize(args.file, kinematics=args.kinematics, mass=args.mass, knee_sign=args.knee_sign)
    print(json.dumps(summary, indent=2) if args.json else render_text(summary))
    return 0
