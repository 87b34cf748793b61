"""The compiled engine: the generated step (:mod:`blocks.codegen`) loaded from its cache file, its
buffers, and the packed parameters it reads.

Buffers have a leading copy axis: signals ``SIG (N, S)``, states ``X (N, nx)``, discrete states
``Z (N, nz)``, RK4 stages ``K (N, 4, nx)``. Parameters are one 2-D array per block, ``(1, L)``
when every copy has the same packed vector (:meth:`blocks.core.Block.pack`: a GRF table is stored
once, not N times) or ``(N, L)``; the step reads row ``i`` or row 0.

Cache: the generated module is written to ``<cache>/step_<hash>.py`` (``$GAITBLOCKS_CACHE`` or
``~/.cache/gaitblocks``, under ``compiled/``) and imported from there, so numba's ``cache=True``
keeps its machine code in ``__pycache__`` beside it: a warm start loads instead of compiling.
The first compile of a source announces itself through :data:`NOTIFY` (one stderr line by
default) with an estimate, and leaves ``step_<hash>.<driver>.ok`` behind when done.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from blocks.codegen import generate, missing_kernels
from blocks.compile import CompiledModel
from blocks.core import BlockError, Params
from blocks.kernels import cache_dir
from blocks.step_intrinsics import address, signature
from models.jit_cache import has_machine_code
from models.jit_cores import worker_count
from models.jit_parallel import Report, compile_all, compile_size, groups

if TYPE_CHECKING:
    from blocks.recorder import Recorder

__all__ = ["ALSO_WARM", "CompiledEngine", "Host", "NOTIFY", "STEP_OPT_LEVEL", "choose_engine", "compile_estimate_s",
           "load_step", "step_opt_level"]

#: called with one line of text before a first-ever compile (the CLI's stderr line; the GUI may replace it)
NOTIFY: list[Callable[[str], None]] = [lambda msg: print(msg, file=sys.stderr, flush=True)]

_MODULES: dict[str, ModuleType] = {}
_LOAD_LOCK = threading.Lock()  # batches built on several threads (VectorizedExecutor) import a step once
_KERNELS_LOCK = threading.Lock()  # ... and compile its kernels once


def compile_estimate_s(n_blocks: int, parallel: bool, sizes: Sequence[int] = (), workers: int = 0) -> float:
    """Rough first-compile time [s] of a step of ``n_blocks`` blocks whose kernels without machine code yet form
    independent groups of ``sizes`` bytes of bytecode (:func:`models.jit_parallel.compile_size`), compiled
    first on this process and ``workers`` compile workers (:mod:`models.jit_parallel`), each group on one::

        t = (1 + 0.15 n_blocks) (2 if parallel else 1) + T + (1 if workers else 0)
        T = when the last of workers + 1 processes is done with the groups, each costing 0.4 + 3.5e-4 size,
            handed out longest first, each to the least loaded process

    Bytecode is a rough proxy (the mechanism solver's code compiles slower per byte than the walking
    kernels'): measured on the 2-core development machine, whole first runs of ``gaitblocks run`` with empty
    caches (imports and the run included, load 0.9): the walking diagram (26 blocks, 26 kernel groups of
    48,400 bytes, one worker) 15.4 s, estimated 20 s; the five-bar (its one group of 33,700 bytes: the
    mechanism solver) 15.3 s, estimated 13 s. The estimate before, a second per kernel, said 4 s for the
    five-bar: one group can take a dozen seconds, and no worker shortens it."""
    costs = sorted((0.4 + 3.5e-4 * size for size in sizes), reverse=True)
    loads = [0.0] * (workers + 1)
    for cost in costs:
        loads[loads.index(min(loads))] += cost
    return (1.0 + 0.15 * n_blocks) * (2.0 if parallel else 1.0) + max(loads) + (1.0 if workers else 0.0)


#: warm-ups (``"module:function"``) that an idle compile worker runs once the kernels are compiled, while the
#: step compiles here (:func:`models.jit_parallel.compile_all`): the results' CSV writer, about 2 s of CPU on a
#: first run, needed when the run writes ``results.csv``
ALSO_WARM = ("blocks.csv_text:warm_up",)


#: LLVM optimisation level of the generated step's own compile. Its kernels are compiled (and cached) at
#: numba's level, 3, before the step links them; the step's whole module then needs no second full pass:
#: at 1 a new structure compiles in about half the time and steps as fast (issue 35 §3, docs/engine.md).
STEP_OPT_LEVEL = 1


@contextlib.contextmanager
def step_opt_level(level: int | None = None) -> Iterator[None]:
    """numba's optimisation level lowered to ``level`` (default :data:`STEP_OPT_LEVEL`) while compiling a
    step (``numba.core.config.OPT``, which its pass builders read per compile; a value set in the config
    module survives numba's reload)."""
    from numba.core import config

    level = STEP_OPT_LEVEL if level is None else level
    old = getattr(config, "OPT")  # noqa: B009  (set from the environment at import: not in numba's stubs)
    setattr(config, "OPT", type(old)(min(int(old), level)))  # noqa: B010
    try:
        yield
    finally:
        setattr(config, "OPT", old)  # noqa: B010


def load_step(model: CompiledModel) -> tuple[ModuleType, Path]:
    """Generate, write (once) and import the step module of ``model`` (once per process, whichever thread
    asks first: a second import would load or compile its machine code again)."""
    src, key = generate(model)
    with _LOAD_LOCK:
        return _import_step(src, key)


def _import_step(src: str, key: str) -> tuple[ModuleType, Path]:
    if key in _MODULES:
        mod = _MODULES[key]
        return mod, Path(str(mod.__file__))
    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"step_{key}.py"
    if not path.exists() or path.read_text(encoding="utf-8") != src:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(src, encoding="utf-8")
        os.replace(tmp, path)
    name = f"gaitblocks_step_{key}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import the generated step {path}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    _MODULES[key] = mod
    return mod, path


class Host(Protocol):
    """What an engine (this one, or :class:`blocks.python_step.PythonEngine`) reads and calls of the run
    it advances (:class:`blocks.runner.Runner` is one): the tick, the recorder, and the run's handling of
    parameter changes, mode switches and non-finite values, so both engines share it."""

    tick: int
    rhs_calls: int
    recorder: Recorder

    @property
    def time(self) -> float: ...

    def apply_changes(self) -> tuple[str, ...]:
        """Apply the queued parameter changes and have the engine re-pack those blocks (:meth:`repack`)."""

    def log_modes(self, t: float, name: str, modes: tuple[str, ...], labels: Any, old: list[float],
                  new: list[float]) -> None: ...

    def raise_nonfinite(self, t: float) -> None: ...

    def raise_nonfinite_state(self, t: float) -> None: ...


class CompiledEngine:
    """``n_copies`` copies of ``model`` advanced by the generated step.

    Parameters
    ----------
    model : CompiledModel
        Every block must have kernels (:func:`blocks.codegen.missing_kernels` is empty).
    params : sequence of dict
        Per copy, ``{block name: Params}``; one dict serves every copy.
    x0, z0 : (N, nx), (N, nz) arrays, optional
        Initial states (default: the model's, for every copy).
    """

    def __init__(self, model: CompiledModel, params: Sequence[dict[str, Params]], n_copies: int = 1,
                 x0: np.ndarray | None = None, z0: np.ndarray | None = None) -> None:
        missing = missing_kernels(model)
        if missing:
            raise BlockError("the compiled engine needs kernels for every block; missing: " + ", ".join(missing)
                             + " (use engine='python')")
        if model.diagram.solver.method != "rk4":
            raise BlockError(f"the compiled engine runs RK4; this diagram's solver is {model.diagram.solver.method!r}"
                             " (use engine='python')")
        self.model, self.n = model, int(n_copies)
        n, nx, nz = self.n, int(model.x0.size), int(model.z0.size)
        self.module, self.path = load_step(model)
        self.FN: np.ndarray | None = None  # the kernels' addresses, taken at the first advance
        self.kernel_compile: Report | None = None  # how its first advance compiled the kernels, if it did
        self._ran: set[bool] = set()  # the step forms (parallel or not) called once already
        self.SIG = np.zeros((n, model.n_signals))
        # C order always: a copy of a broadcast row would otherwise come out in Fortran order for N > 1, and
        # numba would compile the step a second time for that layout (a single run is C and F at once)
        self.X = np.array(np.broadcast_to(model.x0 if x0 is None else x0, (n, nx)), dtype=np.float64, order="C")
        self.Z = np.array(np.broadcast_to(model.z0 if z0 is None else z0, (n, nz)), dtype=np.float64, order="C")
        self.XW, self.ZN, self.ZOLD = np.zeros((n, nx)), self.Z.copy(), self.Z.copy()
        self.K = np.zeros((n, 4, nx))
        self.FLAG = np.zeros(1, dtype=np.int64)
        self.DONE = np.zeros(n, dtype=np.int64)
        self.REASON = np.zeros(n, dtype=np.int64)
        self.FAILT = np.full(n, np.nan)
        self.EV = np.zeros((n, 0, 4))  # mode-switch log rows (tick, z index, old, new): batch runs size it
        self.EVN = np.zeros(n, dtype=np.int64)
        dt = model.ctx.dt
        self.w = np.array([1.0, 2.0, 2.0, 1.0]) * (dt / 6.0)
        self.P: list[np.ndarray] = [np.zeros((1, 0))] * len(model.blocks)
        self._index = {b.name: j for j, b in enumerate(model.blocks)}
        for b in model.blocks:
            self.repack(b.name, [p[b.name] for p in params])

    def repack(self, name: str, params: Sequence[Params]) -> None:
        """Re-read block ``name``'s packed vector (after a live change): one per copy, stored once if equal."""
        j = self._index[name]
        b = self.model.blocks[j]
        packed: dict[int, np.ndarray] = {}  # copies sharing one Params object are packed once
        rows = [packed[id(p)] if id(p) in packed else
                packed.setdefault(id(p), np.ascontiguousarray(b.pack(p), dtype=np.float64).reshape(-1))
                for p in params]
        if all(r is rows[0] or (r.shape == rows[0].shape and np.array_equal(r, rows[0])) for r in rows[1:]):
            rows = rows[:1]
        elif len(rows) != self.n:
            raise ValueError(f"block '{name}': {len(rows)} packed vectors for {self.n} copies")
        new = np.ascontiguousarray(np.stack(rows))
        if self.P[j].shape == new.shape:
            self.P[j][...] = new
        else:
            self.P[j] = new

    def raise_flag(self) -> None:
        """Stop the running chunk after its tick: a live parameter change is queued (any thread)."""
        self.FLAG[0] = 1

    def packed(self, name: str) -> np.ndarray:
        """Block ``name``'s packed vector as copy 0 reads it (a view)."""
        return self.P[self._index[name]][0]

    def warm(self, parallel: bool = False) -> None:
        """Compile (first time ever: announced) or load the step now, so no run's wall time includes it."""
        self.advance(0, 0, np.zeros((self.n, 1, 0)), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.intp), 1,
                     parallel=parallel)

    def shared_bytes(self) -> tuple[int, int]:
        """``(stored, if-not-shared)`` bytes of packed parameters."""
        return (sum(p.nbytes for p in self.P), sum(p[0].nbytes * self.n for p in self.P))

    def advance(self, k0: int, n: int, rec: np.ndarray, rticks: np.ndarray, ridx: np.ndarray, every: int, *,
                final: int = 0, stop_modes: bool = True, parallel: bool = False, row0: int = 0) -> None:
        """Run ticks ``k0 ..`` (at most ``n``) on every copy; see :mod:`blocks.codegen` for the codes
        left in ``DONE``, ``REASON`` and ``FAILT``. ``rec`` is ``(N, rows, width)``; the row of tick ``k``
        is ``k // every - row0`` (``row0 > 0``: a log streamed in chunks, :class:`blocks.recorder.Recorder`)."""
        fn = self.module.advance_parallel if parallel else self.module.advance_serial
        if parallel in self._ran:  # loaded, addresses taken: straight to the step (the checks below cost about
            fn(*self._args(k0, n, final, stop_modes, rec, rticks, ridx, every, row0))  # 30 us a call)
            return
        marker = self.path.with_suffix(f".{'parallel' if parallel else 'serial'}.ok")
        first = not marker.exists() and not fn.signatures
        cold: list[tuple[Any, tuple[Any, ...]]] = []
        workers = 0
        if first:
            cold = [(k, signature(n)) for k, n in self.module.CALLS if not has_machine_code(k, signature(n))]
            cold_groups = groups(cold)
            workers = worker_count(len(cold_groups))
            est = compile_estimate_s(len(self.model.blocks), parallel, [compile_size(g) for g in cold_groups], workers)
            for cb in NOTIFY:
                cb(f"compiling the diagram '{self.model.diagram.name}' ({len(self.model.blocks)} blocks; first run "
                   f"only, about {est:.0f} s; cached in {self.path.parent})…")
        start = time.perf_counter()
        if self.FN is None:  # the kernels' machine code, compiled (after the notice) or loaded from numba's cache
            if cold:  # compiled on every core first (models.jit_parallel), then loaded here
                with _KERNELS_LOCK:  # engines set up on several threads: one compiles, the others load
                    cold = [c for c in cold if not has_machine_code(*c)]
                    if cold:
                        self.kernel_compile = compile_all(cold, workers, on_note=self._worker_note, after=ALSO_WARM)
            self.FN = np.array([address(k, nargs) for k, nargs in self.module.CALLS], dtype=np.int64)
        with step_opt_level() if not fn.signatures else contextlib.nullcontext():  # compiled or loaded here
            fn(*self._args(k0, n, final, stop_modes, rec, rticks, ridx, every, row0))
        if first:
            self.first_compile_s = time.perf_counter() - start
            marker.write_text(f"{self.first_compile_s:.2f}\n", encoding="utf-8")
        self._ran.add(parallel)

    def _args(self, k0: int, n: int, final: int, stop_modes: bool, rec: np.ndarray, rticks: np.ndarray,
              ridx: np.ndarray, every: int, row0: int) -> tuple[Any, ...]:
        """The step's arguments (:mod:`blocks.codegen`, ``advance_serial``)."""
        return (int(k0), int(n), int(final), bool(stop_modes), float(self.model.ctx.t0), float(self.model.ctx.dt),
                self.w, self.SIG, self.X, self.XW, self.K, self.Z, self.ZN, self.ZOLD, tuple(self.P), rec, rticks,
                ridx, int(every), int(row0), self.FLAG, self.DONE, self.REASON, self.FAILT, self.EV, self.EVN, self.FN)

    def _worker_note(self, note: str) -> None:
        """A compile worker failed (``note``): its kernels are compiled in this process, said through :data:`NOTIFY`."""
        for cb in NOTIFY:
            cb(f"compiling the diagram '{self.model.diagram.name}': {note}…")

    def events(self, i: int) -> list[dict[str, Any]]:
        """Copy ``i``'s mode switches from ``EV`` (as :meth:`blocks.runner.Runner.log_modes` logs them)."""
        m = self.model
        owner = {}
        for b in m.blocks:
            zo, _ = m.z_slot[b.name]
            for q, mode in enumerate(b.modes):
                owner[zo + q] = (b, mode)
        out = []
        for k, q, a, v in self.EV[i, : min(int(self.EVN[i]), self.EV.shape[1])].tolist():
            b, mode = owner[int(q)]
            lab = b.mode_labels.get(mode, {})
            out.append({"t": m.ctx.t0 + int(k) * m.ctx.dt, "block": b.name, "mode": mode,
                        "from": lab.get(int(a), str(a)), "to": lab.get(int(v), str(v))})
        return out

    def describe(self) -> dict[str, Any]:
        stored, full = self.shared_bytes()
        return {"copies": self.n, "source": str(self.path), "param_bytes": stored, "param_bytes_unshared": full}

    # ------------------------------------------------------- one run (copy 0) driven for a Host
    def run_ticks(self, host: Host, n: int) -> None:
        """Advance copy 0 by ``n`` ticks for ``host``: apply its queued parameter changes, log mode
        switches and name non-finite values exactly as the Python step does."""
        rec = host.recorder
        remaining = int(n)
        while remaining > 0:
            k = host.tick
            self.FLAG[0] = 0
            host.apply_changes()  # the run re-packs the blocks it changes (repack)
            room = rec.writable(k, k + remaining - 1)  # all of them, unless the log is streamed in chunks
            self.advance(k, room, rec.data[None], rec.ticks, rec.index, rec.every, row0=rec.row0)
            done, reason = int(self.DONE[0]), int(self.REASON[0])
            rec.recorded(k, k + done - 1)
            host.tick = k + done
            host.rhs_calls += 4 * done if self.X.shape[1] else 0
            remaining -= done
            if reason in (1, 5):
                self._log_modes(host, host.tick - 1)
            if reason == 2:
                host.raise_nonfinite(host.time)
            if reason in (3, 5):
                host.raise_nonfinite_state(host.time)

    def outputs_now(self, host: Host) -> None:
        """The major output pass at ``host``'s tick (its last row, :meth:`blocks.runner.Runner.results`)."""
        rec = host.recorder
        self.advance(host.tick, 0, rec.data[None], rec.ticks, rec.index, rec.every, final=1, row0=rec.row0)
        if int(self.REASON[0]) == 2:
            host.raise_nonfinite(host.time)

    def _log_modes(self, host: Host, k: int) -> None:
        m = self.model
        t = m.ctx.t0 + k * m.ctx.dt
        for b in m.blocks:
            every = m.ticks[b.name]
            if b.modes and b.discrete and (every == 1 or k % every == 0):
                zo, _ = m.z_slot[b.name]
                nm = len(b.modes)
                old, new = self.ZOLD[0, zo: zo + nm].tolist(), self.Z[0, zo: zo + nm].tolist()
                if old != new:
                    host.log_modes(t, b.name, b.modes, b.mode_labels, old, new)


# ----------------------------------------------------------------- choosing the engine
def choose_engine(model: CompiledModel, engine: str | None) -> str:
    """``"compiled"`` or ``"python"``: ``None`` picks compiled when every block has kernels and the
    solver is RK4 (``$GAITBLOCKS_ENGINE=python`` makes python the default instead, e.g. on a machine
    that should never compile); an explicit ``"compiled"`` that cannot be honoured raises, naming
    the blocks."""
    if engine is None and os.environ.get("GAITBLOCKS_ENGINE", "") == "python":
        return "python"
    if engine not in (None, "compiled", "python"):
        raise ValueError(f"engine {engine!r}: choose 'compiled' or 'python'")
    if engine == "python":
        return "python"
    missing = missing_kernels(model)
    rk4 = model.diagram.solver.method == "rk4"
    if engine == "compiled":
        if missing:
            raise BlockError("engine 'compiled': no compiled form (kernels) for block(s) " + ", ".join(missing)
                             + "; run with engine 'python'")
        if not rk4:
            raise BlockError(f"engine 'compiled' runs RK4; this diagram's solver is {model.diagram.solver.method!r}")
        return "compiled"
    return "compiled" if not missing and rk4 else "python"
