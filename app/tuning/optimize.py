r"""Derivative-free gain optimisation of the objective (:mod:`app.tuning.objective`).

Each tuned parameter ``v_i`` is searched in log space around its starting value ``v0_i`` (the
diagram's value after ``--preset`` and ``--set``):

.. math:: v_i = v0_i \cdot f^{x_i}, \quad x_i \in [-1, 1]

with span ``f`` (default 4, i.e. a quarter to four times the start), the box then clipped to
the parameter's ``ParamSpec`` range (the optimiser's bounds in ``x`` shrink accordingly).
A parameter whose start is 0 is searched linearly over ``[0, hi]`` instead (``hi`` from its
``--param`` range, which can also replace the log box for any parameter).

* ``nelder-mead`` (default): bounded Nelder-Mead (``scipy.optimize.minimize``) started at
  ``x = 0`` -- the first evaluation is the starting gains, so the result is never worse than
  them -- with an initial simplex of edge 0.3 whose signs come from ``seed``;
* ``de``: ``scipy.optimize.differential_evolution`` (Latin-hypercube start seeded by ``seed``,
  ``x0 = 0`` included, no polishing); its populations run in parallel on the executor.

The budget is the number of simulations. Every evaluation is kept (``history``) for the
convergence plot; repeated points are looked up, not re-run. Same inputs and seed give the
same result: every step is deterministic.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from app.tuning.objective import Objective
from app.tuning.worker import run_one
from blocks.executors import Executor
from models.errors import UserError

if TYPE_CHECKING:
    from app.runs import RunSpec
    from blocks import Diagram

__all__ = ["TuneParam", "tune_params", "Evaluation", "OptimizeResult", "optimize", "param_value", "DEFAULT_REFS",
           "ALGORITHMS"]

DEFAULT_REFS = ("pid_hip.kp", "pid_hip.ki", "pid_hip.kd", "pid_knee.kp", "pid_knee.ki", "pid_knee.kd")
ALGORITHMS = ("nelder-mead", "de")


@dataclass(frozen=True)
class TuneParam:
    """A tuned parameter: ``value(x)`` maps the optimiser's ``x`` in ``[x_lo, x_hi]`` to a value."""

    ref: str
    start: float
    lo: float
    hi: float
    log: bool
    span: float = 4.0

    @property
    def bounds(self) -> tuple[float, float]:
        if self.log:
            return (math.log(self.lo / self.start) / math.log(self.span),
                    math.log(self.hi / self.start) / math.log(self.span))
        return ((self.lo - self.start) / (self.hi - self.lo), (self.hi - self.start) / (self.hi - self.lo))

    def value(self, x: float) -> float:
        b = self.bounds
        x = min(max(x, b[0]), b[1])
        v = self.start * self.span ** x if self.log else self.start + x * (self.hi - self.lo)
        return float(min(max(v, self.lo), self.hi))


def param_value(diagram: Diagram, ref: str) -> Any:
    """The current value of ``"block.param"`` or ``"block.param[i]"`` in ``diagram`` (its default when not set)."""
    return diagram.value(ref)


def tune_params(diagram: Diagram, refs: Sequence[str] = DEFAULT_REFS, span: float = 4.0,
                ranges: dict[str, tuple[float, float]] | None = None) -> list[TuneParam]:
    """The :class:`TuneParam` of each ``ref``: start = the diagram's value, box as in the module docstring."""
    out = []
    for ref in refs:
        spec = diagram.param_spec(ref)
        if spec.kind != "float" or not spec.tunable:
            raise UserError(f"tune: {ref} is not a tunable number ({spec.kind})")
        start = param_value(diagram, ref)
        if isinstance(start, tuple):
            raise UserError(f"tune: {ref} holds one value per leg {list(start)}; tune its items "
                            f"{ref}[0] and {ref}[1] (or set one value for both first)")
        start = float(start)
        pmin = spec.min if spec.min is not None else -math.inf
        pmax = spec.max if spec.max is not None else math.inf
        if ranges and ref in ranges:
            lo, hi = max(ranges[ref][0], pmin), min(ranges[ref][1], pmax)
        else:
            lo, hi = max(start / span, pmin), min(start * span, pmax)
        if not lo <= start <= hi or not lo < hi:
            raise UserError(f"tune: range of {ref} [{lo:g}, {hi:g}] must contain its start value {start:g}")
        log = start > 0 and lo > 0
        out.append(TuneParam(ref, start, lo, hi, log, span))
    return out


@dataclass(frozen=True)
class Evaluation:
    """One simulation of the search: parameter values, objective and the full row."""

    values: dict[str, float]
    objective: float
    row: dict[str, Any]


@dataclass
class OptimizeResult:
    """Best point, the starting point's evaluation and every evaluation in order."""

    best: Evaluation
    start: Evaluation
    history: list[Evaluation] = field(default_factory=list)
    algorithm: str = "nelder-mead"
    message: str = ""


class _Stopped(Exception):
    """The ``cancel`` event was set: the search ends with the evaluations made so far."""


class _Search:
    def __init__(self, base: RunSpec, params: Sequence[TuneParam], executor: Executor, budget: int,
                 objective: Objective, cancel: threading.Event | None = None,
                 on_eval: Callable[[Evaluation], None] | None = None) -> None:
        self.base, self.params, self.ex, self.budget = base, list(params), executor, budget
        self.objective, self.cancel, self.on_eval = objective, cancel, on_eval
        self.cache: dict[tuple[float, ...], Evaluation] = {}
        self.history: list[Evaluation] = []

    def values(self, x: np.ndarray) -> dict[str, float]:
        return {p.ref: p.value(float(xi)) for p, xi in zip(self.params, x)}

    def spec(self, values: dict[str, float]) -> RunSpec:
        fixed = tuple((r, v) for r, v in self.base.settings if r not in values)
        return replace(self.base, settings=fixed + tuple(values.items()))

    def evaluate_many(self, xs: Sequence[np.ndarray]) -> list[float]:
        vals = [self.values(np.asarray(x)) for x in xs]
        keys = [tuple(round(v, 12) for v in d.values()) for d in vals]
        todo: list[int] = []
        for i, k in enumerate(keys):
            if k not in self.cache and k not in (keys[j] for j in todo):
                todo.append(i)
        room = max(0, self.budget - len(self.history))
        run = todo[:room]
        fn = partial(run_one, objective=self.objective)
        rows = self.ex.map(fn, [self.spec(vals[i]) for i in run]) if run else []
        for i, row in zip(run, rows):
            ev = Evaluation(vals[i], float(row["objective"]), row)
            self.cache[keys[i]] = ev
            self.history.append(ev)
            if self.on_eval is not None:
                self.on_eval(ev)
        if self.cancel is not None and self.cancel.is_set() and self.history:
            raise _Stopped
        penalty = 10.0 * self.objective.fail  # beyond the budget: never chosen
        return [self.cache[k].objective if k in self.cache else penalty for k in keys]

    def __call__(self, x: np.ndarray) -> float:
        return self.evaluate_many([x])[0]

    def map(self, f: Any, xs: Any) -> list[float]:  # differential_evolution's ``workers``
        return self.evaluate_many(list(xs))


def optimize(base: RunSpec, params: Sequence[TuneParam], executor: Executor, *, budget: int = 40,
             seed: int = 0, algorithm: str = "nelder-mead", objective: Objective | None = None,
             cancel: threading.Event | None = None,
             on_eval: Callable[[Evaluation], None] | None = None) -> OptimizeResult:
    """Minimise ``objective`` (default :class:`~app.tuning.objective.Objective`) over ``params`` with
    at most ``budget`` simulations (module docstring). ``on_eval`` is called after each simulation
    (progress); a set ``cancel`` event ends the search after the current one, keeping the best so far
    (``message`` = ``"cancelled"``)."""
    if budget < 2:
        raise UserError(f"--budget must be at least 2 simulations, got {budget}")
    if algorithm not in ALGORITHMS:
        raise UserError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
    search = _Search(base, params, executor, budget, objective if objective is not None else Objective(),
                     cancel, on_eval)
    try:
        message = _run(search, params, budget, seed, algorithm)
    except _Stopped:
        message = "cancelled"
    best = min(search.history, key=lambda e: e.objective)
    return OptimizeResult(best, search.history[0], search.history, algorithm, message)


def _run(search: _Search, params: Sequence[TuneParam], budget: int, seed: int, algorithm: str) -> str:
    from scipy.optimize import differential_evolution, minimize

    n = len(params)
    bounds = [p.bounds for p in params]
    x0 = np.zeros(n)
    search(x0)
    rng = np.random.default_rng(seed)
    message = ""
    if algorithm == "nelder-mead":
        signs = rng.choice([-1.0, 1.0], size=n)
        simplex = np.vstack([x0] + [x0 + 0.3 * signs[i] * np.eye(n)[i] for i in range(n)])
        simplex = np.clip(simplex, [b[0] for b in bounds], [b[1] for b in bounds])
        res = minimize(search, x0, method="Nelder-Mead", bounds=bounds,
                       options={"maxfev": budget, "initial_simplex": simplex, "xatol": 1e-3, "fatol": 1e-4})
        message = str(res.message)
    else:
        popsize = max(2, min(15, (budget - 1) // max(1, 2 * n)))
        maxiter = max(0, (budget - 1) // (popsize * n) - 1)
        res = differential_evolution(search, bounds, seed=seed, popsize=popsize, maxiter=maxiter, polish=False,
                                     init="latinhypercube", x0=x0, workers=search.map, updating="deferred", tol=0)
        message = str(res.message)
    return message
