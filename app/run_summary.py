"""The ``summary.json`` of a run, and the metrics that add to it (the run service's summarising half,
:mod:`app.runs` being the building and simulating one).

* :func:`summarise` -- the ``summary.json`` dict of a finished run: status, timing, events, parameters,
  solver, diagram, dataset, then every registered metric's keys (:data:`METRICS`,
  :func:`register_metric`).
* :func:`summarise_batch` -- the same for every copy of a sweep's batch (:class:`ResultsBatch`) at once;
  :func:`summarise` is the batch of one.
* :func:`metric_inputs` -- the signals the metrics read, so that a sweep records only those.
* :func:`applied_preset` -- the preset a run's diagram holds, for the summary's ``preset`` key.

Like :mod:`app.runs`, it knows no biped: the walking library's metrics register themselves
(:mod:`app.walking_run`, imported through :func:`app.runs.load_plugins`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from app.run_spec import RunSpec
from app.runs import Built, default_diagram_path, load_plugins, uses_dataset
from models.errors import UserError

if TYPE_CHECKING:
    from blocks import Diagram, Results

__all__ = ["METRICS", "ResultsBatch", "applied_preset", "metric_inputs", "register_metric", "same_for_every_copy",
           "summarise", "summarise_batch"]

MetricFn = Callable[["Results", Built], dict[str, Any]]
BatchMetricFn = Callable[["ResultsBatch", Built], list[dict[str, Any]]]
METRICS: list[MetricFn] = []


@dataclass
class ResultsBatch:
    """Copies of one run (a sweep's batch; a single run is the batch of one), for a metric's batch form.

    ``t`` (T,) s; ``signals[name]`` ``(G, T, ...)``, under the recorded and the canonical names
    (:func:`app.signals.canonical_names`); copy ``j`` holds ``lengths[j]`` valid rows (a failed copy
    stops early) and ended with engine status ``statuses[j]``; ``runs[j]`` is its own
    :class:`~blocks.Results` (views of the same arrays)."""

    t: np.ndarray
    signals: dict[str, np.ndarray]
    lengths: list[int]
    statuses: list[str]
    runs: list[Results]

    @classmethod
    def of(cls, runs: list[Results]) -> ResultsBatch:
        """The batch of one run (``runs`` holds one)."""
        (one,) = runs
        return cls(one.t, {k: v[None] for k, v in one.signals.items()}, [int(one.t.size)], [one.status], runs)


def register_metric(fn: MetricFn, signals: Callable[[Diagram], list[str]] | None = None,
                    batch: BatchMetricFn | None = None) -> MetricFn:
    """Add ``fn(results, built) -> {key: value}``; its keys are merged into ``summary.json``.
    ``results`` carries the :data:`app.signals.CANONICAL` names (:func:`app.signals.by_type`).
    ``signals(diagram)`` lists the ``block.port`` signals ``fn`` reads, if known: when every metric
    declares them, a sweep records only those (:func:`metric_inputs`). ``batch(results_batch, built)``,
    if given, returns ``fn``'s dicts of every copy of a :class:`ResultsBatch` at once (and must equal
    ``fn`` copy by copy): :func:`summarise_batch` calls it instead of ``fn`` per copy."""
    if signals is not None:
        fn.signals = signals  # type: ignore[attr-defined]
    if batch is not None:
        fn.batch = batch  # type: ignore[attr-defined]
    METRICS.append(fn)
    return fn


def same_for_every_copy(fn: MetricFn) -> BatchMetricFn:
    """The batch form of a metric that reads only the built run, not its results: computed once."""

    def batch(runs: ResultsBatch, built: Built) -> list[dict[str, Any]]:
        return [fn(runs.runs[0], built)] * len(runs.lengths)

    return batch


def metric_inputs(diagram: Diagram) -> list[str] | None:
    """The signals every registered metric reads on ``diagram`` (``None`` if one does not say)."""
    load_plugins()
    out: list[str] = []
    for fn in METRICS:
        declared = getattr(fn, "signals", None)
        if declared is None:
            return None
        out += [name for name in declared(diagram) if name not in out]
    return out


def _dataset_info(built: Built) -> dict[str, Any]:
    from blocks.library.context import dataset_of

    try:
        return {"spec": built.dataset, **dataset_of(built.model.ctx, built.dataset).meta.to_dict()}
    except UserError:
        return {"spec": built.dataset}


def applied_preset(spec: RunSpec) -> str | None:
    """The preset a run's diagram holds: ``spec.preset`` (an alias resolved to its preset), else the
    first preset whose every value the spec's diagram already has (the default diagram holds
    ``tracking``'s), else None. Settings made after the preset do not change it."""
    from blocks import Diagram
    from blocks.library.presets import ALIASES

    if spec.preset:
        return ALIASES.get(spec.preset, spec.preset)
    if isinstance(spec.diagram, Diagram):  # about 5 ms: once per spec (a batch summarises its copies on one)
        if not (_LAST_HELD and _LAST_HELD[0] is spec):
            _LAST_HELD[:] = [spec, _held_preset(spec.diagram)]
        return _LAST_HELD[1]
    return _file_preset(None if spec.diagram is None else str(spec.diagram))


_LAST_HELD: list[Any] = []  # [spec, its preset] of the last spec with a Diagram object


@functools.lru_cache(maxsize=8)
def _file_preset(path: str | None) -> str | None:
    from blocks import Diagram

    return _held_preset(Diagram.load(path if path is not None else default_diagram_path()))


def _held_preset(diagram: Diagram) -> str | None:
    from blocks.library.presets import PRESETS, load_preset

    def holds(ref: str, value: Any) -> bool:
        try:
            return bool(diagram.value(ref) == diagram.param_spec(ref).validate(value, ref))
        except UserError:  # a diagram without the preset's blocks (a mechanism)
            return False

    return next((name for name in PRESETS if all(holds(r, v) for r, v in load_preset(name)["set"].items())), None)


def summarise(results: Results, built: Built) -> dict[str, Any]:
    """The ``summary.json`` dict of a finished run: status, timing, events, parameters, solver,
    diagram, dataset, then every registered metric's keys. The one place it is built
    (:func:`summarise_batch` of the batch of one)."""
    return summarise_batch(ResultsBatch.of([results]), built)[0]


def summarise_batch(batch: ResultsBatch, built: Built) -> list[dict[str, Any]]:
    """:func:`summarise` of every copy of ``batch`` (copies of ``built`` with other parameters): what
    is the same for every copy (preset, dataset, the metrics that read only ``built``) is computed
    once, and each metric with a batch form (:func:`register_metric`) runs on all copies at once."""
    load_plugins()
    from app.signals import canonical_names, with_canonical

    shared = {"preset": applied_preset(built.spec), "t_end_requested": built.t_end, "diagram": built.diagram.name,
              "dataset": _dataset_info(built) if uses_dataset(built.diagram) else None}  # None: the run read no data
    summaries = []
    for results in batch.runs:
        reached = float(results.t[-1]) if results.t.size else built.model.ctx.t0
        summaries.append({
            "status": results.status,
            "message": results.message,
            "preset": shared["preset"],
            "t_end_requested": shared["t_end_requested"],
            "t_end_reached": reached,
            "wall_s": results.stats["wall_s"],
            "realtime_factor": results.stats["realtime_factor"],
            "steps": results.stats["steps"],
            "rhs_calls": results.stats["rhs_calls"],
            "events": results.events,
            "param_changes": results.param_changes,
            "params": {k: list(v) if isinstance(v, tuple) else v for k, v in results.params.items()
                       if not callable(v)},
            "solver": results.solver,
            "diagram": shared["diagram"],
            "dataset": shared["dataset"],
            "warnings": list(built.warnings),
        })
    pairs = canonical_names(built.diagram, batch.signals)
    typed_batch = ResultsBatch(batch.t, with_canonical(batch.signals, pairs), batch.lengths, batch.statuses,
                               batch.runs)
    typed: list[Results] | None = None  # each copy under the canonical names, for a metric without a batch form
    for fn in METRICS:
        many = getattr(fn, "batch", None)
        if many is not None:
            parts = many(typed_batch, built)
        else:
            if typed is None:
                typed = [replace(r, signals=with_canonical(r.signals, pairs)) for r in batch.runs]
            parts = [fn(r, built) for r in typed]
        for summary, part in zip(summaries, parts, strict=True):
            summary.update(part)
    return summaries
