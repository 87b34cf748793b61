"""``gaitblocks compare``: run footwear conditions side by side and compare them as the paper does.

Writes ``DIR/compare.csv``, ``DIR/compare.md``, ``DIR/verdict.txt``, ``DIR/summaries.json`` and
overlay PNGs (``trunk.png``, ``knee.png``, ``grf_vertical.png``) against % gait cycle.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from app.commands.run import add_output_options, check_out_dir
from blocks.presets import PRESET_CHOICES
from models.errors import UserError

HELP = "compare datasets (footwear conditions) with the same diagram: metrics table, overlay plots, verdict"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--grf", nargs="+", default=["all"], metavar="NAME|FILE",
                        help="datasets to compare; 'all' = every bundled dataset (default)")
    parser.add_argument("--preset", default="tracking", choices=PRESET_CHOICES,
                        help="diagram preset (emergent: the posture solver's gait, walked; setpoint: trunk held "
                             "toward a set-point; tracking: tracked, inputs)")
    parser.add_argument("--duration", type=float, default=None, metavar="S", help="simulated seconds per condition")
    parser.add_argument("--workers", type=int, default=None, metavar="K", help="parallel processes (default: cores)")
    add_output_options(parser, "gaitblocks_compare")
    parser.add_argument("--trials", type=Path, default=None, metavar="FILE",
                        help="trial manifest (TOML or CSV: condition, subject, grf, kinematics, mass, height, "
                             "window); reports mean ± SD per condition (docs/data-import.md)")
    parser.add_argument("--mass", type=float, nargs="+", default=None, metavar="KG",
                        help="body mass of each --grf entry, in order (recordings: else estimated from the GRF)")


OUT_FILES = ("compare.csv", "compare.md", "verdict.txt", "summaries.json", "trunk.png", "knee.png", "grf_vertical.png")


def _specs(names: list[str]) -> list[str]:
    if names == ["all"]:
        from grf_data.registry import list_datasets

        return [d["name"] for d in list_datasets() if d.get("kind", "bundled") == "bundled"]
    return names


def run(args: argparse.Namespace) -> int:
    from app.comparison import compare, metrics_table, overlay_plots, verdict
    from app.runs import RunSpec
    from blocks.datasets import check_dataset

    check_out_dir(args.out, args.force, OUT_FILES)
    if args.duration is not None and not args.duration > 0:
        raise UserError(f"--duration must be a positive number of seconds, got {args.duration}")
    if args.workers is not None and args.workers < 1:
        raise UserError(f"--workers must be at least 1, got {args.workers}")
    if args.trials is not None or args.mass is not None:
        from app.trials import run_trials_command

        return run_trials_command(args, _specs(args.grf))
    specs = _specs(args.grf)
    for spec in specs:
        check_dataset(spec)

    def progress(done: int, total: int, name: str) -> None:
        print(f"[{done}/{total}] {name} done", file=sys.stderr)

    results = compare(specs, duration=args.duration, progress=progress, workers=args.workers,
                      base=RunSpec(preset=args.preset))
    table = metrics_table(results)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "compare.csv", "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(table)
    md = ["| " + " | ".join(table[0]) + " |", "|" + "---|" * len(table[0])]
    md += ["| " + " | ".join(row) + " |" for row in table[1:]]
    (out / "compare.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    text = verdict(results)
    (out / "verdict.txt").write_text(text + "\n", encoding="utf-8")
    (out / "summaries.json").write_text(json.dumps({r.name: r.summary for r in results}, indent=2, default=str) + "\n",
                                        encoding="utf-8")
    overlay_plots(results, out)
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
    print()
    print(text)
    return 0 if all(r.ok for r in results) else 1
