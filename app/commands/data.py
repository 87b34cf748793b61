"""``gaitblocks data info FILE [--kinematics FILE] [--mass KG]``: summarise a gait data file as JSON."""

from __future__ import annotations

import argparse
import json

from models.errors import UserError

HELP = "inspect a gait data file: data info FILE [--kinematics FILE] [--mass KG] (prints JSON)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    info = sub.add_parser("info", help="print rate, duration, channels, BW, stance windows, cadence, warnings")
    info.add_argument("file", help="GRF file: .mot/.sto, .forces, .c3d, .csv/.txt table")
    info.add_argument("--kinematics", default=None, help="angles file of the same trial (IK .mot, .trc, table)")
    info.add_argument("--mass", type=float, default=None, help="body mass in kg (else estimated from the GRF)")


def run(args: argparse.Namespace) -> int:
    if getattr(args, "action", None) != "info":
        raise UserError("usage: gaitblocks data info FILE [--kinematics FILE] [--mass KG]")
    from models.gaitdata.info import summarize

    summary = summarize(args.file, kinematics=args.kinematics, mass=args.mass)
    print(json.dumps(summary, indent=2))
    return 0
