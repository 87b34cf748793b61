"""Sweep rows of many specs from one vectorised batch (``--executor vectorized``).

Specs that differ only in their tunable ``settings`` form a group: the group's spec without settings
is built once (:func:`app.runs.build`; kept for the next batch of the same sweep, recording only the
metric signals), every spec's settings become per-copy overrides of one
:class:`blocks.batch.BatchRunner` (the compiled engine, N rows), and each copy's recorded signals,
events and parameters are summarised as a single run's, all copies at once (:func:`app.run_summary.summarise_batch`,
which a single run's :func:`app.run_summary.summarise` is the batch of one of), into the row
:func:`app.tuning.worker.run_one` would give. A group whose diagram has blocks without kernels,
a structural setting, or a build error falls back to :func:`run_one` per spec. A copy that goes
non-finite is ``failed`` with its time; the block is not named (run it alone for that).
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from app.run_summary import ResultsBatch, metric_inputs, summarise_batch
from app.runs import Built, RunSpec, build, build_diagram
from app.tuning.objective import Objective
from app.tuning.worker import run_one, summary_row

if TYPE_CHECKING:
    from blocks.batch import BatchRunner
from models.errors import UserError

__all__ = ["run_many", "default_executor"]


#: the base run :func:`default_executor` built to check a diagram, for the sweep's first batch to take
#: (:func:`_base`): ``[(key, built)]``, at most one, taken once
_CHECKED: list[tuple[RunSpec, Built]] = []


def default_executor(base: RunSpec) -> str:
    """``"vectorized"`` when every block of ``base``'s diagram has kernels (and RK4), else ``"process"``.
    Without fixed settings the diagram checked is the base run the batches start from (:func:`_base`): it is
    kept for the first batch to take, which then does not build it again (0.1-0.2 s of the command's start)."""
    from blocks.batch import blockers

    try:
        if base.settings:  # a fixed setting may change the structure: check the diagram with it
            return "process" if blockers(build(replace(base, engine="python")).model) else "vectorized"
        key = _base_key(base)
        built = _build_base(key)
    except UserError:
        return "process"
    if blockers(built.model):
        return "process"
    _CHECKED[:] = [(key, built)]
    return "vectorized"


def _base_key(spec: RunSpec) -> RunSpec:
    return replace(spec, settings=(), engine="python")


def _groups(specs: list[RunSpec]) -> list[list[int]]:
    groups: list[list[int]] = []
    keys: list[RunSpec] = []
    for i, s in enumerate(specs):
        key = replace(s, settings=())
        for g, k in zip(groups, keys):
            if k == key:
                g.append(i)
                break
        else:
            groups.append([i])
            keys.append(key)
    return groups


def _base(spec: RunSpec, cache: dict[str, Any] | None) -> Built:
    """The run every copy of ``spec``'s group starts from: ``spec`` without its settings (each copy
    gets all of its settings as overrides), on the Python engine (no single compiled step to load),
    recording only the metric signals. Kept in ``cache`` (one sweep's, :class:`blocks.executors.VectorizedExecutor`)
    for its next batch: building costs about 0.3 s (data, reference fits, diagram compile). Batches of one
    sweep may run on several threads (:class:`blocks.executors.VectorizedExecutor`): the cache's lock makes
    them build it once; a base that :func:`default_executor` has just built for the same key is taken instead."""
    key = _base_key(spec)
    if cache is None:
        return _build_base(key)
    with cache.setdefault("lock", threading.Lock()):  # batches on several threads build it once
        if cache.get("key") != key:
            checked = _CHECKED.pop() if _CHECKED else None
            cache.update(key=key, built=checked[1] if checked is not None and checked[0] == key else _build_base(key))
        built: Built = cache["built"]
        return built


def _build_base(key: RunSpec) -> Built:
    needed = metric_inputs(build_diagram(key))
    return build(replace(key, logged=tuple(needed)) if needed else key)


def _workspace(cache: dict[str, Any] | None) -> dict[Any, Any] | None:
    """What this thread's batches reuse: the record's scratch buffer (:meth:`blocks.batch.BatchRunner.run`'s
    ``workspace``: no page faults on a new 20 MB array a batch) and the runner of each batch size
    (:func:`_runner`)."""
    if cache is None:
        return None
    return cache.setdefault(f"workspace-{threading.get_ident()}", {})


def _runner(space: dict[Any, Any] | None, built: Built, overrides: list[dict[str, Any]], logged: list[str],
            parallel: bool | None) -> BatchRunner:
    """A :class:`blocks.batch.BatchRunner` of ``overrides`` on ``built``'s model: the thread's runner of as many
    copies, reset (:meth:`~blocks.batch.BatchRunner.reset`), when ``space`` has one, else a new one (which
    compiles the step the first time ever, or loads it) kept there."""
    from blocks.batch import BatchRunner

    key = ("runner", id(built.model), len(overrides), tuple(logged), built.runner.recorder.every, parallel)
    if space is not None and key in space:
        runner: BatchRunner = space[key][1]
        runner.reset(overrides)
        return runner
    runner = BatchRunner(built.model, overrides, logged, built.runner.recorder.every, parallel)
    if space is not None:
        space[key] = (built.model, runner)  # the model held too: its id stays its own
    return runner


def run_many(specs: list[RunSpec], objective: Objective | None = None,
             cache: dict[str, Any] | None = None, parallel: bool | None = None) -> list[dict[str, Any]]:
    """One row per spec, in order (module docstring); ``cache``: what the batches of one sweep share;
    ``parallel``: step the copies on numba's threads (:class:`blocks.batch.BatchRunner`; ``False`` when the
    batches themselves run on several threads; the rows are the same either way)."""
    from blocks.batch import blockers
    from blocks.recorder import Results

    objective = objective if objective is not None else Objective()
    rows: list[dict[str, Any]] = [{} for _ in specs]
    for group in _groups(list(specs)):
        start = time.perf_counter()
        try:
            built = _base(specs[group[0]], cache)
        except UserError:
            built = None
        if built is None or blockers(built.model) or not all(
                built.diagram.param_spec(ref).tunable for i in group for ref, _ in specs[i].settings):
            for i in group:
                rows[i] = run_one(specs[i], objective)
            continue
        runner = built.runner
        rec = runner.recorder
        overrides = [dict(specs[i].settings) for i in group]
        needed = metric_inputs(built.diagram)  # log only what the metrics read, when they all say
        logged = rec.names if needed is None else [n for n in rec.names if n in needed]
        space = _workspace(cache)
        batch = _runner(space, built, overrides, logged, parallel)
        t_run = time.perf_counter()
        res = batch.run(built.t_end, workspace=space)
        run_wall = (time.perf_counter() - t_run) / len(group)  # the stepping alone, per copy
        wall = (time.perf_counter() - start) / len(group)  # build, compile or load, run: per copy
        sim = float(res.t[-1] - res.t[0]) if res.t.size else 0.0
        steps = int(round(sim / built.model.dt))
        base_values = runner.registry.values()
        stacked = {n: a[:, :, 0] if a.shape[2] == 1 else a for n, a in res.signals.items()}  # as a run records
        runs, lengths = [], []
        for j in range(len(group)):
            ok = res.status[j] == "ok"
            size = res.t.size if ok else int(np.count_nonzero(res.t < res.failed_at[j] - 0.5 * built.model.dt))
            signals = {n: a[j, :size] for n, a in stacked.items()}
            message = "" if ok else f"a value went non-finite at t = {res.failed_at[j]:.6g} s (vectorised run)"
            runs.append(Results.of_run(built.model, rec, res.t[:size], signals, steps=steps, rhs_calls=4 * steps,
                                       wall_s=run_wall, engine="vectorized", events=res.events[j], param_changes=[],
                                       params={**base_values, **overrides[j]}, status="ok" if ok else "failed",
                                       message=message))
            lengths.append(size)
        copies = ResultsBatch(res.t, stacked, lengths, [r.status for r in runs], runs)
        for i, summary in zip(group, summarise_batch(copies, built), strict=True):
            rows[i] = summary_row({ref: value for ref, value in specs[i].settings}, summary, objective, start)
            rows[i]["job_wall_s"] = wall
    return rows
