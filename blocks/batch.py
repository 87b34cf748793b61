r"""Batch runs: N copies of one compiled diagram, with different parameters, advanced together.

**Vectorised path** (:class:`BatchRunner`): the compiled engine (:mod:`blocks.compiled`) with ``N``
rows. The generated step is the single run's (:mod:`blocks.codegen`: the same text, compiled with
``parallel=True``, ``prange`` over copies), so copy ``i`` reproduces the single run with the same
parameters (the tests hold it to 1e-9 against the Python engine). Per-copy parameters are packed per
copy only for the blocks they touch; every other block's packed vector (a GRF table) is stored once.
A copy whose signals or states go non-finite stops there (``status`` ``failed``, ``failed_at`` its
time, its later rows NaN); the others go on. Mode switches are not logged in batch runs.
A diagram qualifies when every block has kernels (:func:`blockers` is empty) and its solver is RK4.

**Fallback** (:func:`run_batch`): any other diagram runs each copy as its own single run on the
process executor (:mod:`blocks.executors`) across the cores. Both paths return, per copy, the
recorded signals and the run status.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from blocks.codegen import NONFINITE_SIGNAL, NONFINITE_STATE, NONFINITE_STATE_AND_MODE, block_kernels
from blocks.compile import CompiledModel, compile_diagram
from blocks.core import BlockError, Params, resolve_setting
from blocks.diagram import Diagram
from blocks.recorder import Recorder
from blocks.spec import split_param

__all__ = ["BatchRunner", "BatchResult", "blockers", "run_batch"]

_FAILED = (NONFINITE_SIGNAL, NONFINITE_STATE, NONFINITE_STATE_AND_MODE)


def blockers(model: CompiledModel) -> list[str]:
    """Names of the blocks that keep ``model`` off the vectorised path (no complete kernels; every
    block when the solver is not RK4)."""
    if model.diagram.solver.method != "rk4":
        return [b.name for b in model.blocks]
    return [b.name for b in model.blocks if block_kernels(b) is None]


@dataclass
class BatchResult:
    """Per copy: ``status`` (``ok``/``failed``), the time of failure (``nan`` if none), and the
    recorded signals ``signals[name]`` of shape ``(N, T, size)`` (views, contiguous along ``T``); ``t``
    (T,) s; per copy its mode switches ``events[i]`` (``{"t", "block", "mode", "from", "to"}``, as a single
    run logs them; the process path fills them too)."""

    t: np.ndarray
    signals: dict[str, np.ndarray]
    status: list[str]
    failed_at: np.ndarray
    events: list[list[dict[str, Any]]] = field(default_factory=list)


def _current(p: Params, block: Any, ref: str) -> Any:
    """The value a copy holds for ``ref``'s parameter (the base of an item change)."""
    _, key, _ = split_param(ref, "override")
    return getattr(p, key) if key in block.params else None


def _copy_params(model: CompiledModel, overrides: Sequence[Mapping[str, Any]]) -> list[dict[str, Params]]:
    """Per copy, ``{block: Params}``: the model's own object for untouched blocks (shared), a
    re-derived copy for the blocks an override names (``"block.param"`` or ``"block.param[i]"``)."""
    blocks = {b.name: b for b in model.blocks}
    out = []
    for ov in overrides:
        params = dict(model.params)
        for ref, value in ov.items():
            name, _, _ = split_param(ref, "override")
            if name not in blocks:
                raise BlockError(f"override '{ref}': no block '{name}'")
            if params[name] is model.params[name]:
                params[name] = model.params[name].copy()
            key, value = resolve_setting(blocks[name], ref, value, _current(params[name], blocks[name], ref))
            params[name].set(key, value)
        for name, p in params.items():
            if p is not model.params[name]:
                blocks[name].derive(p, model.ctx)
        out.append(params)
    return out


class BatchRunner:
    """Vectorised run of ``len(overrides)`` copies of ``model`` (module docstring).

    Parameters
    ----------
    model : CompiledModel
        Every block must have kernels (:func:`blockers` is empty).
    overrides : sequence of mapping
        Per copy, ``{"block.param": value}`` (any parameter; initial states follow them).
    logged : sequence of str
        Signals ``"block.port"`` to record.
    record_every : int
        Keep every k-th tick (and the last).
    parallel : bool, optional
        Step the copies on numba's threads (``prange``). Default: when numba has more than one thread
        (``numba.get_num_threads()``, capped by ``NUMBA_NUM_THREADS``) and there is more than one copy.
        Otherwise the serial step runs them, and the parallel variant is never compiled (its first
        compile costs about twice the serial one's, for nothing on one thread).
    """

    def __init__(self, model: CompiledModel, overrides: Sequence[Mapping[str, Any]], logged: Sequence[str] = (),
                 record_every: int = 1, parallel: bool | None = None) -> None:
        from blocks.compiled import CompiledEngine

        bad = blockers(model)
        if bad:
            raise BlockError(f"cannot vectorise block(s) {', '.join(bad)} (no kernels, or a solver other than "
                             "RK4); use run_batch (per-run processes)")
        self.model, self.n = model, len(overrides)
        params, x0, z0 = self._start(overrides)
        if parallel is None:
            import numba

            parallel = numba.get_num_threads() > 1 and self.n > 1
        self.parallel = bool(parallel)
        self.engine = CompiledEngine(model, params, self.n, x0, z0)
        self.engine.warm(parallel=self.parallel)
        self._touched = _touched(model, params)
        self.logged = list(logged)
        if record_every < 1:
            raise ValueError(f"record every {record_every} ticks: must be >= 1")
        self.every = int(record_every)
        self.recorder = Recorder(model, self.logged, 1, self.every) if self.logged else None
        self.tick = 0

    def _start(self, overrides: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, Params]], np.ndarray, np.ndarray]:
        """Per copy its parameters, and the initial states ``(N, nx)``, ``(N, nz)`` they give."""
        model, ctx = self.model, self.model.ctx
        params = _copy_params(model, overrides)
        x0 = np.array(np.broadcast_to(model.x0, (self.n, model.x0.size)), dtype=np.float64, order="C")
        z0 = np.array(np.broadcast_to(model.z0, (self.n, model.z0.size)), dtype=np.float64, order="C")
        for i, p in enumerate(params):  # initial states may depend on parameters: again for the blocks changed
            for b in model.blocks:
                if p[b.name] is model.params[b.name]:
                    continue  # untouched: the model's own initial state (a reference fit costs ~20 ms)
                if b.state_size():
                    xo, xn = model.x_slot[b.name]
                    x0[i, xo: xo + xn] = np.asarray(b.initial_state(p[b.name], ctx), dtype=np.float64).reshape(-1)
                if b.discrete_size():
                    zo, zn = model.z_slot[b.name]
                    z0[i, zo: zo + zn] = np.asarray(b.initial_discrete(p[b.name], ctx), dtype=np.float64).reshape(-1)
        return params, x0, z0

    def reset(self, overrides: Sequence[Mapping[str, Any]]) -> None:
        """Start again at tick 0 with new ``overrides`` (as many copies as before): the engine, its loaded step
        and the packed vectors of the blocks no override names are kept (a sweep's next batch on the same
        thread: about 5 ms of set-up a batch saved), the blocks named now or before are re-packed, and every
        state buffer is set as a new engine sets it, so the run is the same as a new runner's to the bit."""
        if len(overrides) != self.n:
            raise ValueError(f"reset with {len(overrides)} copies; this runner has {self.n}")
        params, x0, z0 = self._start(overrides)
        touched = _touched(self.model, params)
        eng = self.engine
        for name in sorted(touched | self._touched):
            eng.repack(name, [p[name] for p in params])
        self._touched = touched
        eng.X[...], eng.Z[...], eng.ZN[...], eng.ZOLD[...] = x0, z0, z0, z0
        for buf in (eng.SIG, eng.XW, eng.K, eng.FLAG, eng.DONE, eng.REASON, eng.EVN):
            buf[...] = 0
        eng.FAILT[...] = math.nan
        self.tick = 0

    @property
    def time(self) -> float:
        return self.model.ctx.t0 + self.tick * self.model.ctx.dt

    def run(self, t_end: float | None = None, parallel: bool | None = None, max_events: int = 4096,
            workspace: dict[Any, Any] | None = None) -> BatchResult:
        """Run every copy from tick 0 to ``t_end`` (default: the model's; serially or on threads as chosen
        at construction unless ``parallel`` says), logging up to ``max_events`` mode switches per copy.

        The step records into a scratch buffer of :func:`chunk_rows` rows (at most :data:`CHUNK_BYTES`),
        one :meth:`~blocks.compiled.CompiledEngine.advance` call per chunk, and each chunk is copied, transposed,
        into the signal-major result ``(N, width, T)``: each copy's column contiguous in time, so a summary's
        numpy calls over the ``(N, T, size)`` views loop along time. A copy that fails keeps the first
        failure's tick, reason, time and events (a later chunk steps its non-finite state again: its rows from
        the failure on are NaN whatever it writes). ``workspace``: a dict that keeps the scratch buffer for the
        next run of the same thread (a sweep's batches: no page faults on a new 20 MB buffer a batch). The
        result is always a new array: the summary read a reused one 0.15-0.2 ms a copy slower (0.86-0.92
        against 0.70-0.73 ms, 10 batches of 24 walking copies, load 5, 2026-11-28)."""
        ctx = self.model.ctx
        t_end = ctx.t_end if t_end is None else t_end
        n = max(0, int(round((t_end - ctx.t0) / ctx.dt)))
        rec, e = self.recorder, self.every
        index = rec.index if rec is not None else np.zeros(0, dtype=np.intp)
        ticks = np.arange(0, n + 1, e, dtype=np.int64)
        if n % e:
            ticks = np.append(ticks, n)
        width = int(index.size)
        columns = np.empty((self.n, width, ticks.size))
        rows = chunk_rows(self.n, width)
        scratch = _buffer(workspace, "scratch", (self.n, rows + 1, width))  # + 1: the final row
        rticks = np.zeros(rows + 1, dtype=np.int64)
        eng = self.engine
        eng.EV = np.zeros((self.n, max_events if any(b.modes for b in self.model.blocks) else 0, 4))
        eng.EVN[:] = 0
        done = np.full(self.n, n, dtype=np.int64)  # ticks done: n, or up to a copy's first failure
        reason = np.zeros(self.n, dtype=np.int64)
        failt, evn = np.full(self.n, math.nan), np.zeros(self.n, dtype=np.int64)
        failed = np.zeros(self.n, dtype=bool)
        par = self.parallel if parallel is None else parallel
        k0 = 0
        while True:
            m = min(rows * e, n - k0)
            last = k0 + m >= n
            eng.advance(k0, m, scratch, rticks, index, e, final=2 if last else 0, stop_modes=False, parallel=par,
                        row0=k0 // e)
            r0, r1 = k0 // e, ticks.size if last else (k0 + m) // e  # the rows this chunk recorded
            columns[:, :, r0:r1] = scratch[:, : r1 - r0].transpose(0, 2, 1)
            new = ~failed & np.isin(eng.REASON, _FAILED)
            for i in np.flatnonzero(new):
                done[i], reason[i], failt[i], evn[i] = k0 + eng.DONE[i], eng.REASON[i], eng.FAILT[i], eng.EVN[i]
            failed |= new
            if last:
                break
            k0 += m
        eng.EVN[failed] = evn[failed]  # a failed copy's later chunks log no switch
        eng.DONE[:], eng.REASON[:], eng.FAILT[:] = done, np.where(failed, reason, eng.REASON), failt
        self.tick = n
        status = ["failed" if f else "ok" for f in failed]
        for i in np.flatnonzero(failed):
            columns[i][:, ticks >= done[i]] = np.nan
        signals = ({name: columns[:, rec.columns[name], :].transpose(0, 2, 1) for name in rec.names}
                   if rec is not None else {})
        return BatchResult(ctx.t0 + ticks * ctx.dt, signals, status, failt, [eng.events(i) for i in range(self.n)])


#: bytes of the scratch buffer a batch records into between two transposed copies (:meth:`BatchRunner.run`):
#: a one-gait-cycle sweep batch (24 copies, 88 columns, 1,113 rows: 18.8 MB) is one chunk; a longer run is
#: chunked, so its scratch stays bounded. Chunks that fit a core's cache cost more than they saved: 0.27-0.30
#: ms a copy outside the step with 4 MB chunks, 0.37-0.42 with 1 MB, 0.65-0.72 with 256 kB, against 0.17-0.18
#: in one piece, the step itself the same within the noise (24 walking copies, load 5, 2026-11-28)
CHUNK_BYTES = 32 * 1024 * 1024


def chunk_rows(copies: int, width: int) -> int:
    """Rows of a batch's recording chunk: ``CHUNK_BYTES / (8 copies width)``, at least 16 (each chunk is one
    call of the step, about 30 us of overhead: 2 % of 16 ticks of 24 walking copies at 4 us a copy-tick)."""
    return max(16, CHUNK_BYTES // (8 * max(1, copies * width)))


def _touched(model: CompiledModel, params: Sequence[Mapping[str, Params]]) -> set[str]:
    """The blocks whose parameters some copy holds in its own object (an override names them)."""
    return {name for p in params for name, v in p.items() if v is not model.params[name]}


def _buffer(workspace: dict[Any, Any] | None, key: str, shape: tuple[int, ...]) -> np.ndarray:
    """An uninitialised float array of ``shape``: ``workspace``'s own when it has one of that shape (kept
    for the next call, which overwrites it), else new (and kept there)."""
    if workspace is None:
        return np.empty(shape)
    buf = workspace.get(key)
    if buf is None or buf.shape != shape:
        buf = workspace[key] = np.empty(shape)
    return buf


Job = tuple[Diagram, Mapping[str, Any], Sequence[str], dict[str, Any]]


def _single(job: Job) -> tuple[np.ndarray, dict[str, np.ndarray], str, float, list[dict[str, Any]]]:
    from blocks.runner import Runner

    diagram, overrides, logged, kw = job
    d = diagram.copy()
    for ref, v in overrides.items():
        d.set_param(ref, v)
    model = compile_diagram(d, **kw)
    res = Runner(model, logged=list(logged)).run()
    failed = float(res.t[-1]) if res.status != "ok" else math.nan
    return res.t, {n: res.signals[n] for n in logged}, res.status, failed, res.events


def run_batch(diagram: Diagram, overrides: Sequence[Mapping[str, Any]], logged: Sequence[str], *,
              workers: int = 1, **compile_kw: Any) -> tuple[BatchResult, str]:
    """Run the copies vectorised when the diagram allows it, else one process per run.

    Returns the result and the path taken (``"vectorised"`` or ``"processes"``). ``compile_kw``
    goes to :func:`~blocks.compile.compile_diagram` (``dataset``, ``dt``, ``t_end``, ``resources``;
    resources must be picklable for the process path).
    """
    model = compile_diagram(diagram, **compile_kw)
    if not blockers(model):
        return BatchRunner(model, overrides, logged).run(), "vectorised"
    from blocks.executors import make_executor

    jobs = [(diagram, ov, list(logged), compile_kw) for ov in overrides]
    with make_executor("process", workers) as ex:
        outs = ex.map(_single, jobs)
    n_t = max(o[0].size for o in outs)
    signals = {}
    for name in logged:  # a one-element signal is recorded as a column: (ticks,) -> (ticks, 1)
        cols = [o[1][name].reshape(o[1][name].shape[0], -1) for o in outs]
        arr = np.full((len(outs), n_t, cols[0].shape[1]), np.nan)
        for i, c in enumerate(cols):
            arr[i, : c.shape[0]] = c
        signals[name] = arr
    t = next(o[0] for o in outs if o[0].size == n_t)
    return (BatchResult(t, signals, [o[2] for o in outs], np.array([o[3] for o in outs]), [o[4] for o in outs]),
            "processes")
