"""TrunkBalance ``route = ground``: the trunk torque passed down the stance leg is a pure couple on the trunk.

Checked against the biped's own generalised forces (an independent path: ``models.biped``'s virtual
power of joint torques and ground moments): the block's hip torque, knee torque and ground moment
together load only the trunk-angle row, exactly as a couple on the trunk would, and leave every
leg-joint row and the trunk's translation rows at zero, so a massless stance leg would need no
floor force to carry it.
"""

from __future__ import annotations

import numpy as np
import pytest

from blocks.core import CompileContext
from blocks.library.walking import TrunkBalance
from models.biped import FiveLinkBiped

Q = np.array([0.1, 1.0, 0.08, 0.3, -0.2, 0.4, 0.1])
QD = np.array([1.0, 0.1, 0.5, -1.0, 2.0, 0.3, -0.4])


@pytest.mark.parametrize("stance", [[1, 0], [0, 1], [1, 1]])
def test_ground_route_is_a_pure_couple_on_the_trunk(stance: list[int]) -> None:
    ctx = CompileContext()
    u = {"q": Q, "qd": QD, "ref": np.zeros(5), "ref_rate": np.zeros(5), "stance": stance}
    hip = TrunkBalance("t", target="setpoint", alpha_set_deg=0.0)
    ground = TrunkBalance("g", target="setpoint", alpha_set_deg=0.0, route="ground")
    y_hip = hip.probe(u=u, ctx=ctx, p=hip.make_params(ctx)).y
    y = ground.probe(u=u, ctx=ctx, p=ground.make_params(ctx)).y
    np.testing.assert_allclose(y["tau"][:2], y_hip["tau"][:2])  # the same hip torques
    assert not np.any(y_hip["mz"]) and not np.any(y_hip["tau"][2:])
    total_hip = float(np.sum(y["tau"][:2]))
    assert total_hip != 0.0
    body = FiveLinkBiped()
    g = body.generalized_forces(Q, QD, y["tau"], np.zeros(4), y["mz"])
    loads = g.joint + g.foot
    np.testing.assert_allclose(np.delete(loads, 2), 0.0, atol=1e-12)  # no leg-joint or translation load
    assert loads[2] == pytest.approx(total_hip)  # the trunk turns as under the hip route's torque


def test_route_ground_kernel_matches_the_callback() -> None:
    from blocks.law_check import probe_kernels

    ctx = CompileContext()
    block = TrunkBalance("g", target="setpoint", route="ground", kp=2000.0, kd=200.0)
    u = {"q": Q, "qd": QD, "ref": np.zeros(5), "ref_rate": np.zeros(5), "stance": [1, 1]}
    p = block.make_params(ctx)
    ref = block.probe(u=u, ctx=ctx, p=p).y
    ports = tuple(np.asarray(u[s.name], dtype=np.float64) for s in block.port_specs()[0])
    got = probe_kernels(block, p, 0.0, ports, np.zeros(0), np.zeros(0))
    np.testing.assert_allclose(got.y["tau"], ref["tau"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got.y["mz"], ref["mz"], rtol=0, atol=1e-12)
    assert np.any(got.y["mz"])
