"""A custom block: a first-order lag ``tau y' = u - y``, defined here and used in a diagram.

A block declares its parameters (``ParamSpec``: default, range, unit), ports and callbacks;
subclassing :class:`blocks.core.Block` registers it by its class name, so diagrams (and
diagram files) can use ``"FirstOrderLag"`` like any library block.

Run:  python examples/custom_block.py
"""

from __future__ import annotations

import numpy as np

from blocks import Diagram, Runner, compile_diagram
from blocks.core import Block, CompileContext, Params, Ports, PortSpec, Vec
from blocks.core import ParamSpec as P
from blocks.diagram import SolverSettings


class FirstOrderLag(Block):
    """``dy/dt = (u - y) / tau``, ``y(t0) = y0``. Input ``u``, output ``y``, one state."""

    params = {"tau": P(0.5, min=1e-6, max=1e6, unit="s", description="time constant"),
              "y0": P(0.0, description="initial output")}
    inputs = (PortSpec("u", 1),)
    outputs = (PortSpec("y", 1),)
    feedthrough = "none"
    n_states = 1

    def initial_state(self, p: Params, ctx: CompileContext) -> np.ndarray:
        return np.array([p.y0])

    def output(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, y: Ports) -> None:
        y[0][:] = x

    def derivative(self, t: float, x: Vec, z: Vec, u: Ports, p: Params, dx: Vec) -> None:
        dx[:] = (u[0] - x) / p.tau


def response(tau: float = 0.5, t_end: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    d = Diagram("lag", solver=SolverSettings(dt=1e-3, t_end=t_end))
    d.add("step", "Step", t_step=0.0, before=0.0, after=1.0)
    d.add("lag", "FirstOrderLag", tau=tau)
    d.connect("step.y", "lag.u")
    res = Runner(compile_diagram(d)).run()
    return res.t, res["lag.y"].reshape(-1)


def main() -> None:
    t, y = response()
    exact = 1.0 - np.exp(-t / 0.5)
    print(f"y(0.5 s) = {np.interp(0.5, t, y):.4f} (exact 1 - 1/e = {1 - np.exp(-1):.4f}); "
          f"largest error against the exact response {np.abs(y - exact).max():.1e}")


if __name__ == "__main__":
    main()
