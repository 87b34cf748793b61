"""Every block's law (its kernels) computes the same as plain Python and compiled, and the biped's laws
what the independent numpy equations of :mod:`models` compute.

The shipped walking diagrams run on a real bundled recording under each preset; at ticks spread
over stance and swing of both legs, each block with kernels is evaluated both ways on the live
inputs and states (:func:`blocks.law_check.kernel_mismatch`). Further runs switch on the modes the
presets leave off (the estimator's paper form, the ankle's own-speed target under tracking, the
ankle switched off, point and rolling feet). The dynamics and analysis blocks are also checked against
the numpy equations of motion (``backend="numpy"``), which share no code with the kernels.
"""

from __future__ import annotations

import numpy as np
import pytest

from app.runs import RunSpec, build, default_diagram_path
from blocks.core import BLOCK_TYPES, Params
from blocks.law_check import kernel_mismatch, live_slices, probe_kernels
from models.params import BipedParams

TOL = 1e-12
#: the biped blocks' kernels (blocks/library: biped, estimator, ankle, analysis)
BIPED_TYPES = ("FiveLinkDynamics", "BipedKinematics", "NetTorqueEstimator", "AnkleBalance", "JointReactions",
               "TorqueDecomposition")


def _worst_by_type(spec: RunSpec, chunks: int) -> dict[str, float]:
    """Largest scaled mismatch per block type over ``chunks`` stretches of 100 ticks."""
    runner = build(spec).runner
    types = {b.name: b.type_name for b in runner.model.blocks}
    worst: dict[str, float] = {}
    for _ in range(chunks):
        runner.advance(100)
        for name, err in kernel_mismatch(runner).items():
            worst[types[name]] = max(worst.get(types[name], 0.0), err)
    return worst


def _spec(diagram: str, preset: str, settings: tuple = (), foot_radius: float | None = None,
          duration: float = 1.6) -> RunSpec:
    return RunSpec(diagram=default_diagram_path().with_name(f"{diagram}.json"), preset=preset, duration=duration,
                   dataset="sneakers", settings=settings, foot_radius=foot_radius)


@pytest.mark.parametrize("preset", ["tracking", "setpoint", "emergent"])
def test_kernels_match_callbacks_on_a_walk(preset: str) -> None:
    """On ``grf_walk_analysis`` only: ``grf_walk`` is the same diagram without its two sampled observers,
    which feed no block (tests/blocks/test_diagram.py), so its blocks would be checked again on the same
    inputs and states (tests/blocks/test_compiled.py: the two runs agree signal by signal)."""
    path = default_diagram_path().with_name("grf_walk_analysis.json")
    built = build(RunSpec(diagram=path, preset=preset, duration=1.6, dataset="sneakers"))
    runner = built.runner
    worst: dict[str, float] = {}
    for _ in range(16):  # 1.6 s: a loading, a toe-off and a heel strike of each leg
        runner.advance(100)
        for name, err in kernel_mismatch(runner).items():
            worst[name] = max(worst.get(name, 0.0), err)
    bad = {n: e for n, e in worst.items() if not e <= TOL}
    assert not bad, f"the law run as Python differs from the compiled one (scaled error > {TOL}): {bad}"


MODES = [
    pytest.param("grf_walk_analysis", "tracking", (("est.mode", "paper"), ("est.mu_s", 0.3)), 0.05,
                 id="estimator-paper-rolling-foot"),
    pytest.param("grf_walk_analysis", "tracking", (("ankle.target", "own_speed"),), 0.05, id="ankle-own-speed"),
    pytest.param("grf_walk_analysis", "setpoint", (), 0.0, id="point-foot"),
    pytest.param("grf_walk", "paper", (), None, id="paper-ankle-off"),
]


@pytest.mark.parametrize(("diagram", "preset", "settings", "foot_radius"), MODES)
def test_kernels_match_callbacks_in_every_mode(diagram: str, preset: str, settings: tuple,
                                               foot_radius: float | None) -> None:
    duration = 0.8 if preset == "paper" else 1.6  # the paper preset falls within the first stride
    worst = _worst_by_type(_spec(diagram, preset, settings, foot_radius, duration), round(duration / 0.1))
    assert {t for t in BIPED_TYPES if t in worst} == set(BIPED_TYPES) - (
        {"JointReactions", "TorqueDecomposition"} if diagram == "grf_walk" else set())
    bad = {n: e for n, e in worst.items() if not e <= TOL}
    assert not bad, f"the law run as Python differs from the compiled one (scaled error > {TOL}): {bad}"


def _numpy_reference(name: str, bp: BipedParams, u: tuple[np.ndarray, ...], x: np.ndarray) -> np.ndarray:
    """What block type ``name`` computes, from the numpy equations in :mod:`models` (the LU solve of the
    einsum-built M, Blajer's reactions, Duarte's decomposition, the stick-figure points): they share no
    code with the kernels (scalar assembly, Cholesky)."""
    from models.biped import FiveLinkBiped
    from models.decomposition import biped_decomposition
    from models.reactions import reactions_augmented

    biped = FiveLinkBiped(bp, backend="numpy")
    if name == "FiveLinkDynamics":
        return np.concatenate([x[7:], biped.forward_dynamics(x[:7], x[7:], u[0], u[1], u[2])])
    q, qd, tau, grf = u
    qdd = biped.forward_dynamics(q, qd, tau, grf)
    if name == "JointReactions":
        return reactions_augmented(bp, q, qd, qdd, grf)
    dec = biped_decomposition(biped, q, qd, qdd, grf)
    return np.concatenate([np.asarray(v) for v in (dec.inertial, dec.coriolis, dec.gravity, dec.external)])


REFERENCED = ("FiveLinkDynamics", "JointReactions", "TorqueDecomposition")


def _worst_against_numpy(spec: RunSpec, chunks: int) -> dict[str, float]:
    """Largest scaled difference per block type between the law (probe: the Python engine's path) and
    :func:`_numpy_reference`, at the live states of ``chunks`` stretches of 100 ticks."""
    from blocks.library.context import biped_of

    runner = build(spec).runner
    m = runner.model
    bp = biped_of(m.ctx)  # the biped the blocks were derived for (not read from their packed vectors)
    worst: dict[str, float] = {}
    for _ in range(chunks):
        runner.advance(100)
        for b in m.blocks:
            if b.type_name not in REFERENCED:
                continue
            u, x, z = live_slices(runner, b)
            p = runner.params[b.name]
            # the dynamics' optional trig input left out: the signal holds the last RK4 stage's sines and cosines,
            # not those of x (the step evaluates it before each derivative); unconnected, the law computes them
            given = {s.name: a for s, a in zip(m.inputs[b.name], u) if s.name != "trig"}
            got = b.probe(runner.time, given, x=x, z=z, ctx=m.ctx, p=p)
            val = got.dx if b.type_name == "FiveLinkDynamics" else np.concatenate(list(got.y.values()))
            want = _numpy_reference(b.type_name, bp, u, x)
            err = float(np.max(np.abs(val - want)) / (1.0 + np.max(np.abs(want))))
            worst[b.type_name] = max(worst.get(b.type_name, 0.0), err)
    return worst


def test_biped_laws_match_the_numpy_equations() -> None:
    worst = _worst_against_numpy(_spec("grf_walk_analysis", "tracking", (), 0.05, 1.2), 12)
    assert set(worst) == set(REFERENCED)
    bad = {n: e for n, e in worst.items() if not e <= 1e-9}
    assert not bad, f"laws differ from the numpy equations (scaled error > 1e-9): {bad}"


def test_a_wrong_packed_vector_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The numpy comparison reads the biped from the parameters, the laws from the packed vector: a
    packed vector 1 % off is reported for every referenced block."""
    for name in REFERENCED:
        cls = BLOCK_TYPES[name]
        monkeypatch.setattr(cls, "pack", lambda self, p, _orig=cls.pack: _orig(self, p) * 1.01)
    worst = _worst_against_numpy(_spec("grf_walk_analysis", "tracking", (), 0.05, 0.4), 4)
    missed = {t: worst.get(t) for t in REFERENCED if not worst.get(t, 0.0) > 1e-6}
    assert not missed, f"a 1 % error in the packed parameters went unnoticed: {missed}"


def test_a_wrong_kernel_is_caught() -> None:
    """The check can fail: a Gain whose kernel doubled its output would be reported."""
    from blocks.core import Block, CompileContext, Kernels, PortSpec
    from blocks.core import ParamSpec as P

    class _Half(Block, register=False):
        params = {"k": P(2.0)}
        inputs = (PortSpec("u", 1),)
        outputs = (PortSpec("y", 1),)

        def output(self, t, x, z, u, p, y):
            y[0][0] = p.k * u[0][0]

        def kernels(self) -> Kernels:
            return Kernels(output=_wrong)

        def pack(self, p: Params) -> np.ndarray:
            return np.array([p.k])

    def _wrong(t, x, z, u0, p, y0):
        y0[0] = 2.0 * p[0] * u0[0]

    blk = _Half("h")
    p = blk.make_params(CompileContext())
    got = probe_kernels(blk, p, 0.0, (np.array([3.0]),), np.zeros(0), np.zeros(0))
    assert got.y["y"][0] == 12.0 != blk.probe(0.0, {"u": [3.0]}).y["y"][0]



# Choices and modes the presets leave alone (each set also changes tunables live, mid-run, so the
# kernels read the re-packed vector): friction limit, a floor that only pushes, a foot held at the
# ground height or on the reference, GRF perturbations, filter and mass scaling, the knee stop in
# action, a long dwell, the contact off (the paper's recorded GRF only), and the other trunk target.
OTHER_SETTINGS = {
    "friction_unilateral": ("tracking", (("contact.mu", 0.8), ("contact.unilateral", True),
                                         ("grf.propulsion_gain", 1.3), ("grf.vertical_gain", 0.9)),
                            (("contact.mu", 0.3), ("grf.propulsion_gain", 0.7), ("trunk.target", "setpoint"))),
    "filtered_unscaled": ("setpoint", (("grf.filter_hz", 30.0), ("grf.scale_to_model", False),
                                       ("phase.min_dwell_s", 0.3), ("stance_damp.gamma_min", 25.0),
                                       ("contact.height", "reference")),
                          (("grf.gain", 0.8), ("contact.height", "ground"), ("fb_enable.mode", "always"),
                           ("ref_motion.gain", 1.5), ("stance_damp.knee_rest_deg", 5.0))),
    "contact_off": ("setpoint", (("contact.gain", 0.0), ("footprints.source", "reference")),
                    (("contact.gain", 0.5), ("trunk.alpha_set_deg", -4.0), ("phase.threshold_n", 200.0))),
}


@pytest.mark.parametrize("case", sorted(OTHER_SETTINGS))
def test_kernels_match_callbacks_under_other_settings(case: str) -> None:
    preset, settings, live = OTHER_SETTINGS[case]
    built = build(RunSpec(preset=preset, duration=1.6, dataset="sneakers", settings=settings))
    runner = built.runner
    worst: dict[str, float] = {}
    for k in range(16):
        if k == 8:
            for ref, value in live:
                runner.registry.set(ref, value)
        runner.advance(100)
        for name, err in kernel_mismatch(runner).items():
            worst[name] = max(worst.get(name, 0.0), err)
    assert {"grf", "ref", "phase", "contact", "trunk", "fb_enable", "ref_motion", "footprints",
            "stance_damp"} <= set(worst)
    bad = {n: e for n, e in worst.items() if not e <= TOL}
    assert not bad, f"{case}: the law run as Python differs from the compiled one (scaled error > {TOL}): {bad}"


def test_source_kernels_between_ticks_and_beyond_the_data() -> None:
    """Off-grid times (``solve_ivp``'s stages) blend two table rows; before the start and past the end
    of the table the rows hold: the kernels recompute those rows from the recording and its spline."""
    built = build(RunSpec(preset="tracking", duration=1.0, dataset="sneakers", settings=(("grf.vertical_gain", 1.2),)))
    m, params = built.runner.model, built.runner.params
    times = np.concatenate([np.random.default_rng(1).uniform(-0.05, 1.05, 400), [-3.0, 0.0, 2.5e-4, 0.9995, 40.0]])
    checked = 0
    for name in ("grf", "ref", "ref_motion"):
        blk, p = m.block(name), params[name]
        for t in times:
            ref = blk.probe(float(t), {}, ctx=m.ctx, p=p)
            got = probe_kernels(blk, p, float(t), (), np.zeros(0), np.zeros(0))
            for port, want in ref.y.items():
                err = np.max(np.abs(want - got.y[port])) / (1.0 + np.max(np.abs(want)))
                assert err <= TOL, f"{name}.{port} at t = {t}: scaled error {err:.3g}"
                checked += 1
    assert checked == 9 * times.size  # grf 2 ports, ref 4, ref_motion 3


def test_spline_and_interp_helpers_match_scipy_and_numpy() -> None:
    """The compiled spline and interpolation (binary search) against scipy's ``CubicSpline`` and
    ``np.interp`` on uneven knots: inside, exactly on knots, at both ends and outside."""
    from scipy.interpolate import CubicSpline

    from blocks.library.sources_kernels import interp_at, search, spline_at, spline_interval

    rng = np.random.default_rng(7)
    t = np.cumsum(rng.uniform(0.001, 0.01, 60))
    vals = np.cumsum(rng.normal(size=(60, 5)), axis=0)
    sp = CubicSpline(t, vals, axis=0)
    n, m = t.size, 5
    p = np.concatenate([t, np.ascontiguousarray(sp.c).ravel(), vals.T.ravel()])
    xs = np.concatenate([rng.uniform(t[0], t[-1], 500), t, [t[0] - 1.0, t[-1] + 1.0]])
    want_v, want_d = sp(np.clip(xs, t[0], t[-1])), sp(np.clip(xs, t[0], t[-1]), 1)
    worst = 0.0
    for r, x in enumerate(xs):
        xc = min(max(x, t[0]), t[-1])
        j = spline_interval(p, 0, n, xc)
        ji = search(p, 0, n, x)
        for col in range(m):
            v, d = spline_at(p, 0, n, m, n, j, xc, col)
            lin = interp_at(p, 0, n, ji, x, n + 4 * (n - 1) * m + col * n)
            worst = max(worst, abs(v - want_v[r, col]) / (1 + abs(want_v[r, col])),
                        abs(d - want_d[r, col]) / (1 + abs(want_d[r, col])),
                        abs(lin - np.interp(x, t, vals[:, col])))
    assert worst <= TOL, worst


@pytest.mark.parametrize("spacing", ["even", "jittered", "uneven"])
def test_interval_lookups_are_the_bisection_intervals(spacing: str) -> None:
    """``search`` and ``spline_interval`` start from the interval evenly spaced times would give and walk
    from there: the interval is the bisection's (``np.searchsorted``) whatever the spacing, on knots too."""
    from blocks.library.sources_kernels import search, spline_interval

    rng = np.random.default_rng(3)
    n = 400
    t = {"even": 0.25 + np.arange(n) / 100.0, "jittered": 0.25 + (np.arange(n) + rng.uniform(-0.3, 0.3, n)) / 100.0,
         "uneven": 0.25 + np.cumsum(rng.exponential(0.01, n))}[spacing]
    xs = np.concatenate([rng.uniform(t[0], t[-1], 2000), t, np.nextafter(t, -np.inf)[1:], [t[0] - 1.0, t[-1] + 1.0]])
    for x in xs:
        inside = t[0] <= x < t[-1]
        want = int(np.searchsorted(t, x, side="right")) - 1
        assert search(t, 0, n, x) == (want if inside else -1 if x < t[0] else n - 1 if x == t[-1] else n)
        assert spline_interval(t, 0, n, x) == (min(max(want, 0), n - 2) if x < t[-1] else n - 2)
