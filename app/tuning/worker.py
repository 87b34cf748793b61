"""One headless run of a diagram with some parameters set, flattened into one table row.

:class:`~app.runs.RunSpec` is small and picklable, so the same :func:`run_one` runs in this process,
in a ``concurrent.futures`` worker process or on a Dask worker. The row holds

* the set parameters (``"block.param"`` columns);
* ``status`` (``ok``; ``fell`` = a fall criterion of :mod:`app.walking` was met: the trunk beyond
  60 deg, the hip below half the leg length, a hip angle past half a turn, a knee flexed beyond
  160 deg or hyperextended beyond 30 deg, or a stance shank past horizontal; ``fell_at_s`` says when,
  ``fell_because`` which, and the run stops just past it unless ``RunSpec.stop_at_fall`` is off;
  ``failed`` = the simulation blew up or stopped; ``error`` = the run could not start),
  ``message``, ``objective`` (:mod:`app.tuning.objective`) and ``job_wall_s`` (wall time of
  load + compile + run + metrics);
* every scalar of ``summary.json`` (:func:`app.run_summary.summarise`), nested keys joined by
  dots (``rms_deg.hip_l``, ``peak_torque_nm_per_kg.knee``), plus ``n_events``.

Failed runs are rows like any other: nothing is dropped.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from typing import Any

from app.runs import RunSpec
from app.tuning.objective import Objective
from models.errors import UserError

__all__ = ["RunSpec", "run_one", "summary_row", "flatten", "SKIP_KEYS", "BASE_COLUMNS"]

SKIP_KEYS = frozenset({"events", "param_changes", "params", "solver", "dataset", "model", "diagram", "message",
                       "preset", "status"})
BASE_COLUMNS = ("status", "message", "objective", "job_wall_s")
_SCALARS = (bool, int, float, str)


def flatten(summary: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Scalars of a (nested) summary dict, keys joined with dots; lists and :data:`SKIP_KEYS` left out."""
    out: dict[str, Any] = {}
    for key, value in summary.items():
        if not prefix and key in SKIP_KEYS:
            continue
        name = f"{prefix}{key}"
        if value is None or isinstance(value, _SCALARS):  # first: most values are, and a Mapping check costs more
            out[name] = value
        elif isinstance(value, Mapping):
            out.update(flatten(value, name + "."))
    return out


def run_one(spec: RunSpec, objective: Objective | None = None) -> dict[str, Any]:
    """Run ``spec`` (:func:`app.runs.run`) to its end and return its row (module docstring), scored by
    ``objective`` (default :class:`~app.tuning.objective.Objective`). Never raises for a bad run.
    Executors map ``functools.partial(run_one, objective=...)`` over specs."""
    from app.runs import run
    from blocks import SimulationError

    objective = objective if objective is not None else Objective()
    start = time.perf_counter()
    row: dict[str, Any] = {ref: value for ref, value in spec.settings}
    try:
        summary = run(spec).summary
    except (UserError, SimulationError, ArithmeticError, ValueError) as exc:
        row.update({"status": "error", "message": str(exc), "t_end_requested": math.nan,
                    "t_end_reached": 0.0})
        row["objective"] = objective(row)
        row["job_wall_s"] = time.perf_counter() - start
        return row
    return summary_row(row, summary, objective, start)


def summary_row(row: dict[str, Any], summary: Mapping[str, Any], objective: Objective, start: float) -> dict[str, Any]:
    """``row`` (the set parameters) completed from a run's ``summary`` (module docstring)."""
    row["status"] = summary["status"]
    row["message"] = summary["message"]
    row.update(flatten(summary))
    if row["status"] == "ok" and isinstance(summary.get("fell_at_s"), (int, float)):
        row["status"] = "fell"
        cause = summary.get("fell_because") or "a fall criterion"
        row["message"] = f"fell at t = {summary['fell_at_s']:.3f} s: {cause}"
    row["n_events"] = len(summary.get("events", []))
    row["objective"] = objective(row)
    row["job_wall_s"] = time.perf_counter() - start
    return row


def _batched(specs: list[RunSpec], objective: Objective | None = None,
             cache: dict[str, Any] | None = None, parallel: bool | None = None) -> list[dict[str, Any]]:
    from app.tuning.vectorized import run_many

    return run_many(specs, objective, cache, parallel)


run_one.batched = _batched  # type: ignore[attr-defined]  # the vectorized executor's path (blocks.executors)
