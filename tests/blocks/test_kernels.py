"""Every block's compiled form (its kernels) computes what its Python callbacks compute.

The shipped walking diagrams run on a real bundled recording under each preset; at ticks spread
over stance and swing of both legs, each block with kernels is evaluated both ways on the live
inputs and states (:func:`blocks.kernels.kernel_mismatch`).
"""

from __future__ import annotations

import numpy as np
import pytest

from app.runs import RunSpec, build
from blocks.core import Params
from blocks.kernels import kernel_mismatch, probe_kernels

TOL = 1e-12


@pytest.mark.parametrize("preset", ["tracking", "emergent"])
@pytest.mark.parametrize("diagram", ["grf_walk", "grf_walk_analysis"])
def test_kernels_match_callbacks_on_a_walk(preset: str, diagram: str) -> None:
    from app.runs import default_diagram_path

    path = default_diagram_path().with_name(f"{diagram}.json")
    built = build(RunSpec(diagram=path, preset=preset, duration=1.6, dataset="sneakers"))
    runner = built.runner
    worst: dict[str, float] = {}
    for _ in range(16):  # 1.6 s: a loading, a toe-off and a heel strike of each leg
        runner.advance(100)
        for name, err in kernel_mismatch(runner).items():
            worst[name] = max(worst.get(name, 0.0), err)
    bad = {n: e for n, e in worst.items() if not e <= TOL}
    assert not bad, f"kernels differ from the Python callbacks (scaled error > {TOL}): {bad}"


def test_a_wrong_kernel_is_caught() -> None:
    """The check can fail: a Gain whose kernel doubled its output would be reported."""
    from blocks.core import Block, CompileContext, Kernels, PortSpec
    from blocks.core import ParamSpec as P

    class _Half(Block, register=False):
        params = {"k": P(2.0)}
        inputs = (PortSpec("u", 1),)
        outputs = (PortSpec("y", 1),)

        def output(self, t, x, z, u, p, y):  # noqa: ANN001
            y[0][0] = p.k * u[0][0]

        def kernels(self) -> Kernels:
            return Kernels(output=_wrong)

        def pack(self, p: Params) -> np.ndarray:
            return np.array([p.k])

    def _wrong(t, x, z, u0, p, y0):  # noqa: ANN001
        y0[0] = 2.0 * p[0] * u0[0]

    blk = _Half("h")
    p = blk.make_params(CompileContext())
    got = probe_kernels(blk, p, 0.0, (np.array([3.0]),), np.zeros(0), np.zeros(0))
    assert got.y["y"][0] == 12.0 != blk.probe(0.0, {"u": [3.0]}).y["y"][0]

