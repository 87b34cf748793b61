"""A study of the ``setpoint`` preset's shared parameters (named ``emergent`` until issue 30), from real runs.

``python -m benchmarks.emergent_study [--out docs/presets.md] [--json study.json]``

Each *variant* is the ``setpoint`` preset with one or a few shared parameters changed (one value
for every condition; nothing per condition). Every variant runs

* the bundled sets ``sneakers``, ``barefoot``, ``high_heels`` for 10 s;
* the real trials subject01, walk1 and walk2 of ``$GAITBLOCKS_DATA`` for their full length;
* the propulsion perturbation: sneakers with ``grf.propulsion_gain`` 0.9 and 1.1 (10 s);
* the swap: the high-heels GRF with the sneakers kinematics (10 s),

and is scored against the targets the preset holds today (``tests/evals/test_setpoint.py``):
the bundled and perturbation runs ``ok``, their trunk inside [-5, 12] deg, stance slip <= 2 cm,
bundled strides within 10 % of the recording's, the speed spread over propulsion x0.9..x1.1 above
0.01 m/s (monotonic), the residual ``good``; and against the strict xfails: which runs fall (the
real trials and the swap, today), walk1/walk2 strides within 10 %, the swap's trunk leaning back
and its stride shorter than sneakers' by a tenth of the recordings' difference.

Runs go through :func:`app.tuning.vectorized.run_many` (the compiled engine, variants of one
dataset advanced together as one batch). The markdown table is written between the markers
``<!-- emergent-study:begin -->`` and ``<!-- emergent-study:end -->`` of ``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from app.run_summary import register_metric
from app.runs import RunSpec
from grf_data.refdata import data_dir as reference_dir

BUNDLED = ("sneakers", "barefoot", "high_heels")
TRIALS: dict[str, tuple[str, str, float | None, float | None]] = {  # grf, kinematics, mass kg, height m
    "subject01": ("opensim-core/subject01_walk1_grf.mot", "opensim-core/subject01_walk_IK.mot", 72.6, 1.8),
    "walk1": ("demotu-BMC/walk1.forces", "demotu-BMC/walk1.trc", None, None),
    "walk2": ("demotu-BMC/walk2.forces", "demotu-BMC/walk2.trc", None, None),
}
BEGIN, END = "<!-- emergent-study:begin -->", "<!-- emergent-study:end -->"

Settings = tuple[tuple[str, Any], ...]

#: (label, settings on top of the preset): one at a time around the preset as shipped
VARIANTS: tuple[tuple[str, Settings], ...] = (
    ("preset", ()),
    ("trunk kp 4500", (("trunk.kp", 4500.0),)),
    ("trunk kp 8000", (("trunk.kp", 8000.0),)),
    ("trunk kd 300", (("trunk.kd", 300.0),)),
    ("trunk kd 450", (("trunk.kd", 450.0),)),
    ("trunk kd 900", (("trunk.kd", 900.0),)),
    ("alpha_set 1.5", (("trunk.alpha_set_deg", 1.5),)),
    ("alpha_set 3", (("trunk.alpha_set_deg", 3.0),)),
    ("match tau_v 0.03", (("grf_match.tau_v", 0.03),)),
    ("match tau_v 0.1", (("grf_match.tau_v", 0.1),)),
    ("match tau_p 0.05", (("grf_match.tau_p", 0.05),)),
    ("match tau_p 0.2", (("grf_match.tau_p", 0.2),)),
    ("match reg 1e-4", (("grf_match.reg", 1e-4),)),
    ("match reg 1e-2", (("grf_match.reg", 1e-2),)),
    ("match u_max 400", (("grf_match.u_max", 400.0),)),
    ("match u_max 1000", (("grf_match.u_max", 1000.0),)),
    ("match unlimited", (("grf_match.u_max", 1e5),)),
    ("tau_land 0.1", (("footprints.tau_land", 0.1),)),
    ("tau_land 0.4", (("footprints.tau_land", 0.4),)),
    ("k_x 3e4", (("contact.k_x", 3e4), ("contact.c_x", 1100.0))),
    ("k_x 3e5", (("contact.k_x", 3e5), ("contact.c_x", 3500.0))),
    ("k_y 3e4", (("contact.k_y", 3e4), ("contact.c_y", 1100.0))),
    ("k_y 3e5", (("contact.k_y", 3e5), ("contact.c_y", 3500.0))),
    ("knee stop 0", (("stance_damp.k_stop", 0.0),)),
    ("hip kp 2000", (("pid_hip.kp", 2000.0),)),
    ("hip kp 3500", (("pid_hip.kp", 3500.0),)),
    ("knee kp 2500", (("pid_knee.kp", 2500.0),)),
    ("knee kp 4000", (("pid_knee.kp", 4000.0),)),
    ("est.gain 0.9", (("est.gain", 0.9),)),
    ("est.gain 1.1", (("est.gain", 1.1),)),
    ("no PID blend", (("pid_hip.t_blend", 0.0), ("pid_knee.t_blend", 0.0))),
    ("PID blend 0.05", (("pid_hip.t_blend", 0.05), ("pid_knee.t_blend", 0.05))),
    ("PID blend 0.2", (("pid_hip.t_blend", 0.2), ("pid_knee.t_blend", 0.2))),
)


#: the box of the random search: parameter -> (low, high, log-uniform?), around the preset's value
BOX: dict[str, tuple[float, float, bool]] = {
    "trunk.alpha_set_deg": (0.0, 3.0, False),
    "trunk.kp": (4500.0, 8000.0, True),
    "trunk.kd": (300.0, 900.0, True),
    "grf_match.tau_v": (0.03, 0.1, True),
    "grf_match.tau_p": (0.05, 0.2, True),
    "grf_match.reg": (1e-4, 1e-2, True),
    "footprints.tau_land": (0.1, 0.4, True),
    "contact.k_x": (3e4, 3e5, True),
    "contact.k_y": (3e4, 3e5, True),
    "contact.c_x": (1000.0, 4000.0, True),
    "contact.c_y": (1000.0, 4000.0, True),
    "pid_hip.kp": (2000.0, 3500.0, False),
    "pid_hip.kd": (40.0, 90.0, False),
    "pid_knee.kp": (2500.0, 4000.0, False),
    "pid_knee.kd": (30.0, 60.0, False),
    "est.gain": (0.9, 1.1, False),
    "pid_hip.t_blend": (0.05, 0.2, False),
    "pid_knee.t_blend": (0.05, 0.2, False),
}


def random_variants(n: int, seed: int) -> tuple[tuple[str, Settings], ...]:
    """``n`` variants drawn uniformly (log-uniformly where marked) from :data:`BOX`, every parameter at once."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        settings = []
        for ref, (lo, hi, log) in BOX.items():
            u = rng.random()
            v = float(np.exp(np.log(lo) + u * (np.log(hi) - np.log(lo)))) if log else lo + u * (hi - lo)
            settings.append((ref, float(f"{v:.3g}")))
        out.append((f"random {seed}.{i}", tuple(settings)))
    return tuple(out)


def jitter_variants(n: int, seed: int, rel: float = 0.05) -> tuple[tuple[str, Settings], ...]:
    """``n`` variants with every :data:`BOX` parameter the preset sets (but the set-point) scaled by a
    factor drawn uniformly in [1 - rel, 1 + rel]: how robust the preset's figures are."""
    from blocks.library.presets import load_preset

    preset = load_preset("setpoint")["set"]
    rng = np.random.default_rng(seed)
    refs = [r for r in BOX if r in preset and r != "trunk.alpha_set_deg" and float(preset[r]) != 0.0]
    return tuple((f"jitter {seed}.{i}", tuple((r, float(f"{float(preset[r]) * (1 + rng.uniform(-rel, rel)):.4g}"))
                                               for r in refs)) for i in range(n))


def summary_lines(title: str, scores: list[dict[str, Any]]) -> list[str]:
    """Counts over a set of variants (a neighbourhood or a random search)."""
    n = len(scores)
    walk = [s for s in scores if s["ok"]]
    keep = [s for s in scores if s["keeps"]]

    def rng(xs: list[float], digits: int = 1) -> str:
        xs = [x for x in xs if np.isfinite(x)]
        return "n/a" if not xs else f"{min(xs):.{digits}f} to {max(xs):.{digits}f}"

    stand = [s for s in scores if not set(s["fell"]) & set(TRIALS)]
    return [f"| {title} | {n} | {len(walk)} | {len(stand)} | {len(keep)} "
            f"| {sum(s['walk_pct'] <= 10 for s in keep)} ({rng([s['walk_pct'] for s in keep])}) "
            f"| {sum(s['prop_pass'] for s in keep)} ({rng([s['prop_spread'] * 1000 for s in keep], 2)}) "
            f"| {sum(s['swap_pass'] for s in keep)} ({rng([s['swap_mm'] for s in keep])}) "
            f"| {rng([s['res_x'] for s in keep])} / {rng([s['res_y'] for s in keep])} |"]


SUMMARY_HEAD = ["| variants | n | every run walks | the three real trials walk | keep today's targets "
                "| of those: walk1 and walk2 within 10 % (worst stride error, %) | propulsion passes (speed spread, "
                "mm/s) | swap passes: walks, trunk back, stride shorter (swap - sneakers, mm) "
                "| residual x / y RMS, worst bundled [% peak GRF] |", "|---|---|---|---|---|---|---|---|---|"]


def _speed(results: Any, built: Any) -> dict[str, Any]:
    """``study_speed_m_s``: mean forward speed of the whole-body CoM over the run [m/s]."""
    if "kin.com" not in results.signals or results.t.size < 2:
        return {}
    com = np.asarray(results["kin.com"])
    return {"study_speed_m_s": float((com[-1, 0] - com[0, 0]) / (results.t[-1] - results.t[0]))}


def _jobs(data: Path | None) -> dict[str, RunSpec]:
    """The runs of one variant, by role, before the variant's settings."""
    jobs = {ds: RunSpec(dataset=ds, preset="setpoint", duration=10.0) for ds in BUNDLED}
    jobs["prop0.9"] = RunSpec(dataset="sneakers", preset="setpoint", duration=10.0,
                              settings=(("grf.propulsion_gain", 0.9),))
    jobs["prop1.1"] = RunSpec(dataset="sneakers", preset="setpoint", duration=10.0,
                              settings=(("grf.propulsion_gain", 1.1),))
    jobs["swap"] = RunSpec(dataset="high_heels", kinematics="sneakers", preset="setpoint", duration=10.0)
    if data is not None and data.is_dir():
        for name, (grf, kin, mass, height) in TRIALS.items():
            jobs[name] = RunSpec(dataset=str(data / grf), kinematics=str(data / kin), mass=mass, height=height,
                                 preset="setpoint")
    return jobs


def run_study(variants: tuple[tuple[str, Settings], ...], data: Path | None,
              chunk: int = 60) -> list[dict[str, dict[str, Any]]]:
    """Per variant, ``{role: flattened summary row}`` (:func:`app.tuning.worker.summary_row`)."""
    from app.runs import build_diagram
    from app.signals import metric_signals
    from app.tuning.vectorized import run_many

    logged = tuple(metric_signals(build_diagram(RunSpec(preset="setpoint"))))
    out: list[dict[str, dict[str, Any]]] = [{} for _ in variants]
    for role, base in _jobs(data).items():
        t0 = time.perf_counter()
        for lo in range(0, len(variants), chunk):  # bounded memory: `chunk` copies recorded at once
            specs = [replace(base, logged=logged).with_settings(*settings) for _, settings in variants[lo:lo + chunk]]
            for i, row in enumerate(run_many(specs)):
                out[lo + i][role] = row
        print(f"study: {role}, {len(variants)} variants, {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True)
    return out


def score(rows: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The targets held today (``keeps``) and the xfail figures of one variant."""
    def g(role: str, key: str) -> float:
        v = rows.get(role, {}).get(key)
        return float(v) if isinstance(v, (int, float)) and v is not None else float("nan")

    def stride_err(role: str) -> float:
        """Stride error of a whole run; nan for a run that fell (its stride up to the fall is no result)."""
        if rows.get(role, {}).get("status") != "ok":
            return float("nan")
        return g(role, "stride_length_m") / g(role, "recording.stride_length_m") - 1.0

    fell = [r for r in rows if rows[r].get("status") != "ok"]
    held = [r for r in (*BUNDLED, "prop0.9", "prop1.1") if r in rows]
    trunk_lo = min(g(r, "trunk_deg.min") for r in held)
    trunk_hi = max(g(r, "trunk_deg.max") for r in held)
    slip = max(g(r, "stance_slip_m_max") for r in held)
    stride = max(abs(stride_err(r)) for r in BUNDLED)
    rec_trunk = g("high_heels", "recording.trunk_deg.min") - g("sneakers", "recording.trunk_deg.min")
    swap_trunk = g("swap", "trunk_deg.min") - g("sneakers", "trunk_deg.min")
    rec_stride = g("high_heels", "recording.stride_length_m") - g("sneakers", "recording.stride_length_m")
    swap_stride = (g("swap", "stride_length_m") - g("sneakers", "stride_length_m") if "swap" not in fell
                   else float("nan"))
    speeds = [g("prop0.9", "study_speed_m_s"), g("sneakers", "study_speed_m_s"), g("prop1.1", "study_speed_m_s")]
    strides = [g("prop0.9", "stride_length_m"), g("sneakers", "stride_length_m"), g("prop1.1", "stride_length_m")]
    est_share = min(g(r, "actuation.stance_joint_impulse_share.estimator") for r in BUNDLED)
    cycles = min(g(r, "cycles_completed") for r in BUNDLED)
    prop_pass = bool(speeds[2] - speeds[0] > 0.01 and np.all(np.diff(speeds) > 0) and np.all(np.diff(strides) > 0))
    res_x = max(g(r, "residual.x.rms_fraction") for r in BUNDLED) * 100
    res_y = max(g(r, "residual.y.rms_fraction") for r in BUNDLED) * 100
    keeps = bool(not set(fell) & set(held) and trunk_lo >= -5.0 and trunk_hi <= 12.0 and slip <= 0.02
                 and stride <= 0.10 and est_share > 0.2 and cycles >= 7 and prop_pass and max(res_x, res_y) <= 5.0)
    return {
        "keeps": keeps, "ok": not fell, "fell": fell, "swap_trunk": swap_trunk, "est_share": est_share,
        "trunk_lo": trunk_lo, "trunk_hi": trunk_hi, "slip_cm": slip * 100,
        "stride_err_pct": stride * 100,
        "walk_pct": max((abs(stride_err(r)) for r in ("walk1", "walk2") if r in rows), default=float("nan")) * 100
        if not {"walk1", "walk2"} & set(fell) else float("nan"),
        "prop_spread": speeds[2] - speeds[0],
        "prop_pass": prop_pass,
        "swap_mm": swap_stride * 1000, "swap_pass": bool("swap" not in fell and swap_stride <= 0.1 * rec_stride
                                                          and swap_trunk <= 0.1 * rec_trunk),
        "res_x": res_x, "res_y": res_y,
        "res_y_min": min(g(r, "residual.y.rms_fraction") for r in BUNDLED) * 100,
        "torque_real": max((max(g(r, "peak_torque_nm_per_kg.hip"), g(r, "peak_torque_nm_per_kg.knee"))
                            for r in TRIALS if r in rows and r not in fell), default=float("nan")),
    }


def _fmt(v: float, digits: int = 1) -> str:
    return "n/a" if not np.isfinite(v) else f"{v:.{digits}f}"


def table(variants: tuple[tuple[str, Settings], ...], scores: list[dict[str, Any]]) -> list[str]:
    out = ["| variant (shared, every condition) | runs that fall | keeps today's targets | trunk min..max [deg] "
           "| slip max [cm] | worst bundled stride error [%] | walk1/walk2 worst stride error [%] "
           "| speed spread x0.9..x1.1 [mm/s] "
           "| swap stride - sneakers [mm] | residual x / y RMS, worst bundled [% peak GRF] "
           "| peak joint torque, worst real trial that walks [N·m/kg] |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for (label, settings), s in zip(variants, scores):
        what = ", ".join(f"`{k}` {v:g}" for k, v in settings) or "the preset as shipped"
        out.append(f"| {label}: {what} | {', '.join(s['fell']) or 'none'} | {'yes' if s['keeps'] else 'no'} "
                   f"| {_fmt(s['trunk_lo'])}..{_fmt(s['trunk_hi'])} | {_fmt(s['slip_cm'], 2)} "
                   f"| {_fmt(s['stride_err_pct'])} | {_fmt(s['walk_pct'])} "
                   f"| {_fmt(s['prop_spread'] * 1000, 2)}{' (passes)' if s['prop_pass'] else ''} "
                   f"| {_fmt(s['swap_mm'])}{' (passes)' if s['swap_pass'] else ''} "
                   f"| {_fmt(s['res_x'])} / {_fmt(s['res_y'])} | {_fmt(s['torque_real'])} |")
    return out


def write_table(path: Path, lines: list[str]) -> None:
    text = path.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{path}: markers {BEGIN} / {END} not found")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    path.write_text(head + BEGIN + "\n" + "\n".join(lines) + "\n" + END + tail, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.emergent_study", description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="markdown file whose study markers receive the table")
    ap.add_argument("--json", type=Path, help="write every run's row and score here")
    ap.add_argument("--data", type=Path, default=reference_dir(),
                    help="data folder with the real trials (default: $GAITBLOCKS_DATA, else grf_data/reference)")
    ap.add_argument("--only", nargs="*", help="run only these variant labels (the preset is always run)")
    ap.add_argument("--jitter", type=int, default=40, help="variants of the 5 %% neighbourhood of the preset")
    ap.add_argument("--random", type=int, default=240, help="variants drawn at random from the whole box")
    args = ap.parse_args(argv)
    variants = VARIANTS if not args.only else tuple(v for v in VARIANTS if v[0] == "preset" or v[0] in args.only)
    register_metric(_speed)
    groups = {"one at a time": variants, "jitter": jitter_variants(args.jitter, 7),
              "random": random_variants(args.random, 1)}
    everything = tuple(v for vs in groups.values() for v in vs)
    rows = run_study(everything, args.data)
    scores = [score(r) for r in rows]
    n_one, n_jit = len(groups["one at a time"]), len(groups["jitter"])
    lines = table(variants, scores[:n_one]) + [""] + SUMMARY_HEAD
    lines += summary_lines("the preset with every other shared parameter scaled by U(0.95, 1.05)",
                           scores[n_one:n_one + n_jit])
    lines += summary_lines("drawn uniformly from the whole box (`BOX`), every parameter at once",
                           scores[n_one + n_jit:])
    print("\n".join(lines))
    if args.json:
        args.json.write_text(json.dumps({"variants": [[lb, list(map(list, st))] for lb, st in everything],
                                         "scores": scores}, default=str, indent=1))
    if args.out:
        write_table(args.out, lines)
        print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
