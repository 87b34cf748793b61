"""The tuning service shared by ``gaitblocks sweep``/``tune`` and the GUI's tuning panel (no Qt).

* :func:`sweep_points` / :func:`sweep_specs` -- the grid (or given points) of a sweep as run specs:
  every axis checked against the base diagram's ``ParamSpec`` ranges, ``int`` parameters
  rounded, each point applied after the base spec's own settings;
* :func:`grid_sweep` -- run them on an executor (:func:`app.tuning.sweep.run_sweep` with
  :func:`app.tuning.worker.run_one`), with the ``cancel`` event and ``on_row`` callback;
* :func:`best_row` -- the row of smallest objective among the runs whose status is ``ok``: a run
  that fell, failed or could not start is never the best, whatever its objective;
* :func:`best_on_edge` -- the parameters whose best value lies on the edge of what was tried (the
  grid's first or last value, or within 2 % of an optimisation's range from either end): the
  optimum may lie outside, so the range wants widening;
* :func:`write_best` / :func:`read_best` -- ``best.json``, ``{"set": {"block.param": value}}``,
  the file ``gaitblocks tune`` writes and ``gaitblocks run --set-file`` and the GUI read.
  Values are numbers, or lists of numbers for per-joint parameters; keys may name one item
  (``"pid_hip.kp[0]"``).
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.tuning.grid import Axis, check_axes, grid_points
from app.tuning.objective import Objective
from app.tuning.sweep import Progress, SweepOutcome, run_sweep
from app.tuning.worker import run_one
from blocks.executors import Executor
from models.errors import UserError

if TYPE_CHECKING:
    from app.runs import RunSpec

__all__ = ["EDGE_FRACTION", "best_on_edge", "best_row", "edge_text", "grid_sweep", "read_best", "sweep_points",
           "sweep_specs", "write_best"]


def sweep_points(base: RunSpec, axes: Sequence[Axis],
                 points: list[dict[str, float]] | None = None) -> list[dict[str, float]]:
    """``points`` (default: the full grid of ``axes``), checked against the base diagram; whole
    values for ``int`` parameters."""
    from app.runs import build_diagram

    diagram = build_diagram(base)
    check_axes(axes, diagram)
    pts = [dict(p) for p in (points if points is not None else grid_points(axes))]
    for p in pts:
        for ref in p:
            if diagram.param_spec(ref).kind == "int":
                p[ref] = float(round(p[ref]))
    return pts


def sweep_specs(base: RunSpec, points: Sequence[Mapping[str, float]]) -> list[RunSpec]:
    """One run spec per point: ``base`` with the point's values applied last."""
    return [base.with_settings(*p.items()) for p in points]


def grid_sweep(base: RunSpec, axes: Sequence[Axis], executor: Executor, *, objective: Objective | None = None,
               cancel: threading.Event | None = None, on_row: Callable[[dict[str, Any]], None] | None = None,
               progress: Progress | None = None) -> SweepOutcome:
    """Run the grid of ``axes`` around ``base`` (module docstring); rows in run order."""
    specs = sweep_specs(base, sweep_points(base, axes))
    fn = partial(run_one, objective=objective if objective is not None else Objective())
    return run_sweep(specs, executor, progress=progress, cancel=cancel, on_row=on_row, fn=fn)


def best_row(rows: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The ``ok`` row of smallest finite objective, or None (fell / failed rows never count)."""
    ok = [r for r in rows if r.get("status") == "ok" and isinstance(r.get("objective"), (int, float))
          and math.isfinite(float(r["objective"]))]
    return min(ok, key=lambda r: float(r["objective"])) if ok else None


EDGE_FRACTION = 0.02   # an optimisation's best within this fraction of its range from an end is on the edge


def best_on_edge(rows: Sequence[Mapping[str, Any]], refs: Sequence[str], best: Mapping[str, Any] | None,
                 ranges: Mapping[str, tuple[float, float]] | None = None) -> dict[str, str]:
    """``{ref: "lower" | "upper"}`` for each of ``refs`` whose ``best`` value is at an edge: of the
    values the rows swept (a grid; a parameter swept at one value has no edge), or, with
    ``ranges`` (an optimisation's ``(lo, hi)``), within :data:`EDGE_FRACTION` of the range from an end."""
    out: dict[str, str] = {}
    if best is None:
        return out
    for ref in refs:
        v = float(best[ref])
        if ranges is not None and ref in ranges:
            lo, hi = (float(x) for x in ranges[ref])
            tol = EDGE_FRACTION * (hi - lo)
        else:
            values = sorted({float(r[ref]) for r in rows if isinstance(r.get(ref), (int, float))})
            if len(values) < 2:
                continue
            lo, hi, tol = values[0], values[-1], 0.0
        if v <= lo + tol:
            out[ref] = "lower"
        elif v >= hi - tol:
            out[ref] = "upper"
    return out


def edge_text(edges: Mapping[str, str], best: Mapping[str, Any]) -> str:
    """A warning naming each parameter of ``edges`` (:func:`best_on_edge`) with its value, or ``""``."""
    if not edges:
        return ""
    parts = [f"{ref} = {float(best[ref]):.4g} (the {side} end)" for ref, side in edges.items()]
    return ("the best run lies on the edge of the range tried: " + ", ".join(parts)
            + "; the optimum may lie beyond it: widen the range")


def write_best(path: Path, values: Mapping[str, Any]) -> None:
    """Write ``best.json``: ``{"set": {ref: value}}`` (lists for per-joint values)."""
    plain = {ref: list(v) if isinstance(v, tuple) else v for ref, v in values.items()}
    try:
        Path(path).write_text(json.dumps({"set": plain}, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None


def read_best(path: Path) -> dict[str, Any]:
    """The ``set`` mapping of a ``best.json`` (module docstring); a clear :class:`UserError` naming
    the file otherwise. Values are not range-checked here: the diagram does that when they are set."""
    try:
        values = json.loads(Path(path).read_text(encoding="utf-8"))["set"]
        if not isinstance(values, dict):
            raise TypeError("'set' is not an object")
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UserError(f"{path}: not a parameter set file ({exc})") from None
    for ref, v in values.items():
        ok = isinstance(v, (int, float, str)) or (isinstance(v, list) and all(isinstance(x, (int, float)) for x in v))
        if not isinstance(ref, str) or not ok or isinstance(v, bool):
            raise UserError(f"{path}: {ref!r} must map to a number, a list of numbers or a choice's name, got {v!r}")
    return dict(values)
