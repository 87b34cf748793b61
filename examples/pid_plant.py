"""A PID on a plant, built in code: a 1 kg mass on a spring (k = 20 N/m) and a damper (c = 2 N s/m)
driven to a 1 m step by the library's PID block.

    m x'' = u - c x' - k x          (a StateSpace block, states x and x')
    u = PID(ref - x)                (kp 200 N/m, ki 100 N/(m s), kd 30 N s/m)

Run:  python examples/pid_plant.py
"""

from __future__ import annotations

import numpy as np

from blocks import Diagram, Runner, compile_diagram
from blocks.diagram import SolverSettings

M, K, C = 1.0, 20.0, 2.0


def build(kp: float = 200.0, ki: float = 100.0, kd: float = 30.0) -> Diagram:
    d = Diagram("pid_plant", solver=SolverSettings(dt=1e-3, t_end=4.0))
    d.add("ref", "Step", t_step=0.5, before=0.0, after=1.0)
    d.add("on", "Constant", value=(1.0,))  # the PID drives the plant all the time
    d.add("zero", "Constant", value=(0.0,))  # nothing to track (bumpless transfer input)
    d.add("pid", "PID", kp=kp, ki=ki, kd=kd, u_max=1e4, n=1)
    d.add("plant", "StateSpace", a=(0.0, 1.0, -K / M, -C / M), b=(0.0, 1.0 / M), c=(1.0, 0.0), x0=(0.0, 0.0), n=2)
    for a, b in (("ref.y", "pid.ref"), ("plant.y", "pid.meas"), ("on.y", "pid.enable"), ("zero.y", "pid.track"),
                 ("pid.u", "plant.u")):
        d.connect(a, b)
    return d


def step_response(**gains: float) -> tuple[np.ndarray, np.ndarray]:
    res = Runner(compile_diagram(build(**gains))).run()
    return res.t, res["plant.y"].reshape(-1)


def main() -> None:
    t, x = step_response()
    after = t >= 0.5
    settle = t[after][np.flatnonzero(np.abs(x[after] - 1.0) > 0.02)[-1]] - 0.5
    print(f"final position {x[-1]:.4f} m, overshoot {100 * (x.max() - 1.0):.1f} %, 2 % settling {settle:.2f} s")


if __name__ == "__main__":
    main()
