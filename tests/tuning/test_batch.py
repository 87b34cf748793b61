"""Batch engine: copy i of a vectorised batch equals the single run with its parameters (1e-9)."""

from __future__ import annotations

import numpy as np
import pytest

from blocks import Diagram, Runner, compile_diagram
from blocks.batch import BatchRunner, blockers, run_batch
from tests.tuning.pd_biped import pd_biped_diagram

KPS = (150.0, 400.0, 900.0)


def _pd_biped() -> Diagram:
    d = pd_biped_diagram(t_end=0.4)
    missing = blockers(compile_diagram(d))
    if missing:  # FiveLinkDynamics gets its kernels in the walking-blocks work
        pytest.skip("blocks without kernels: " + ", ".join(missing))
    return d


def test_batch_copies_equal_single_runs() -> None:
    d = _pd_biped()
    model = compile_diagram(d)
    assert blockers(model) == []
    overrides = [{"kp.k": -kp, "kd.k": -0.05 * kp} for kp in KPS]
    res = BatchRunner(model, overrides, logged=["body.q", "pd.y"]).run()
    assert res.status == ["ok"] * 3 and res.signals["body.q"].shape == (3, 401, 7)
    finals = []
    for i, ov in enumerate(overrides):
        single = d.copy()
        for ref, v in ov.items():
            single.set_param(ref, v)
        r = Runner(compile_diagram(single), logged=["body.q", "pd.y"]).run()
        np.testing.assert_allclose(res.signals["body.q"][i], r["body.q"], rtol=0, atol=1e-9)
        np.testing.assert_allclose(res.signals["pd.y"][i], r["pd.y"], rtol=0, atol=1e-9)
        finals.append(r["body.q"][-1, 3])
    assert len({round(f, 6) for f in finals}) == 3  # the copies really differ


def test_non_vectorisable_diagram_falls_back_to_processes() -> None:
    """The four-bar on solve_ivp (the compiled engine runs RK4 only): one process per copy."""
    from dataclasses import replace

    from app.runs import default_diagram_path

    d = Diagram.load(default_diagram_path().with_name("four_bar.json"))
    d.solver = replace(d.solver, method="solve_ivp")
    d.set_param("torque.t_step", 0.1)
    overrides = [{"torque.after": 20.0}, {"torque.after": 90.0}]
    res, path = run_batch(d, overrides, ["mech.q"], workers=2, t_end=0.3)
    assert path == "processes" and res.status == ["ok", "ok"]
    for i, ov in enumerate(overrides):
        single = d.copy()
        single.set_param("torque.after", ov["torque.after"])
        r = Runner(compile_diagram(single, t_end=0.3), logged=["mech.q"]).run()
        np.testing.assert_allclose(res.signals["mech.q"][i].reshape(r["mech.q"].shape), r["mech.q"], rtol=0, atol=1e-9)
    assert not np.allclose(res.signals["mech.q"][0, -1], res.signals["mech.q"][1, -1], atol=1e-9)


def test_batch_applies_the_ground_moments() -> None:
    """The optional ``body.mz`` input (here a constant) reaches the batched dynamics too."""
    d = _pd_biped()
    d.add("moments", "Constant", value=(6.0, -4.0))
    d.connect("moments.y", "body.mz")
    overrides = [{"kp.k": -kp, "kd.k": -0.05 * kp} for kp in KPS[:2]]
    res = BatchRunner(compile_diagram(d), overrides, logged=["body.q"]).run()
    free = BatchRunner(compile_diagram(_pd_biped()), overrides, logged=["body.q"]).run()
    for i, ov in enumerate(overrides):
        single = d.copy()
        for ref, v in ov.items():
            single.set_param(ref, v)
        r = Runner(compile_diagram(single), logged=["body.q"]).run()
        np.testing.assert_allclose(res.signals["body.q"][i], r["body.q"], rtol=0, atol=1e-9)
        assert np.abs(res.signals["body.q"][i, -1] - free.signals["body.q"][i, -1]).max() > 1e-3
