"""``gaitblocks tune``: tune the PID gains by Ziegler-Nichols (``zn``) or optimisation (``optimize``).

Writes into ``--out DIR``:

* ``best.json`` -- ``{"set": {"block.param": value, ...}}``, the tuned gains (loadable as a
  parameter set by ``gaitblocks run --set-file`` and the GUI gain panel), only when they score no
  worse than the start; otherwise they go to ``worse.json``, a warning names the loss and the
  exit code is 1;
* ``tune.json`` -- method, seed, objective, every evaluation (optimize) or ``Ku``/``Tu`` per joint (zn);
* ``convergence.png`` -- objective per evaluation and the best so far (optimize), or the closed-loop
  responses at ``Ku`` (zn);
* ``metrics.md`` / ``metrics.csv`` -- the before/after metric table, also printed.

"Before" is the diagram after ``--preset`` (default: ``default``) and ``--set``; "after" the same with
``best.json`` applied, on the same dataset and duration.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from app.commands.run import add_output_options, check_out_dir, spec_from_args
from app.commands.sweep import add_common, base_diagram, check_numbers, resolve_executor
from app.defaults import DEFAULT_PRESET
from app.tuning.objective import parse_objective
from app.tuning.optimize import ALGORITHMS, DEFAULT_REFS, optimize, tune_params
from app.tuning.service import write_best
from app.tuning.worker import run_one
from blocks.executors import make_executor
from models.errors import UserError

HELP = "tune PID gains (Ziegler-Nichols or optimisation); write best.json, a convergence plot and a metric table"

TABLE = ("objective", "status", "rms_deg.hip_l", "rms_deg.hip_r", "rms_deg.knee_l", "rms_deg.knee_r", "rms_deg.trunk",
         "peak_torque_nm_per_kg.hip", "peak_torque_nm_per_kg.knee", "stance_slip_m_max", "stance_height_m_max",
         "solved_gait.trunk_rms_deg", "solved_gait.pd_stance_share", "cycles_completed")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common(parser)
    parser.set_defaults(preset=DEFAULT_PRESET)
    parser.add_argument("--method", default="optimize", choices=("optimize", "zn"), help="tuning method")
    parser.add_argument("--algorithm", default="nelder-mead", choices=ALGORITHMS, help="optimizer (optimize)")
    parser.add_argument("--budget", type=int, default=40, metavar="N", help="simulations allowed (optimize)")
    parser.add_argument("--seed", type=int, default=0, help="seed (same seed, same result)")
    parser.add_argument("--param", action="append", default=[], metavar="BLOCK.PARAM[=LO:HI]", dest="params",
                        help=f"tuned parameter, optionally its range (default: {', '.join(DEFAULT_REFS)})")
    parser.add_argument("--span", type=float, default=4.0, help="search from start/SPAN to start*SPAN (optimize)")
    parser.add_argument("--zn-rule", default="pid", choices=("p", "pi", "pid"), help="Ziegler-Nichols table row")
    parser.add_argument("--zn-damping", type=float, default=1.0, metavar="NMS",
                        help="assumed passive joint damping [N m s/rad] of the swing loop (zn)")
    parser.add_argument("--zn-lag", type=float, default=0.02, metavar="S", help="assumed actuator lag [s] (zn)")
    parser.add_argument("--zn-delay", type=float, default=0.01, metavar="S", help="assumed feedback delay [s] (zn)")
    add_output_options(parser, "gaitblocks_tune")


OUT_FILES = ("best.json", "tune.json", "convergence.png", "metrics.md", "metrics.csv")


def _ranges(items: list[str]) -> tuple[list[str], dict[str, tuple[float, float]]]:
    refs, ranges = [], {}
    for item in items:
        ref, _, rng = item.partition("=")
        refs.append(ref.strip())
        if rng:
            parts = rng.split(":")
            try:
                lo, hi = float(parts[0]), float(parts[1])
            except (ValueError, IndexError):
                raise UserError(f"--param {item!r}: expected BLOCK.PARAM=LO:HI") from None
            ranges[ref.strip()] = (lo, hi)
    return refs, ranges


def table(before: dict[str, Any], after: dict[str, Any]) -> list[tuple[str, str, str]]:
    def fmt(v: Any) -> str:
        return f"{v:.4g}" if isinstance(v, float) else ("" if v is None else str(v))

    return [(k, fmt(before.get(k)), fmt(after.get(k))) for k in TABLE]


def write_table(rows: list[tuple[str, str, str]], out: Path) -> str:
    md = ["| metric | before | after |", "|---|---|---|"] + [f"| {a} | {b} | {c} |" for a, b, c in rows]
    (out / "metrics.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (out / "metrics.csv").write_text("metric,before,after\n" + "".join(f"{a},{b},{c}\n" for a, b, c in rows),
                                     encoding="utf-8")
    return "\n".join(md)


def run(args: argparse.Namespace) -> int:
    check_out_dir(args.out, args.force, OUT_FILES)
    check_numbers(args)
    base = spec_from_args(args)
    resolve_executor(args, base)
    diagram = base_diagram(base)
    objective = parse_objective(args.objective)
    out: Path = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create {out}: {exc.strerror}") from None
    info: dict[str, Any] = {"method": args.method, "seed": args.seed, "objective": objective.describe(),
                            "dataset": args.grf, "preset": args.preset, "duration": args.duration}
    if args.method == "optimize":
        refs, ranges = _ranges(args.params) if args.params else (list(DEFAULT_REFS), {})
        params = tune_params(diagram, refs, args.span, ranges)
        with make_executor(args.executor, args.workers, args.scheduler) as ex:
            res = optimize(base, params, ex, budget=args.budget, seed=args.seed, algorithm=args.algorithm,
                           objective=objective)
        best_set, before, after = res.best.values, res.start.row, res.best.row
        from app.tuning.plots import convergence

        convergence([e.objective for e in res.history], out / "convergence.png", baseline=res.start.objective,
                    title=f"{args.algorithm} on {args.grf}, seed {args.seed}")
        info |= {"algorithm": res.algorithm, "budget": args.budget, "message": res.message,
                 "bounds": {p.ref: [p.lo, p.hi] for p in params},
                 "evaluations": [{"set": e.values, "objective": e.objective, "status": e.row.get("status")}
                                 for e in res.history]}
    else:
        from app.tuning.znrun import zn_tune

        best_set, zn_info = zn_tune(diagram, args, out / "convergence.png")
        info |= zn_info
        before = run_one(base, objective)
        after = run_one(base.with_settings(*best_set.items()), objective)
    b, a = float(before["objective"]), float(after["objective"])
    improved = math.isfinite(a) and (not math.isfinite(b) or a <= b)
    info |= {"before": {k: before.get(k) for k in TABLE}, "after": {k: after.get(k) for k in TABLE},
             "best": best_set, "improved": improved}
    best_file = out / ("best.json" if improved else "worse.json")
    (out / "best.json").unlink(missing_ok=True)  # a stale best.json from a --force rerun must not survive
    write_best(best_file, best_set)
    (out / "tune.json").write_text(json.dumps(info, indent=2, default=_plain) + "\n", encoding="utf-8")
    print(write_table(table(before, after), out))
    verdict = (f"objective {b:.4g} -> {a:.4g} ({100 * (a - b) / b:+.1f} %)" if math.isfinite(b) and b
               else f"objective {b} -> {a}")
    if not improved:
        print(f"gaitblocks tune: warning: the {args.method} gains are WORSE than the start ({verdict}); "
              f"not stored as best.json, written to {best_file} for inspection", file=sys.stderr)
        return 1
    print(f"{args.method}: {verdict}; gains -> {best_file}")
    return 0


def _plain(v: Any) -> Any:
    return None if isinstance(v, float) and not math.isfinite(v) else str(v)
