"""Diagrams of generic blocks for the engine tests (no data, no walking blocks), and a block with a
mode, kernels included: the compiled engine is tested on them independently of the walking library.

The mode block's type is registered only while a test module needs it (:func:`oscillator` registers
it, :func:`unregister` removes it), so the GUI palette tests never see it."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from blocks import Diagram
from blocks.core import BLOCK_TYPES, Block, Kernels, Params, Ports, PortSpec, Vec
from blocks.core import ParamSpec as P
from blocks.diagram import SolverSettings
from blocks.kernels import kernel


class TestHysteresis(Block, register=False):
    """Schmitt trigger: mode ``level`` goes high above ``hi``, low below ``lo``; ``y`` = the mode."""

    __test__ = False
    params = {"lo": P(-0.05), "hi": P(0.05)}
    inputs = (PortSpec("u", 1),)
    outputs = (PortSpec("y", 1),)
    feedthrough = "none"
    discrete = True
    n_discrete = 1
    modes = ("level",)
    mode_labels = {"level": {0: "low", 1: "high"}}

    def output(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, y: Ports) -> None:
        y[0][0] = z[0]

    def update(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, znext: Vec) -> None:
        v = u[0][0]
        znext[0] = 1.0 if v > p.hi else (0.0 if v < p.lo else z[0])

    def kernels(self) -> Kernels:
        return Kernels(output=_hyst_output, update=_hyst_update)

    def pack(self, p: Params) -> np.ndarray:
        return np.array([p.lo, p.hi])


@kernel
def _hyst_output(t, x, z, u, p, y):
    y[0] = z[0]


@kernel
def _hyst_update(t, x, z, u, p, znext):
    v = u[0]
    znext[0] = 1.0 if v > p[1] else (0.0 if v < p[0] else z[0])


def unregister() -> Iterator[None]:
    """Generator for a module-scoped fixture: yield, then drop the test block type."""
    yield
    BLOCK_TYPES.pop("TestHysteresis", None)


def oscillator(t_end: float = 2.0, dt: float = 1e-3) -> Diagram:
    """A damped oscillator (StateSpace) driven through a sampled PID toward a step, with a
    hysteresis mode on its position, a unit delay, an integrator and a mux: every kind of block
    (continuous, discrete with ``ts`` > dt, modes, feedthrough and not, arity-dependent)."""
    BLOCK_TYPES["TestHysteresis"] = TestHysteresis
    d = Diagram("engine_osc", solver=SolverSettings(dt=dt, t_end=t_end))
    d.add("plant", "StateSpace", n=2, m=1, l=2, a=(0.0, 1.0, -40.0, -0.4), b=(0.0, 1.0), c=(1.0, 0.0, 0.0, 1.0),
          d=(0.0, 0.0), x0=(0.1, 0.0))
    d.add("pos", "Selector", n=2, indices=(0.0,))
    d.add("ref", "Step", t_step=0.5, before=0.0, after=0.3)
    d.add("on", "Constant", value=(1.0,))
    d.add("trq", "Constant", value=(0.0,))
    d.add("pid", "PID", n=1, kp=20.0, ki=5.0, kd=1.0, tf=0.01, u_max=50.0, ts=0.002)
    d.add("err", "Sum", signs="+-")
    d.add("k", "Gain", k=0.5)
    d.add("total", "Sum", signs="++-")
    d.add("hold", "UnitDelay", ts=0.004)
    d.add("acc", "Integrator")
    d.add("mode", "TestHysteresis", lo=0.11, hi=0.2)
    d.add("mux", "Mux", sizes=(2.0, 1.0, 1.0))
    d.add("scope", "Scope", n=4)
    for a, b in [("plant.y", "pos.u"), ("ref.y", "pid.ref"), ("pos.y", "pid.meas"), ("on.y", "pid.enable"),
                 ("trq.y", "pid.track"), ("ref.y", "err.u1"), ("pos.y", "err.u2"), ("err.y", "k.u"),
                 ("pid.u", "total.u1"), ("k.y", "total.u2"), ("hold.y", "total.u3"), ("total.y", "plant.u"),
                 ("k.y", "hold.u"), ("err.y", "acc.u"), ("err.y", "mode.u"), ("plant.y", "mux.u1"),
                 ("acc.y", "mux.u2"), ("mode.y", "mux.u3"), ("mux.y", "scope.u")]:
        d.connect(a, b)
    return d


def runaway(t_end: float = 1.0) -> Diagram:
    """``dx/dt = g x`` with ``g`` (tunable) large: the state overflows to inf."""
    d = Diagram("engine_runaway", solver=SolverSettings(dt=1e-3, t_end=t_end))
    d.add("x", "Integrator", x0=1.0, n=1)   # nothing else in the loop gives it a width
    d.add("g", "Gain", k=2000.0)
    d.connect("x.y", "g.u")
    d.connect("g.y", "x.u")
    return d
