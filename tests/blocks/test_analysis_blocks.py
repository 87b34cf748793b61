"""Joint-reaction and torque-decomposition blocks against the independent formulations."""

from __future__ import annotations

import numpy as np

from blocks import Diagram, Runner, compile_diagram
from blocks.core import CompileContext
from blocks.library.analysis import JointReactions, TorqueDecomposition
from blocks.library.context import BIPED, biped_of
from models import newton_euler
from models.biped import BipedParams, FiveLinkBiped


def random_inputs(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"q": np.concatenate([rng.uniform(-1, 1, 2), rng.uniform(-1, 1, 5)]), "qd": rng.uniform(-3, 3, 7),
            "tau": rng.uniform(-80, 80, 4), "F": rng.uniform(-600, 600, 4)}


def test_reactions_block_matches_newton_euler() -> None:
    blk = JointReactions("r")
    for seed in range(20):
        u = random_inputs(seed)
        got = blk.probe(u=u).y["reaction"]
        ne = newton_euler.solve(BipedParams.paper(), u["q"], u["qd"], u["tau"], u["F"])
        want = np.concatenate([ne.hip_force.ravel(), ne.knee_force.ravel()])
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9 * np.abs(want).max())


def test_decomposition_parts_add_up_to_the_applied_torque() -> None:
    blk = TorqueDecomposition("d")
    ctx = CompileContext(resources={BIPED: BipedParams.scaled(mass=70, height=1.75)})
    for seed in range(20):
        u = random_inputs(seed)
        y = blk.probe(u=u, ctx=ctx).y
        total = y["inertial"] + y["coriolis"] + y["gravity"] + y["external"]
        np.testing.assert_allclose(total, u["tau"], rtol=1e-9, atol=1e-8)
        # gravity part = -generalised gravity on the joint rows
        g = FiveLinkBiped(biped_of(ctx)).generalized_forces(u["q"], u["qd"]).gravity[3:7]
        np.testing.assert_allclose(y["gravity"], -g, rtol=1e-12, atol=1e-12)


def test_analysis_diagram_runs_and_scopes_the_terms() -> None:
    from blocks.library.default_diagram import build_grf_walk_analysis

    d: Diagram = build_grf_walk_analysis()
    m = compile_diagram(d, dataset="sneakers", t_end=0.5)
    r = Runner(m, capacity=600).run(0.5)
    assert r.status == "ok"
    dec = {k: r[f"decomp.{k}"] for k in ("inertial", "coriolis", "gravity", "external")}
    # sampled every 10 ms: held in between; parts add up to the applied torque at the sample ticks
    ticks = np.arange(0, 500, 10)
    np.testing.assert_allclose(sum(dec.values())[ticks], r["switch.tau"][ticks], rtol=1e-7, atol=1e-6)
    # in stance the knee's external (GRF) term dominates the inertial one
    stance = r["phase.stance"][ticks, 0] > 0.5
    assert np.mean(np.abs(dec["external"][ticks][stance, 2])) > np.mean(np.abs(dec["inertial"][ticks][stance, 2]))
    assert np.all(np.isfinite(r["reactions.reaction"]))
