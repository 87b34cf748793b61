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
        params = _copy_params(model, overrides)
        ctx = model.ctx
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
        if parallel is None:
            import numba

            parallel = numba.get_num_threads() > 1 and self.n > 1
        self.parallel = bool(parallel)
        self.engine = CompiledEngine(model, params, self.n, x0, z0)
        self.engine.warm(parallel=self.parallel)
        self.logged = list(logged)
        if record_every < 1:
            raise ValueError(f"record every {record_every} ticks: must be >= 1")
        self.every = int(record_every)
        self.recorder = Recorder(model, self.logged, 1, self.every) if self.logged else None
        self.tick = 0

    @property
    def time(self) -> float:
        return self.model.ctx.t0 + self.tick * self.model.ctx.dt

    def run(self, t_end: float | None = None, parallel: bool | None = None, max_events: int = 4096) -> BatchResult:
        """Run every copy from tick 0 to ``t_end`` (default: the model's; serially or on threads as chosen
        at construction unless ``parallel`` says), logging up to ``max_events``
        mode switches per copy."""
        ctx = self.model.ctx
        t_end = ctx.t_end if t_end is None else t_end
        n = max(0, int(round((t_end - ctx.t0) / ctx.dt)))
        rec, e = self.recorder, self.every
        index = rec.index if rec is not None else np.zeros(0, dtype=np.intp)
        ticks = np.arange(0, n + 1, e, dtype=np.int64)
        if n % e:
            ticks = np.append(ticks, n)
        width = int(index.size)
        data = np.zeros((self.n, ticks.size, width))
        rticks = np.zeros(ticks.size, dtype=np.int64)
        eng = self.engine
        eng.EV = np.zeros((self.n, max_events if any(b.modes for b in self.model.blocks) else 0, 4))
        eng.EVN[:] = 0
        eng.advance(0, n, data, rticks, index, e, final=2, stop_modes=False,
                    parallel=self.parallel if parallel is None else parallel)
        self.tick = n
        status = []
        for i in range(self.n):
            failed = int(eng.REASON[i]) in _FAILED
            status.append("failed" if failed else "ok")
            if failed:
                data[i, ticks >= int(eng.DONE[i])] = np.nan
        # signal-major (N, width, T): each copy's column contiguous in time, so a summary's numpy calls over
        # (N, T, size) views loop along time, not over thousands of 2- to 7-element rows (one pass: about 0.2 ms a copy)
        columns = np.ascontiguousarray(data.transpose(0, 2, 1))
        del data
        signals = ({name: columns[:, rec.columns[name], :].transpose(0, 2, 1) for name in rec.names}
                   if rec is not None else {})
        failed_at = np.array([float(eng.FAILT[i]) if s == "failed" else math.nan for i, s in enumerate(status)])
        return BatchResult(ctx.t0 + ticks * ctx.dt, signals, status, failed_at, [eng.events(i) for i in range(self.n)])


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
