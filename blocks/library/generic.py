"""Generic blocks: sources, gain, sum, mux/selector, unit delay, integrator, state space,
function and scope tap. All signals are float64 vectors; units pass through unchanged.

The laws are the kernels of :mod:`blocks.library.generic_kernels` (both engines run them), which read
the packed vectors these classes declare (``packed``, :mod:`blocks.packing`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from blocks.core import Block, CompileContext, Kernels, ParameterValueError, Params, Ports, PortSpec, Vec
from blocks.core import ParamSpec as P

if TYPE_CHECKING:
    from types import ModuleType

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


def _gk() -> ModuleType:
    """The kernels' module (it reads the layouts of the classes below, so it is imported after them)."""
    from blocks.library import generic_kernels

    return generic_kernels


class Constant(Block):
    """Constant vector ``y = value``.

    Outputs: ``y`` (len(value)).
    """

    params = {"value": P((0.0,), description="the constant vector")}
    dynamic_ports = True
    feedthrough = "none"

    def port_specs(self) -> tuple[tuple[PortSpec, ...], tuple[PortSpec, ...]]:
        return (), (PortSpec("y", len(self.values["value"])),)

    packed = ("value",)

    def kernels(self) -> Kernels:
        return Kernels(output=_gk().constant_output)


class Step(Block):
    """Step source: ``y = before`` for ``t < t_step``, else ``after`` (every element).

    Outputs: ``y`` (n).
    """

    params = {"t_step": P(0.0, min=-1e9, max=1e9, unit="s", description="step time"),
              "before": P(0.0, description="value before the step"),
              "after": P(1.0, description="value from the step on"), "n": _N}
    outputs = (PortSpec("y", "n"),)
    time_varying = True

    packed = ("t_step", "before", "after")

    def kernels(self) -> Kernels:
        return Kernels(output=_gk().step_output)


class Gain(Block):
    """``y = k u``.

    Inputs: ``u`` (n). Outputs: ``y`` (n). ``k`` is tunable.
    """

    params = {"k": P(1.0, min=-1e9, max=1e9, description="gain"), "n": _N}
    inputs = (PortSpec("u", "n"),)
    outputs = (PortSpec("y", "n"),)
    vectorisable = True

    packed = ("k",)

    def kernels(self) -> Kernels:
        return Kernels(output=_gk().gain_output)


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

    packed = ("_sign[]",)

    def derive(self, p: Params, ctx: CompileContext) -> None:
        p.set("_sign", tuple(-1.0 if c == "-" else 1.0 for c in p.signs))

    def kernels(self) -> Kernels:
        return Kernels(output=_gk().sum_output)


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

    def kernels(self) -> Kernels:
        return Kernels(output=_gk().mux_output)


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

    packed = ("indices",)

    def kernels(self) -> Kernels:
        return Kernels(output=_gk().selector_output)


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

    def kernels(self) -> Kernels:
        return Kernels(output=_gk().copy_z, update=_gk().copy_u_next)


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

    def kernels(self) -> Kernels:
        return Kernels(output=_gk().copy_x, derivative=_gk().copy_u_next)


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

    packed = ("a", "b", "c", "d")

    def initial_state(self, p: Params, ctx: CompileContext) -> np.ndarray:
        return np.array(p.x0, dtype=np.float64)

    def kernels(self) -> Kernels:
        return Kernels(output=_gk().ss_output, derivative=_gk().ss_derivative)


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
