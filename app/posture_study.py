r"""What the posture solver says about footwear: the factorial, identifiability, robustness and perturbations.

Every figure here comes from a solve (:func:`models.posture.solver.solve_posture`) of the bundled
sets or the real trials; :func:`markdown` turns them into the posture section of
``docs/results.md`` (``python -m app.report``; ``python -m app.posture_study`` writes it alone).

The factorial (for two conditions A and B): the four cells GRF {A, B} x swing kinematics {A, B},
each a solve; for a figure ``y`` (trunk mean, stride, stance-knee peak)

    GRF main effect         = 1/2 [(y(B, A) - y(A, A)) + (y(B, B) - y(A, B))]
    kinematics main effect  = 1/2 [(y(A, B) - y(A, A)) + (y(B, B) - y(B, A))]
    interaction             = y(B, B) - y(B, A) - y(A, B) + y(A, A)

(``y(G, K)``: GRF of G, swing of K): the two main effects add up to ``y(B, B) - y(A, A)`` exactly,
and the interaction is how much the GRF's effect changes with the swing it is paired with (the
GRF effect under swing B minus that under swing A).
An effect is *robust* when its sign is the same under every variant of the solve (swing reference,
tracking tolerance, collocation nodes, trunk CoM +/- 1 cm), and *not identifiable* when it flips.

The CoP prediction: moving every CoP forward by ``delta`` under its foot adds ``delta F_y`` to the
moment of the GRF about the CoM; over a periodic cycle the angular momentum returns, so
``int (x_cop - x_com) F_y - (0 - y_com) F_x dt`` keeps its value and the CoM must sit ``delta``
further forward relative to the feet, weighted by ``F_y``:
``Delta = sum F_y (x_com - x_foot) / sum F_y`` changes by ``delta`` exactly. If the trunk alone
carried it (hips fixed over the feet), the trunk would lean forward by
``delta m / (m_trunk r_0)`` rad. The study reports both the measured CoM shift against ``delta``
and the trunk's measured change against this trunk-only bound.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from app.posture import SolveSpec, model_params, solve_inputs, solver_options
from app.posture_real import Trials, real_trials_section
from app.posture_real import progress as _progress
from models.posture.metrics import answer_status, com_path, posture_metrics

BUNDLED = ("sneakers", "barefoot", "high_heels")
PAIRS = (("sneakers", "high_heels"), ("sneakers", "barefoot"), ("barefoot", "high_heels"))
FIGURES = (("trunk_mean", "trunk mean [deg]"), ("stride", "stride [m]"), ("knee", "stance-knee peak [deg]"))

_DATA: dict[str, Any] = {}


def dataset(name: str) -> Any:
    if name not in _DATA:
        from grf_data.registry import load_dataset

        _DATA[name] = load_dataset(name)
    return _DATA[name]


def cell(grf: str, kin: str, spec: SolveSpec | None = None, guess_lean_deg: float = 0.0) -> dict[str, Any]:
    """One solve: GRF and CoP of ``grf``, swing reference of ``kin``; its figures, status and solution."""
    spec = spec or SolveSpec()
    g = dataset(grf)
    k = None if kin == grf else dataset(kin)
    params = model_params(g, spec)
    ci = solve_inputs(g, k, spec, params, 0)
    from models.posture.solver import solve_posture

    options = replace(solver_options(spec, g, ci.period), guess_lean_deg=guess_lean_deg)
    sol = solve_posture(ci, params, options)
    m = posture_metrics(sol)
    status, why = answer_status(sol, m)
    return {"status": status, "why": why, "trunk_mean": m["trunk_deg"]["mean"], "trunk_range": m["trunk_deg"]["range"],
            "stride": m["stride_m"], "knee": m["stance_knee_peak_deg"], "metrics": m, "solution": sol}


def effects(cells: dict[tuple[str, str], dict[str, Any]], a: str, b: str, key: str) -> dict[str, float]:
    """GRF and kinematics main effects and the interaction of ``key`` (module doc) for B against A."""
    y = {gk: cells[gk][key] for gk in cells}
    grf = 0.5 * ((y[(b, a)] - y[(a, a)]) + (y[(b, b)] - y[(a, b)]))
    kin = 0.5 * ((y[(a, b)] - y[(a, a)]) + (y[(b, b)] - y[(b, a)]))
    return {"grf": grf, "kinematics": kin, "interaction": y[(b, b)] - y[(b, a)] - y[(a, b)] + y[(a, a)],
            "total": y[(b, b)] - y[(a, a)]}


def factorial(a: str, b: str, spec: SolveSpec | None = None) -> dict[tuple[str, str], dict[str, Any]]:
    return {(g, k): cell(g, k, spec) for g in (a, b) for k in (a, b)}


VARIANTS: tuple[tuple[str, SolveSpec], ...] = (
    ("joint, sigma 0.5 deg, 100 nodes", SolveSpec()),
    ("segment reference", SolveSpec(swing_reference="segment")),
    ("foot-path reference", SolveSpec(swing_reference="foot")),
    ("sigma 2 deg", SolveSpec(sigma_deg=2.0)),
    ("50 nodes", SolveSpec(nodes=50)),
    ("200 nodes", SolveSpec(nodes=200)),
    ("trunk CoM -1 cm", SolveSpec(trunk_com_shift_m=-0.01)),
    ("trunk CoM +1 cm", SolveSpec(trunk_com_shift_m=0.01)),
)


def _f(v: float, digits: int = 2, sign: bool = True) -> str:
    if not np.isfinite(v):
        return "n/a"
    return f"{v:+.{digits}f}" if sign else f"{v:.{digits}f}"


def _cell_task(task: tuple[str, str, SolveSpec]) -> dict[str, Any]:
    """:func:`cell` without its solution object (what crosses a process boundary)."""
    g, k, spec = task
    _progress(f"posture study: GRF {g}, swing {k}, {spec}")
    out = cell(g, k, spec)
    out.pop("solution")
    return out


def _map_cells(tasks: list[tuple[str, str, SolveSpec]], workers: int) -> list[dict[str, Any]]:
    """Every cell of ``tasks``, in ``workers`` spawned processes (1 = in this process)."""
    if workers <= 1:
        return [_cell_task(t) for t in tasks]
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn")) as pool:
        return list(pool.map(_cell_task, tasks))


def factorial_section(pairs: tuple[tuple[str, str], ...] = PAIRS,
                      variants: tuple[tuple[str, SolveSpec], ...] = VARIANTS,
                      workers: int = 1) -> tuple[list[str], dict[str, Any]]:
    """The factorial tables: the base solve's cells and effects, then each effect's range and sign
    verdict over ``variants``. Returns the markdown lines and the figures."""
    lines = ["### GRF x swing kinematics: the factorial", "",
             "Each cell is one solve: the GRF and CoP of the row's set, the swing hip and knee of the column's "
             "(read by swing phase). Residual verdicts (Hicks et al. 2015) per cell; `no_periodic_gait` or "
             "`failed` cells are named, never averaged.", ""]
    data: dict[str, Any] = {}
    tasks = list(dict.fromkeys((label, g, k) for label, _ in variants for a, b in pairs for g in (a, b)
                               for k in (a, b)))
    specs = dict(variants)
    per_variant: dict[str, dict[tuple[str, str], dict[str, Any]]] = {label: {} for label, _ in variants}
    for (label, g, k), result in zip(tasks, _map_cells([(g, k, specs[label]) for label, g, k in tasks], workers),
                                     strict=True):
        per_variant[label][(g, k)] = result
    base = per_variant[variants[0][0]]
    lines += ["| GRF \\ swing | " + " | ".join(BUNDLED) + " |", "|---|" + "---|" * len(BUNDLED)]
    for g in BUNDLED:
        row = []
        for k in BUNDLED:
            c = base.get((g, k))
            if c is None:
                row.append("")
                continue
            r = c["metrics"]["residual"]
            row.append(f"{c['status']}: trunk {c['trunk_mean']:.2f} deg, stride {c['stride']:.3f} m, knee "
                       f"{c['knee']:.1f} deg; residual {100 * r['force_ratio']:.2f} % {r['force_verdict']} / "
                       f"{100 * r['moment_ratio']:.3f} % {r['moment_verdict']}")
        lines.append(f"| {g} | " + " | ".join(row) + " |")
    lines += ["", "Main effects (B against A) under the base solve, and their range over the robustness variants "
              f"({', '.join(lbl for lbl, _ in variants[1:])}). `robust`: the sign holds in every variant.", "",
              "| B vs A | figure | GRF effect | kinematics effect | interaction | B - A (solved) | GRF effect range | "
              "kinematics effect range | verdict GRF / kinematics |", "|---|---|---|---|---|---|---|---|---|"]
    for a, b in pairs:
        for key, label in FIGURES:
            digits = 3 if key == "stride" else 2
            eff = {v: effects(cells, a, b, key) for v, cells in per_variant.items()
                   if all(cells[(g, k)]["status"] == "converged" for g in (a, b) for k in (a, b))}
            if variants[0][0] not in eff:
                lines.append(f"| {b} vs {a} | {label} | n/a (a cell did not converge) | | | | | | |")
                continue
            e0 = eff[variants[0][0]]
            g_all = [e["grf"] for e in eff.values()]
            k_all = [e["kinematics"] for e in eff.values()]

            def verdict(vals: list[float]) -> str:
                return "robust" if all(v > 0 for v in vals) or all(v < 0 for v in vals) else "not identifiable"

            data[f"{b}-{a}:{key}"] = {"base": e0, "grf_range": (min(g_all), max(g_all)),
                                      "kin_range": (min(k_all), max(k_all)), "grf_verdict": verdict(g_all),
                                      "kin_verdict": verdict(k_all), "variants": len(eff)}
            lines.append(f"| {b} vs {a} | {label} | {_f(e0['grf'], digits)} | {_f(e0['kinematics'], digits)} | "
                         f"{_f(e0['interaction'], digits)} | {_f(e0['total'], digits)} | "
                         f"{_f(min(g_all), digits)} .. {_f(max(g_all), digits)} | "
                         f"{_f(min(k_all), digits)} .. {_f(max(k_all), digits)} | "
                         f"{verdict(g_all)} / {verdict(k_all)} |")
    lines.append("")
    return lines, data


def _reference_trunk(name: str, sol: Any) -> np.ndarray:
    ds = dataset(name)
    return np.rad2deg(np.interp(sol.t, ds.t, ds.q[:, 2]))


IDENTIFIABILITY: tuple[tuple[str, SolveSpec], ...] = (
    ("(a) kinematics only, no dynamics", SolveSpec(dynamics=False)),
    ("(b) full solve", SolveSpec()),
    ("(c) swing tracking sigma 5 deg", SolveSpec(sigma_deg=5.0)),
    ("(d) swing tracked at 30-70 % of swing only", SolveSpec(mid_swing_only=True)),
    ("(e) footprints held at the mean CoP", SolveSpec(footprints="cop")),
)


def identifiability_section() -> list[str]:
    lines = ["### Which input decides the posture", "",
             "Trunk RMS error against the generator's own trunk (the manufactured solution; read by the study "
             "only), the solved trunk mean and the footwear differences in trunk mean, recorded in brackets.", "",
             "| solve | trunk RMS error sn / bf / hh [deg] | trunk mean sn / bf / hh [deg] | hh - sn | bf - sn | "
             "hh - bf |", "|---|---|---|---|---|---|"]
    rec = {n: float(np.rad2deg(dataset(n).q[:, 2]).mean()) for n in BUNDLED}
    for label, spec in IDENTIFIABILITY:
        res = {}
        for n in BUNDLED:
            _progress(f"posture study: {label}: {n}")
            res[n] = cell(n, n, spec)
        err = [float(np.sqrt(np.mean((np.rad2deg(res[n]["solution"].q[:, 2]) - _reference_trunk(n, res[n]["solution"]))
                                     ** 2))) for n in BUNDLED]
        mean = [res[n]["trunk_mean"] for n in BUNDLED]
        bad = [f"{n}: {res[n]['status']}" for n in BUNDLED if res[n]["status"] != "converged"]

        def diff(x: str, y: str, res: dict[str, dict[str, Any]] = res) -> str:
            return f"{res[x]['trunk_mean'] - res[y]['trunk_mean']:+.2f} ({rec[x] - rec[y]:+.2f})"

        lines.append(f"| {label}{' (' + ', '.join(bad) + ')' if bad else ''} | "
                     f"{' / '.join(f'{e:.3f}' for e in err)} | {' / '.join(f'{m:.2f}' for m in mean)} | "
                     f"{diff('high_heels', 'sneakers')} | {diff('barefoot', 'sneakers')} | "
                     f"{diff('high_heels', 'barefoot')} |")
    lines.append("")
    return lines


def _cop_lever(sol: Any) -> float:
    """``sum F_y (x_com - x_foot) / sum F_y`` over stance nodes [m]."""
    com = com_path(sol)
    from models.biped import FiveLinkBiped

    pts = FiveLinkBiped(sol.params, backend="numpy").points_batch(sol.q)
    num = den = 0.0
    for foot, tag in ((0, "foot_l"), (1, "foot_r")):
        st = sol.inputs.stance[:, foot]
        fy = sol.inputs.grf[st, 2 * foot + 1]
        num += float(np.sum(fy * (com[st, 0] - pts[tag][st, 0])))
        den += float(np.sum(fy))
    return num / den


def perturbation_section(name: str = "sneakers") -> list[str]:
    lines = [f"### Perturbations of `{name}`", "",
             "| perturbation | status | trunk mean [deg] | stride [m] | speed [m/s] | stance-knee peak [deg] | "
             "residual force / moment |", "|---|---|---|---|---|---|---|"]
    cases: list[tuple[str, SolveSpec]] = [
        ("none", SolveSpec()), ("CoP -2 cm", SolveSpec(cop_shift_m=-0.02)), ("CoP +2 cm", SolveSpec(cop_shift_m=0.02)),
        ("footprints at the CoP", SolveSpec(footprints="cop")),
        ("CoP -2 cm, footprints at the CoP", SolveSpec(cop_shift_m=-0.02, footprints="cop")),
        ("CoP +2 cm, footprints at the CoP", SolveSpec(cop_shift_m=0.02, footprints="cop")),
        ("fore-aft GRF x0.9", SolveSpec(propulsion_gain=0.9)), ("fore-aft GRF x1.1", SolveSpec(propulsion_gain=1.1)),
        ("vertical x0.95", SolveSpec(vertical_gain=0.95)), ("vertical x1.05", SolveSpec(vertical_gain=1.05)),
        ("body mass +10 %", SolveSpec(mass_gain=1.1)), ("speed given (the set's)", SolveSpec(speed="trial")),
    ]
    out = {}
    for label, spec in cases:
        _progress(f"posture study: perturbation {label}")
        c = cell(name, name, spec)
        out[label] = c
        r = c["metrics"]["residual"]
        lines.append(f"| {label} | {c['status']} | {c['trunk_mean']:.2f} | {c['stride']:.3f} | "
                     f"{c['metrics']['speed_m_s']:.3f} | {c['knee']:.1f} | {100 * r['force_ratio']:.2f} % "
                     f"{r['force_verdict']} / {100 * r['moment_ratio']:.3f} % {r['moment_verdict']} |")
    p = out["none"]["solution"].params
    bound = np.rad2deg(0.02 * p.total_mass / (p.trunk.mass * p.trunk.com))
    lines += ["", "CoP shift against the moment balance (module `app.posture_study`): the force-weighted CoM position "
              "ahead of the centre of pressure must stay, so ahead of the foot it moves by the shift; the trunk-only "
              f"bound is the lean that would carry it alone ({bound:.2f} deg per 2 cm). With the foot point free under "
              "its stance's mean CoP (the default), a shift of the CoP relative to the foot is mostly taken up by "
              "that offset; with the footprints held at the recorded mean CoP it is not.", "",
              "| shift | CoM ahead of the foot, change [mm] (predicted) | trunk mean change [deg] | of the trunk-only "
              "bound |", "|---|---|---|---|"]
    for label, delta, base in (("CoP -2 cm", -0.02, "none"), ("CoP +2 cm", 0.02, "none"),
                               ("CoP -2 cm, footprints at the CoP", -0.02, "footprints at the CoP"),
                               ("CoP +2 cm, footprints at the CoP", 0.02, "footprints at the CoP")):
        c = out[label]
        if c["status"] != "converged":
            lines.append(f"| {label} | {c['status']} | | |")
            continue
        dl = 1000 * (_cop_lever(c["solution"]) - _cop_lever(out[base]["solution"]))
        dt = c["trunk_mean"] - out[base]["trunk_mean"]
        share = 100 * dt / (np.sign(delta) * bound)
        lines.append(f"| {label} | {dl:+.1f} ({1000 * delta:+.1f}) | {dt:+.2f} | {share:.0f} % |")
    lines.append("")
    return lines


def sensitivity_section(name: str = "sneakers") -> list[str]:
    lines = [f"### Sensitivity and convergence (`{name}`)", "",
             "| variant | status | trunk mean [deg] | trunk RMS error [deg] | stride [m] | iterations | time [s] |",
             "|---|---|---|---|---|---|---|"]
    cases: list[tuple[str, SolveSpec, float]] = [
        ("50 nodes", SolveSpec(nodes=50), 0.0), ("100 nodes", SolveSpec(), 0.0),
        ("200 nodes", SolveSpec(nodes=200), 0.0),
        ("guess: trunk +15 deg", SolveSpec(), 15.0), ("guess: trunk -15 deg", SolveSpec(), -15.0),
        ("trunk CoM -1 cm", SolveSpec(trunk_com_shift_m=-0.01), 0.0),
        ("trunk CoM +1 cm", SolveSpec(trunk_com_shift_m=0.01), 0.0),
        ("trunk mass -5 %", SolveSpec(trunk_mass_gain=0.95), 0.0),
        ("trunk mass +5 %", SolveSpec(trunk_mass_gain=1.05), 0.0),
        ("tracking weight x0.1 (sigma x3.16)", SolveSpec(sigma_deg=0.5 * 10**0.5), 0.0),
        ("tracking weight x10 (sigma /3.16)", SolveSpec(sigma_deg=0.5 / 10**0.5), 0.0),
    ]
    for label, spec, lean in cases:
        _progress(f"posture study: sensitivity {label}")
        c = cell(name, name, spec, guess_lean_deg=lean)
        sol = c["solution"]
        err = float(np.sqrt(np.mean((np.rad2deg(sol.q[:, 2]) - _reference_trunk(name, sol)) ** 2)))
        lines.append(f"| {label} | {c['status']} | {c['trunk_mean']:.3f} | {err:.3f} | {c['stride']:.4f} | "
                     f"{sol.iterations} | {sol.solve_time_s:.1f} |")
    lines.append("")
    return lines


def markdown(data_dir: Path | None, trials: Trials,
             parts: tuple[str, ...] = ("factorial", "identifiability", "perturbations", "sensitivity", "real"),
             workers: int = 1) -> list[str]:
    lines = ["## Posture solved from the GRF (`gaitblocks solve`)", "",
             "Direct collocation over one periodic cycle (`models/posture/solver.py`, `docs/posture.md`): only the "
             "GRF, the CoP and the swing hip and knee are read.", ""]
    if "factorial" in parts:
        lines += factorial_section(workers=workers)[0]
    if "identifiability" in parts:
        lines += identifiability_section()
    if "perturbations" in parts:
        lines += perturbation_section()
    if "sensitivity" in parts:
        lines += sensitivity_section()
    if "real" in parts:
        lines += real_trials_section(data_dir, trials)
    return lines


def main(argv: list[str] | None = None) -> int:
    import os

    from app.report import TRIALS

    ap = argparse.ArgumentParser(prog="python -m app.posture_study", description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("docs/posture-results.md"))
    ap.add_argument("--data", type=Path, default=Path(os.environ.get("GAITBLOCKS_DATA", "../shared/data")))
    ap.add_argument("--parts", default="factorial,identifiability,perturbations,sensitivity,real")
    ap.add_argument("--workers", type=int, default=1, help="processes for the factorial's cells")
    args = ap.parse_args(argv)
    lines = markdown(args.data, TRIALS, tuple(args.parts.split(",")), workers=args.workers)
    command = " ".join(["python -m app.posture_study", *(sys.argv[1:] if argv is None else argv)])
    args.out.write_text("\n".join(standalone(lines, command)) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


def standalone(lines: list[str], command: str) -> list[str]:
    """:func:`markdown`'s lines as a page of their own: a title, how and when they were made (with the
    machine's load average, since the times in the tables are wall times), then the tables."""
    import datetime
    import os

    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "n/a"
    head = ["# Posture solved from the GRF: measured tables", "",
            f"Generated on {datetime.date.today().isoformat()} by `{command}` (`app/posture_study.py`) from real "
            f"solves (`docs/posture.md`); do not edit by hand, run the script again. Load average at the end "
            f"(1, 5, 15 min): {load} on {os.cpu_count()} cores; the times in the tables are wall times under it. "
            "Only the GRF, the CoP and the swing hip and knee are read; the recordings' own figures appear for "
            "comparison only.", ""]
    body = lines[1:] if lines and lines[0].startswith("## ") else lines
    return head + body


if __name__ == "__main__":
    sys.exit(main())
