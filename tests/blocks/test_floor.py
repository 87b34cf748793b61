"""Footprints and StanceDamping alone: the setpoint preset's floor and stance leg."""

from __future__ import annotations

import math

import numpy as np
import pytest

from blocks.core import CompileContext
from blocks.library.floor import Footprints, StanceDamping
from blocks.library.walking import GroundContact
from models.biped import FiveLinkBiped
from models.params import BipedParams

Q = np.array([0.1, 1.0, 0.05, 0.3, -0.2, 0.4, 0.1])


def test_footprints_capture_where_the_foot_lands_and_hold_it() -> None:
    fp = Footprints("fp", source="landing")
    ctx = CompileContext()
    p = fp.make_params(ctx)
    xi = FiveLinkBiped(BipedParams.paper()).contact_coordinates(Q[None, :])[0]
    ref = [9.0, 9.0, 9.0, 9.0]  # a reference footprint far away: never read in landing mode
    # left stance begins now (previous flags 0): the anchor is the foot's own contact coordinate
    out = fp.probe(u={"q": Q, "stance": [1, 0], "feet_ref": ref}, z=np.zeros(8), ctx=ctx, p=p)
    assert out.y["feet"][0] == pytest.approx(xi[0]) and out.y["feet"][1] == 0.0
    np.testing.assert_allclose(out.z_next[:6], [xi[0], xi[2], 1.0, 0.0, xi[1], xi[3]])
    # later in the same stance the foot has moved: the anchor stays where it landed
    moved = Q + np.array([0.2, 0, 0, 0, 0, 0, 0])
    again = fp.probe(u={"q": moved, "stance": [1, 0], "feet_ref": ref}, z=out.z_next, ctx=ctx, p=p)
    assert again.y["feet"][0] == pytest.approx(xi[0])
    # reference mode passes the reference through
    p_ref = Footprints("fp2", source="reference").make_params(ctx)
    np.testing.assert_allclose(Footprints("fp2").probe(u={"q": Q, "stance": [1, 0], "feet_ref": ref},
                                                       z=np.zeros(8), ctx=ctx, p=p_ref).y["feet"], ref)


def test_held_height_relaxes_from_where_the_foot_landed_to_the_floor() -> None:
    """``tau_land``: the stance foot is held at the height it landed at, relaxing to the floor as
    ``y = ground + (y_landed - ground) exp(-(t - t_landed) / tau_land)``."""
    fp = Footprints("fp", source="landing", tau_land=0.05, ground_y=0.0)
    ctx = CompileContext()
    p = fp.make_params(ctx)
    lifted = Q + np.array([0, 0.5, 0, 0, 0, 0, 0])  # the foot lands well above the floor
    eta = FiveLinkBiped(BipedParams.paper()).contact_coordinates(lifted[None, :])[0][1]
    land = fp.probe(t=1.0, u={"q": lifted, "stance": [1, 0], "feet_ref": [0.0] * 4}, z=np.zeros(8), ctx=ctx, p=p)
    assert land.y["feet"][1] == pytest.approx(eta)
    later = fp.probe(t=1.1, u={"q": Q, "stance": [1, 0], "feet_ref": [0.0] * 4}, z=land.z_next, ctx=ctx, p=p)
    assert later.y["feet"][1] == pytest.approx(eta * math.exp(-0.1 / 0.05))


def test_stance_damping_spring_damper_and_knee_stop_act_on_stance_legs_only() -> None:
    sd = StanceDamping("sd", c_hip=10.0, c_knee=20.0, k_knee=600.0, knee_rest_deg=20.0, k_stop=500.0, gamma_min=0.0)
    ctx = CompileContext()
    p = sd.make_params(ctx)
    q = np.array([0, 1, 0, 0.3, 0.2, math.radians(30.0), -0.1])
    qd = np.array([0, 0, 0, 1.0, 2.0, -0.5, 3.0])
    tau = sd.probe(u={"q": q, "qd": qd, "stance": [1, 1]}, ctx=ctx, p=p).y["tau"]
    assert tau[0] == pytest.approx(-10.0) and tau[1] == pytest.approx(-20.0)
    assert tau[2] == pytest.approx(600.0 * math.radians(-10.0) + 20.0 * 0.5)
    assert tau[3] == pytest.approx(600.0 * (math.radians(20.0) + 0.1) - 60.0 + 500.0 * 0.1)
    swing = sd.probe(u={"q": q, "qd": qd, "stance": [0, 1]}, ctx=ctx, p=p).y["tau"]
    assert swing[0] == 0.0 and swing[2] == 0.0 and swing[1] == pytest.approx(tau[1])


def test_ground_contact_friction_limit_and_unilateral_floor() -> None:
    ctx = CompileContext()
    stance = [1, 0]
    xi = FiveLinkBiped(BipedParams.paper()).contact_coordinates(Q[None, :])[0]
    F_rec = np.array([50.0, 400.0, 0.0, 0.0])
    feet = [xi[0] - 0.05, 0.0, 0.0, 0.0]  # the anchor 5 cm behind: the stick spring pulls back hard
    u = {"q": Q, "qd": np.zeros(7), "stance": stance, "F_rec": F_rec, "feet_ref": feet}
    gc = GroundContact("gc", mu=0.5, height="ground")
    y = gc.probe(u=u, ctx=ctx, p=gc.make_params(ctx)).y
    fy = y["F"][1]
    assert abs(y["F"][0]) == pytest.approx(0.5 * fy)  # |F_x| held at mu F_y: the foot slides
    free = GroundContact("gc2", height="ground")
    assert abs(free.probe(u=u, ctx=ctx, p=free.make_params(ctx)).y["F"][0]) > 0.5 * fy
    # a stance foot above the floor: a bilateral floor pulls it down, a unilateral floor does not
    up = dict(u, feet_ref=[xi[0], 0.0, 0.0, 0.0])
    lifted = dict(up, q=Q + np.array([0, 0.02 - xi[1], 0, 0, 0, 0, 0]))  # contact point 2 cm above the floor
    uni = GroundContact("gc3", height="ground", unilateral=True)
    bi = GroundContact("gc4", height="ground")
    assert uni.probe(u=lifted, ctx=ctx, p=uni.make_params(ctx)).y["corr"][1] == 0.0
    assert bi.probe(u=lifted, ctx=ctx, p=bi.make_params(ctx)).y["corr"][1] < 0.0


def test_a_no_pull_floor_never_pulls_a_foot_down_past_the_recorded_force() -> None:
    """``no_pull``: the spring's pull on a lifted stance foot (2 cm: -2000 N, at f_max) is cut where the
    foot's total vertical force (recorded + correction) would turn negative; a smaller pull, and any push,
    pass unchanged."""
    ctx = CompileContext()
    xi = FiveLinkBiped(BipedParams.paper()).contact_coordinates(Q[None, :])[0]
    lifted = {"q": Q + np.array([0, 0.02 - xi[1], 0, 0, 0, 0, 0]), "qd": np.zeros(7), "stance": [1, 0],
              "feet_ref": [xi[0], 0.0, 0.0, 0.0]}
    floor = GroundContact("np", height="ground", no_pull=True)
    p = floor.make_params(ctx)

    def vertical(f_rec_y: float, q: np.ndarray = lifted["q"]) -> tuple[float, float]:
        y = floor.probe(u=dict(lifted, q=q, F_rec=[0.0, f_rec_y, 0.0, 0.0]), ctx=ctx, p=p).y
        return float(y["corr"][1]), float(y["F"][1])

    assert vertical(300.0) == pytest.approx((-300.0, 0.0))  # the pull stops at zero total force
    assert vertical(5000.0)[0] == pytest.approx(-2000.0)  # a pull the recorded force covers passes
    sunk = Q + np.array([0, -0.01 - xi[1], 0, 0, 0, 0, 0])  # 1 cm into the floor: a push, unchanged
    assert vertical(300.0, sunk)[0] == pytest.approx(1000.0)


def test_contact_reports_its_stable_step() -> None:
    gc = GroundContact("gc", k_y=1e5, c_y=2e3)
    h = gc.max_step(gc.make_params(CompileContext()))
    m = BipedParams.paper().shank.mass
    assert h == pytest.approx(2.78 / (2e3 / m))  # overdamped: the damping root sets it (about 4.6 ms)
    assert GroundContact("off", gain=0.0).max_step(GroundContact("off", gain=0.0).make_params(CompileContext())) is None


def test_leg_spring_is_an_axial_force_along_the_hip_to_foot_line() -> None:
    """``k_leg``/``c_leg``: the knee torque equals the virtual work of the axial force
    ``f = k (L(rest) - L) - c dL/dt`` through ``dL/dgamma`` (checked by a finite difference of ``L``)."""
    b = BipedParams.paper()
    l1, l2 = b.thigh.length, b.shank.length
    sd = StanceDamping("sd", k_leg=3000.0, c_leg=600.0, knee_rest_deg=20.0)
    ctx = CompileContext()
    p = sd.make_params(ctx)
    gam, gam_dot = math.radians(35.0), 0.8

    def length(g: float) -> float:
        return math.sqrt(l1 ** 2 + l2 ** 2 + 2 * l1 * l2 * math.cos(g))

    dl = (length(gam + 1e-7) - length(gam - 1e-7)) / 2e-7
    f = 3000.0 * (length(math.radians(20.0)) - length(gam)) - 600.0 * dl * gam_dot
    q = np.array([0, 1, 0, 0.3, 0.2, gam, 0.1])
    qd = np.array([0, 0, 0, 0.0, 0.0, gam_dot, 0.0])
    tau = sd.probe(u={"q": q, "qd": qd, "stance": [1, 0]}, ctx=ctx, p=p).y["tau"]
    assert tau[2] == pytest.approx(f * dl, rel=1e-6)
    assert f > 0 and tau[2] < 0  # a shortened leg pushes the hip up: an extending knee torque
    assert tau[3] == 0.0  # the swing leg gets none


@pytest.mark.parametrize("block, u, z", [
    (StanceDamping("sd", c_hip=10.0, c_knee=20.0, k_knee=600.0, k_stop=500.0, k_leg=3000.0, c_leg=600.0),
     {"q": Q, "qd": np.linspace(-1, 1, 7), "stance": [1, 1]}, np.zeros(0)),
    (GroundContact("gc", height="ground", no_pull=True, mu=0.6),
     {"q": Q + np.array([0, 0.3, 0, 0, 0, 0, 0]), "qd": np.linspace(-1, 1, 7), "stance": [1, 1],
      "F_rec": [40.0, 120.0, -30.0, 900.0], "feet_ref": [0.1, 0.0, 0.2, 0.0]}, np.zeros(0)),
    (Footprints("fp", source="landing", tau_land=0.2),
     {"q": Q + np.array([0, 0.3, 0, 0, 0, 0, 0]), "stance": [1, 1], "feet_ref": [0.0] * 4},
     np.array([0.4, 0.6, 1.0, 0.0, 0.02, 0.0, 0.9, 0.0])),
])
def test_new_options_kernels_match_the_callbacks(block: object, u: dict, z: np.ndarray) -> None:
    from blocks.law_check import probe_kernels

    ctx = CompileContext()
    p = block.make_params(ctx)  # type: ignore[attr-defined]
    ref = block.probe(t=1.0, u=u, z=z if z.size else None, ctx=ctx, p=p)  # type: ignore[attr-defined]
    ports = tuple(np.asarray(u[s.name] if s.name in u else np.zeros(int(s.size)), dtype=np.float64)  # optional: zeros
                  for s in block.port_specs()[0])  # type: ignore[attr-defined]
    got = probe_kernels(block, p, 1.0, ports, np.zeros(0), z)  # type: ignore[arg-type]
    for name, value in ref.y.items():
        np.testing.assert_allclose(got.y[name], value, rtol=0, atol=1e-12)
    if z.size:
        np.testing.assert_allclose(got.z_next, ref.z_next, rtol=0, atol=1e-12)
