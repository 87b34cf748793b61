"""Generic blocks: sources, gain, sum, mux/selector, unit delay, integrator, state space,
function and scope tap. All signals are float64 vectors; units pass through unchanged.

The width ``n`` of Gain, Sum, Selector (its input), UnitDelay, Integrator and Scope is inherited
by default (``n = -1``, :data:`~blocks.spec.INHERIT`): the compiler sets it to the width of the
signal wired in (:mod:`blocks.widths`); a number fixes it and is checked. A scalar ``k``, ``x0`` or
``initial`` applies to every element; the per-element lists of ``x0`` and ``initial`` must have
``n`` values. Step's ``n`` (a source) defaults to 1.

The laws are the kernels below, each before its class (which states it), on the packed vectors these
classes declare (``packed``, :mod:`blocks.packing`), with the engine's contract (``docs/engine.md``, "The
kernel contract"); Sum's signs are ``-1.0`` or ``+1.0`` (``-1 * u`` is ``-u`` exactly).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from blocks.core import Block, CompileContext, Kernels, ParameterValueError, Params, Ports, PortSpec, Vec
from blocks.core import ParamSpec as P
from blocks.kernels import kernel, seg
from blocks.spec import INHERIT

__all__ = ["Constant", "Step", "Gain", "Sum", "Mux", "Selector", "UnitDelay", "Integrator", "StateSpace",
           "Function", "Scope", "FUNCTIONS", "register_function"]

_N = P(1, min=1, max=100000, tunable=False, description="signal width")
_WIDTH = P(INHERIT, min=1, max=100000, tunable=False, inherit=True,
           description="signal width; -1 = inherit the input's width at compile")

FUNCTIONS: dict[str, Callable[[np.ndarray, np.ndarray], Any]] = {}


def register_function(name: str) -> Callable[[Callable[[np.ndarray, np.ndarray], Any]],
                                             Callable[[np.ndarray, np.ndarray], Any]]:
    """Decorator: make ``f(u, p)`` usable by name in saved diagrams (``Function(func=name)``)."""
    def deco(f: Callable[[np.ndarray, np.ndarray], Any]) -> Callable[[np.ndarray, np.ndarray], Any]:
        FUNCTIONS[name] = f
        return f
    return deco


@kernel
def constant_output(t, x, z, p, y):
    v = seg(p, _VALUE)
    for i in range(y.size):
        y[i] = v[i]


@kernel
def step_output(t, x, z, p, y):
    v = p[_AFTER] if t >= p[_T_STEP] else p[_BEFORE]
    for i in range(y.size):
        y[i] = v


@kernel
def gain_output(t, x, z, u, p, y):
    for i in range(y.size):
        y[i] = u[i] * p[_K]


@kernel
def sum_output(t, x, z, *a):
    # a = (u_1, ..., u_m, p, y): one kernel for every input count (numba types *a per arity)
    m = len(a) - 2
    sign = seg(a[m], _SIGN)
    y = a[m + 1]
    for i in range(y.size):
        acc = a[0][i] if sign[0] > 0.0 else -a[0][i]
        for j in range(1, m):
            if sign[j] > 0.0:
                acc += a[j][i]
            else:
                acc -= a[j][i]
        y[i] = acc


@kernel
def mux_output(t, x, z, *a):
    # a = (u_1, ..., u_m, p, y)
    m = len(a) - 2
    y = a[m + 1]
    k = 0
    for j in range(m):
        uj = a[j]
        for i in range(uj.size):
            y[k] = uj[i]
            k += 1


@kernel
def selector_output(t, x, z, u, p, y):
    idx = seg(p, _INDICES)
    for j in range(y.size):
        y[j] = u[int(idx[j])]


@kernel
def copy_z(t, x, z, u, p, y):
    for i in range(y.size):
        y[i] = z[i]


@kernel
def copy_u_next(t, x, z, u, p, znext):
    for i in range(znext.size):
        znext[i] = u[i]


@kernel
def copy_x(t, x, z, u, p, y):
    for i in range(y.size):
        y[i] = x[i]


@kernel
def ss_rows(mx, mu, x, u, y):
    # y = [Mx | Mu] [x; u], Mx (rows x n) and Mu (rows x m) row-major
    n, m = x.size, u.size
    for r in range(y.size):
        acc = 0.0
        for j in range(n):
            acc += mx[r * n + j] * x[j]
        for j in range(m):
            acc += mu[r * m + j] * u[j]
        y[r] = acc


@kernel
def ss_output(t, x, z, u, p, y):
    ss_rows(seg(p, _C), seg(p, _D), x, u, y)


@kernel
def ss_derivative(t, x, z, u, p, dx):
    ss_rows(seg(p, _A), seg(p, _B), x, u, dx)


class Constant(Block):
    """Constant vector ``y = value``.

    Outputs: ``y`` (len(value)).
    """

    params = {"value": P((0.0,), description="the constant vector")}
    dynamic_ports = True
    feedthrough = "none"
    law = Kernels(output=constant_output)

    def port_specs(self) -> tuple[tuple[PortSpec, ...], tuple[PortSpec, ...]]:
        return (), (PortSpec("y", len(self.values["value"])),)

    packed = ("value",)


class Step(Block):
    """Step source: ``y = before`` for ``t < t_step``, else ``after`` (every element)."""

    params = {"t_step": P(0.0, min=-1e9, max=1e9, unit="s", description="step time"),
              "before": P(0.0, description="value before the step"),
              "after": P(1.0, description="value from the step on"), "n": _N}
    outputs = (PortSpec("y", "n"),)
    time_varying = True

    packed = ("t_step", "before", "after")
    law = Kernels(output=step_output)


class Gain(Block):
    """``y = k u``."""

    params = {"k": P(1.0, min=-1e9, max=1e9, description="gain (every element)"), "n": _WIDTH}
    inputs = (PortSpec("u", "n"),)
    outputs = (PortSpec("y", "n"),)
    vectorisable = True

    packed = ("k",)
    law = Kernels(output=gain_output)


class Sum(Block):
    """``y = sum_i s_i u_i`` with signs ``s_i`` from the text ``signs`` (e.g. ``"+-"``).

    Inputs: ``u1 .. uN`` (n each). Outputs: ``y`` (n).
    """

    params = {"signs": P("++", tunable=False, description="one '+' or '-' per input"), "n": _WIDTH}
    dynamic_ports = True
    vectorisable = True
    law = Kernels(output=sum_output)

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


class Mux(Block):
    """Concatenate inputs: ``y = [u1; u2; ...]``.

    Inputs: ``u1 .. uN`` with sizes ``sizes``. Outputs: ``y`` (sum of sizes).
    """

    params = {"sizes": P((1.0, 1.0), min=1, max=100000, tunable=False, description="width of each input")}
    dynamic_ports = True
    law = Kernels(output=mux_output)

    def check(self, values: Mapping[str, Any]) -> None:
        if not values["sizes"] or any(v != int(v) for v in values["sizes"]):
            raise ParameterValueError(f"block '{self.name}': sizes must be whole numbers, got {values['sizes']}")

    def port_specs(self) -> tuple[tuple[PortSpec, ...], tuple[PortSpec, ...]]:
        sizes = [int(s) for s in self.values["sizes"]]
        return tuple(PortSpec(f"u{i + 1}", s) for i, s in enumerate(sizes)), (PortSpec("y", sum(sizes)),)


class Selector(Block):
    """Pick elements: ``y_j = u[indices_j]`` (0-based).

    Inputs: ``u`` (n). Outputs: ``y`` (len(indices)).
    """

    params = {"indices": P((0.0,), min=0, max=99999, tunable=False, description="0-based element indices"),
              "n": replace(_WIDTH, description="input width; -1 = inherit the input's width at compile")}
    dynamic_ports = True
    law = Kernels(output=selector_output)

    def check(self, values: Mapping[str, Any]) -> None:
        idx = values["indices"]
        if not idx or any(i != int(i) or (values["n"] != INHERIT and i >= values["n"]) for i in idx):
            raise ParameterValueError(f"block '{self.name}': indices {idx} must be whole numbers "
                                      f"below n = {values['n']}")

    def port_specs(self) -> tuple[tuple[PortSpec, ...], tuple[PortSpec, ...]]:
        return (PortSpec("u", int(self.values["n"])),), (PortSpec("y", len(self.values["indices"])),)

    packed = ("indices",)


class UnitDelay(Block):
    """``y_k = u_{k-1}`` (``y_0 = initial``): breaks algebraic loops. Discrete state: the held value."""

    params = {"initial": P(0.0, description="output before the first sample (one value, or one per element)",
                           size="n"), "n": _WIDTH}
    inputs = (PortSpec("u", "n"),)
    outputs = (PortSpec("y", "n"),)
    feedthrough = "none"
    discrete = True
    n_discrete = "n"
    law = Kernels(output=copy_z, update=copy_u_next)

    def initial_discrete(self, p: Params, ctx: CompileContext) -> np.ndarray:
        return np.full(int(p.n), p.initial)


class Integrator(Block):
    """``dx/dt = u``, ``y = x``, ``x(t0) = x0``: continuous state ``x`` (n)."""

    params = {"x0": P(0.0, description="initial value (one value, or one per element)", size="n"), "n": _WIDTH}
    inputs = (PortSpec("u", "n"),)
    outputs = (PortSpec("y", "n"),)
    feedthrough = "none"
    n_states = "n"
    vectorisable = True
    law = Kernels(output=copy_x, derivative=copy_u_next)

    def initial_state(self, p: Params, ctx: CompileContext) -> np.ndarray:
        return np.full(int(p.n), p.x0)


class StateSpace(Block):
    """Linear system ``dx/dt = A x + B u``, ``y = C x + D u``, ``x(t0) = x0``.

    Matrices are given row-major flattened: ``a`` (n*n), ``b`` (n*m), ``c`` (l*n), ``d`` (l*m),
    tunable. Feedthrough exactly when ``d`` is nonzero.
    """

    params = {"a": P((-1.0,), description="A, n x n row-major"), "b": P((1.0,), description="B, n x m"),
              "c": P((1.0,), description="C, l x n"), "d": P((0.0,), description="D, l x m"),
              "x0": P((0.0,), description="initial state (n)"),
              "n": _N, "m": P(1, min=1, max=1000, tunable=False, description="inputs"),
              "l": P(1, min=1, max=1000, tunable=False, description="outputs")}
    inputs = (PortSpec("u", "m"),)
    outputs = (PortSpec("y", "l"),)
    n_states = "n"
    law = Kernels(output=ss_output, derivative=ss_derivative)

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


class Function(Block):
    """``y = f(u, params)`` for any function ``f`` (pure: it must not keep state).

    ``func`` is a function (Python API) or the name of one registered with
    :func:`register_function` (saved diagrams: never evaluated text). ``params`` is a
    tunable vector handed to ``f``.
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
    """Recorder/scope tap: logs its input as ``"<name>.u"``; no outputs."""

    params = {"n": _WIDTH, "unit": P("", tunable=False, description="unit shown on the scope axis")}
    inputs = (PortSpec("u", "n"),)
    feedthrough = "none"
    law = Kernels()  # a tap: nothing to compute (the recorder reads its input)

    def port_specs(self) -> tuple[tuple[PortSpec, ...], tuple[PortSpec, ...]]:
        ins, outs = super().port_specs()
        return (replace(ins[0], unit=self.values["unit"]),), outs


#: where the kernels above read each packed entry (numba takes them as constants when it compiles)
_VALUE = Constant.packed_at("value")
_T_STEP, _BEFORE, _AFTER = Step.packed_at("t_step", "before", "after")
_K = Gain.packed_at("k")
_SIGN = Sum.packed_at("_sign")
_INDICES = Selector.packed_at("indices")
_A, _B, _C, _D = StateSpace.packed_at("a", "b", "c", "d")
