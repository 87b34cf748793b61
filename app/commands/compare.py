"""``gaitblocks compare``: run footwear conditions side by side and compare them as the paper does.

With ``--report DIR`` it writes the footwear comparison report of the *solved* posture instead
(:mod:`app.footwear_report`: every trial solved by the posture solver, mean ± SD per condition,
tests, the GRF x swing-kinematics factorial, the figure, the table and ``report.html``).

Without ``--report`` it simulates (``--posture simulated``) and writes ``DIR/compare.csv``,
``DIR/compare.md``, ``DIR/verdict.txt``, ``DIR/summaries.json`` and overlay PNGs (``trunk.png``,
``knee.png``, ``grf_vertical.png``) against % gait cycle.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from app.commands.run import add_output_options, check_out_dir
from app.defaults import COMPARE_PRESET
from blocks.library.presets import PRESET_CHOICES
from models.errors import UserError

HELP = "compare datasets (footwear conditions) with the same diagram: metrics table, overlay plots, verdict"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--grf", nargs="+", default=["all"], metavar="NAME|FILE",
                        help="datasets to compare; 'all' = every bundled dataset (default)")
    parser.add_argument("--preset", default=COMPARE_PRESET, choices=PRESET_CHOICES,
                        help="diagram preset (emergent: the posture solver's gait, walked; setpoint: trunk held "
                             "toward a set-point; tracking: tracked, inputs)")
    parser.add_argument("--duration", type=float, default=None, metavar="S", help="simulated seconds per condition")
    parser.add_argument("--workers", type=int, default=None, metavar="K", help="parallel processes (default: cores)")
    add_output_options(parser, "gaitblocks_compare")
    parser.add_argument("--trials", type=Path, default=None, metavar="FILE",
                        help="trial manifest (TOML or CSV: condition, subject, grf, kinematics, mass, height, "
                             "window); reports mean ± SD per condition (docs/data-import.md)")
    parser.add_argument("--report", type=Path, default=None, metavar="DIR",
                        help="write the footwear report of the solved posture into DIR (figure, table, report.html)")
    parser.add_argument("--posture", choices=("solved", "simulated"), default=None,
                        help="solved: the posture solver's periodic gait (the default with --report); simulated: "
                             "the diagram under --preset (the default without --report)")
    parser.add_argument("--robustness", choices=("quick", "full", "none", "off"), default="quick",
                        help="robustness variants of the factorial (--report): quick = 4 (about 36 solves for three "
                             "conditions), full = 9 (about 81; one at 200 nodes), none = the base solve only, "
                             "off = no factorial")
    parser.add_argument("--cycles", choices=("auto", "first"), default="auto",
                        help="--report: auto = every whole cycle of a recording (synthetic: cycle 0), first = cycle 0")
    parser.add_argument("--synthetic", type=int, default=None, metavar="N",
                        help="--report: replace each bundled set by N synthetic repeats made by the generator "
                             "(cadence and stride within ±2 %%; default: the manifest's synthetic_repeats, else 0)")
    parser.add_argument("--cache", type=Path, default=None, metavar="DIR",
                        help="--report: folder for generated sets and solves (default: the user cache)")
    parser.add_argument("--mass", type=float, nargs="+", default=None, metavar="KG",
                        help="body mass of each --grf entry, in order (recordings: else estimated from the GRF)")


OUT_FILES = ("compare.csv", "compare.md", "verdict.txt", "summaries.json", "trunk.png", "knee.png", "grf_vertical.png")


def _specs(names: list[str]) -> list[str]:
    if names == ["all"]:
        from grf_data.registry import list_datasets

        return [d["name"] for d in list_datasets() if d.get("kind", "bundled") == "bundled"]
    return names


def _report(args: argparse.Namespace) -> int:
    """``compare --report DIR``: the footwear report of the solved posture (:mod:`app.footwear_report`)."""
    from app.footwear_report.report import OUT_FILES as REPORT_FILES
    from app.footwear_report.report import build_report
    from app.footwear_report.synthetic import default_cache, expand
    from app.footwear_report.trials import SolveCache
    from app.manifest import read_manifest, trials_from_args

    if args.posture == "simulated":
        raise UserError("--report is built from the solved posture; drop --posture simulated (or --report)")
    if args.report is None:
        raise UserError("--posture solved writes a report: give --report DIR")
    check_out_dir(args.report, args.force, REPORT_FILES)
    repeats = args.synthetic
    if args.trials is not None:
        trials = read_manifest(args.trials)
        if repeats is None and args.trials.suffix.lower() == ".json":
            data = json.loads(args.trials.read_text(encoding="utf-8"))
            repeats = int(data.get("synthetic_repeats", 0)) if isinstance(data, dict) else 0
    else:
        trials = trials_from_args(_specs(args.grf), args.mass)
    if repeats is not None and not 0 <= repeats <= 20:
        raise UserError(f"--synthetic must be 0..20 repeats, got {repeats}")
    cache_root = args.cache if args.cache is not None else default_cache().parent

    def say(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    trials = expand(trials, repeats or 0, cache_root / "synthetic", progress=say)
    command = " ".join(["gaitblocks", "compare", *sys.argv[2:]]) if len(sys.argv) > 2 else "gaitblocks compare"
    report = build_report(trials, args.report, robustness=args.robustness, cycles=args.cycles,
                          cache=SolveCache(cache_root / "solves"), progress=say, command=command,
                          workers=args.workers or 1)
    print(report.get("answer", ""))
    print(f"-> {args.report / 'report.html'}")
    bad = [t for t in report["trials"] if t["status"] != "converged"]
    return 0 if not bad else 1


def run(args: argparse.Namespace) -> int:
    from app.comparison import compare, metrics_table, overlay_plots, verdict
    from app.runs import RunSpec
    from blocks.library.datasets import check_dataset

    if args.report is not None or args.posture == "solved":
        return _report(args)
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
