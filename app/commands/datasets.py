"""``gaitblocks datasets``: list the bundled and registered datasets; register or forget one."""

from __future__ import annotations

import argparse
import json

from grf_data import registry
from models.errors import UserError

HELP = "list bundled and registered datasets (and register your own files by name)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.add_argument("--register", nargs=2, metavar=("NAME", "FILE"), help="register FILE under NAME")
    parser.add_argument("--kinematics", metavar="FILE", help="with --register: the joint-angle file of the trial")
    parser.add_argument("--mass", type=float, metavar="KG", help="with --register: the subject's body mass")
    parser.add_argument("--height", type=float, metavar="M", help="with --register: the subject's height")
    parser.add_argument("--unregister", metavar="NAME", help="forget a registered dataset")


def _fmt(value: object, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def run(args: argparse.Namespace) -> int:
    if not args.register and (args.kinematics or args.mass is not None or args.height is not None):
        raise UserError("--kinematics, --mass and --height go with --register NAME FILE")
    if args.register:
        name, path = args.register
        where = registry.register_dataset(name, path, kinematics=args.kinematics, mass=args.mass, height=args.height)
        print(f"registered {name!r} -> {path} (in {where})")
    if args.unregister:
        registry.unregister_dataset(args.unregister)
        print(f"forgot {args.unregister!r}")
    rows = registry.list_datasets()
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(f"{'name':<14} {'kind':<10} {'footwear':<11} {'synthetic':<9} {'rate_hz':>8} {'duration_s':>10}  description")
    for row in rows:
        default = " (default)" if row["name"] == registry.DEFAULT_DATASET else ""
        print(f"{row['name']:<14} {row['kind']:<10} {row['footwear'] or '-':<11} "
              f"{'yes' if row['synthetic'] else 'no':<9} {_fmt(row['rate_hz'], '8.0f')} "
              f"{_fmt(row['duration_s'], '10.2f')}  {row['description']}{default}")
    return 0
