"""The GUI's adapter for *running* a block diagram (no Qt in this module).

Compiling, stepping, rewinding, reading the recorded signals and setting parameters of the run
go through :class:`SimSession` and its three helpers: :mod:`app.gui.session.session_catalog` (bundled
datasets, presets, diagram parameter values), :mod:`app.gui.session.session_reading` (recorded signals,
units, block lookup: the read-only half, a mixin) and :mod:`app.gui.session.session_files` (session files,
``*.gbsession.json``, behind :meth:`SimSession.save` and :meth:`SimSession.load`), with its value types in
:mod:`app.gui.session.session_types` (``Failure``, ``Plan``, ``FrameStats``). Other GUI
modules use ``blocks`` directly where they edit or list what is not a run: the diagram editor
and views (``Diagram``, ``blocks.subsystems``), the palette (``BLOCK_TYPES``), the parameter panel
(``ParamSpec``), the stick figure (mechanisms), Compare and Tuning (``blocks.executors``), the
start-up and background compiles (``blocks.compiled``). A session holds:

* the diagram as displayed and run (the loaded file with the preset applied; the UI fields
  carry the block positions of the canvas);
* the dataset spec (bundled name or file) and the preset name;
* a compiled model and its :class:`~blocks.runner.Runner`, stepped within a wall-clock budget
  per GUI frame (:meth:`SimSession.advance_frame`);
* snapshots every ``snapshot_every`` seconds of simulated time, for the timeline
  (:meth:`SimSession.rewind`);
* the failure, if the run blew up (``error``: block, port, time, value), with the results
  recorded up to it kept;
* the first fall, and with :attr:`SimSession.stop_at_fall` the run's end just past it
  (``falls``, :class:`~app.gui.session.session_fall.FallStop`).
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.defaults import DEFAULT_PRESET
from app.gui.session.session_catalog import (
    GAIN_NAMES,
    available_datasets,
    available_presets,
    check_preset,
    default_dataset,
    diagram_value,
)
from app.gui.session.session_fall import FallStop
from app.gui.session.session_files import SESSION_FORMAT, load_session, save_session, session_dict
from app.gui.session.session_reading import SessionReading
from app.gui.session.session_types import Failure, FrameStats, Plan
from app.runs import Built, RunSpec, build
from blocks import Diagram, ParamSpec, SimulationError, Snapshot

__all__ = ["DEFAULT_DIAGRAM", "GAIN_NAMES", "Plan", "SESSION_FORMAT", "SimSession", "available_datasets",
           "available_presets", "default_dataset"]

DEFAULT_DIAGRAM = Path(__file__).resolve().parents[3] / "assets" / "diagrams" / "grf_walk.json"


class SimSession(SessionReading):
    """A diagram + dataset + preset, compiled and stepped for the GUI.

    Parameters
    ----------
    diagram : Diagram or path, optional
        Default: ``assets/diagrams/grf_walk.json``.
    dataset : str
        Bundled name or file; ``""`` = the diagram's dataset or the registry default.
    preset : str
        ``"tracking"`` (default: :data:`app.defaults.DEFAULT_PRESET`), ``"emergent"``, ``"setpoint"``
        or ``"paper"`` (``blocks.library.presets``), applied to a copy of the diagram;
        ``""`` runs the diagram as it is.
    t_end : float, optional
        Simulated end time [s]; default the diagram's solver ``t_end``.
    snapshot_every : float
        Simulated seconds between timeline snapshots.
    """

    def __init__(self, diagram: Diagram | str | Path | None = None, dataset: str = "", preset: str = DEFAULT_PRESET,
                 t_end: float | None = None, snapshot_every: float = 0.1, apply: bool = True,
                 spec: RunSpec | None = None) -> None:
        if spec is None:
            source = diagram if isinstance(diagram, Diagram) else Diagram.load(diagram or DEFAULT_DIAGRAM)
            t0 = source.solver.t_start
            spec = RunSpec(dataset=dataset, preset=preset if apply else None, diagram=source.copy(),
                           duration=None if t_end is None else float(t_end) - t0)
        elif not isinstance(spec.diagram, Diagram):
            spec = replace(spec, diagram=Diagram.load(spec.diagram or DEFAULT_DIAGRAM))
        assert isinstance(spec.diagram, Diagram)
        self.preset = preset if spec.preset is None else spec.preset
        self.source = spec.diagram.copy()
        self._spec = spec
        self.diagram = spec.diagram.copy()
        self.dataset = spec.dataset
        # the end time asked for (None: the diagram's); ``t_end`` is what the data allows of it
        self._t_request = float(spec.duration) + self.source.solver.t_start if spec.duration is not None else None
        self._t_end = math.inf
        self.snapshot_every = snapshot_every
        self.error: Failure | None = None
        self.frame = FrameStats()
        self.generation = 0
        self.falls = FallStop()
        self._build()

    @classmethod
    def from_spec(cls, spec: RunSpec, snapshot_every: float = 0.1) -> SimSession:
        """A session that runs ``spec`` (the same run :func:`app.runs.run` makes of it)."""
        return cls(spec=spec, snapshot_every=snapshot_every)

    @property
    def spec(self) -> RunSpec:
        """The :class:`~app.runs.RunSpec` of the run on screen: the diagram as loaded, the preset,
        every parameter changed since (typed), the dataset and the duration. Compare runs it."""
        t0 = self.source.solver.t_start
        duration = None if self._t_request is None else self._t_request - t0
        return replace(self._spec, dataset=self.dataset, duration=duration)

    @property
    def t_end(self) -> float:
        """Simulated end time [s]: the one asked for (default the diagram's), at most the data's end."""
        return self._t_end

    @t_end.setter
    def t_end(self, value: float) -> None:
        self._t_request = self._t_end = float(value)

    # ----------------------------------------------------------- building
    # A change that recompiles is split in three so that the GUI can compile in a worker thread:
    # ``plan_*`` (cheap, validates, changes nothing), :meth:`compile` (the slow load + compile,
    # touches no session state) and :meth:`adopt` (installs the result; GUI thread).
    def _plan(self, **state: Any) -> Plan:
        """A :class:`Plan` assigning ``state`` (attribute: value) to the session on adoption."""
        spec = state.get("_spec", self._spec)
        t0 = self.source.solver.t_start
        duration = None if self._t_request is None else self._t_request - t0
        return Plan(replace(spec, dataset=state.get("dataset", self.dataset), duration=duration), state,
                    state.get("diagram", self.diagram).ui)

    @staticmethod
    def compile(plan: Plan) -> Built:
        """Load and compile ``plan`` (:func:`app.runs.build`): slow, thread-safe, changes no session."""
        return build(plan.spec)

    def adopt(self, plan: Plan, built: Built) -> None:
        """Install a compiled ``plan`` (the run restarts from t0)."""
        for name, value in plan.state.items():
            setattr(self, name, value)
        built.diagram.ui = plan.ui
        runner = built.runner
        self.built, self.diagram, self.dataset = built, built.diagram, built.dataset
        self._t_end = built.t_end
        self.model, self.runner = built.model, runner
        self.error = None
        self.falls.watch_run(built)
        self.snapshots: dict[int, Snapshot] = {0: runner.snapshot()}
        self._snap_ticks = max(1, int(round(self.snapshot_every / built.model.dt)))
        self.generation += 1
        self._record_current()

    def apply(self, plan: Plan) -> None:
        """Compile and adopt ``plan`` here and now (errors raise and change nothing)."""
        self.adopt(plan, self.compile(plan))

    def _build(self) -> None:
        """Recompile the current spec (raises before touching the current run)."""
        self.apply(self._plan())

    def rebuild(self) -> None:
        """Recompile after a structural change (the run restarts from t0)."""
        self._build()

    def plan_engine(self, engine: str | None) -> Plan:
        """The same run on another stepping engine (``None``: compiled where it can; :class:`RunSpec`)."""
        return self._plan(_spec=replace(self._spec, engine=engine))

    def plan_dataset(self, spec: str) -> Plan:
        return self._plan(dataset=spec)

    def set_dataset(self, spec: str) -> None:
        """Switch dataset. A bad file raises ``DataFormatError``/``UserError`` and changes nothing."""
        self.apply(self.plan_dataset(spec))

    def plan_preset(self, name: str, source: Diagram | None = None) -> Plan:
        """Preset ``name`` applied to ``source`` (default: the diagram as loaded); the parameter
        changes made since are dropped. An unknown preset raises here."""
        src = (source if source is not None else self.source).copy()
        check_preset(name)  # an unknown or broken preset raises here; the run's build applies it
        return self._plan(_spec=replace(self._spec, diagram=src, preset=name or None, settings=()),
                          preset=name, source=src.copy())

    def set_preset(self, name: str, source: Diagram | None = None) -> None:
        """Apply preset ``name`` (:meth:`plan_preset`) and recompile."""
        self.apply(self.plan_preset(name, source))

    def plan_diagram(self, path: str | Path) -> Plan:
        """A diagram file, run as saved (preset not re-applied)."""
        new = Diagram.load(path)
        return self._plan(_spec=replace(self._spec, diagram=new, preset=None, settings=()), source=new.copy(),
                          diagram=new.copy())

    def load_diagram(self, path: str | Path) -> None:
        """Load a diagram file (:meth:`plan_diagram`) and recompile."""
        self.apply(self.plan_diagram(path))

    def plan_edit(self, diagram: Diagram) -> Plan:
        """An edited diagram, run as it is (:meth:`apply_diagram`, compiled elsewhere). One copy (about 8 ms)
        is the spec's diagram and the source, which nothing changes in place; the UI fields apart."""
        snap = diagram.copy()
        return replace(self._plan(_spec=replace(self._spec, diagram=snap, preset=None, settings=()), source=snap),
                       ui=copy.deepcopy(diagram.ui))

    def apply_diagram(self, diagram: Diagram) -> None:
        """Run an edited diagram as it is (no preset, the changes made since dropped; the run restarts).
        A diagram that does not compile raises and leaves the current run as it was."""
        old = self._spec, self.source, self.diagram
        self._spec, self.source = replace(self._spec, diagram=diagram.copy(), preset=None, settings=()), diagram.copy()
        self.diagram = diagram.copy()
        try:
            self._build()
        except BaseException:
            self._spec, self.source, self.diagram = old
            raise

    # ----------------------------------------------------------- stepping
    @property
    def time(self) -> float:
        return float(self.runner.time)

    @property
    def tick(self) -> int:
        return int(self.runner.tick)

    @property
    def dt(self) -> float:
        return float(self.model.dt)

    @property
    def stop_at_fall(self) -> bool:
        """End the run just past a fall (:class:`~app.gui.session.session_fall.FallStop`; spec's ``stop_at_fall``)."""
        return self.falls.enabled

    @stop_at_fall.setter
    def stop_at_fall(self, on: bool) -> None:
        self.falls.enabled = bool(on)
        self._spec = replace(self._spec, stop_at_fall=bool(on))

    @property
    def end_time(self) -> float:
        """Where this run ends [s]: :attr:`t_end`, or just past a fall when stopping at it."""
        return self.falls.end_time(self.t_end)

    @property
    def finished(self) -> bool:
        return self.runner.ticks_until(self.end_time) <= 0

    @property
    def failed(self) -> bool:
        return self.error is not None

    def step(self, n: int = 1) -> int:
        """Advance ``n`` ticks (fewer at the end or on a failure); returns ticks done."""
        n = min(int(n), self.runner.ticks_until(self.end_time))
        done = 0
        while done < n and self.error is None:
            k = self.runner.tick
            chunk = min(n - done, self._snap_ticks - (k % self._snap_ticks), self.falls.check_ticks)
            try:
                self.runner.advance(chunk)
            except SimulationError as exc:
                self.error = Failure(str(exc), exc.block, exc.port, exc.t, exc.value)
                done += self.runner.tick - k
                break
            done += chunk
            if self.runner.tick % self._snap_ticks == 0:
                self.snapshots[self.runner.tick] = self.runner.snapshot()
            if self.falls.check(self.runner.recorder, k):
                n = min(n, done + self.runner.ticks_until(self.end_time))
        self._record_current()
        return done

    def _record_current(self) -> None:
        """Record the current tick's outputs too, so the views show the state at ``time``
        (:meth:`blocks.runner.Runner.record_current`)."""
        if self.error is not None:
            return
        try:
            self.runner.record_current()
        except SimulationError as exc:
            self.error = Failure(str(exc), exc.block, exc.port, exc.t, exc.value)

    def advance_frame(self, budget_s: float, speed: float | None, wall_dt: float) -> int:
        """Step for one GUI frame: ``speed`` x real time over ``wall_dt`` wall seconds, or as
        many ticks as fit in ``budget_s`` when ``speed`` is None. Never exceeds ``budget_s``."""
        start = time.perf_counter()
        want = (10**9 if speed is None else max(1, int(round(speed * wall_dt / self.dt))))
        done, chunk = 0, 5
        while done < want and not self.finished and self.error is None:
            done += self.step(min(chunk, want - done))
            elapsed = time.perf_counter() - start
            left = budget_s - elapsed
            if left <= 0:
                break
            chunk = max(1, min(500, int(0.8 * left * done / max(elapsed, 1e-6))))
        self.frame.ticks, self.frame.wall_s = done, time.perf_counter() - start
        return done

    def plan_reset(self) -> Plan:
        """:meth:`reset`, compiled elsewhere."""
        return self._plan()

    def reset(self) -> None:
        """Start again from t0 with the current parameter values (recompiles)."""
        self._build()

    def rewind(self, t: float) -> None:
        """Return the run to time ``t`` (nearest snapshot at or before it, then step forward)."""
        target = min(max(0, int(round((t - self.runner.t0) / self.dt))), self.runner.recorder.length - 1)
        base = max(k for k in self.snapshots if k <= target)
        self.runner.restore(self.snapshots[base])
        self.snapshots = {k: s for k, s in self.snapshots.items() if k <= base}
        self.error = None
        self.falls.rescan(self.runner.recorder)
        self.step(target - base)
        for ref, value in self.runner.registry.values().items():
            if self.runner.registry.spec(ref).tunable and diagram_value(self.diagram, ref) != value:
                self.diagram.set_param(ref, value)
                self._spec = self._spec.with_settings((ref, value))

    # ----------------------------------------------------------- parameters
    def param_specs(self, block: str) -> dict[str, ParamSpec]:
        return dict(self.diagram.instantiate(block).params)

    def param_value(self, ref: str) -> Any:
        return self.runner.registry.get(ref)

    def set_param(self, ref: str, value: Any) -> bool:
        """Set ``block.param``. Tunable: queued for the next step (returns False). Structural, or a width
        change (:meth:`needs_compile`): written into the diagram and recompiled, restarting the run (returns True)."""
        spec = self.diagram.param_spec(ref)
        if not self.needs_compile(ref, value):
            self.runner.registry.set(ref, value)
            self.diagram.set_param(ref, value)
            self._spec = self._spec.with_settings((ref, spec.validate(value, ref)))
            return False
        self.apply(self.plan_param(ref, value))
        return True

    def plan_param(self, ref: str, value: Any) -> Plan:
        """A structural ``block.param`` change (validated here; compiled by :meth:`compile`)."""
        spec = self.diagram.param_spec(ref)
        return self._plan(_spec=self._spec.with_settings((ref, spec.validate(value, ref))))

    def param_log(self) -> list[dict[str, Any]]:
        """Applied live changes ``{"t", "name", "old", "new"}``."""
        return [c.to_dict() for c in self.runner.registry.log]

    def tunable_params(self, type_name: str, names: tuple[str, ...]) -> dict[str, Any]:
        out = {}
        for block in self.blocks_of_type(type_name):
            for p in names:
                out[f"{block}.{p}"] = self.runner.registry.get(f"{block}.{p}")
        return out

    # ----------------------------------------------------------- files
    def set_block_position(self, name: str, x: float, y: float) -> None:
        self.diagram.set_position(name, x, y)

    def block_positions(self) -> dict[str, tuple[float, float]]:
        pos = self.diagram.ui.get("blocks", {})
        return {n: (float(v["x"]), float(v["y"])) for n, v in pos.items() if n in self.diagram.blocks}

    def save_diagram(self, path: str | Path) -> None:
        self.diagram.save(path)

    def to_dict(self, view: dict[str, Any] | None = None) -> dict[str, Any]:
        """Session file contents (:func:`~app.gui.session.session_files.session_dict`)."""
        return session_dict(self, view)

    def save(self, path: str | Path, view: dict[str, Any] | None = None) -> None:
        """Write a session file (:func:`~app.gui.session.session_files.save_session`)."""
        save_session(self, path, view)

    @classmethod
    def load(cls, path: str | Path) -> tuple[SimSession, dict[str, Any]]:
        """Read a session file; returns the session and its ``view`` dict (bad files raise
        ``DataFormatError``, :func:`~app.gui.session.session_files.load_session`)."""
        return load_session(path, cls)
