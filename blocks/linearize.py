r"""Linearisation of a diagram about an operating point, by central differences of its step's laws.

Near the operating point ``(x0, u0)`` at time ``t`` (the runner's current tick) the diagram is

.. math:: \dot x = f(t, x, z, u) \approx f_0 + A\,\delta x + B\,\delta u, \qquad
          y = g(t, x, z, u) \approx y_0 + C\,\delta x + D\,\delta u

with ``x`` the diagram's whole continuous state vector (the runner's ``x``, in the compiled
layout: :attr:`~blocks.compile.CompiledModel.x_slot`), ``u`` the chosen inputs and ``y`` the
chosen outputs. ``f`` and ``g`` are one *major* output pass (every block in the compiled order)
followed by every block's derivative: the first stage of the RK4 step of :mod:`blocks.runner`,
evaluated with the blocks' Python callbacks, or (``laws="kernels"``) with their compiled kernels,
the laws the generated step calls, one by one in the same order. ``f_0`` is kept: about a point
that is not an equilibrium (a walking body) A and B are the Jacobians along the trajectory.

**Inputs** are named two ways:

- ``"block.port"`` or ``"block.port[i]"``: an input port, or one element of it, *opened*: the
  block reads ``u0 + delta u`` on the chosen elements, where ``u0`` is what its source drives at
  the operating point, while every other reader of that source sees it unchanged. A loop through
  that port is cut there (Simulink's "open-loop input"): with ``body.tau[0]`` the plant seen by
  the left hip's torque with every other loop of the diagram closed;
- ``"block.param"`` or ``"block.param[i]"``: a numeric parameter treated as an input (a source's
  ``value``, a gain); the block's derived constants are recomputed for each perturbed value.

**Outputs** are output ports ``"block.port"`` or one element ``"block.port[i]"``.

**Discrete states are held fixed** at the runner's ``z``: they are no part of the state vector,
and no discrete update runs. Blocks sampled slower than every tick (``ts`` above ``dt``) hold their
last outputs (the runner's signal buffer), as they do between sample hits; blocks without a sample
period are evaluated. So a phase or contact mode stays what it is at the operating point, and the
result is the continuous dynamics in that mode.

**Step size.** Central differences, ``(F(v + h e_i) - F(v - h e_i)) / 2h`` with
``h_i = step * max(1, |v_i|)`` and ``step = 1e-6`` by default: the truncation error is
``h^2 F''' / 6`` (zero for a linear diagram), the rounding error about ``1e-16 |F| / h``; a
linear diagram's A and B come out to about 1e-10 relative (tests/blocks/test_linearize.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from blocks.core import BlockError, Params
from blocks.spec import split_param, with_item

if TYPE_CHECKING:
    from blocks.compile import CompiledModel
    from blocks.runner import Runner

__all__ = ["LinearModel", "linearize"]


@dataclass(frozen=True)
class LinearModel:
    """``dx/dt = f0 + A dx + B du``, ``y = y0 + C dx + D du`` about ``(x0, u0)`` at ``t`` [s].

    ``states``, ``inputs`` and ``outputs`` name the rows and columns: ``"block.state"`` (a block's
    ``state_names`` or ``"block.x[i]"``), the input names as given, ``"block.port[i]"``.
    """

    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    d: np.ndarray
    states: tuple[str, ...]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    x0: np.ndarray
    u0: np.ndarray
    y0: np.ndarray
    f0: np.ndarray
    t: float

    def state_index(self, block: str) -> np.ndarray:
        """Rows of ``a`` holding ``block``'s states."""
        return np.array([i for i, s in enumerate(self.states) if s.split(".")[0] == block], dtype=np.intp)


@dataclass
class _Input:
    name: str
    kind: str  # "port" or "param"
    block: str
    key: str  # port or parameter name
    index: int | None
    size: int  # elements of the port or items of the parameter
    vector: bool = True  # a parameter held as a vector (a scalar one is set back as a float)
    per_item: bool = False  # a per-item parameter (ParamSpec.size): one number may stand for every item

    def items(self, value: Any) -> np.ndarray:
        """A parameter's current value as its ``size`` items."""
        return np.broadcast_to(np.atleast_1d(np.asarray(value, dtype=np.float64)), (self.size,))

    def columns(self) -> int:
        return self.size if self.index is None else 1


def _split(ref: str) -> tuple[str, str, int | None]:
    return split_param(ref, "input or output")


class _Evaluator:
    """``(xdot, y)`` of ``model`` at ``(t, x)`` with the runner's ``z``, held signals and parameters."""

    def __init__(self, model: CompiledModel, params: dict[str, Params], sig: np.ndarray, z: np.ndarray,
                 t: float, inputs: list[_Input], outputs: list[tuple[str, int | None]], laws: str) -> None:
        from blocks.codegen import block_kernels, missing_kernels

        if laws not in ("python", "kernels"):
            raise ValueError(f"laws {laws!r}: choose 'python' or 'kernels'")
        if laws == "kernels" and (missing := missing_kernels(model)):
            raise BlockError("linearize(laws='kernels'): no compiled form (kernels) for block(s) " + ", ".join(missing))
        self.model, self.t = model, t
        self.kernels = {b.name: block_kernels(b) for b in model.blocks} if laws == "kernels" else {}
        self.packed: dict[str, np.ndarray] = {}
        self.sig = sig.copy()
        self.x = model.x0.copy()
        self.z = z.copy()
        self.dx = np.zeros(model.x0.size)
        self.params = dict(params)
        for name in self.kernels:
            self._pack(name)
        self.inputs = inputs
        opened: dict[str, list[int]] = {}
        for inp in inputs:
            if inp.kind == "port":
                size = model.in_slot[f"{inp.block}.{inp.key}"][1]
                opened.setdefault(f"{inp.block}.{inp.key}", []).extend(
                    range(size) if inp.index is None else [inp.index])
        self.open_value: dict[str, np.ndarray] = {}  # port -> what its opened elements read (NaN = follow)
        self.calls: list[tuple[Any, ...]] = []
        for b in model.blocks:
            n = b.name
            ports, fills = [], []
            for s in model.inputs[n]:
                key = f"{n}.{s.name}"
                off, size = model.in_slot[key]
                src = self.sig[off: off + size]
                if key in opened:
                    buf = np.zeros(size)
                    mask = np.zeros(size, dtype=bool)
                    mask[opened[key]] = True
                    self.open_value[key] = np.full(size, np.nan)
                    fills.append((buf, src, mask, key))
                    ports.append(buf)
                else:
                    ports.append(src)
            y = tuple(self.sig[o: o + k] for o, k in (model.out_slot[f"{n}.{s.name}"] for s in model.outputs[n]))
            xo, xs = model.x_slot[n]
            zo, zs = model.z_slot[n]
            held = model.ticks[n] > 1
            self.calls.append((b, tuple(ports), fills, y, self.x[xo: xo + xs], self.z[zo: zo + zs],
                               self.dx[xo: xo + xs], held))
        self.out_idx = np.array([model.out_slot[p][0] + i for p, idx in outputs
                                 for i in (range(model.out_slot[p][1]) if idx is None else [idx])], dtype=np.intp)

    def _pack(self, name: str) -> None:
        b = self.model.block(name)
        self.packed[name] = np.ascontiguousarray(b.pack(self.params[name]), dtype=np.float64).reshape(-1)

    def __call__(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        self.x[:] = x
        t = self.t
        for b, u, fills, y, xv, z, _, held in self.calls:
            for buf, src, mask, key in fills:
                v = self.open_value[key]
                buf[:] = src
                buf[mask] = np.where(np.isnan(v[mask]), src[mask], v[mask])
            if y and not held:
                k = self.kernels.get(b.name)
                if k is None:
                    b.output(t, xv, z, u, self.params[b.name], y)
                else:
                    k.output(t, xv, z, *u, self.packed[b.name], *y)
        for b, u, _, _, xv, z, dxv, _ in self.calls:
            if xv.size:
                k = self.kernels.get(b.name)
                if k is None:
                    b.derivative(t, xv, z, u, self.params[b.name], dxv)
                else:
                    k.derivative(t, xv, z, *u, self.packed[b.name], dxv)
        return self.dx.copy(), self.sig[self.out_idx].copy()


    def read_inputs(self) -> np.ndarray:
        """The chosen inputs' values at the last evaluation (an opened port: what its source drove)."""
        vals: list[float] = []
        for inp in self.inputs:
            if inp.kind == "port":
                off, size = self.model.in_slot[f"{inp.block}.{inp.key}"]
                seg = self.sig[off: off + size]
                vals.extend(seg.tolist() if inp.index is None else [float(seg[inp.index])])
            else:
                v = inp.items(getattr(self.params[inp.block], inp.key))
                vals.extend(v.tolist() if inp.index is None else [float(v[inp.index])])
        return np.array(vals)

    def set_inputs(self, u: np.ndarray, base: dict[str, Params]) -> None:
        """Drive the chosen inputs with ``u`` (ports: the opened elements; parameters: re-derived)."""
        j = 0
        self.params = dict(base)
        for inp in self.inputs:
            if inp.kind == "port":
                key = f"{inp.block}.{inp.key}"
                size = self.model.in_slot[key][1]
                idx = list(range(size)) if inp.index is None else [inp.index]
                self.open_value[key][idx] = u[j: j + len(idx)]
                j += len(idx)
            else:
                p = self.params[inp.block].copy()
                cur = getattr(p, inp.key)
                new: Any
                if inp.index is None:
                    new = tuple(float(v) for v in u[j: j + inp.size]) if inp.vector else float(u[j])
                elif inp.per_item:
                    new = with_item(cur, inp.index, float(u[j]), inp.size, f"input '{inp.name}'")
                else:
                    items = inp.items(cur).copy()
                    items[inp.index] = u[j]
                    new = tuple(float(v) for v in items)
                j += inp.columns()
                p.set(inp.key, new)
                block = self.model.block(inp.block)
                block.derive(p, self.model.ctx)
                self.params[inp.block] = p
                if self.kernels:
                    self._pack(inp.block)


def _resolve_input(model: CompiledModel, ref: str) -> _Input:
    block, key, index = _split(ref)
    b = model.block(block)
    port = next((s for s in model.inputs[block] if s.name == key), None)
    if port is not None:
        if key in b.params:
            raise BlockError(f"input '{ref}': block '{block}' has a port and a parameter named '{key}'")
        size = model.in_slot[f"{block}.{key}"][1]
        if index is not None and not 0 <= index < size:
            raise BlockError(f"input '{ref}': port '{key}' of block '{block}' has {size} element(s)")
        return _Input(ref, "port", block, key, index, size)
    if key in b.params:
        spec = b.params[key]
        try:
            value = np.asarray(b.values[key], dtype=np.float64)
        except (TypeError, ValueError):
            raise BlockError(f"input '{ref}': parameter '{key}' of block '{block}' is not numeric") from None
        per_item = bool(spec.size)
        size = int(b.values[str(spec.size)]) if per_item else max(1, value.size)
        if index is not None and not 0 <= index < size:
            raise BlockError(f"input '{ref}': parameter '{key}' of block '{block}' has {size} item(s)")
        return _Input(ref, "param", block, key, index, size, per_item or value.ndim > 0, per_item)
    known = [s.name for s in model.inputs[block]] + list(b.params)
    raise BlockError(f"input '{ref}': block '{block}' has no input port or parameter '{key}'; known: "
                     + ", ".join(known))


def _resolve_output(model: CompiledModel, ref: str) -> tuple[str, int | None]:
    block, key, index = _split(ref)
    name = f"{block}.{key}"
    if name not in model.out_slot:
        model.block(block)
        known = ", ".join(s.name for s in model.outputs[block])
        raise BlockError(f"output '{ref}': block '{block}' has no output port '{key}'; outputs: {known}")
    size = model.out_slot[name][1]
    if index is not None and not 0 <= index < size:
        raise BlockError(f"output '{ref}': port '{key}' of block '{block}' has {size} element(s)")
    return name, index


def _labels(model: CompiledModel) -> tuple[str, ...]:
    names = [""] * int(model.x0.size)
    for b in model.blocks:
        o, s = model.x_slot[b.name]
        own = tuple(getattr(b, "state_names", ()) or ())
        for i in range(s):
            names[o + i] = f"{b.name}.{own[i]}" if len(own) == s else f"{b.name}.x[{i}]"
    return tuple(names)


def _jacobian(fun: Any, v0: np.ndarray, step: float) -> tuple[np.ndarray, np.ndarray]:
    cols_f, cols_y = [], []
    for i in range(v0.size):
        h = step * max(1.0, abs(float(v0[i])))
        vp, vm = v0.copy(), v0.copy()
        vp[i] += h
        vm[i] -= h
        (fp, yp), (fm, ym) = fun(vp), fun(vm)
        cols_f.append((fp - fm) / (2 * h))
        cols_y.append((yp - ym) / (2 * h))
    return np.array(cols_f).T, np.array(cols_y).T


def linearize(runner: Runner, inputs: Sequence[str], outputs: Sequence[str], *, x: np.ndarray | None = None,
              step: float = 1e-6, laws: str = "python") -> LinearModel:
    """A, B, C, D of ``runner``'s diagram about its current tick (module docstring).

    Parameters
    ----------
    runner : Runner
        On either engine; its time, discrete states ``z``, held signals and parameters (live
        changes applied) define the operating point. It is not advanced or changed.
    inputs : sequence of str
        ``"block.port"``, ``"block.port[i]"`` (opened input ports) or ``"block.param"``,
        ``"block.param[i]"`` (numeric parameters); a whole port or vector parameter adds one
        column per element.
    outputs : sequence of str
        ``"block.port"`` or ``"block.port[i]"`` (output ports); one row per element.
    x : (nx,) array, optional
        The continuous state to linearise about (default: the runner's).
    step : float
        Relative central-difference step (module docstring).
    laws : {"python", "kernels"}
        Evaluate the blocks' Python callbacks (default; any diagram), or their compiled kernels,
        the laws the compiled step runs, called one by one in the compiled order on their packed
        parameters (every block must have kernels; each kernel compiles on its first call).

    Returns
    -------
    LinearModel
        ``a (nx, nx)`` [1/s], ``b (nx, nu)``, ``c (ny, nx)``, ``d (ny, nu)`` in the units of the
        states, inputs and outputs involved, with the operating point.
    """
    model = runner.model
    if runner.registry.pending:
        raise BlockError("linearize: parameter changes are queued; step the runner once to apply them first")
    ins = [_resolve_input(model, r) for r in inputs]
    outs = [_resolve_output(model, r) for r in outputs]
    base = dict(runner.params)
    ev = _Evaluator(model, base, runner.sig, runner.z, runner.time, ins, outs, laws)
    x0 = np.array(runner.x if x is None else x, dtype=np.float64).reshape(-1)
    if x0.size != model.x0.size:
        raise BlockError(f"linearize: x has {x0.size} values; the diagram has {model.x0.size} continuous states")
    f0, y0 = ev(x0)
    u0 = ev.read_inputs()
    ev.set_inputs(u0, base)
    f0, y0 = ev(x0)
    a, c = _jacobian(ev, x0, step)

    def by_input(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ev.set_inputs(u, base)
        return ev(x0)

    b, d = _jacobian(by_input, u0, step)
    nx, nu, ny = x0.size, u0.size, ev.out_idx.size
    return LinearModel(a.reshape(nx, nx), b.reshape(nx, nu), c.reshape(ny, nx), d.reshape(ny, nu), _labels(model),
                       tuple(_names(ins)), tuple(_out_names(model, outs)), x0, u0, y0, f0, runner.time)


def _names(ins: list[_Input]) -> list[str]:
    out = []
    for inp in ins:
        whole = inp.index is None and inp.size > 1
        out.extend([f"{inp.name}[{i}]" for i in range(inp.size)] if whole else [inp.name])
    return out


def _out_names(model: CompiledModel, outs: list[tuple[str, int | None]]) -> list[str]:
    return [f"{p}[{i}]" for p, idx in outs for i in (range(model.out_slot[p][1]) if idx is None else [idx])]
