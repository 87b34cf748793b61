"""``gaitblocks run``: simulate a diagram on a dataset and write the results.

The run is assembled by :mod:`app.runs` from the :class:`~app.runs.RunSpec` the options describe
(:func:`spec_from_args`). Writes ``DIR/results.npz`` (+ ``results.json`` sidecar),
``DIR/results.csv`` (unless ``--no-csv``; headers carry units) and ``DIR/summary.json`` with
``status``, ``message``, ``preset``, ``t_end_reached``, ``wall_s``, ``realtime_factor``, ``steps``,
``events`` and the parameters used, plus whatever the registered metric functions add
(:func:`app.run_summary.summarise`, :func:`app.run_summary.register_metric`). ``summary.json`` is strict JSON:
a figure a run has not got (``nan``) is ``null`` (:mod:`app.jsontext`).

Ctrl+C (SIGINT) keeps what was computed (:func:`simulate`): the run is checked every 0.05 s of
simulated time (the same check that stops it at a fall) and stops at the next check; the results
up to that time are written as a finished run's are, with ``status`` ``interrupted`` in
``summary.json``, and the command exits 130. A second Ctrl+C stops at once, writing nothing.
Ctrl+C during the compile, before any step, keeps nothing (there is nothing yet). A run longer than
a second of wall time shows its simulated time on stderr as it goes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blocks.library.presets import PRESET_CHOICES
from models.errors import UserError

if TYPE_CHECKING:
    from app.interrupt import SigintFlag
    from app.runs import Built, RunSpec
    from blocks import Diagram, Results
    from blocks.logstream import LogStream

HELP = "simulate a diagram on a dataset; write results.csv, results.npz and summary.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--diagram", type=Path, default=None, help="diagram JSON file (default: grf_walk.json)")
    add_output_options(parser, "gaitblocks_run")
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
                        help="simulated seconds (default: the diagram's t_end); longer than the data: cut to "
                             "it with a warning, unless --repeat-cycles")
    parser.add_argument("--repeat-cycles", action="store_true", dest="repeat",
                        help="reach a --duration longer than the data by repeating the recording's whole gait "
                             "cycles (cut at two heel strikes of one foot; the clock keeps running)")
    parser.add_argument("--record-every", type=int, default=None, metavar="N",
                        help="record every N-th solver tick (and the last): N times less memory and output "
                             "(default: every tick)")
    parser.add_argument("--log", action="append", default=None, metavar="BLOCK.PORT", dest="logged",
                        help="record only this signal (repeatable; 'metrics' = the signals the summary needs; "
                             "default: every output)")
    parser.add_argument("--foot-radius", type=float, default=None, metavar="M",
                        help="rolling-foot radius of the model; 0 = point foot (default: fitted to the "
                             "dataset's double supports: 0 for the bundled sets, about 0.45 m for recordings)")
    parser.add_argument("--dt", type=float, default=None, metavar="S", help="solver tick in seconds")
    add_engine_option(parser)
    parser.add_argument("--preset", default=None, choices=PRESET_CHOICES,
                        help="parameter preset of the default diagram: tracking (alias default: walks by tracking the "
                             "recording), emergent (the posture solver's gait, walked: --solution), setpoint (the "
                             "trunk held toward one set-point) or paper (as published)")
    parser.add_argument("--solution", type=Path, default=None, metavar="DIR",
                        help="posture solution the emergent preset walks (a gaitblocks solve --out folder; default: "
                             "the dataset solved with default settings, cached)")
    parser.add_argument("--set-file", type=Path, default=None, metavar="FILE",
                        help='JSON {"set": {"block.param": value}} (e.g. tune best.json), applied before --set')
    parser.add_argument("--set", action="append", default=[], metavar="BLOCK.PARAM=VALUE", dest="sets",
                        help="set a block parameter before compiling (repeatable)")
    parser.add_argument("--csv", action=argparse.BooleanOptionalAction, default=True,
                        help="also write results.csv (text, about 1.4 MB per simulated second)")
    parser.add_argument("--compress", action="store_true", help="write results.npz compressed (smaller, slower)")
    parser.add_argument("--continue-after-fall", action="store_true",
                        help="simulate on to the end after the walker falls (default: stop 0.1 s after the fall)")
    parser.add_argument("--stream", action=argparse.BooleanOptionalAction, default=None,
                        help="write the log to disk in chunks as the run goes (memory flat in the duration; the "
                             "summary then reads every k-th row, k = ceil(rows / 60000)); default: on for logs "
                             f"of more than {STREAM_AFTER_ROWS:,} rows")
    from app.commands.data import add_knee_sign_option

    add_knee_sign_option(parser)


RESULT_FILES = ("results.csv", "results.npz", "results.json", "summary.json")
STREAM_AFTER_ROWS = 65_000  # a longer log is streamed to disk unless --no-stream (about 65 s at 1 ms)
SUMMARY_ROWS = 60_000  # a streamed run's summary reads at most about this many rows of its log


def add_engine_option(parser: argparse.ArgumentParser) -> None:
    """``--engine compiled|python`` (shared by ``run``, ``sweep`` and ``tune``)."""
    parser.add_argument("--engine", default=None, choices=("compiled", "python"),
                        help="stepping engine: compiled (one generated numba step; the default when every block "
                             "has kernels) or python (the block callbacks, the reference)")


def add_output_options(parser: argparse.ArgumentParser, default: str) -> None:
    """``--out DIR`` and ``--force`` (shared by every command that writes a results folder)."""
    parser.add_argument("--out", type=Path, default=Path(default), metavar="DIR", help="output folder")
    parser.add_argument("--force", action="store_true", help="overwrite results already in the output folder")


def check_out_dir(out: Path, force: bool, files: tuple[str, ...]) -> None:
    """Fail before any simulation when ``out`` cannot take the results: a file, not writable, or
    already holding results (one of ``files``) and ``force`` not given."""
    if out.exists() and not out.is_dir():
        raise UserError(f"--out {out}: exists and is not a folder")
    present = [f for f in files if (out / f).exists()]
    if present and not force:
        raise UserError(f"--out {out} already holds results ({', '.join(present)}); "
                        "give --force to overwrite them or choose another folder")
    probe = out if out.exists() else next((p for p in out.parents if p.exists()), Path("."))
    if not os.access(probe, os.W_OK):
        raise UserError(f"--out {out}: {probe} is not writable")


def parse_settings(diagram: Diagram, items: list[str], set_file: Path | None = None) -> tuple[tuple[str, Any], ...]:
    """``--set-file`` then ``--set BLOCK.PARAM=VALUE`` items as typed ``(ref, value)`` pairs, each
    parsed and range-checked by its ``ParamSpec`` in ``diagram``."""
    out: list[tuple[str, Any]] = []
    if set_file is not None:
        from app.tuning.service import read_best

        for ref, value in read_best(Path(set_file)).items():
            out.append((ref, diagram.param_spec(ref).validate(value, f"{set_file}: {ref}")))
    for item in items:
        if "=" not in item:
            raise UserError(f"--set {item!r}: expected BLOCK.PARAM=VALUE")
        ref, text = (t.strip() for t in item.split("=", 1))
        out.append((ref, diagram.param_spec(ref).parse(text, f"--set {ref}")))
    return tuple(out)


def spec_from_args(args: argparse.Namespace) -> RunSpec:
    """The :class:`~app.runs.RunSpec` of a command line (``run``, ``sweep`` and ``tune`` options)."""
    from dataclasses import replace

    from app.runs import RunSpec, default_diagram_path
    from blocks import Diagram

    diagram_file = getattr(args, "diagram", None)
    preset = getattr(args, "preset", None)
    spec = RunSpec(dataset=getattr(args, "grf", None) or "", preset=preset,
                   diagram=str(diagram_file) if diagram_file is not None else None,
                   duration=getattr(args, "duration", None), dt=getattr(args, "dt", None),
                   kinematics=getattr(args, "kinematics", None), mass=getattr(args, "mass", None),
                   height=getattr(args, "height", None), start=getattr(args, "start", None),
                   end=getattr(args, "end", None), foot_radius=getattr(args, "foot_radius", None),
                   repeat=bool(getattr(args, "repeat", False)), engine=getattr(args, "engine", None),
                   stop_at_fall=not getattr(args, "continue_after_fall", False),
                   solution=getattr(args, "solution", None))
    every = getattr(args, "record_every", None)
    if every is not None:
        spec = replace(spec, record_every=every)
    spec.check()  # numbers and dataset name first: these errors come before any engine import
    # the settings are parsed against the diagram's parameter specs, which no preset changes (a
    # preset sets values): the preset is applied once, by the run's build (app.runs.build_diagram)
    diagram = Diagram.load(diagram_file if diagram_file is not None else default_diagram_path())
    settings = parse_settings(diagram, list(getattr(args, "sets", [])), getattr(args, "set_file", None))
    logged = getattr(args, "logged", None)
    if logged:
        from app.signals import metric_signals

        names: list[str] = []
        for item in logged:
            for name in (metric_signals(diagram) if item == "metrics" else [item]):
                if name not in names:
                    names.append(name)
        spec = replace(spec, logged=tuple(names))
    return replace(spec, settings=settings)


def stream_log(built: Built, out: Path, csv: bool, stream: bool | None) -> LogStream | None:
    """Send ``built``'s log to ``out`` in chunks (:class:`blocks.logstream.LogStream`, returned; else None)
    when ``stream``, or (``None``) when it would hold more than :data:`STREAM_AFTER_ROWS` rows. The summary then reads
    the signals its metrics declare (:func:`app.run_summary.metric_inputs`), every ``k``-th row with
    ``k = ceil(rows / SUMMARY_ROWS)`` (1 up to 60 s at 1 ms: the same summary as in memory)."""
    from app.run_summary import metric_inputs
    from blocks.logstream import LogStream

    rec = built.runner.recorder
    rows = (built.runner.tick + built.runner.ticks_until(built.t_end)) // rec.every
    if not (stream if stream is not None else rows > STREAM_AFTER_ROWS):
        return None
    declared = metric_inputs(built.diagram)
    keep = [n for n in (declared if declared is not None else rec.names) if n in rec.columns]
    out.mkdir(parents=True, exist_ok=True)
    sink = LogStream(out, csv=csv, keep=keep, keep_every=max(1, -(-rows // SUMMARY_ROWS)), rows=rows + 2)
    rec.stream_to(sink)
    return sink


def write_outputs(results: Results, summary: dict[str, Any], out: Path, csv: bool = True,
                  compress: bool = False, stream: LogStream | None = None) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        if stream is not None:  # the log is on disk already: results.npz assembled from its parts
            stream.finish(results.info(), compress=compress)
        else:
            if csv:
                results.save_csv(out / "results.csv")
            results.save_npz(out / "results.npz", compress=compress)
        from app.jsontext import dumps

        (out / "summary.json").write_text(dumps(summary) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write results to {out}: {exc.strerror}") from None


EXIT_CODES = {"ok": 0, "fell": 3, "failed": 1, "interrupted": 130}  # 2: user error (models.errors.UserError)


PROGRESS_AFTER_S = 1.0  # a run that lasts longer than this (wall) shows its progress on stderr


def simulate(built: Built, stop: SigintFlag) -> Results:
    """Run ``built`` through :func:`app.runs.simulate` (to its end, or just past a fall), ending at the
    next stop check (every 0.05 s of simulated time) once ``stop.raised``; progress on stderr after
    :data:`PROGRESS_AFTER_S` of wall time. The results up to the last finished tick (a failure is a
    result, as in :meth:`blocks.runner.Runner.run`); checking changes no number: the runner's ticks
    are bit-identical however they are grouped."""
    from app.runs import simulate as simulate_run

    start = time.perf_counter()
    shown = [start]

    def check(runner: Any, _tick: int) -> float | None:
        now = time.perf_counter()
        if now - start > PROGRESS_AFTER_S and now - shown[0] > 0.5:
            shown[0] = now
            print(f"\rrun: t = {runner.time:.3f} of {built.t_end:.3f} s simulated, {now - start:.1f} s wall",
                  end="", file=sys.stderr, flush=True)
        return float(runner.time) if stop.raised else None

    results = simulate_run(built, check)
    if shown[0] > start:
        print(file=sys.stderr)
    return results


def summary_line(summary: dict[str, Any], events: int, out: Path) -> str:
    """The console's one status line: the status (:func:`app.walking.status_text`), then the steps,
    wall time and output folder."""
    from app.walking import status_text

    status = summary["status"]
    head = status_text(summary) + ("; metrics up to the fall" if status == "fell" else "")
    if status == "interrupted":
        head = (f"interrupted at t = {summary['t_end_reached']:.3f} s of {summary['t_end_requested']:.3f} s "
                "(Ctrl+C); results and metrics up to then")
    rtf = summary["realtime_factor"]
    detail = (f"{summary['steps']} steps to t = {summary['t_end_reached']:.3f} s, {summary['wall_s']:.2f} s wall "
              f"({rtf:.1f}x real time), {events} events -> {out}" if rtf else f"no steps taken -> {out}")
    if status == "fell" and summary["t_end_reached"] < summary["t_end_requested"] - 1e-9:
        detail += f" (stopped at the fall; --continue-after-fall runs on to {summary['t_end_requested']:g} s)"
    return head + (": " if status == "ok" else "; ") + detail


def account_line(summary: dict[str, Any]) -> str | None:
    """One line of the force account: what acted beyond the recorded GRF."""
    act, res = summary.get("actuation"), summary.get("residual")
    if not act:
        return None
    share = act.get("stance_joint_impulse_share", {})
    parts = ", ".join(f"{k.replace('_', ' ')} {100 * v:.0f} %" for k, v in share.items() if v >= 0.005)
    text = f"forces: stance joint impulse {parts}"
    if res:
        text += (f"; residual (contact beyond the recording) {100 * res['x']['rms_fraction']:.1f} % / "
                 f"{100 * res['y']['rms_fraction']:.1f} % of peak GRF (x/y RMS): {res['verdict']}")
        if "moment" in res:
            m = res["moment"]
            text += (f"; residual moment {m['rms_nm']:.1f} N m RMS ({100 * m['rms_fraction']:.1f} % of peak GRF x "
                     f"CoM height): {res['moment_verdict']}")
    from app.walking import speed_text

    speed = speed_text(summary)
    return text + (f"; {speed}" if speed else "")


def run(args: argparse.Namespace) -> int:
    from app.interrupt import SigintFlag
    from app.run_summary import summarise
    from app.runs import build

    check_out_dir(args.out, args.force, RESULT_FILES)
    from models.gaitdata.opensim import knee_sign

    with knee_sign(args.knee_sign):  # how the dataset's OpenSim knee angles are read (--knee-sign)
        built = build(spec_from_args(args))
    for warning in built.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    sink = stream_log(built, args.out, args.csv, args.stream)
    with SigintFlag() as stop:  # Ctrl+C: stop stepping, write what was computed (module docstring)
        results = simulate(built, stop)
        cut = stop.raised and results.status == "ok" and built.runner.ticks_until(built.t_end) > 0
        summary = summarise(results, built)
        if sink is not None and sink.keep_every > 1:
            summary["summary_every"] = sink.keep_every
            summary["warnings"].append(f"the log ({sink.rows:,} rows) was streamed to disk; the summary read every "
                                       f"{sink.keep_every}-th row (docs/long-runs.md: metrics from a decimated log)")
        if cut:
            summary["status"] = "interrupted"
            summary["message"] = f"interrupted (SIGINT) at t = {summary['t_end_reached']:.6g} s"
        write_outputs(results, summary, args.out, csv=args.csv, compress=args.compress, stream=sink)
    print(summary_line(summary, len(results.events), args.out))
    from models.gaitdata.offplate import FilledContact
    from models.gaitdata.subject import subject_lines

    data = summary.get("dataset") or {}  # None when the diagram reads no data
    for text in (subject_lines(summary["subject"]) if "subject" in summary else []) + [
            f"data: {w}" for w in data.get("warnings", []) if w.startswith("[")]:
        print(text)
    for fill in data.get("filled_contacts", []):
        print(f"data: {FilledContact(**fill).note()}")
    if "rms_deg" in summary:
        rms, fell = summary["rms_deg"], summary.get("fell_at_s")
        print(f"walking: RMS from the recording hip {max(rms['hip_l'], rms['hip_r']):.2f} deg, knee "
              f"{max(rms['knee_l'], rms['knee_r']):.2f} deg, trunk {rms['trunk']:.2f} deg; "
              f"{summary['cycles_completed']} cycles; " + (f"fell at {fell:.2f} s" if fell is not None else "no fall"))
    account = account_line(summary)
    if account:
        print(account)
    if results.status != "ok":
        print(f"gaitblocks run: simulation stopped: {results.message}", file=sys.stderr)
    if stop.raised and not cut:
        print("gaitblocks run: interrupted after the run had ended; its results are written whole", file=sys.stderr)
        return 130
    return EXIT_CODES.get(summary["status"], 1)
