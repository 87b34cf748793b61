"""Generic blocks: sources, gain, sum, mux/selector, unit delay, integrator, state space,
function and scope tap. All signals are float64 vectors; units pass through unchanged."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from blocks.core import Block, CompileContext, Kernels, ParameterValueError, Params, Ports, PortSpec, Vec
from blocks.core import ParamSpec as P
from blocks.library import generic_kernels as gk

__all__ = ["Constant", "Step", "Gain", "Sum", "Mux", "Selector", "UnitDelay", "Integrator", "StateSpace",
           "Function", "Scope", "FUNCTIONS", "register_function"]

_N = P(1, min=1, max=100000, tunable=False, description="signal width")

FUNCTIONS: dict[str, Callable[[np.ndarray, np.ndarray], Any]] = {}


def register_function(name: str) -> Callable[[Callable[[np.ndarray, np.ndarray], Any]],
                                             Callable[[np.ndarray, np.ndarray], Any]]:
    """Decorator: make ``f(u, p)`` usable by name in saved diagrams (``Function(func=name)``)."""
    def deco(f: Callable[[np.ndarray, np.ndarray], Any]) -> Callable[[np.ndarray, np.ndarray], Any]:
        FUNCTIONS[name] = f
        return f
    return deco


class Constant(Block):
    """Constant vector ``y = value``.

    Outputs: ``y`` (len(value)).
    """

    params = {"value": P((0.0,), description="the constant vector")}
    dynamic_ports = True
    feedthrough = "none"

    def port_specs(self) -> tuple[tuple[PortSpec, ...], tuple[PortSpec, ...]]:
        return (), (PortSpec("y", len(self.values["value"])),)

    def output(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, y: Ports) -> None:
        y[0][:] = p.value

    def kernels(self) -> Kernels:
        return Kernels(output=gk.copy_p)

    def pack(self, p: Params) -> np.ndarray:
        return np.array(p.value, dtype=np.float64).reshape(-1)


class Step(Block):
    """Step source: ``y = before`` for ``t < t_step``, else ``after`` (every element).

    Outputs: ``y`` (n).
    """

    params = {"t_step": P(0.0, min=-1e9, max=1e9, unit="s", description="step time"),
              "before": P(0.0, description="value before the step"),
              "after": P(1.0, description="value from the step on"), "n": _N}
    outputs = (PortSpec("y", "n"),)
    time_varying = True

    def output(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, y: Ports) -> None:
        y[0].fill(p.after if t >= p.t_step else p.before)

    def kernels(self) -> Kernels:
        return Kernels(output=gk.step_output)

    def pack(self, p: Params) -> np.ndarray:
        return np.array([p.t_step, p.before, p.after])


class Gain(Block):
    """``y = k u``.

    Inputs: ``u`` (n). Outputs: ``y`` (n). ``k`` is tunable.
    """

    params = {"k": P(1.0, min=-1e9, max=1e9, description="gain"), "n": _N}
    inputs = (PortSpec("u", "n"),)
    outputs = (PortSpec("y", "n"),)
    vectorisable = True

    def output(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, y: Ports) -> None:
        np.multiply(u[0], p.k, y[0])

    def kernels(self) -> Kernels:
        return Kernels(output=gk.gain_output)

    def pack(self, p: Params) -> np.ndarray:
        return np.array([p.k])


class Sum(Block):
    """``y = sum_i s_i u_i`` with signs ``s_i`` from the text ``signs`` (e.g. ``"+-"``).

    Inputs: ``u1 .. uN`` (n each). Outputs: ``y`` (n).
    """

    params = {"signs": P("++", tunable=False, description="one '+' or '-' per input"), "n": _N}
    dynamic_ports = True
    vectorisable = True

    def check(self, values: Mapping[str, Any]) -> None:
        s = values["signs"]
        if not s or set(s) - {"+", "-"}:
            raise ParameterValueError(f"block '{self.name}': signs must be made of '+' and '-', got {s!r}")

    def port_specs(self) -> tuple[tuple[PortSpec, ...], tuple[PortSpec, ...]]:
        n = int(self.values["n"])
        return (tuple(PortSpec(f"u{i + 1}", n) for i in range(len(self.values["signs"]))),
                (PortSpec("y", n),))

    def derive(self, p: Params, ctx: CompileContext) -> None:
        p.set("_neg", tuple(c == "-" for c in p.signs))
        p.set("_two", {"++": np.add, "+-": np.subtract}.get(p.signs))

    def output(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, y: Ports) -> None:
        if p._two is not None:
            p._two(u[0], u[1], y[0])
            return
        out = y[0]
        if p._neg[0]:
            np.negative(u[0], out=out)
        else:
            out[:] = u[0]
        for ui, neg in zip(u[1:], p._neg[1:]):
            if neg:
                out -= ui
            else:
                out += ui

    def kernels(self) -> Kernels:
        return Kernels(output=gk.sum_output)

    def pack(self, p: Params) -> np.ndarray:
        """One sign per input, ``-1.0`` or ``+1.0`` (``-1 * u`` is ``-u`` exactly)."""
        return np.array([-1.0 if neg else 1.0 for neg in p._neg])


class Mux(Block):
    """Concatenate inputs: ``y = [u1; u2; ...]``.

    Inputs: ``u1 .. uN`` with sizes ``sizes``. Outputs: ``y`` (sum of sizes).
    """

    params = {"sizes": P((1.0, 1.0), min=1, max=100000, tunable=False, description="width of each input")}
    dynamic_ports = True

    def check(self, values: Mapping[str, Any]) -> None:
        if not values["sizes"] or any(v != int(v) for v in values["sizes"]):
            raise ParameterValueError(f"block '{self.name}': sizes must be whole numbers, got {values['sizes']}")

    def port_specs(self) -> tuple[tuple[PortSpec, ...], tuple[PortSpec, ...]]:
        sizes = [int(s) for s in self.values["sizes"]]
        return tuple(PortSpec(f"u{i + 1}", s) for i, s in enumerate(sizes)), (PortSpec("y", sum(sizes)),)

    def output(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, y: Ports) -> None:
        np.concatenate(u, out=y[0])

    def kernels(self) -> Kernels:
        return Kernels(output=gk.mux_output)


class Selector(Block):
    """Pick elements: ``y_j = u[indices_j]`` (0-based).

    Inputs: ``u`` (n). Outputs: ``y`` (len(indices)).
    """

    params = {"indices": P((0.0,), min=0, max=99999, tunable=False, description="0-based element indices"),
              "n": _N}
    dynamic_ports = True

    def check(self, values: Mapping[str, Any]) -> None:
        idx = values["indices"]
        if not idx or any(i != int(i) or i >= values["n"] for i in idx):
            raise ParameterValueError(f"block '{self.name}': indices {idx} must be whole numbers "
                                      f"below n = {values['n']}")

    def port_specs(self) -> tuple[tuple[PortSpec, ...], tuple[PortSpec, ...]]:
        return (PortSpec("u", int(self.values["n"])),), (PortSpec("y", len(self.values["indices"])),)

    def derive(self, p: Params, ctx: CompileContext) -> None:
        idx = [int(i) for i in p.indices]
        run = idx == list(range(idx[0], idx[0] + len(idx)))
        p.set("_sel", slice(idx[0], idx[0] + len(idx)) if run else np.array(idx, dtype=np.intp))

    def output(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, y: Ports) -> None:
        y[0][:] = u[0][p._sel]

    def kernels(self) -> Kernels:
        return Kernels(output=gk.selector_output)

    def pack(self, p: Params) -> np.ndarray:
        return np.array(p.indices, dtype=np.float64).reshape(-1)


class UnitDelay(Block):
    """``y_k = u_{k-1}`` (``y_0 = initial``): breaks algebraic loops.

    Inputs: ``u`` (n). Outputs: ``y`` (n). Discrete state: the held value.
    """

    params = {"initial": P(0.0, description="output before the first sample"), "n": _N}
    inputs = (PortSpec("u", "n"),)
    outputs = (PortSpec("y", "n"),)
    feedthrough = "none"
    discrete = True
    n_discrete = "n"

    def initial_discrete(self, p: Params, ctx: CompileContext) -> np.ndarray:
        return np.full(int(p.n), p.initial)

    def output(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, y: Ports) -> None:
        y[0][:] = z

    def update(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, znext: Vec) -> None:
        znext[:] = u[0]

    def kernels(self) -> Kernels:
        return Kernels(output=gk.copy_z, update=gk.copy_u_next)


class Integrator(Block):
    """``dx/dt = u``, ``y = x``, ``x(t0) = x0``.

    Inputs: ``u`` (n). Outputs: ``y`` (n). Continuous state: ``x`` (n).
    """

    params = {"x0": P(0.0, description="initial value (every element)"), "n": _N}
    inputs = (PortSpec("u", "n"),)
    outputs = (PortSpec("y", "n"),)
    feedthrough = "none"
    n_states = "n"
    vectorisable = True

    def initial_state(self, p: Params, ctx: CompileContext) -> np.ndarray:
        return np.full(int(p.n), p.x0)

    def output(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, y: Ports) -> None:
        y[0][:] = x

    def derivative(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, dx: Vec) -> None:
        dx[:] = u[0]

    def kernels(self) -> Kernels:
        return Kernels(output=gk.copy_x, derivative=gk.copy_u_next)


class StateSpace(Block):
    """Linear system ``dx/dt = A x + B u``, ``y = C x + D u``, ``x(t0) = x0``.

    Matrices are given row-major flattened: ``a`` (n*n), ``b`` (n*m), ``c`` (l*n), ``d`` (l*m),
    tunable. Inputs: ``u`` (m). Outputs: ``y`` (l). Feedthrough exactly when ``d`` is nonzero.
    """

    params = {"a": P((-1.0,), description="A, n x n row-major"), "b": P((1.0,), description="B, n x m"),
              "c": P((1.0,), description="C, l x n"), "d": P((0.0,), description="D, l x m"),
              "x0": P((0.0,), description="initial state (n)"),
              "n": _N, "m": P(1, min=1, max=1000, tunable=False, description="inputs"),
              "l": P(1, min=1, max=1000, tunable=False, description="outputs")}
    inputs = (PortSpec("u", "m"),)
    outputs = (PortSpec("y", "l"),)
    n_states = "n"

    def check(self, values: Mapping[str, Any]) -> None:
        n, m, l = values["n"], values["m"], values["l"]
        for key, size in (("a", n * n), ("b", n * m), ("c", l * n), ("d", l * m), ("x0", n)):
            if len(values[key]) != size:
                raise ParameterValueError(f"block '{self.name}': '{key}' needs {size} values, got {len(values[key])}")

    def feedthrough_pairs(self) -> frozenset[tuple[str, str]]:
        return frozenset({("u", "y")}) if any(self.values["d"]) else frozenset()

    def derive(self, p: Params, ctx: CompileContext) -> None:
        n, m, l = int(p.n), int(p.m), int(p.l)
        p.set("_A", p.a.reshape(n, n))
        p.set("_B", p.b.reshape(n, m))
        p.set("_C", p.c.reshape(l, n))
        p.set("_D", p.d.reshape(l, m))
        p.set("_AB", np.hstack([p._A, p._B]))
        p.set("_CD", np.hstack([p._C, p._D]))
        p.set("_has_d", bool(np.any(p.d)))

    def initial_state(self, p: Params, ctx: CompileContext) -> np.ndarray:
        return np.array(p.x0, dtype=np.float64)

    def output(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, y: Ports) -> None:
        if p._has_d:
            np.dot(p._CD, np.concatenate((x, u[0])), y[0])
        else:
            np.dot(p._C, x, y[0])

    def derivative(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, dx: Vec) -> None:
        np.dot(p._AB, np.concatenate((x, u[0])), dx)

    def kernels(self) -> Kernels:
        return Kernels(output=gk.ss_output, derivative=gk.ss_derivative)

    def pack(self, p: Params) -> np.ndarray:
        """``[n, m, l, a (n n), b (n m), c (l n), d (l m)]``, matrices row-major."""
        return np.concatenate(([float(p.n), float(p.m), float(p.l)], p.a, p.b, p.c, p.d)).astype(np.float64)


class Function(Block):
    """``y = f(u, params)`` for any function ``f`` (pure: it must not keep state).

    ``func`` is a function (Python API) or the name of one registered with
    :func:`register_function` (saved diagrams: never evaluated text). ``params`` is a
    tunable vector handed to ``f``. Inputs: ``u`` (n_in). Outputs: ``y`` (n_out).
    """

    params = {"func": P("", kind="callable", tunable=False, description="function f(u, p) or registered name"),
              "params": P((0.0,), description="parameter vector p passed to f"),
              "n_in": P(1, min=1, max=100000, tunable=False, description="input width"),
              "n_out": P(1, min=1, max=100000, tunable=False, description="output width"),
              "feedthrough": P(True, tunable=False, description="y depends on u at the same instant")}
    inputs = (PortSpec("u", "n_in"),)
    outputs = (PortSpec("y", "n_out"),)

    def check(self, values: Mapping[str, Any]) -> None:
        f = values["func"]
        if isinstance(f, str) and f not in FUNCTIONS:
            raise ParameterValueError(f"block '{self.name}': function {f!r} is not registered; registered: "
                                      f"{', '.join(sorted(FUNCTIONS)) or 'none'}")

    def feedthrough_pairs(self) -> frozenset[tuple[str, str]]:
        return frozenset({("u", "y")}) if self.values["feedthrough"] else frozenset()

    def derive(self, p: Params, ctx: CompileContext) -> None:
        p.set("_f", FUNCTIONS[p.func] if isinstance(p.func, str) else p.func)

    def output(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, y: Ports) -> None:
        y[0][:] = p._f(u[0], p.params)


class Scope(Block):
    """Recorder/scope tap: logs its input as ``"<name>.u"``; no outputs.

    Inputs: ``u`` (n).
    """

    params = {"n": _N, "unit": P("", tunable=False, description="unit shown on the scope axis")}
    inputs = (PortSpec("u", "n"),)
    feedthrough = "none"

    def port_specs(self) -> tuple[tuple[PortSpec, ...], tuple[PortSpec, ...]]:
        ins, outs = super().port_specs()
        return (replace(ins[0], unit=self.values["unit"]),), outs

    def kernels(self) -> Kernels:
        return Kernels()  # a tap: nothing to compute (the recorder reads its input)
