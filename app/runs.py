"""The run service: the one place a run is assembled, simulated and summarised.

Every caller goes through it: ``gaitblocks run`` parses its options into a :class:`RunSpec`;
the GUI session holds one (:meth:`app.gui.session.session.SimSession.spec`); ``compare``, ``sweep`` and
``tune`` map specs over an executor (:mod:`blocks.executors`: serial, process pool, Dask).

* :class:`RunSpec` (:mod:`app.run_spec`) -- what a run is: diagram, preset, dataset (name, file, or a
  ``GRF|KINEMATICS`` pair, with the subject's mass/height and a time window), typed parameter
  settings, ``dt``, ``duration`` and engine options. Frozen and picklable.
* :func:`build` -- load the diagram, apply preset then settings, run the registered build hooks
  (:func:`register_build_hook`: the walking library's loads and crops the data and scales the
  biped to the subject, :mod:`app.walking_run`), compile; returns a :class:`Built` whose runner
  is ready.
* :func:`run` -- build, simulate to the end, summarise: a :class:`RunResult` with ``.summary``
  (the ``summary.json`` dict) and ``.results`` (the recorded signals).
* :mod:`app.run_summary` -- the ``summary.json`` dict (``summarise``); the registered metric functions
  (``register_metric``) add their keys; ``summarise_batch`` does it for the copies of a sweep's batch
  at once.
Signals are found by block *type* and port, never by block name (:mod:`app.signals`), so a
renamed block changes nothing. The service knows no biped: what a library adds to a run (build
hooks, metrics, stop checks) registers itself from the modules named in :data:`PLUGINS`, imported
by name at the first build or summary.
"""

from __future__ import annotations

import importlib
import warnings as pywarnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.run_spec import RunSpec
from app.signals import find_signal

if TYPE_CHECKING:
    from app.posture import SolveResult
    from blocks import Diagram, Results, Runner
    from blocks.compile import CompiledModel
    from models.dataset import GaitDataset

__all__ = ["RunSpec", "Built", "RunResult", "Assembly", "build", "build_diagram", "run", "PLUGINS",
           "register_build_hook", "register_stop", "uses_dataset", "default_diagram_path", "PAPER_SUBJECT"]

PAPER_SUBJECT = (55.33, 1.66)  # kg, m: the model of Table 1 (Luxman & Zielinska 2017)

PLUGINS: list[str] = ["app.walking_run"]
"""Modules that register build hooks, metrics and stop checks when imported (by name: the
service imports none of them); :func:`load_plugins` imports them."""


def load_plugins() -> None:
    """Import every module of :data:`PLUGINS` (each registers what it adds to a run)."""
    for name in PLUGINS:
        importlib.import_module(name)


def default_diagram_path() -> Path:
    """``assets/diagrams/grf_walk.json`` of this installation."""
    import assets

    return Path(assets.__file__).resolve().parent / "diagrams" / "grf_walk.json"


@dataclass
class Built:
    """A compiled run, ready to go: what metric functions may look at besides the results."""

    spec: RunSpec
    diagram: Diagram
    model: CompiledModel
    runner: Runner
    dataset: str
    warnings: tuple[str, ...] = ()

    @property
    def t_end(self) -> float:
        return float(self.model.ctx.t_end)


@dataclass
class RunResult:
    """A finished run: its spec, ``summary`` (the ``summary.json`` dict) and recorded ``results``."""

    spec: RunSpec
    summary: dict[str, Any]
    results: Results
    built: Built = field(repr=False)

    @property
    def ok(self) -> bool:
        return self.summary.get("status") == "ok"

    def signal(self, type_name: str, port: str) -> Any:
        """Samples of the first ``type_name`` block's ``port`` (None if the diagram has none)."""
        name = find_signal(self.built.diagram, type_name, port, self.results.signals)
        return None if name is None else self.results[name]


# ----------------------------------------------------------------------------- building
def build_diagram(spec: RunSpec) -> Diagram:
    """The spec's diagram with its preset, then its settings, applied (a new object)."""
    from blocks import Diagram
    from blocks.library.presets import apply_preset

    source = spec.diagram
    if isinstance(source, Diagram):
        diagram = source.copy()
    else:
        diagram = Diagram.load(source if source is not None else default_diagram_path())
    if spec.preset:
        diagram = apply_preset(diagram, spec.preset)
    for ref, value in spec.settings:
        diagram.set_param(ref, value)
    return diagram


def uses_dataset(diagram: Diagram) -> bool:
    """Whether a block of ``diagram`` reads a dataset (has a ``dataset`` parameter)."""
    return any("dataset" in diagram.instantiate(name).params for name in diagram.blocks)


def load_data(spec: RunSpec, dataset: str) -> GaitDataset:
    """The dataset of a run: bundled name or file (+ kinematics), with the subject's mass, cropped."""
    from blocks.library.datasets import resolve_dataset

    if spec.kinematics is None and spec.mass is None and spec.height is None and spec.start is None \
            and spec.end is None:
        return resolve_dataset(dataset)
    from grf_data.registry import load_dataset

    # the importer crops to the window first, then fills gaps and checks (models.gaitdata.window)
    return load_dataset(dataset, kinematics=spec.kinematics, mass=spec.mass, height=spec.height,
                        start=spec.start, end=spec.end)


@dataclass
class Assembly:
    """A run being built, handed to each build hook before the diagram is compiled: a hook may
    change ``diagram`` (its copy of the spec's), ``t_end`` [s], and add ``resources`` (handed to
    the blocks, :attr:`blocks.core.CompileContext.resources`) and ``warnings``."""

    spec: RunSpec
    diagram: Diagram
    dataset: str
    t0: float
    t_end: float
    resources: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


BuildHook = Callable[[Assembly], None]
BUILD_HOOKS: list[BuildHook] = []


def register_build_hook(fn: BuildHook) -> BuildHook:
    """Add ``fn(assembly)``, called by :func:`build` on every run, in registration order."""
    BUILD_HOOKS.append(fn)
    return fn


def build(spec: RunSpec) -> Built:
    """Load, configure and compile ``spec``; the runner is ready to go (module docstring)."""
    from blocks import Runner, compile_diagram
    from blocks.library.datasets import default_dataset_name

    spec.check()
    load_plugins()
    diagram = build_diagram(spec)
    t0 = diagram.solver.t_start
    job = Assembly(spec, diagram, spec.dataset or diagram.dataset or default_dataset_name(), t0,
                   t0 + (spec.duration if spec.duration is not None else diagram.solver.t_end - t0))
    for hook in BUILD_HOOKS:
        hook(job)
    with pywarnings.catch_warnings(record=True) as caught:  # a block's note on its data (e.g. init_vy)
        pywarnings.simplefilter("always", UserWarning)
        model = compile_diagram(job.diagram, dataset=job.dataset, dt=spec.dt, t_end=job.t_end,
                                resources=job.resources)
    job.warnings.extend(str(w.message) for w in caught if w.category is UserWarning)
    logged = list(spec.logged) if spec.logged is not None else None
    ticks = int(round((job.t_end - t0) / model.dt))
    runner = Runner(model, capacity=ticks // spec.record_every + 2, logged=logged, record_every=spec.record_every,
                    engine=spec.engine)
    warning = runner.coarse_step_warning()
    if warning:
        job.warnings.append(warning)
    return Built(spec, job.diagram, model, runner, job.dataset, tuple(job.warnings))


def run(spec: RunSpec) -> RunResult:
    """Build ``spec``, simulate to its end and summarise it (:func:`app.run_summary.summarise`). A run
    that blows up is a result with ``status`` ``failed``; bad input raises :class:`UserError` before
    simulating."""
    from app.run_summary import summarise

    built = build(spec)
    results = simulate(built)
    return RunResult(spec, summarise(results, built), results, built)


StopCheck = Callable[[Any, int], "float | None"]
STOPS: list[Callable[[Built], StopCheck | None]] = []


def register_stop(fn: Callable[[Built], StopCheck | None]) -> Callable[[Built], StopCheck | None]:
    """Add ``fn(built) -> check or None``: a stop check of :meth:`blocks.runner.Runner.run` for
    every run :func:`simulate` steps (the walking library's ends a run just past a fall)."""
    STOPS.append(fn)
    return fn


def simulate(built: Built, extra_stop: StopCheck | None = None) -> Results:
    """Run ``built`` to its end, or to the first end a registered stop check (:func:`register_stop`;
    the walking library's: just past a fall with ``spec.stop_at_fall``) or ``extra_stop`` (the CLI's
    Ctrl+C and progress) gives: the earliest end wins."""
    load_plugins()
    checks = [c for c in (extra_stop, *(fn(built) for fn in STOPS)) if c is not None]
    if not checks:
        return built.runner.run(built.t_end)

    def stop(runner: Any, tick: int) -> float | None:
        ends = [t for t in (check(runner, tick) for check in checks) if t is not None]
        return min(ends) if ends else None

    return built.runner.run(built.t_end, stop=stop)


def solve(spec: RunSpec, progress: Callable[[str, int, float, float], bool | None] | None = None,
          warm: Any = None) -> SolveResult:
    """The posture-solver mode of a run: ``spec.solve`` (default settings if None) on ``spec.dataset``
    (default ``sneakers``), scaled by ``spec.mass``/``spec.height``. ``progress(stage, iteration,
    objective, violation)`` is called per IPOPT iteration; ``warm`` is a neighbouring
    :class:`~models.posture.solver.PostureSolution` to start from."""
    from app.posture import SolveSpec, solve_one

    return solve_one(spec.dataset or "sneakers", spec.solve or SolveSpec(), mass=spec.mass, height=spec.height,
                     progress=progress, warm=warm)
