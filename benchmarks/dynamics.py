"""Speed of the five-link forward dynamics: microseconds per call, printed (never asserted).

Times, in one run and on the same random states:

* our compiled kernel (numba), single state and batched at N = 1000;
* the plain numpy reference of the same physics (``models._eom_numpy``), single and batched;
* MuJoCo ``mj_forward`` on an equivalent planar MJCF model, if ``mujoco`` is installed
  (``pip install gaitblocks[mujoco]``).

Each figure is the median of several repeats. Run: ``python benchmarks/dynamics.py``.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import numpy as np

from models.biped import BipedParams, FiveLinkBiped

REPEATS = 7


def median_us(fn: Callable[[], object], calls: int, per: int = 1) -> float:
    """Median over REPEATS of the wall time per call (or per item when ``per`` > 1), in us."""
    fn()  # warm-up (and compilation)
    samples = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        samples.append((time.perf_counter() - t0) / (calls * per) * 1e6)
    return statistics.median(samples)


def mjcf(p: BipedParams) -> str:
    """A planar five-link biped in MJCF: x forward, z up, hinges about y, no contacts."""

    def leg(side: str) -> str:
        return f"""
      <body name="thigh_{side}" pos="0 0 {-p.trunk.com}">
        <joint name="hip_{side}" type="hinge" axis="0 1 0"/>
        <inertial pos="0 0 {-p.thigh.com}" mass="{p.thigh.mass}"
                  diaginertia="{p.thigh.inertia} {p.thigh.inertia} 1e-6"/>
        <body name="shank_{side}" pos="0 0 {-p.thigh.length}">
          <joint name="knee_{side}" type="hinge" axis="0 1 0"/>
          <inertial pos="0 0 {-p.shank.com}" mass="{p.shank.mass}"
                    diaginertia="{p.shank.inertia} {p.shank.inertia} 1e-6"/>
        </body>
      </body>"""

    return f"""<mujoco>
  <option gravity="0 0 -{p.g}" timestep="0.001"><flag contact="disable"/></option>
  <worldbody>
    <body name="trunk" pos="0 0 1.2">
      <joint name="x0" type="slide" axis="1 0 0"/>
      <joint name="y0" type="slide" axis="0 0 1"/>
      <joint name="alpha" type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 0" mass="{p.trunk.mass}"
                diaginertia="{p.trunk.inertia} {p.trunk.inertia} 1e-6"/>{leg("l")}{leg("r")}
    </body>
  </worldbody>
</mujoco>"""


def main() -> None:
    rng = np.random.default_rng(0)
    n = 1000
    Q = np.concatenate([rng.uniform(-1, 1, (n, 2)), rng.uniform(-1, 1, (n, 5))], axis=1)
    QD = rng.uniform(-3, 3, (n, 7))
    TAU = rng.uniform(-50, 50, (n, 4))
    GRF = rng.uniform(-500, 500, (n, 4))
    out = np.empty((n, 7))
    fast = FiveLinkBiped(backend="numba")
    plain = FiveLinkBiped(backend="numpy")
    q, qd, tau, grf = Q[0], QD[0], TAU[0], GRF[0]

    rows: list[tuple[str, float]] = [
        ("gaitblocks numba, single state", median_us(lambda: fast.forward_dynamics(q, qd, tau, grf), 20000)),
        ("gaitblocks numba, batched N=1000 (per state)",
         median_us(lambda: fast.forward_dynamics_batch(Q, QD, TAU, GRF, out=out), 50, per=n)),
        ("numpy reference, single state", median_us(lambda: plain.forward_dynamics(q, qd, tau, grf), 2000)),
        ("numpy reference, batched N=1000 (per state)",
         median_us(lambda: plain.forward_dynamics_batch(Q, QD, TAU, GRF), 20, per=n)),
    ]
    try:
        import mujoco
    except ImportError:
        mj_note = "MuJoCo: not installed (pip install 'gaitblocks[mujoco]' to compare)"
    else:
        model = mujoco.MjModel.from_xml_string(mjcf(BipedParams.paper()))
        data = mujoco.MjData(model)
        data.qpos[:] = q
        data.qvel[:] = qd
        data.qfrc_applied[3:] = tau[[0, 2, 1, 3]]
        rows.append(("MuJoCo mj_forward, single state", median_us(lambda: mujoco.mj_forward(model, data), 20000)))
        mj_note = f"MuJoCo {mujoco.__version__}"

    ref_single = rows[2][1]
    print(f"five-link forward dynamics, microseconds per call (median of {REPEATS} repeats)")
    print(f"{'implementation':48s} {'us':>9s} {'vs numpy single':>16s}")
    for name, us in rows:
        print(f"{name:48s} {us:9.3f} {ref_single / us:15.1f}x")
    print(mj_note)
    print("goals: single <= 10 us, batched <= 2 us per state")


if __name__ == "__main__":
    main()
