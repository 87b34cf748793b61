"""The generic and control blocks' laws (their kernels, run as Python and compiled) against references
written here in numpy (random inputs, states and parameters; scaled error <= 1e-12), and which blocks have
no compiled form."""

from __future__ import annotations

import numpy as np
import pytest

from blocks.core import Block, CompileContext
from blocks.law_check import probe_kernels
from blocks.library.control import PID, TorqueSwitch
from blocks.library.generic import (
    Constant,
    Function,
    Gain,
    Integrator,
    Mux,
    Scope,
    Selector,
    StateSpace,
    Step,
    Sum,
    UnitDelay,
)

TOL = 1e-12

CASES: list[Block] = [
    Constant("c", value=(1.5, -2.0, 3.0)),
    Step("s", t_step=0.3, before=-1.0, after=2.0, n=3),
    Gain("g", k=-2.5, n=3),
    Sum("s2", signs="+-", n=3),
    Sum("s3", signs="-+-", n=2),
    Sum("s1", signs="-", n=4),
    Mux("m", sizes=(2.0, 1.0, 3.0)),
    Selector("sel", n=5, indices=(4.0, 0.0, 2.0)),
    Selector("run", n=5, indices=(1.0, 2.0)),
    UnitDelay("d", n=3, initial=0.5),
    Integrator("i", n=2, x0=1.0),
    StateSpace("ss", n=2, m=1, l=2, a=(0.0, 1.0, -4.0, -0.4), b=(0.0, 1.0), c=(1.0, 0.0, 0.0, 1.0),
               d=(0.0, 0.0), x0=(0.1, 0.0)),
    StateSpace("ssd", n=2, m=2, l=1, a=(-1.0, 0.5, 0.2, -3.0), b=(1.0, 0.0, 0.3, 2.0), c=(1.0, -1.0),
               d=(0.7, -0.2), x0=(0.0, 0.0)),
    PID("pid", n=2, kp=(400.0, 650.0), ki=120.0, kd=(20.0, 35.0), tf=0.01, u_max=30.0),
    PID("pid1", n=3, ts=0.002),
    PID("pidb", n=2, kp=(400.0, 650.0), ki=120.0, kd=(20.0, 35.0), tf=0.01, u_max=30.0, t_blend=0.1),
    TorqueSwitch("sw"),
]


def _reference(block: Block, t: float, u: dict[str, np.ndarray], x: np.ndarray, z: np.ndarray,
               ) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """Outputs, derivative and next discrete state of ``block``, written here in numpy (independent of
    the kernels, which are the blocks' only law)."""
    v, name = block.values, block.type_name
    ins = [u[s.name] for s in block.port_specs()[0]]
    dx, zn = np.zeros(block.state_size()), z.copy()
    if name == "Constant":
        y = {"y": np.array(v["value"])}
    elif name == "Step":
        y = {"y": np.full(v["n"], v["after"] if t >= v["t_step"] else v["before"])}
    elif name == "Gain":
        y = {"y": v["k"] * ins[0]}
    elif name == "Sum":
        y = {"y": sum((-a if c == "-" else a) for c, a in zip(v["signs"], ins))}
    elif name == "Mux":
        y = {"y": np.concatenate(ins)}
    elif name == "Selector":
        y = {"y": ins[0][np.array(v["indices"], dtype=int)]}
    elif name == "UnitDelay":
        y, zn = {"y": z.copy()}, ins[0].copy()
    elif name == "Integrator":
        y, dx = {"y": x.copy()}, ins[0].copy()
    elif name == "StateSpace":
        n, m, l = v["n"], v["m"], v["l"]
        a, b, c, d = (np.reshape(v[k], s) for k, s in (("a", (n, n)), ("b", (n, m)), ("c", (l, n)), ("d", (l, m))))
        y, dx = {"y": c @ x + d @ ins[0]}, a @ x + b @ ins[0]
    elif name == "TorqueSwitch":
        legs = np.array([0, 1, 0, 1])
        tau = np.where(ins[0][legs] > 0.5, ins[1], ins[2])
        y = {"tau": tau, "hip": tau[:2], "knee": tau[2:]}
    else:
        y, zn = _reference_pid(block, ins, z, CompileContext().dt)
    return y, dx, zn


def _reference_pid(block: Block, u: list[np.ndarray], z: np.ndarray, dt: float,
                   ) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The PID of :mod:`blocks.library.control`'s docstring, vectorised over the joints."""
    v = block.values
    n = int(v["n"])
    kp, ki, kd = (np.broadcast_to(v[k], n) for k in ("kp", "ki", "kd"))
    tf, um, tb, h = v["tf"], v["u_max"], v["t_blend"], v["ts"] if v["ts"] > 0 else dt
    ref, meas, enable, track = u
    integ, dprev, eprev, was_on, started = z[:n], z[n:2 * n], z[2 * n:3 * n], z[3 * n:4 * n] > 0.5, z[4 * n] > 0.5
    e0, age = z[4 * n + 1:5 * n + 1], z[5 * n + 1:]
    on, raw = enable > 0.5, ref - meas
    e = raw.copy()
    if tb > 0:
        s = age / tb
        blend = np.where(s < 1.0, e0 * (1.0 - s**3 * (10.0 - 15.0 * s + 6.0 * s * s)), 0.0)
        e = np.where(~on | ~was_on, 0.0, raw - blend)
    d = (tf * dprev + kd * (e - eprev)) / (tf + h) if started else np.zeros(n)
    vv = kp * e + integ + d
    out = np.clip(vv, -um, um)
    frozen = ((vv > um) & (e > 0)) | ((vv < -um) & (e < 0))
    new_i = np.where(on, np.where(frozen, integ, integ + ki * h * e), np.clip(track - kp * e - d, -um, um))
    rising = on & ~was_on
    zn = np.concatenate([new_i, d, e, on.astype(float), [1.0], np.where(rising, raw, e0),
                         np.where(on, np.where(rising, h, age + h), 0.0)])
    return {"u": out}, zn


def _draws(block: Block, rng: np.random.Generator) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    ins, _ = block.port_specs()
    u = {s.name: rng.normal(scale=2.0, size=int(s.size)) for s in ins}
    if block.type_name in ("PID", "TorqueSwitch"):  # flags of 0/1 and both PID regimes
        for key in ("enable", "stance"):
            if key in u:
                u[key] = rng.integers(0, 2, size=u[key].size).astype(float)
    x = rng.normal(size=block.state_size())
    z = rng.normal(size=block.discrete_size())
    if block.type_name == "PID":
        n = int(block.values["n"])
        z[3 * n:4 * n + 1] = rng.integers(0, 2, size=n + 1)  # enabled flags, started
        z[5 * n + 1:] = rng.uniform(0.0, 0.2, size=n)  # time since enabled, inside and past the blend
    return u, x, z


def _close(got: np.ndarray, ref: np.ndarray, what: str) -> None:
    np.testing.assert_allclose(got, ref, rtol=0, atol=TOL * (1 + np.abs(ref).max(initial=0)), err_msg=what)


@pytest.mark.parametrize("block", CASES, ids=lambda b: b.name)
@pytest.mark.parametrize("t", [0.0, 0.5])
def test_laws_agree_with_numpy_references(block: Block, t: float) -> None:
    """The kernels, run as Python (``probe``: the Python engine's path) and compiled, against numpy."""
    rng = np.random.default_rng(7)
    ins, _ = block.port_specs()
    p = block.make_params(CompileContext())
    for _ in range(20):
        u, x, z = _draws(block, rng)
        y, dx, zn = _reference(block, t, u, x, z)
        py = block.probe(t, u, x=x, z=z, p=p)
        co = probe_kernels(block, p, t, tuple(u[s.name] for s in ins), x, z)
        for got in (py, co):
            for name in y:
                _close(got.y[name], y[name], name)
            _close(got.dx, dx, "dx")
            _close(got.z_next, zn, "z_next")


def test_a_wrong_reference_is_seen() -> None:
    """The comparison can fail: a PID whose reference reads another derivative filter differs."""
    block = PID("pid", n=2, kp=(400.0, 650.0), ki=120.0, kd=(20.0, 35.0), tf=0.01, u_max=1e4)
    other = PID("pid", n=2, kp=(400.0, 650.0), ki=120.0, kd=(20.0, 35.0), tf=0.02, u_max=1e4)
    u, x, z = _draws(block, np.random.default_rng(1))
    z[4 * 2] = 1.0
    y, _, _ = _reference(other, 0.0, u, x, z)
    assert np.abs(block.probe(0.0, u, x=x, z=z).y["u"] - y["u"]).max() > 1e-3


def test_pid_saturates_and_clamps_in_the_kernel() -> None:
    """A large error saturates the output at u_max and freezes the integrator (anti-windup)."""
    blk = PID("pid", n=1, kp=1000.0, ki=100.0, u_max=5.0)
    p = blk.make_params(CompileContext())
    z = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0])
    got = probe_kernels(blk, p, 0.0, (np.array([1.0]), np.array([0.0]), np.array([1.0]), np.array([0.0])),
                        np.zeros(0), z)
    assert got.y["u"][0] == 5.0 and got.z_next[0] == 1.0


def test_scope_has_an_empty_compiled_form_and_function_none() -> None:
    assert Scope("sc", n=2).kernels() == (None, None, None)
    assert Function("f", func=np.sin).kernels() is None


def _step(blk: PID, p: object, z: np.ndarray, ref: float, meas: float, enable: float, track: float,
          ) -> tuple[float, np.ndarray]:
    """One sample of a one-joint PID through its kernels: (output, next state)."""
    got = probe_kernels(blk, p, 0.0, (np.array([ref]), np.array([meas]), np.array([enable]), np.array([track])),
                        np.zeros(0), z)
    return float(got.y["u"][0]), got.z_next


def test_reference_blend_starts_from_the_tracked_torque_and_reaches_the_full_error() -> None:
    """Enabled 0.4 rad from its reference: without the blend the tracking integrator, clipped at u_max,
    cannot absorb K_p e = 1000 N m and the output jumps to its 300 N m limit; with ``t_blend`` it starts
    at the torque it tracked, follows the quintic (at a quarter of the blend b = 1 - s^3 (10 - 15 s + 6 s^2)
    = 0.8965) as a monotone ramp, and is plain PID (saturated again) once the blend is over."""
    ctx = CompileContext()
    e0, track = 0.4, 12.0
    for t_blend in (0.0, 0.1):
        blk = PID("pid", n=1, kp=2500.0, ki=0.0, kd=0.0, tf=0.0, u_max=300.0, t_blend=t_blend)
        p = blk.make_params(ctx)
        h = p._h  # the sample period [s]
        z = np.zeros(blk.discrete_size())
        for _ in range(5):  # in stance: tracking the applied torque
            _, z = _step(blk, p, z, e0, 0.0, 0.0, track)
        u, z = _step(blk, p, z, e0, 0.0, 1.0, track)  # the enable tick
        if t_blend == 0.0:
            assert u == 300.0
            continue
        assert u == pytest.approx(track, abs=1e-12)
        outputs = [u]
        for _ in range(int(round(t_blend / h)) + 5):
            u, z = _step(blk, p, z, e0, 0.0, 1.0, track)
            outputs.append(u)
        s = 0.25
        b = 1.0 - s**3 * (10.0 - 15.0 * s + 6.0 * s * s)
        assert outputs[int(round(s * t_blend / h))] == pytest.approx(track + 2500.0 * e0 * (1.0 - b), rel=1e-9)
        ramp = np.array(outputs)
        assert np.all(np.diff(ramp[ramp < 300.0]) > 0) and ramp[-1] == 300.0
