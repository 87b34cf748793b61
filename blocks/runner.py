r"""Stepping a compiled model: fixed-step RK4 on an integer tick clock.

One step from tick ``k`` (``t = t0 + k dt``) to ``k + 1``:

1. apply queued parameter changes (registry);
2. *major* output pass: every block in topological order (a discrete block only on its
   sample hits, otherwise its outputs hold);
3. non-finite check of every signal; record the taps (row ``k``);
4. discrete updates ``z_{k+1} = g(t, x, z, u)`` of blocks with a sample hit; mode switches
   go into the event table ``(t, block, mode, old -> new)``;
5. RK4 on the continuous states, with ``h = dt``:

   .. math:: k_1 = f(t, x),\ k_2 = f(t + h/2, x + h k_1/2),\ k_3 = f(t + h/2, x + h k_2/2),
             \ k_4 = f(t + h, x + h k_3),\ x_{k+1} = x + h (k_1 + 2k_2 + 2k_3 + k_4)/6

   where stages 2-4 re-evaluate only the "minor" blocks (see :mod:`blocks.compile`);
6. non-finite check of the new state.

The tick is the engine's: :class:`blocks.python_step.PythonEngine` (every law as plain Python) or
:class:`blocks.compiled.CompiledEngine` (the generated step, chunks of ticks per call). Both drive the
run through its public interface (:class:`blocks.compiled.Host`: :meth:`Runner.apply_changes`,
:meth:`Runner.log_modes`, :meth:`Runner.raise_nonfinite`, :meth:`Runner.raise_nonfinite_state`, the
tick and the recorder); the runner keeps the parameters, the registry, the events and the failure.

Time is always ``t0 + k*dt`` (never accumulated), every call order is fixed and all
buffers are preallocated, so stepping one tick at a time or many in one call gives
bit-identical results. :meth:`Runner.step` is the generator; :meth:`Runner.advance`,
:meth:`Runner.run`, :meth:`Runner.stream` and :meth:`Runner.run_realtime` wrap it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from blocks.compile import CompiledModel
from blocks.core import Params, SimulationError
from blocks.recorder import Recorder, Results
from blocks.registry import ParameterRegistry

if TYPE_CHECKING:
    from blocks.compiled import CompiledEngine
    from blocks.python_step import PythonEngine

__all__ = ["Runner", "Snapshot", "StopCheck"]

StopCheck = Callable[["Runner", int], "float | None"]  # (runner, first tick of the stretch) -> end time or None


@dataclass(frozen=True)
class Snapshot:
    """Complete run state at one tick, for reset, rewind and the GUI timeline."""

    tick: int
    x: np.ndarray
    z: np.ndarray
    sig: np.ndarray
    params: dict[str, dict[str, Any]]
    values: dict[str, Any]
    n_events: int
    n_changes: int
    rhs_calls: int


class Runner:
    """Runs a :class:`~blocks.compile.CompiledModel`.

    Parameters
    ----------
    model : CompiledModel
    logged : list of str, optional
        Taps ``"block.port"``; default: the diagram's ``logged`` list, or every output.
    capacity : int
        Rows preallocated in the recorder (grows by doubling if exceeded).
    record_every : int
        Record every k-th tick (and the last one); 1 = every tick.
    engine : {"compiled", "python"} or None
        ``"compiled"``: the generated numba step (:mod:`blocks.compiled`), chunks of ticks per call;
        ``"python"``: the same kernels run as plain Python (:class:`blocks.kernels.PythonLaw`; a block
        without kernels: its Python callbacks). ``None``: compiled when every block has kernels and the
        solver is RK4. The two agree to 1e-12 (tests/blocks/test_compiled.py).
    """

    def __init__(self, model: CompiledModel, logged: Sequence[str] | None = None, capacity: int = 1024,
                 record_every: int = 1, engine: str | None = None) -> None:
        self.model = model
        ctx = model.ctx
        self.dt, self.t0 = ctx.dt, ctx.t0
        self.method = model.diagram.solver.method
        self.tick = 0
        self.rhs_calls = 0
        self.wall_s = 0.0
        self.status = "ready"
        self.message = ""
        self.error: SimulationError | None = None
        self.params: dict[str, Params] = {n: p.copy() for n, p in model.params.items()}
        from blocks.compiled import CompiledEngine, choose_engine  # numba only for a compiled run
        from blocks.python_step import PythonEngine

        self.engine = choose_engine(model, engine)
        self._engine: CompiledEngine | PythonEngine
        self.registry = ParameterRegistry(model, self.params)
        if self.engine == "compiled":
            e = self._engine = CompiledEngine(model, [self.params])
            e.warm()
            self.sig, self.x, self.z = e.SIG[0], e.X[0], e.Z[0]  # copy 0 of the compiled step's buffers
            self.registry.listeners.append(e.raise_flag)  # a live change stops the chunk after its tick
        else:
            self._engine = PythonEngine(model, self.params)
            self.sig, self.x, self.z = self._engine.sig, self._engine.x, self._engine.z
        self.recorder = Recorder(model, list(logged or model.diagram.logged), capacity, record_every)
        self.events: list[dict[str, Any]] = []
        self._initial = self.snapshot()

    def coarse_step_warning(self) -> str | None:
        """A warning when the tick ``dt`` exceeds a block's stable step (:meth:`Block.max_step`), else None."""
        known = [(h, b.name) for b in self.model.blocks if (h := b.max_step(self.params[b.name])) is not None]
        if not known or self.dt <= min(known)[0]:
            return None
        h, name = min(known)
        return (f"the solver step dt = {self.dt:g} s is above the stable step of block '{name}' "
                f"(about {h * 1e3:.1f} ms with RK4): expect a blow-up; use dt = {h / 2:.2g} s or smaller")

    @property
    def time(self) -> float:
        """Simulation time of the current tick [s]."""
        return self.t0 + self.tick * self.dt

    def record_current(self) -> None:
        """Evaluate and record the current tick's outputs (a view then shows the state at :attr:`time`; the
        tick's own step records the same row again). A failure is raised, not kept."""
        self._engine.outputs_now(self)
        self.recorder.record(self.tick, self.sig)

    def packed(self, name: str) -> np.ndarray:
        """Block ``name``'s packed vector as the running engine reads it (a copy; empty for a block with
        Python callbacks)."""
        return np.array(self._engine.packed(name))

    # ------------------------------------- what an engine calls back (blocks.compiled.Host)
    def apply_changes(self) -> tuple[str, ...]:
        """Apply the queued parameter changes now (at :attr:`time`); the names of the blocks changed
        (the engine re-packs them)."""
        if not self.registry.pending:
            return ()
        names = tuple(dict.fromkeys(c.name.split(".")[0] for c in self.registry.apply(self.time)))
        for name in names:
            self._engine.repack(name, [self.params[name]])
        return names

    def log_modes(self, t: float, name: str, modes: tuple[str, ...], labels: Any, old: list[float],
                  new: list[float]) -> None:
        """Add the switches from ``old`` to ``new`` of block ``name``'s ``modes`` at ``t`` [s] to :attr:`events`."""
        for mode, a, b in zip(modes, old, new):
            if a != b:
                lab = labels.get(mode, {})
                self.events.append({"t": t, "block": name, "mode": mode, "from": lab.get(int(a), str(a)),
                                    "to": lab.get(int(b), str(b))})

    def raise_nonfinite(self, t: float) -> None:
        """Raise the :class:`SimulationError` naming the first non-finite output (block, port, element) at ``t``."""
        for name, (off, size) in self.model.out_slot.items():
            seg = self.sig[off: off + size]
            bad = np.flatnonzero(~np.isfinite(seg))
            if bad.size:
                block, port = name.split(".")
                spec = next(s for s in self.model.outputs[block] if s.name == port)
                el = spec.labels[bad[0]] if len(spec.labels) == size else str(bad[0])
                raise SimulationError(f"block '{block}': output '{port}' [{el}] is {seg[bad[0]]} at t = {t:.6g} s",
                                      block=block, port=port, t=t, value=float(seg[bad[0]]))
        raise SimulationError(f"signals overflow at t = {t:.6g} s", t=t)

    def raise_nonfinite_state(self, t: float) -> None:
        """Raise the :class:`SimulationError` naming the first non-finite continuous state at ``t``."""
        for name, (off, size) in self.model.x_slot.items():
            seg = self.x[off: off + size]
            bad = np.flatnonzero(~np.isfinite(seg))
            if bad.size:
                names = getattr(self.model.block(name), "state_names", ())
                el = names[bad[0]] if len(names) == size else str(bad[0])
                raise SimulationError(f"block '{name}': state '{el}' is {seg[bad[0]]} at t = {t:.6g} s",
                                      block=name, port=f"state:{el}", t=t, value=float(seg[bad[0]]))
        raise SimulationError(f"states overflow at t = {t:.6g} s", t=t)

    # --------------------------------------------------------------- public API
    def step(self, n: int = 1) -> Iterator[float]:
        """Generator: advance ``n`` ticks, yielding the new time after each one."""
        for _ in range(int(n)):
            with np.errstate(all="ignore"):
                self._guarded_step()
            yield self.time

    def _guarded_step(self, n: int = 1) -> None:
        """``n`` ticks by the engine (``run_ticks``); a failure is kept (status, message, error) and raised."""
        if self.error is not None:
            raise SimulationError(f"the run has failed ({self.error}); restore a snapshot or reset()")
        try:
            self._engine.run_ticks(self, n)
        except SimulationError as exc:
            self.status, self.message, self.error = "failed", str(exc), exc
            raise
        self.status = "running"

    def advance(self, n: int) -> float:
        """Advance ``n`` ticks now (non-generator form, for a GUI timer); returns the time."""
        start = time.perf_counter()
        try:
            with np.errstate(all="ignore"):  # non-finite values are caught and named by the runner
                self._guarded_step(int(n))
        finally:
            self.wall_s += time.perf_counter() - start
        return self.time

    def ticks_until(self, t_end: float) -> int:
        return max(0, int(round((t_end - self.t0) / self.dt)) - self.tick)

    def run(self, t_end: float | None = None, stop: StopCheck | None = None, check_s: float = 0.05) -> Results:
        """Run to ``t_end`` (default: the solver's). A failure is returned, not raised.

        ``stop(runner, since_tick)``, if given, is asked after every ``check_s`` of simulated time
        [s] with the first tick of that stretch: it returns None to go on, or a time [s] at which the
        run is to end instead (it ends there, or at once if that time has passed). The engine knows
        nothing of what it checks: e.g. a walker's fall, found in the rows recorded since
        ``since_tick`` (:func:`app.walking.fall_stop`)."""
        t_end = self.model.ctx.t_end if t_end is None else t_end
        n = self.ticks_until(t_end)
        self.recorder.reserve_ticks(self.tick + n)
        try:
            if stop is None:
                self.advance(n)
            else:
                chunk = max(1, int(round(check_s / self.dt)))
                while self.ticks_until(t_end) > 0:
                    k = self.tick
                    self.advance(min(chunk, self.ticks_until(t_end)))
                    at = stop(self, k)
                    if at is not None:
                        t_end = min(t_end, at)
                        self.advance(self.ticks_until(t_end))
                        break
        except SimulationError:
            pass
        return self.results(copy=False)

    def stream(self, t_end: float, chunk: int = 100) -> Iterator[Results]:
        """Run to ``t_end`` in chunks of ``chunk`` ticks, yielding the results so far after each."""
        while self.ticks_until(t_end) > 0:
            self.advance(min(chunk, self.ticks_until(t_end)))
            yield self.results()

    def run_realtime(self, t_end: float, speed: float = 1.0, frame_s: float = 0.02) -> Iterator[float]:
        """Paced run: ``speed`` x real time, one yield per frame of ``frame_s`` wall seconds."""
        start_wall, start_t = time.perf_counter(), self.time
        per_frame = max(1, int(round(frame_s * speed / self.dt)))
        while self.ticks_until(t_end) > 0:
            self.advance(min(per_frame, self.ticks_until(t_end)))
            lag = (self.time - start_t) / speed - (time.perf_counter() - start_wall)
            if lag > 0:
                time.sleep(lag)
            yield self.time

    def snapshot(self) -> Snapshot:
        return Snapshot(self.tick, self.x.copy(), self.z.copy(), self.sig.copy(),
                        {n: dict(p.__dict__) for n, p in self.params.items()}, self.registry.values(),
                        len(self.events), len(self.registry.log), self.rhs_calls)

    def restore(self, snap: Snapshot) -> None:
        """Return to ``snap`` (rewind or reset); recorded rows after it are dropped."""
        self.tick = snap.tick
        self.x[:] = snap.x
        self.z[:] = snap.z
        self.sig[:] = snap.sig
        for n, d in snap.params.items():
            self.params[n].__dict__.clear()
            self.params[n].__dict__.update(d)
        self.registry.restore(snap.values, snap.n_changes)
        del self.events[snap.n_events:]
        self.rhs_calls = snap.rhs_calls
        self.recorder.truncate(snap.tick)
        for b in self.model.blocks:
            self._engine.repack(b.name, [self.params[b.name]])
        self.status, self.message, self.error = "ready", "", None

    def reset(self) -> None:
        self.restore(self._initial)
        self.wall_s = 0.0

    def results(self, copy: bool = True) -> Results:
        """Results so far. Rows are ticks ``0..tick`` (every ``record_every``-th, and the current
        one, whose outputs are evaluated once more, which changes nothing) unless the run failed:
        then the failing tick is dropped. A log streamed to disk (:meth:`Recorder.stream_to`) gives the
        signals and rows its sink kept for the summary. ``copy=False`` lends read-only views of the recorder's
        rows (:meth:`Recorder.share`: no second copy of the log; they never change afterwards)."""
        if self.error is None:
            try:
                self._engine.outputs_now(self)
                self.recorder.record(self.tick, self.sig, final=True)
            except SimulationError as exc:
                self.status, self.message, self.error = "failed", str(exc), exc
        rec = self.recorder
        if copy and rec.sink is None:
            t, signals = rec.time(), {n: rec.view(n).copy() for n in rec.names}
        else:
            t, signals = rec.share()  # streamed: the rows the sink kept for the summary
        return Results.of_run(self.model, rec, t, signals, steps=self.tick, rhs_calls=self.rhs_calls,
                              wall_s=self.wall_s, engine=self.engine, events=list(self.events),
                              param_changes=[c.to_dict() for c in self.registry.log], params=self.registry.values(),
                              status="failed" if self.error is not None else "ok", message=self.message)
