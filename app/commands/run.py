"""``gaitblocks run``: simulate a diagram on a dataset and write the results.

Writes ``DIR/results.csv``, ``DIR/results.npz`` (+ ``results.json`` sidecar) and
``DIR/summary.json`` with ``status``, ``message``, ``t_end_reached``, ``wall_s``,
``realtime_factor``, ``steps``, ``events`` and the parameters used, plus whatever the
registered metric functions add (:data:`METRICS`, :func:`register_metric`).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from blocks import Diagram, Results, Runner, compile_diagram
from blocks.compile import CompiledModel
from blocks.datasets import default_dataset_name
from blocks.presets import PRESETS, apply_preset
from models.dataset import GaitDataset
from models.errors import UserError
from models.gaitdata.offplate import FilledContact

HELP = "simulate a diagram on a dataset; write results.csv, results.npz and summary.json"


@dataclass
class RunContext:
    """What metric functions may look at besides the results."""

    diagram: Diagram
    model: CompiledModel
    runner: Runner
    dataset: str
    args: argparse.Namespace


MetricFn = Callable[[Results, RunContext], dict[str, Any]]
METRICS: list[MetricFn] = []


def register_metric(fn: MetricFn) -> MetricFn:
    """Add ``fn(results, ctx) -> {key: value}``; its keys are merged into ``summary.json``."""
    METRICS.append(fn)
    return fn


def _walking(results: Results, ctx: RunContext) -> dict[str, Any]:
    from app.walking import walking_summary

    return walking_summary(results, ctx)


register_metric(_walking)


def default_diagram_path() -> Path:
    """``assets/diagrams/grf_walk.json`` of this installation."""
    import assets

    return Path(assets.__file__).resolve().parent / "diagrams" / "grf_walk.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--diagram", type=Path, default=None, help="diagram JSON file (default: grf_walk.json)")
    parser.add_argument("--grf", default=None, metavar="NAME|FILE",
                        help="dataset: bundled name or file (default: the diagram's, else the registry default)")
    parser.add_argument("--kinematics", default=None, metavar="FILE",
                        help="joint-angle file to pair with a GRF file (OpenSim IK .mot, .trc markers, ...)")
    parser.add_argument("--mass", type=float, default=None, metavar="KG",
                        help="subject mass: scales the model (and tells the importer the body weight)")
    parser.add_argument("--height", type=float, default=None, metavar="M",
                        help="subject height: scales the model (default with --mass: the paper's 1.66 m)")
    parser.add_argument("--start", type=float, default=None, metavar="S", help="crop the trial: first data time used")
    parser.add_argument("--end", type=float, default=None, metavar="S", help="crop the trial: last data time used")
    parser.add_argument("--duration", type=float, default=None, metavar="S",
                        help="simulated seconds (default: the diagram's t_end, at most the data length)")
    parser.add_argument("--foot-radius", type=float, default=None, metavar="M",
                        help="rolling-foot radius of the model; 0 = point foot (default: fitted to the "
                             "dataset's double supports: 0 for the bundled sets, about 0.45 m for recordings)")
    parser.add_argument("--dt", type=float, default=None, metavar="S", help="solver tick in seconds")
    parser.add_argument("--preset", default=None, choices=PRESETS,
                        help="parameter preset of the default diagram: default (recommended) or paper (as published)")
    parser.add_argument("--set-file", type=Path, default=None, metavar="FILE",
                        help='JSON {"set": {"block.param": value}} (e.g. tune best.json), applied before --set')
    parser.add_argument("--set", action="append", default=[], metavar="BLOCK.PARAM=VALUE", dest="sets",
                        help="set a block parameter before compiling (repeatable)")
    parser.add_argument("--out", type=Path, default=Path("gaitblocks_run"), metavar="DIR",
                        help="output folder (default: ./gaitblocks_run)")


def load_diagram(args: argparse.Namespace) -> Diagram:
    """The diagram named by ``--diagram`` with every ``--set`` applied."""
    diagram = Diagram.load(args.diagram if args.diagram is not None else default_diagram_path())
    if getattr(args, "preset", None):
        diagram = apply_preset(diagram, args.preset)
    if getattr(args, "set_file", None):
        try:
            values = json.loads(Path(args.set_file).read_text(encoding="utf-8"))["set"]
            items = list(values.items())
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise UserError(f"{args.set_file}: not a parameter set file ({exc})") from None
        for ref, value in items:
            diagram.set_param(ref, value)
    for item in args.sets:
        if "=" not in item:
            raise UserError(f"--set {item!r}: expected BLOCK.PARAM=VALUE")
        ref, text = item.split("=", 1)
        spec = diagram.param_spec(ref.strip())
        diagram.set_param(ref.strip(), spec.parse(text, f"--set {ref.strip()}"))
    return diagram


def prepare(args: argparse.Namespace) -> RunContext:
    """Load, configure and compile; the runner is ready to go."""
    diagram = load_diagram(args)
    dataset = args.grf or diagram.dataset or default_dataset_name()
    if args.dt is not None and not (math.isfinite(args.dt) and args.dt > 0):
        raise UserError(f"--dt must be a positive number of seconds, got {args.dt}")
    if args.duration is not None and not (math.isfinite(args.duration) and args.duration > 0):
        raise UserError(f"--duration must be a positive number of seconds, got {args.duration}")
    t_end = diagram.solver.t_start + (args.duration if args.duration is not None
                                      else diagram.solver.t_end - diagram.solver.t_start)
    if args_has_subject(args):
        diagram.model = replace(diagram.model, mass_kg=args.mass if args.mass is not None else PAPER_SUBJECT[0],
                                height_m=args.height if args.height is not None else PAPER_SUBJECT[1])
    if getattr(args, "foot_radius", None) is not None:
        if not (math.isfinite(args.foot_radius) and 0.0 <= args.foot_radius < 1.0):
            raise UserError(f"--foot-radius must be a number of metres in [0, 1), got {args.foot_radius}")
        diagram.model = replace(diagram.model, foot_radius_m=args.foot_radius)
    if _uses_dataset(diagram):
        from blocks.datasets import resolve_dataset

        data = load_run_dataset(dataset, args)
        t_end = min(t_end, diagram.solver.t_start + data.duration)
        subject = (data.meta.body_mass_kg, data.meta.height_m)
        if diagram.model.mass_kg is None and not data.meta.synthetic and None not in subject:
            # a recording that knows its subject (e.g. a registered trial): scale the model to it
            diagram.model = replace(diagram.model, mass_kg=subject[0], height_m=subject[1])
        cached = {dataset: data}
        model = compile_diagram(diagram, dataset=dataset, dt=args.dt, t_end=t_end,
                                resolver=lambda s: cached[s] if s in cached else resolve_dataset(s))
    else:
        model = compile_diagram(diagram, dataset=dataset, dt=args.dt, t_end=t_end)
    runner = Runner(model, capacity=int(round((t_end - diagram.solver.t_start) / model.dt)) + 2)
    return RunContext(diagram, model, runner, dataset, args)


PAPER_SUBJECT = (55.33, 1.66)  # kg, m: the model of Table 1 (Luxman & Zielinska 2017)


def args_has_subject(args: argparse.Namespace) -> bool:
    return getattr(args, "mass", None) is not None or getattr(args, "height", None) is not None


def load_run_dataset(spec: str, args: argparse.Namespace) -> GaitDataset:
    """The dataset of a run: bundled name or file (+ kinematics), with the subject's mass, cropped."""
    from blocks.datasets import resolve_dataset

    kin, mass, height = getattr(args, "kinematics", None), getattr(args, "mass", None), getattr(args, "height", None)
    if kin is None and mass is None and height is None:
        data = resolve_dataset(spec)
    else:
        from grf_data.registry import load_dataset

        data = load_dataset(spec, kinematics=kin, mass=mass, height=height)
    start, end = getattr(args, "start", None), getattr(args, "end", None)
    if start is not None or end is not None:
        try:
            data = data.crop(start, end)
        except ValueError as exc:
            raise UserError(f"--start/--end: {exc}") from None
    return data


def _uses_dataset(diagram: Diagram) -> bool:
    return any("dataset" in diagram.instantiate(name).params for name in diagram.blocks)


def summarise(results: Results, ctx: RunContext) -> dict[str, Any]:
    """The keys of ``summary.json`` (metric functions add more)."""
    t_end = ctx.model.ctx.t_end
    reached = float(results.t[-1]) if results.t.size else ctx.model.ctx.t0
    summary: dict[str, Any] = {
        "status": results.status,
        "message": results.message,
        "t_end_requested": t_end,
        "t_end_reached": reached,
        "wall_s": results.stats["wall_s"],
        "realtime_factor": results.stats["realtime_factor"],
        "steps": results.stats["steps"],
        "rhs_calls": results.stats["rhs_calls"],
        "events": results.events,
        "param_changes": results.param_changes,
        "params": {k: list(v) if isinstance(v, tuple) else v for k, v in results.params.items() if not callable(v)},
        "solver": results.solver,
        "diagram": ctx.diagram.name,
        "dataset": _dataset_info(ctx) if _uses_dataset(ctx.diagram) else None,  # None: the run read no data
        "model": ctx.model.ctx.biped_params.to_dict(),
    }
    for fn in METRICS:
        summary.update(fn(results, ctx))
    return summary


def _dataset_info(ctx: RunContext) -> dict[str, Any]:
    try:
        return {"spec": ctx.dataset, **ctx.model.ctx.get_dataset(ctx.dataset).meta.to_dict()}
    except UserError:
        return {"spec": ctx.dataset}


def write_outputs(results: Results, summary: dict[str, Any], out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        results.save_csv(out / "results.csv")
        results.save_npz(out / "results.npz")
        (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write results to {out}: {exc.strerror}") from None


def run(args: argparse.Namespace) -> int:
    ctx = prepare(args)
    results = ctx.runner.run(ctx.model.ctx.t_end)
    summary = summarise(results, ctx)
    write_outputs(results, summary, args.out)
    rtf = summary["realtime_factor"]
    line = (f"{summary['status']}: {summary['steps']} steps to t = {summary['t_end_reached']:.3f} s, "
            f"{summary['wall_s']:.2f} s wall ({rtf:.1f}x real time), {len(results.events)} events -> {args.out}"
            if rtf else f"{summary['status']}: no steps taken -> {args.out}")
    print(line)
    for fill in (summary.get("dataset") or {}).get("filled_contacts", []):
        print(f"data: {FilledContact(**fill).note()}")
    if "rms_deg" in summary:
        rms, fell = summary["rms_deg"], summary.get("fell_at_s")
        print(f"walking: RMS tracking hip {max(rms['hip_l'], rms['hip_r']):.2f} deg, knee "
              f"{max(rms['knee_l'], rms['knee_r']):.2f} deg, trunk {rms['trunk']:.2f} deg; "
              f"{summary['cycles_completed']} cycles; " + (f"fell at {fell:.2f} s" if fell is not None else "no fall"))
    if results.status != "ok":
        import sys

        print(f"gaitblocks run: simulation stopped: {results.message}", file=sys.stderr)
        return 1
    return 0
