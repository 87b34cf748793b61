"""``gaitblocks sweep``: run a parameter grid (or random / Latin-hypercube samples) of a diagram.

Writes ``DIR/sweep.csv`` (one row per run, failed runs included: :mod:`app.tuning.sweep`; rewritten
as each run finishes, so a crash or Ctrl+C keeps every finished row),
``DIR/sweep.json`` (axes, objective, best run) and, for two swept parameters,
``DIR/heatmap_objective.png``. A progress line on stderr shows done/total and the time left;
Ctrl+C stops the sweep, keeps and writes the finished rows, and exits with code 130.
"""

from __future__ import annotations

import argparse
import json
import math
import os
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.commands.run import add_engine_option, add_output_options, check_out_dir, spec_from_args
from app.tuning.grid import Axis, lhs_points, parse_axis, random_points
from app.tuning.objective import parse_objective
from app.tuning.service import best_row, sweep_points, sweep_specs
from app.tuning.sweep import Progress, run_sweep, write_csv
from app.tuning.worker import run_one
from blocks.executors import EXECUTORS, make_executor
from blocks.presets import PRESET_CHOICES
from models.errors import UserError

if TYPE_CHECKING:
    from app.runs import RunSpec
    from blocks import Diagram

HELP = "run a parameter grid or random/LHS samples; write sweep.csv and heat maps"


def add_common(parser: argparse.ArgumentParser) -> None:
    """Options shared by ``sweep`` and ``tune``."""
    parser.add_argument("--grf", required=True, metavar="NAME|FILE", help="dataset: bundled name or file")
    parser.add_argument("--diagram", type=Path, default=None, help="diagram JSON file (default: grf_walk.json)")
    parser.add_argument("--preset", default=None, choices=PRESET_CHOICES, help="parameter preset applied before --set")
    parser.add_argument("--set", action="append", default=[], metavar="BLOCK.PARAM=VALUE", dest="sets",
                        help="fixed parameter for every run (repeatable)")
    parser.add_argument("--duration", type=float, default=None, metavar="S", help="simulated seconds per run")
    parser.add_argument("--dt", type=float, default=None, metavar="S", help="solver tick in seconds")
    add_engine_option(parser)
    parser.add_argument("--objective", default="default", metavar="SPEC",
                        help="default | tracking | weights like track=1,effort=0.1 | metric:COLUMN")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, metavar="K",
                        help="parallel runs (default: the number of cores, here %(default)s)")
    parser.add_argument("--executor", default=None, choices=EXECUTORS,
                        help="vectorized (N copies in one compiled engine), process (concurrent.futures), dask, "
                             "or serial (default: vectorized when every block has kernels, else process)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (default: a local cluster)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common(parser)
    parser.add_argument("--param", action="append", default=[], metavar="BLOCK.PARAM=LO:HI:N", dest="params",
                        help="swept parameter: LO:HI:N grid values, LO:HI range (with --samples) or V1,V2,...")
    parser.add_argument("--samples", type=int, default=None, metavar="N",
                        help="N sampled points in the box instead of the full grid")
    parser.add_argument("--sampler", default="lhs", choices=("random", "lhs"), help="sampler for --samples")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sampler")
    add_output_options(parser, "gaitblocks_sweep")


OUT_FILES = ("sweep.csv", "sweep.json", "heatmap_objective.png")


def base_diagram(spec: RunSpec) -> Diagram:
    """The diagram every run starts from (preset and fixed ``--set`` applied), for checking axes."""
    from app.runs import build_diagram

    return build_diagram(spec)


def resolve_executor(args: argparse.Namespace, base: RunSpec) -> None:
    """``--executor`` left out: vectorized where every block has kernels, else process."""
    if args.executor is None:
        from app.tuning.vectorized import default_executor

        args.executor = default_executor(base) if args.scheduler is None else "dask"


def check_numbers(args: argparse.Namespace) -> None:
    for name in ("duration", "dt"):
        v = getattr(args, name)
        if v is not None and not (math.isfinite(v) and v > 0):
            raise UserError(f"--{name} must be a positive number of seconds, got {v}")
    if args.workers < 1:
        raise UserError(f"--workers must be at least 1, got {args.workers}")
    from blocks.datasets import check_dataset

    check_dataset(args.grf)  # an unknown name or a missing file fails here, once, with its own message


def points(args: argparse.Namespace, axes: list[Axis], base: RunSpec) -> list[dict[str, float]]:
    """The grid, or ``--samples`` random/LHS points, checked and rounded by :func:`sweep_points`."""
    if args.samples is None:
        return sweep_points(base, axes)
    if args.samples < 1:
        raise UserError(f"--samples must be at least 1, got {args.samples}")
    sampler = lhs_points if args.sampler == "lhs" else random_points
    return sweep_points(base, axes, sampler(axes, args.samples, args.seed))


def run(args: argparse.Namespace) -> int:
    import sys

    check_out_dir(args.out, args.force, OUT_FILES)
    check_numbers(args)
    if not args.params:
        raise UserError("give at least one --param BLOCK.PARAM=LO:HI:N")
    axes = [parse_axis(t) for t in args.params]
    base = spec_from_args(args)
    resolve_executor(args, base)
    objective = parse_objective(args.objective)
    fixed = base.settings
    specs = sweep_specs(base, points(args, axes, base))
    refs = [a.ref for a in axes]
    out: Path = args.out
    columns = [r for r, _ in fixed] + refs
    done: list[dict[str, Any]] = []

    def keep(row: dict[str, Any]) -> None:  # every finished row reaches the disk at once
        done.append(row)
        write_csv(sorted(done, key=lambda r: int(r["run"])), out / "sweep.csv", columns)

    with make_executor(args.executor, min(args.workers, len(specs)), args.scheduler) as ex:
        outcome = run_sweep(specs, ex, progress=Progress(len(specs), f"sweep ({ex.name} x{ex.workers})"), on_row=keep,
                            fn=partial(run_one, objective=objective))
    write_csv(outcome.rows, out / "sweep.csv", columns)
    ok = [r for r in outcome.rows if r.get("status") == "ok"]
    best = best_row(outcome.rows)
    meta = {"params": [{"ref": a.ref, "lo": a.lo, "hi": a.hi, "values": list(a.values)} for a in axes],
            "sampler": "grid" if args.samples is None else args.sampler, "seed": args.seed,
            "objective": objective.describe(), "dataset": args.grf, "preset": args.preset,
            "duration": args.duration, "runs_planned": outcome.total, "runs_done": len(outcome.rows),
            "runs_failed": len(outcome.rows) - len(ok), "interrupted": outcome.interrupted,
            "best": None if best is None else {"run": best["run"], "objective": best["objective"],
                                               "set": {r: best[r] for r in refs}}}
    (out / "sweep.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    if len(axes) == 2 and outcome.rows:
        from app.tuning.plots import heatmap

        heatmap(outcome.rows, refs[0], refs[1], "objective", out / "heatmap_objective.png",
                grid=args.samples is None, title=f"objective ({objective.describe()})")
    print(f"{len(outcome.rows)}/{outcome.total} runs, {meta['runs_failed']} failed"
          + (f", best objective {best['objective']:.4g} at run {best['run']}" if best else "") + f" -> {out}")
    if outcome.interrupted:
        print(f"gaitblocks sweep: interrupted; kept {len(outcome.rows)} finished rows of {outcome.total}",
              file=sys.stderr)
        return 130
    return 0
