r"""Batch runs: N copies of one compiled diagram, with different parameters, advanced together.

**Vectorised path** (:class:`BatchRunner`). Every buffer of :class:`~blocks.runner.Runner` gains a
leading copy axis: signals ``(N, S)``, continuous states ``(N, X)``, discrete states ``(N, Z)``.
A block's ports become column views ``(N, size)`` and its callbacks are called once per tick
(and RK4 stage) for all copies. The step is the runner's, in the same order: queued nothing,
major output pass, record, discrete updates on sample hits, then RK4

.. math:: X_{k+1} = X_k + \tfrac{h}{6}(K_1 + 2K_2 + 2K_3 + K_4)

row-wise, so copy ``i`` reproduces the single run with the same parameters (to rounding: the
tests hold it to 1e-9). Blocks qualify when they declare ``vectorisable = True`` (their own
callbacks accept ``(N, size)`` arrays) or have a batch form here (:data:`BATCH_FORMS`: the
five-link dynamics through ``FiveLinkBiped.forward_dynamics_batch``, constants, selectors, muxes).
Per-copy parameters (``overrides``) are given to vectorisable blocks as ``(N, 1)`` columns.
Mode switches are not logged in batch runs.

**Fallback** (:func:`run_batch`). A diagram with any other block runs each copy as its own
single run, on the process executor (:mod:`blocks.executors`) across the cores. Both paths return, per
copy, the recorded signals and the run status.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from blocks.compile import CompiledModel, compile_diagram
from blocks.core import Block, BlockError, Params
from blocks.diagram import Diagram

__all__ = ["BatchRunner", "BatchResult", "BATCH_FORMS", "blockers", "run_batch"]

Callback = Callable[..., None]


def _dyn_output(t: float, x: np.ndarray, z: np.ndarray, u: Any, p: Params, y: Any) -> None:
    y[0][:] = x[:, 0:7]
    y[1][:] = x[:, 7:14]


def _dyn_derivative(t: float, x: np.ndarray, z: np.ndarray, u: Any, p: Params, dx: np.ndarray) -> None:
    dx[:, 0:7] = x[:, 7:14]
    dx[:, 7:14] = p._biped.forward_dynamics_batch(x[:, 0:7], x[:, 7:14], u[0], u[1], MZ=u[2])


def _selector(t: float, x: np.ndarray, z: np.ndarray, u: Any, p: Params, y: Any) -> None:
    y[0][:] = u[0][:, p._sel]


def _mux(t: float, x: np.ndarray, z: np.ndarray, u: Any, p: Params, y: Any) -> None:
    np.concatenate(u, axis=1, out=y[0])


def _constant(t: float, x: np.ndarray, z: np.ndarray, u: Any, p: Params, y: Any) -> None:
    y[0][:] = p.value


#: block type -> (output, derivative or None) batch callbacks with ``(N, size)`` arguments
BATCH_FORMS: dict[str, tuple[Callback, Callback | None]] = {
    "FiveLinkDynamics": (_dyn_output, _dyn_derivative),
    "Selector": (_selector, None),
    "Mux": (_mux, None),
    "Constant": (_constant, None),
}


def blockers(model: CompiledModel) -> list[str]:
    """Names of the blocks that cannot run vectorised (neither ``vectorisable`` nor in :data:`BATCH_FORMS`)."""
    return [b.name for b in model.blocks if not (b.vectorisable or b.type_name in BATCH_FORMS)]


def _callbacks(b: Block) -> tuple[Callback, Callback]:
    if b.type_name in BATCH_FORMS:
        out, der = BATCH_FORMS[b.type_name]
        return out, der if der is not None else b.derivative
    return b.output, b.derivative


@dataclass
class BatchResult:
    """Per copy: ``status`` (``ok``/``failed``), the time of failure (``nan`` if none), and the
    recorded signals ``signals[name]`` of shape ``(N, T, size)``; ``t`` (T,) s."""

    t: np.ndarray
    signals: dict[str, np.ndarray]
    status: list[str]
    failed_at: np.ndarray


class BatchRunner:
    """Vectorised run of ``len(overrides)`` copies of ``model`` (module docstring).

    Parameters
    ----------
    model : CompiledModel
        Every block must be vectorisable (:func:`blockers` is empty).
    overrides : sequence of mapping
        Per copy, ``{"block.param": value}`` for tunable float parameters.
    logged : sequence of str
        Signals ``"block.port"`` to record.
    """

    def __init__(self, model: CompiledModel, overrides: Sequence[Mapping[str, float]],
                 logged: Sequence[str] = ()) -> None:
        bad = blockers(model)
        if bad:
            raise BlockError(f"cannot vectorise block(s) {', '.join(bad)}; use run_batch (per-run processes)")
        self.model, self.n = model, len(overrides)
        n, ctx = self.n, model.ctx
        self.dt, self.t0, self.tick = ctx.dt, ctx.t0, 0
        self.sig = np.zeros((n, model.n_signals))
        self.params: dict[str, Params] = {}
        xs, zs = [], []
        for b in model.blocks:
            p = model.params[b.name].copy()
            keys = {ref.split(".", 1)[1] for ov in overrides for ref in ov if ref.split(".", 1)[0] == b.name}
            for key in keys:
                spec = b.params[key]
                col = [spec.validate(ov.get(f"{b.name}.{key}", b.values[key]), f"{b.name}.{key}") for ov in overrides]
                p.set(key, np.array(col, dtype=np.float64).reshape(n, 1))
            b.derive(p, ctx)
            self.params[b.name] = p
        for i in range(n):  # initial states may depend on parameters
            row_x, row_z = [], []
            for b in model.blocks:
                if b.state_size() or b.discrete_size():
                    pi = model.params[b.name].copy()
                    for ref, v in overrides[i].items():
                        if ref.split(".", 1)[0] == b.name:
                            pi.set(ref.split(".", 1)[1], v)
                    b.derive(pi, ctx)
                    if b.state_size():
                        row_x.append(np.asarray(b.initial_state(pi, ctx), dtype=np.float64).reshape(-1))
                    if b.discrete_size():
                        row_z.append(np.asarray(b.initial_discrete(pi, ctx), dtype=np.float64).reshape(-1))
            xs.append(np.concatenate(row_x) if row_x else np.zeros(0))
            zs.append(np.concatenate(row_z) if row_z else np.zeros(0))
        self.x = np.array(xs).reshape(n, -1)
        self.z = np.array(zs).reshape(n, -1)
        self.xw, self.zn = self.x.copy(), self.z.copy()
        self.K = np.zeros((4, *self.x.shape))
        self.failed_at = np.full(n, math.nan)
        self.logged = list(logged)
        self._rows: list[np.ndarray] = []
        self._build()

    def _cols(self, buf: np.ndarray, slot: tuple[int, int]) -> np.ndarray:
        return buf[:, slot[0]: slot[0] + slot[1]]

    def _build(self) -> None:
        m, sig = self.model, self.sig
        self._major: list[tuple[Any, ...]] = []
        self._minor: list[tuple[Any, ...]] = []
        self._updates: list[tuple[Any, ...]] = []
        self._derivs: list[list[tuple[Any, ...]]] = [[], [], [], []]
        for b in m.blocks:
            name = b.name
            out_cb, der_cb = _callbacks(b)
            u = tuple(self._cols(sig, m.in_slot[f"{name}.{s.name}"]) for s in m.inputs[name])
            y = tuple(self._cols(sig, m.out_slot[f"{name}.{s.name}"]) for s in m.outputs[name])
            x, xw = self._cols(self.x, m.x_slot[name]), self._cols(self.xw, m.x_slot[name])
            z, zn = self._cols(self.z, m.z_slot[name]), self._cols(self.zn, m.z_slot[name])
            p, every = self.params[name], m.ticks[name]
            if y:
                self._major.append((out_cb, x, z, u, p, y, every))
                if name in m.minor:
                    self._minor.append((out_cb, xw, z, u, p, y))
            if b.discrete and z.shape[1]:
                self._updates.append((b.update, x, z, u, p, zn, every))
            if x.shape[1]:
                for s in range(4):
                    dx = self._cols(self.K[s], m.x_slot[name])
                    self._derivs[s].append((der_cb, x if s == 0 else xw, z, u, p, dx))
        self._taps = [m.out_slot[name] for name in self.logged]

    @property
    def time(self) -> float:
        return self.t0 + self.tick * self.dt

    def _outputs(self, t: float, k: int) -> None:
        for f, x, z, u, p, y, every in self._major:
            if every == 1 or k % every == 0:
                f(t, x, z, u, p, y)

    def _record(self) -> None:
        self._rows.append(np.concatenate([self.sig[:, o: o + s] for o, s in self._taps], axis=1)
                          if self._taps else np.zeros((self.n, 0)))

    def _check(self, t: float, arr: np.ndarray) -> None:
        bad = ~np.isfinite(arr).all(axis=1) & np.isnan(self.failed_at)
        self.failed_at[bad] = t

    def step(self) -> None:
        """Advance every copy by one tick (the single runner's step, row-wise)."""
        k, h = self.tick, self.dt
        t = self.t0 + k * h
        self._outputs(t, k)
        self._check(t, self.sig)
        self._record()
        for f, x, z, u, p, zn, every in self._updates:
            if every == 1 or k % every == 0:
                f(t, x, z, u, p, zn)
        for _, _, z, _, _, zn, every in self._updates:
            if every == 1 or k % every == 0:
                z[:] = zn
        if self.x.shape[1]:
            K, x, xw = self.K, self.x, self.xw
            for f, xs, z, u, p, dx in self._derivs[0]:
                f(t, xs, z, u, p, dx)
            for s, (c, ts) in enumerate(((0.5 * h, t + 0.5 * h), (0.5 * h, t + 0.5 * h), (h, t + h)), start=1):
                np.add(x, K[s - 1] * c, out=xw)
                for f, xs, z, u, p, y in self._minor:
                    f(ts, xs, z, u, p, y)
                for f, xs, z, u, p, dx in self._derivs[s]:
                    f(ts, xs, z, u, p, dx)
            x += np.tensordot(np.array([1.0, 2.0, 2.0, 1.0]) * (h / 6.0), K, axes=1)
            self._check(t + h, x)
        self.tick = k + 1

    def run(self, t_end: float | None = None) -> BatchResult:
        """Run every copy to ``t_end`` (default: the model's); copies that go non-finite are marked failed."""
        t_end = self.model.ctx.t_end if t_end is None else t_end
        with np.errstate(all="ignore"):
            for _ in range(max(0, int(round((t_end - self.t0) / self.dt)) - self.tick)):
                self.step()
            self._outputs(self.time, self.tick)
            self._record()
        data = np.stack(self._rows, axis=1)
        signals, col = {}, 0
        for name, (_, size) in zip(self.logged, self._taps):
            signals[name] = data[:, :, col: col + size]
            col += size
        t = self.t0 + np.arange(data.shape[1]) * self.dt
        status = ["ok" if math.isnan(f) else "failed" for f in self.failed_at]
        return BatchResult(t, signals, status, self.failed_at.copy())


Job = tuple[Diagram, Mapping[str, Any], Sequence[str], dict[str, Any]]


def _single(job: Job) -> tuple[np.ndarray, dict[str, np.ndarray], str, float]:
    from blocks.runner import Runner

    diagram, overrides, logged, kw = job
    d = diagram.copy()
    for ref, v in overrides.items():
        d.set_param(ref, v)
    model = compile_diagram(d, **kw)
    res = Runner(model, logged=list(logged)).run()
    failed = float(res.t[-1]) if res.status != "ok" else math.nan
    return res.t, {n: res.signals[n] for n in logged}, res.status, failed


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
    for name in logged:
        size = outs[0][1][name].shape[1]
        arr = np.full((len(outs), n_t, size), np.nan)
        for i, o in enumerate(outs):
            arr[i, : o[1][name].shape[0]] = o[1][name]
        signals[name] = arr
    t = next(o[0] for o in outs if o[0].size == n_t)
    return BatchResult(t, signals, [o[2] for o in outs], np.array([o[3] for o in outs])), "processes"


def pd_biped_diagram(t_end: float = 0.4) -> Diagram:
    """A diagram every block of which vectorises: the five-link body, its joints held by PD gains
    toward zero (kp 300 N m/rad, kd 20 N m s/rad), the feet carried by constant half-body-weight
    forces. The batch tests and ``benchmarks/batch.py`` use it."""
    from blocks.diagram import SolverSettings
    from models.params import BipedParams

    d = Diagram("pd_biped", solver=SolverSettings(dt=1e-3, t_end=t_end))
    w = BipedParams.paper().total_mass * 9.81 / 2
    d.add("body", "FiveLinkDynamics", init="params", q0=(0.0, 0.8735, 0.05, 0.2, -0.1, 0.3, 0.1))
    d.add("feet", "Constant", value=(0.0, w, 0.0, w))
    d.add("jq", "Selector", n=7, indices=(3.0, 4.0, 5.0, 6.0))
    d.add("jqd", "Selector", n=7, indices=(3.0, 4.0, 5.0, 6.0))
    d.add("kp", "Gain", k=-300.0, n=4)
    d.add("kd", "Gain", k=-20.0, n=4)
    d.add("pd", "Sum", signs="++", n=4)
    for a, b in (("body.q", "jq.u"), ("body.qd", "jqd.u"), ("jq.y", "kp.u"), ("jqd.y", "kd.u"), ("kp.y", "pd.u1"),
                 ("kd.y", "pd.u2"), ("pd.y", "body.tau"), ("feet.y", "body.grf")):
        d.connect(a, b)
    return d
