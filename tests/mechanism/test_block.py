"""The PlanarMechanism block alone: ports, initial state, derivative, torque input, errors."""

from __future__ import annotations

import numpy as np
import pytest

from blocks.core import ParameterValueError
from blocks.library.mechanism import PlanarMechanism
from models.mechanism import Embedded, build
from models.mechanism.library import SQUEEZER_ANGLES, SQUEEZER_Y0


def test_squeezer_block_ports_and_initial_derivative() -> None:
    block = PlanarMechanism("sq", mechanism="andrews_squeezer")
    ins, outs = block.port_specs()
    assert [s.name for s in ins] == ["tau"]
    joints = next(s for s in outs if s.name == "joints")
    assert joints.labels == SQUEEZER_ANGLES
    assert block.state_size() == 2
    probe = block.probe(u={"tau": [0.0]})
    np.testing.assert_allclose(probe.y["joints"], SQUEEZER_Y0, atol=1e-13)
    assert probe.dx[0] == 0.0
    assert probe.dx[1] == pytest.approx(14222.4439199541, rel=1e-11)  # published beta''(0)


def test_torque_input_adds_tau_over_the_reduced_inertia() -> None:
    block = PlanarMechanism("sq", mechanism="andrews_squeezer")
    base = block.probe(u={"tau": [0.0]}).dx[1]
    pushed = block.probe(u={"tau": [0.01]}).dx[1]
    mech = build("andrews_squeezer")
    M = Embedded(mech).mass_matrix(np.array(SQUEEZER_Y0[:1]))
    assert pushed - base == pytest.approx(0.01 / M[0, 0], rel=1e-9)


def test_five_bar_block_points_and_velocities() -> None:
    block = PlanarMechanism("fb", mechanism="five_bar", init="params", q0=[0.4, 0.9], qd0=[1.0, -2.0])
    probe = block.probe(u={"tau": [0.0, 0.0]})
    pts = probe.y["points"].reshape(-1, 2)
    names = list(build("five_bar").points)
    ground = pts[names.index("G")]
    np.testing.assert_allclose(ground, [3.0, 0.0], atol=1e-12)  # the loop closes on the ground pivot
    j1 = pts[names.index("J1")]
    np.testing.assert_allclose(j1, [np.cos(0.4), np.sin(0.4)], atol=1e-12)
    vel = probe.y["point_vel"].reshape(-1, 2)
    np.testing.assert_allclose(vel[names.index("J1")], [-np.sin(0.4), np.cos(0.4)], atol=1e-12)
    np.testing.assert_allclose(probe.dx[:2], [1.0, -2.0])


def test_wrong_initial_state_length_is_a_clear_error() -> None:
    with pytest.raises(ParameterValueError, match="q0 needs 2 value"):
        PlanarMechanism("fb", mechanism="five_bar", init="params", q0=[0.1], qd0=[0.0, 0.0])


def test_too_fine_a_bivariate_premodel_is_refused_clearly() -> None:
    from blocks.core import CompileContext

    block = PlanarMechanism("fb", mechanism="five_bar", method="spline", spline_step=0.01)
    with pytest.raises(ParameterValueError, match="too large"):
        block.make_params(CompileContext())


def test_spline_method_block_matches_the_exact_one() -> None:
    exact = PlanarMechanism("a", mechanism="andrews_squeezer").probe(u={"tau": [0.0]})
    spline = PlanarMechanism("b", mechanism="andrews_squeezer", method="spline").probe(u={"tau": [0.0]})
    np.testing.assert_allclose(spline.y["joints"], exact.y["joints"], atol=1e-12)
    assert spline.dx[1] == pytest.approx(exact.dx[1], rel=1e-8)
