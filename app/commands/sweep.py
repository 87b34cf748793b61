"""``gaitblocks sweep``: run a parameter grid (or random / Latin-hypercube samples) of a diagram.

Writes ``DIR/sweep.csv`` (one row per run, failed runs included, appended as each run or batch
finishes: :class:`app.tuning.sweep.SweepCsv`), ``DIR/sweep.json`` (axes, objective, best run and
``best.on_edge``, the parameters whose best value is the grid's first or last:
:func:`app.tuning.service.best_on_edge`, also a warning on stderr) and, for two swept parameters,
``DIR/heatmap_objective.png``. A progress line on stderr shows done/total, the elapsed time and
the time left from the start.

Ctrl+C starts no further run; the runs in flight (a batch of copies on each worker thread, or one run
per worker process) finish and are written, then ``sweep.json`` with ``"interrupted": true``, and the
command exits 130 (a second Ctrl+C stops at once, the process ending when the batches running on their
threads end; every row finished before it is in ``sweep.csv`` already).
``--resume`` runs the same sweep again into the same folder: the rows already in ``sweep.csv``
are kept and their runs skipped (each is checked against the plan: the same parameters for the
same ``run``), so the resumed sweep ends with every row exactly once.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import threading
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.commands.run import add_engine_option, add_output_options, check_out_dir, spec_from_args
from app.tuning.grid import Axis, lhs_points, parse_axis, random_points
from app.tuning.objective import parse_objective
from app.tuning.service import best_on_edge, best_row, edge_text, sweep_points, sweep_specs
from app.tuning.sweep import Progress, SweepCsv, run_sweep
from app.tuning.worker import run_one
from blocks.executors import EXECUTORS, make_executor
from blocks.library.presets import PRESET_CHOICES
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
                        help="default | tracking | solved (how tightly the emergent preset holds the solved gait) | "
                             "weights like track=1,effort=0.1 | metric:COLUMN")
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
    parser.add_argument("--resume", action="store_true",
                        help="continue a sweep stopped in --out: keep the rows in its sweep.csv and run only "
                             "the others (the same --param/--samples/--seed/--set as before)")


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
    from blocks.library.datasets import check_dataset

    check_dataset(args.grf)  # an unknown name or a missing file fails here, once, with its own message


def points(args: argparse.Namespace, axes: list[Axis], base: RunSpec) -> list[dict[str, float]]:
    """The grid, or ``--samples`` random/LHS points, checked and rounded by :func:`sweep_points`."""
    if args.samples is None:
        return sweep_points(base, axes)
    if args.samples < 1:
        raise UserError(f"--samples must be at least 1, got {args.samples}")
    sampler = lhs_points if args.sampler == "lhs" else random_points
    return sweep_points(base, axes, sampler(axes, args.samples, args.seed))


def _typed(row: dict[str, str]) -> dict[str, Any]:
    """A row read back from ``sweep.csv`` with its numbers as floats (empty cells None)."""
    out: dict[str, Any] = {}
    for key, text in row.items():
        if text == "" or text is None:
            out[key] = None
        elif key in ("status", "message"):
            out[key] = text
        else:
            try:
                out[key] = float(text)
            except ValueError:
                out[key] = text
    out["run"] = int(row["run"])
    return out


def resumed_rows(kept: list[dict[str, str]], specs: list[RunSpec], path: Path) -> list[dict[str, Any]]:
    """The rows of a stopped sweep, checked against this one's plan: each ``run`` once, in range, with
    the same parameter values (as ``sweep.csv`` writes them); :class:`UserError` otherwise."""
    from app.tuning.sweep import cell_text

    seen: set[int] = set()
    for row in kept:
        try:
            r = int(row["run"])
        except (KeyError, TypeError, ValueError):
            raise UserError(f"--resume: {path} is not a sweep.csv (a row without a run number)") from None
        if not 0 <= r < len(specs) or r in seen:
            raise UserError(f"--resume: {path} holds run {r} {'twice' if r in seen else 'outside this sweep'} "
                            f"(runs 0..{len(specs) - 1}); give --force to start again")
        seen.add(r)
        for ref, value in specs[r].settings:
            if row.get(ref) != cell_text(value):
                raise UserError(f"--resume: {path} has run {r} with {ref} = {row.get(ref)}, this sweep has "
                                f"{cell_text(value)}: not the same sweep (give the same --param/--samples/--seed/"
                                "--set, or --force to start again)")
    return [_typed(row) for row in kept]


def run(args: argparse.Namespace) -> int:
    import sys

    from app.interrupt import SigintFlag
    from app.jsontext import dumps

    check_out_dir(args.out, args.force or args.resume, OUT_FILES)
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
    # what the imports and the check built lives to the end: the collector's full passes no longer walk its
    # 110,000 objects (two passes took 0.13-0.17 s of a 1000-run sweep, under the GIL; after: 0.04 s)
    gc.freeze()
    stop = threading.Event()
    with SweepCsv(out / "sweep.csv", [r for r, _ in fixed] + refs, resume=args.resume) as sheet:
        kept = resumed_rows(sheet.kept, specs, sheet.path)
        done = {int(r["run"]) for r in kept}
        todo = [i for i in range(len(specs)) if i not in done]
        if kept:
            print(f"resuming: {len(kept)} of {len(specs)} rows already in {sheet.path}, {len(todo)} to run",
                  file=sys.stderr)
        with make_executor(args.executor, max(1, min(args.workers, len(todo))), args.scheduler) as ex, \
                SigintFlag(stop):
            progress = Progress(len(specs), f"sweep ({ex.name} x{ex.workers})", already=len(kept))
            progress.start()
            outcome = run_sweep([specs[i] for i in todo], ex, progress=progress, cancel=stop,
                                on_row=lambda row: sheet.add([row]), fn=partial(run_one, objective=objective),
                                index=todo)
    rows = sorted(kept + outcome.rows, key=lambda r: int(r["run"]))
    ok = [r for r in rows if r.get("status") == "ok"]
    best = best_row(rows)
    # a grid's edges are its first and last planned values (not those of the rows an interrupt left), random
    # samples' the axes' ranges
    planned = [{a.ref: float(v)} for a in axes for v in a.values]
    edges = best_on_edge(planned, refs, best, None if args.samples is None else {a.ref: (a.lo, a.hi) for a in axes})
    meta = {"params": [{"ref": a.ref, "lo": a.lo, "hi": a.hi, "values": list(a.values)} for a in axes],
            "sampler": "grid" if args.samples is None else args.sampler, "seed": args.seed,
            "objective": objective.describe(), "dataset": args.grf, "preset": args.preset,
            "duration": args.duration, "runs_planned": len(specs), "runs_done": len(rows),
            "runs_resumed": len(kept), "runs_failed": len(rows) - len(ok), "interrupted": outcome.interrupted,
            "best": None if best is None else {"run": best["run"], "objective": best["objective"],
                                               "set": {r: best[r] for r in refs}, "on_edge": edges}}
    (out / "sweep.json").write_text(dumps(meta) + "\n", encoding="utf-8")
    if len(axes) == 2 and rows:
        from app.tuning.plots import heatmap

        heatmap(rows, refs[0], refs[1], "objective", out / "heatmap_objective.png",
                grid=args.samples is None, title=f"objective ({objective.describe()})")
    print(f"{len(rows)}/{len(specs)} runs, {meta['runs_failed']} failed"
          + (f", best objective {best['objective']:.4g} at run {best['run']}" if best else "") + f" -> {out}")
    if best is not None and edges:
        print(f"gaitblocks sweep: warning: {edge_text(edges, best)}", file=sys.stderr)
    if outcome.interrupted:
        print(f"gaitblocks sweep: interrupted; kept {len(rows)} finished rows of {len(specs)} "
              "(--resume runs the others)", file=sys.stderr)
        return 130
    return 0
