"""``gaitblocks compare --trials FILE``: many trials per condition, mean ± SD per condition.

Each trial runs the default diagram (:func:`app.comparison.run_condition`) in its own process.
Per condition, every metric is reported as mean ± SD (sample SD, ``ddof=1``; 0 with n = 1) with
its n:

* over the complete gait cycles of all its trials (left landing to left landing): trunk
  range and mean, knee range of each leg, peak vertical GRF of the left foot (BW);
* over its trials: RMS tracking (worst hip, worst knee, trunk), stride length, cadence.

The overlays show each condition's mean curve over all its cycles with a ±1 SD band.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from app.comparison import PCT, ConditionResult, run_condition
from app.defaults import COMPARE_PRESET
from app.manifest import Trial
from models.errors import UserError

#: per-cycle metrics: name -> (curve key, function of the (n, 101) cycles giving (n,) values)
CYCLE_METRICS: dict[str, tuple[str, Callable[[np.ndarray], np.ndarray]]] = {
    "trunk range [deg]": ("trunk_deg", lambda c: c.max(axis=1) - c.min(axis=1)),
    "trunk mean [deg]": ("trunk_deg", lambda c: c.mean(axis=1)),
    "knee range L [deg]": ("knee_l_deg", lambda c: c.max(axis=1) - c.min(axis=1)),
    "knee range R [deg]": ("knee_r_deg", lambda c: c.max(axis=1) - c.min(axis=1)),
    "peak vertical GRF L [BW]": ("grf_ly_bw", lambda c: c.max(axis=1)),
}


def _trial_metrics(s: dict[str, Any]) -> dict[str, float]:
    rms = s.get("rms_deg", {})
    return {"RMS hip [deg]": max(rms.get("hip_l", np.nan), rms.get("hip_r", np.nan)),
            "RMS knee [deg]": max(rms.get("knee_l", np.nan), rms.get("knee_r", np.nan)),
            "RMS trunk [deg]": rms.get("trunk", np.nan),
            "stride [m]": s.get("stride_length_m", np.nan) if s.get("stride_length_m") is not None else np.nan,
            "cadence [steps/min]": (s.get("cadence_steps_per_min", np.nan)
                                    if s.get("cadence_steps_per_min") is not None else np.nan)}


@dataclass
class TrialResult:
    trial: Trial
    result: ConditionResult


def _run(job: tuple[Trial, str, float | None]) -> ConditionResult:
    from app.runs import RunSpec

    trial, preset, duration = job
    try:
        return run_condition(RunSpec(dataset=trial.grf, preset=preset, duration=duration, **trial.subject_args()))
    except UserError as exc:
        raise UserError(f"trial {trial.label}: {exc}") from None


def run_trials(trials: Sequence[Trial], preset: str = COMPARE_PRESET, duration: float | None = None,
               workers: int | None = None,
               progress: Callable[[int, int, str], None] | None = None) -> list[TrialResult]:
    """Run every trial on the one executor of :mod:`blocks.executors` (processes when ``workers`` > 1);
    results in input order."""
    from blocks.executors import make_executor

    jobs = [(t, preset, duration) for t in trials]
    workers = max(1, min(len(jobs), workers if workers is not None else (os.cpu_count() or 1)))
    out: list[ConditionResult | None] = [None] * len(jobs)
    with make_executor("process", workers) as ex:
        stream = ex.imap(_run, jobs)
        try:
            for done, (i, res) in enumerate(stream, start=1):
                out[i] = res
                if progress is not None:
                    progress(done, len(jobs), jobs[i][0].label)
        finally:
            stream.close()
    return [TrialResult(t, r) for t, r in zip(trials, out) if r is not None]


def _stat(values: Sequence[float] | np.ndarray) -> dict[str, float | int]:
    v = np.asarray([x for x in values if x is not None and np.isfinite(x)], dtype=float)
    if v.size == 0:
        return {"mean": float("nan"), "sd": float("nan"), "n": 0}
    return {"mean": float(v.mean()), "sd": float(v.std(ddof=1)) if v.size > 1 else 0.0, "n": int(v.size)}


def _cycles(results: Sequence[TrialResult], key: str) -> np.ndarray:
    rows = [r.result.cycle[f"{key}_cycles"] for r in results if f"{key}_cycles" in r.result.cycle]
    rows = [r for r in rows if r.size]
    return np.concatenate(rows, axis=0) if rows else np.empty((0, PCT.size))


def condition_stats(results: Sequence[TrialResult]) -> dict[str, dict[str, Any]]:
    """``{condition: {"trials", "ok", "cycles", metric: {"mean", "sd", "n"}, ...}}`` (module doc)."""
    out: dict[str, dict[str, Any]] = {}
    for cond in dict.fromkeys(r.trial.condition for r in results):
        mine = [r for r in results if r.trial.condition == cond]
        entry: dict[str, Any] = {"trials": len(mine), "ok": sum(r.result.ok for r in mine),
                                 "cycles": int(_cycles(mine, "trunk_deg").shape[0])}
        for name, (key, fn) in CYCLE_METRICS.items():
            cyc = _cycles(mine, key)
            entry[name] = _stat(fn(cyc) if cyc.shape[0] else [])
        per_trial = [_trial_metrics(r.result.summary) for r in mine]
        for name in per_trial[0]:
            entry[name] = _stat([m[name] for m in per_trial])
        out[cond] = entry
    return out


def stats_table(stats: dict[str, dict[str, Any]]) -> list[list[str]]:
    """Header + one row per condition, cells ``mean ± SD (n)``."""
    names = list(CYCLE_METRICS) + ["RMS hip [deg]", "RMS knee [deg]", "RMS trunk [deg]", "stride [m]",
                                   "cadence [steps/min]"]
    rows = [["condition", "trials ok/total", "cycles"] + names]
    for cond, e in stats.items():
        cells = []
        for n in names:
            s = e[n]
            digits = 3 if "[m]" in n or "[BW]" in n else 2
            cells.append("n/a" if s["n"] == 0 else f"{s['mean']:.{digits}f} ± {s['sd']:.{digits}f} ({s['n']})")
        rows.append([cond, f"{e['ok']}/{e['trials']}", str(e["cycles"])] + cells)
    return rows


def band_plots(results: Sequence[TrialResult], out: Path) -> list[Path]:
    """Per condition: mean over all its cycles with a ±1 SD band (trunk, left knee, left vertical GRF)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = (("trunk_deg", "trunk angle alpha [deg]", "trunk.png"),
              ("knee_l_deg", "left knee flexion gamma_l [deg]", "knee.png"),
              ("grf_ly_bw", "left vertical GRF [BW]", "grf_vertical.png"))
    paths = []
    conds = list(dict.fromkeys(r.trial.condition for r in results))
    for key, label, fname in panels:
        fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
        for i, cond in enumerate(conds):
            cyc = _cycles([r for r in results if r.trial.condition == cond], key)
            if not cyc.shape[0]:
                continue
            mean, sd = cyc.mean(axis=0), cyc.std(axis=0, ddof=1) if cyc.shape[0] > 1 else np.zeros(PCT.size)
            color = f"C{i % 10}"
            ax.plot(PCT, mean, color=color, lw=1.8, label=f"{cond} (n = {cyc.shape[0]} cycles)")
            ax.fill_between(PCT, mean - sd, mean + sd, color=color, alpha=0.2, lw=0)
        ax.set_xlabel("gait cycle [%] (left landing = 0)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / fname)
        plt.close(fig)
        paths.append(out / fname)
    return paths


def write_outputs(results: Sequence[TrialResult], out: Path) -> list[list[str]]:
    """``conditions.csv``/``.md``/``.json``, ``trials.csv``, ``summaries.json`` and the band overlays."""
    out.mkdir(parents=True, exist_ok=True)
    stats = condition_stats(results)
    table = stats_table(stats)
    with open(out / "conditions.csv", "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(table)
    md = ["| " + " | ".join(table[0]) + " |", "|" + "---|" * len(table[0])]
    md += ["| " + " | ".join(row) + " |" for row in table[1:]]
    (out / "conditions.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    (out / "conditions.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    with open(out / "trials.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["condition", "subject", "grf", "kinematics", "status", "cycles", "mass_kg", "height_m",
                    "window_s"])
        for r in results:
            s = r.result.summary
            sub = s.get("subject", {})
            w.writerow([r.trial.condition, r.trial.subject, r.trial.grf, r.trial.kinematics or "", s.get("status"),
                        s.get("cycles_completed"), sub.get("mass_kg"), sub.get("height_m"), sub.get("window_s")])
    (out / "summaries.json").write_text(json.dumps({f"{i + 1}:{r.trial.label}": r.result.summary
                                                    for i, r in enumerate(results)}, indent=2, default=str) + "\n",
                                        encoding="utf-8")
    band_plots(results, out)
    return table


def run_trials_command(args: Any, specs: list[str]) -> int:
    """``compare --trials FILE`` / ``compare --grf A B --mass KG KG``: run, write, print; 0 when all ran ok."""
    import sys

    from app.manifest import read_manifest, trials_from_args

    trials = read_manifest(args.trials) if args.trials is not None else trials_from_args(specs, args.mass)

    def progress(done: int, total: int, name: str) -> None:
        print(f"[{done}/{total}] {name} done", file=sys.stderr)

    results = run_trials(trials, preset=args.preset, duration=args.duration, workers=args.workers, progress=progress)
    table = write_outputs(results, args.out)
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths)))
    for r in results:
        if not r.result.ok:
            print(f"{r.trial.label}: run {r.result.summary.get('status')} ({r.result.summary.get('message', '')})")
    print(f"-> {args.out}")
    return 0 if all(r.result.ok for r in results) else 1
