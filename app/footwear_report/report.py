"""The footwear comparison report: ``gaitblocks compare --trials FILE --report DIR``.

:func:`build_report` solves every trial (:mod:`.trials`), pools its figures and tests the
conditions (:mod:`.stats`), runs the GRF x swing-kinematics factorial on the first converged
trial of each condition (:mod:`.factorial`), and writes into ``DIR``:

* ``figure.{pdf,svg,png}`` (180 mm) and ``figure_85mm.{pdf,svg,png}`` -- the gait figure;
* ``effects.{pdf,svg,png}`` -- the factorial effects (two conditions or more);
* ``table.csv`` (one row per figure and condition), ``table.md`` (Table 1 with the tests),
  ``factorial.csv``/``.md``, ``trials.csv``/``.md`` (every cycle's status and residual verdicts);
* ``report.json`` (the numbers), ``report.html`` (everything, self-contained).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import platform
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from app.footwear_report import figures, html, tables
from app.footwear_report.factorial import (
    FactorialResult,
    cell_from_cycle,
    robustness_variants,
    run_factorial,
    solve_cell,
)
from app.footwear_report.stats import METRICS, compare_conditions, conditions_of, descriptives, pairwise
from app.footwear_report.trials import SolveCache, TrialSolve, data_files, solve_trial
from app.jsontext import dumps
from app.manifest import Trial
from app.posture import SolveSpec

__all__ = ["build_report", "program_version", "OUT_FILES"]

OUT_FILES = ("report.html", "figure.pdf", "figure.svg", "figure.png", "table.csv", "table.md")
REFERENCES = (figures.CITATION,
              "Hicks JL, Uchida TK, Seth A, Rajagopal A, Delp SL (2015) Is my model good enough? Best practices for "
              "verification and validation of musculoskeletal models and simulations of movement. J Biomech Eng "
              "137(2):020905")


def program_version() -> str:
    """``importlib.metadata.version("gaitblocks")``, or ``unknown`` when not installed."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gaitblocks")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _representatives(solves: Sequence[TrialSolve]) -> dict[str, Trial]:
    reps = {}
    for cond in conditions_of(solves):
        mine = [s for s in solves if s.trial.condition == cond]
        ok = [s for s in mine if s.status == "converged"]
        reps[cond] = (ok or mine)[0].trial
    return reps


def _design_text(solves: Sequence[TrialSolve], trunk_test: dict[str, Any]) -> str:
    conds = conditions_of(solves)
    per = ", ".join(f"{c.replace('_', ' ')}: {sum(s.trial.condition == c for s in solves)}" for c in conds)
    repeats = sum(s.synthetic and s.trial.subject.startswith("synthetic ") for s in solves)
    own = sum(s.synthetic for s in solves) - repeats
    text = f"{len(solves)} trials in {len(conds)} conditions ({per})"
    if repeats:
        text += (f"; {repeats} of them synthetic repeats, made by the bundled generator (models.gaitgen) with the "
                 "condition's cadence and stride each varied within ±2 % (no recorded repeats exist)")
    if own:
        text += f"; {own} bundled synthetic set{'s' if own > 1 else ''} as bundled"
    text += ". Means ± SD pool every converged cycle of every trial; tests use one value per trial. "
    if trunk_test["p"] is None:
        text += f"Trunk mean between conditions: {trunk_test['note']}."
    else:
        p = trunk_test["p"]
        text += (f"Trunk mean between conditions: {trunk_test['test']} ({trunk_test['design']}), "
                 f"p {'< 0.001' if p < 0.001 else f'= {p:.3f}'}, "
                 f"{trunk_test['effect_name']} = {trunk_test['effect']:.2f}.")
    return text


def _pairwise_rows(solves: Sequence[TrialSolve]) -> list[list[str]]:
    if len(conditions_of(solves)) < 3:
        return []
    rows = [["figure", "B vs A", "test", "p", "p (Holm)", "effect size"]]
    if all(r["p"] is None for r in pairwise(solves, METRICS[0].key)):
        return []
    for m in METRICS:
        for r in pairwise(solves, m.key):
            if r["p"] is None:
                rows.append([m.name, f"{r['b']} vs {r['a']}", r["note"], "-", "-", "-"])
                continue
            rows.append([m.name, f"{r['b']} vs {r['a']}", r["test"], f"{r['p']:.3g}", f"{r['p_holm']:.3g}",
                         f"{r['effect_name']} = {r['effect']:.2f}"])
    return rows


def _cells_rows(fac: FactorialResult) -> list[list[str]]:
    base = fac.cells[fac.variants[0]]
    rows = [["GRF \\ swing", *fac.conditions]]
    for g in fac.conditions:
        row = [g]
        for k in fac.conditions:
            c = base[(g, k)]
            if c["status"] != "converged":
                row.append(f"{c['status']}: {c['why']}")
                continue
            r = c["residual"]
            row.append(f"trunk {c['trunk_mean']:.2f} deg, stride {c['stride']:.3f} m, knee {c['knee']:.1f} deg; "
                       f"residual {100 * r['force_ratio']:.2f} % {r['force_verdict']} / "
                       f"{100 * r['moment_ratio']:.3f} % {r['moment_verdict']}")
        rows.append(row)
    return rows


def _warm_trial(folder: Path, trial: Trial, cycles: str) -> tuple[str, int]:
    cache = SolveCache(folder)
    solve_trial(trial, cache, cycles)
    return trial.label, cache.misses


def _warm_cell(folder: Path, g: Trial, k: Trial, spec: SolveSpec) -> tuple[str, int]:
    cache = SolveCache(folder)
    solve_cell(g, k, spec, cache)
    return f"GRF {g.label}, swing {k.label}", cache.misses


def _prefetch(fn: Callable[..., tuple[str, int]], jobs: list[tuple[Any, ...]], cache: SolveCache, workers: int,
              say: Callable[[str], None]) -> int:
    """Run ``fn(cache.folder, *job)`` for every job in ``workers`` processes: each solve lands in the
    disk cache, where the serial pass then finds it. Nothing is done without a cache folder.
    Returns the number of solves the workers computed (the rest were in the cache)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed

    computed = 0
    if workers <= 1 or cache.folder is None or not jobs:
        return computed
    with ProcessPoolExecutor(max_workers=workers) as ex:
        futures = [ex.submit(fn, cache.folder, *job) for job in jobs]
        for i, f in enumerate(as_completed(futures), start=1):
            label, new = f.result()
            computed += new
            say(f"[{i}/{len(jobs)}] {'solved' if new else 'cached'}: {label}")
    return computed


def build_report(trials: Sequence[Trial], out: Path, robustness: str = "quick", cycles: str = "auto",
                 cache: SolveCache | None = None, progress: Callable[[str], None] | None = None,
                 command: str = "", workers: int = 1) -> dict[str, Any]:
    """Solve, test, draw and write the report (module doc); returns the ``report.json`` content.
    ``workers`` > 1 solves in that many processes first (needs a cache with a folder)."""
    say = progress or (lambda _text: None)
    cache = cache or SolveCache()
    out.mkdir(parents=True, exist_ok=True)
    prefetched = _prefetch(_warm_trial, [(t, cycles) for t in trials], cache, workers, say)
    solves = []
    for i, t in enumerate(trials):
        say(f"[{i + 1}/{len(trials)}] solving {t.label}")
        solves.append(solve_trial(t, cache, cycles))
    conds = conditions_of(solves)
    desc = descriptives(solves)
    fac = None
    if len(conds) >= 2 and robustness != "off":
        reps = _representatives(solves)
        own = {s.trial.condition: cell_from_cycle(s.cycles[0]) for s in solves
               if s.trial == reps[s.trial.condition] and s.cycles and s.cycles[0].index == 0}
        base = robustness_variants(robustness)[0][0]
        jobs = [(reps[g], reps[k], spec) for label, spec in robustness_variants(robustness) for g in reps for k in reps
                if not (g == k and label == base and g in own)]
        prefetched += _prefetch(_warm_cell, jobs, cache, workers, say)
        fac = run_factorial(reps, robustness, cache, say, diagonal=own)
    say("writing figures and tables")
    fig = figures.gait_figure(solves, desc, out, 180.0, "figure")
    fig85 = figures.gait_figure(solves, desc, out, 85.0, "figure_85mm")
    table = tables.metrics_table(solves, desc)
    tables.write_csv(tables.tidy_rows(desc), out / "table.csv")
    trunk_test = compare_conditions(solves, "trunk_mean")
    design = _design_text(solves, trunk_test)
    note = ("Labels: solved = a result of the GRF, CoP and swing hip/knee; input = read from the recording (the "
            "cadence is the GRF's event timing); set-point = the generator's design value of a synthetic trial (never "
            "read by the solver); recording = the kinematics recording's own value, for comparison only. Cells: mean ± "
            "SD (trials, cycles).")
    (out / "table.md").write_text(f"{design}\n\n{tables.markdown(table)}\n{note}\n", encoding="utf-8")
    trial_rows = tables.trials_table(solves)
    tables.write_csv(trial_rows, out / "trials.csv")
    (out / "trials.md").write_text(tables.markdown(trial_rows), encoding="utf-8")
    problems = [f"{s.trial.condition}/{s.trial.subject or s.trial.label}: {s.status}" for s in solves
                if s.status != "converged"]
    first = next((s for s in solves if s.settings.get("solver_options")), None)
    files: list[list[str]] = []
    for s in solves:
        for p in data_files(s.trial):
            if p.is_file() and not any(f[0] == p.name and f[2] == _sha256(p) for f in files):
                files.append([p.name, str(p.stat().st_size), _sha256(p)])
    ctx: dict[str, Any] = {
        "title": "Footwear comparison: posture solved from the ground reaction force",
        "design": design, "problems": problems, "table": table, "table_note": note,
        "pairwise": _pairwise_rows(solves), "trials": trial_rows, "files": files, "version": program_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "references": REFERENCES,
        "figure": {"png": out / "figure.png", "files": fig[:2], "files85": fig85[:2],
                   "caption": "Mean ± SD band over every converged cycle of each condition's trials; dashed: the "
                              "recording's own angles over the same cycles (not read by the solver). Bottom right: "
                              "trunk inclination mean ± SD, solved and recorded, beside the published range (Luxman "
                              "& Zielinska 2017, both half-cycles) where the condition is one of the paper's "
                              "footwear."},
        "effects": None,
        "settings": {"command": command or "build_report()", "posture": "solved (gaitblocks solve, no trunk set-point)",
                     "cycles solved": "synthetic: cycle 0 (the generator tiles one cycle); recordings: "
                                      + ("every whole cycle" if cycles == "auto" else "cycle 0"),
                     "solve spec (per trial)": json.dumps(first.settings["solve"] if first else None),
                     "solver options": json.dumps(first.settings["solver_options"] if first else None),
                     "robustness": f"{robustness}: " + "; ".join(v for v, _ in robustness_variants(robustness)),
                     "factorial trials": "; ".join(f"{c}: {t.subject or t.label}" for c, t in
                                                   (_representatives(solves).items() if fac else [])),
                     "program": f"gaitblocks {program_version()}", "python": platform.python_version(),
                     "solves": f"{cache.misses + prefetched} computed in this run ({prefetched} in "
                               f"{workers} worker processes), {cache.hits - prefetched} reused from earlier runs"},
    }
    report: dict[str, Any] = {"version": program_version(), "descriptives": desc,
                              "trials": [{"trial": asdict(s.trial), "status": s.status, "error": s.error,
                                          "cycles": [{"index": c.index, "status": c.status, "why": c.why,
                                                      "metrics": c.metrics} for c in s.cycles]} for s in solves],
                              "tests": {m.key: compare_conditions(solves, m.key) for m in METRICS}}
    if fac is not None:
        eff = figures.effects_figure(fac, out)
        fac_rows = tables.factorial_table(fac)
        tables.write_csv(fac_rows, out / "factorial.csv")
        ctx["answer"] = tables.answer(fac)
        (out / "factorial.md").write_text(ctx["answer"] + "\n\n" + tables.markdown(fac_rows), encoding="utf-8")
        ctx["factorial"], ctx["cells"] = fac_rows, _cells_rows(fac)
        ctx["effects"] = {"png": out / "effects.png", "files": eff[:2],
                          "caption": "Bars: each effect under the base solve (B against A); whiskers: its range over "
                                     "the robustness variants; hatched: not identifiable (the sign flips)."}
        report["factorial"] = {f"{b} vs {a}: {k}": v for (a, b, k), v in fac.effects.items()}
        report["answer"] = ctx["answer"]
    else:
        ctx["answer"] = ("One condition only: there is nothing to compare, so no factorial was solved."
                         if len(conds) < 2 else "The GRF x swing-kinematics factorial was not run (--robustness off): "
                         "this report does not say what the GRF alone does to posture.")
    (out / "report.html").write_text(html.page(ctx), encoding="utf-8")
    text = dumps(report, indent=1)
    (out / "report.json").write_text(text + "\n", encoding="utf-8")
    say(f"wrote {out / 'report.html'}")
    return report
