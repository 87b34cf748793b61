"""Run several datasets with the same diagram and preset, and compare them as the paper does.

Used by ``gaitblocks compare`` and the GUI's compare view (which passes the GUI's own diagram,
preset and parameter changes as the base :class:`~app.runs.RunSpec`). For each condition the run
service runs the spec on that dataset; the walking metrics (:mod:`models.gait_metrics`) are computed and the
trunk angle, knee angles and vertical GRF are normalised to 0-100 % of the gait cycle (left
landing to left landing, mean over complete cycles, 101 points).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.defaults import COMPARE_PRESET, DEFAULT_PRESET
from models.gait_metrics import landings

if TYPE_CHECKING:
    from app.runs import RunSpec

PCT = np.linspace(0.0, 100.0, 101)
CURVES = ("trunk_deg", "knee_l_deg", "knee_r_deg", "grf_ly_bw", "grf_ry_bw")


@dataclass
class ConditionResult:
    """One condition: its ``summary.json`` content and its gait-cycle curves (each (101,))."""

    name: str
    summary: dict[str, Any]
    cycle: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.summary.get("status") == "ok"


def cycle_curves(t: np.ndarray, stance_l: np.ndarray, signals: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Mean (``name``), standard deviation (``name_sd``) and the cycles themselves (``name_cycles``,
    ``(n_cycles, 101)``) of each signal over complete cycles (left landing to left landing) on
    0-100 %; ``n_cycles`` (a 1-element array) says over how many."""
    land = landings(stance_l > 0.5)
    out: dict[str, np.ndarray] = {"pct": PCT, "n_cycles": np.array([max(len(land) - 1, 0)])}
    for name, sig in signals.items():
        rows = [np.interp(PCT, np.linspace(0, 100, b - a + 1), sig[a:b + 1]) for a, b in zip(land[:-1], land[1:])]
        out[name] = np.mean(rows, axis=0) if rows else np.full(PCT.size, np.nan)
        out[f"{name}_sd"] = np.std(rows, axis=0) if rows else np.full(PCT.size, np.nan)
        out[f"{name}_cycles"] = np.array(rows).reshape(len(rows), PCT.size)
    return out


def run_condition(spec: RunSpec) -> ConditionResult:
    """Run ``spec`` (:func:`app.runs.run`) and cut its curves into gait cycles; a run that blows up
    is a result with its status, not an exception."""
    from app.runs import run
    from app.solved import NoSolution
    from blocks.library.context import biped_of

    try:
        res = run(spec)
    except NoSolution as exc:  # the solved gait has no solution to walk on: a result, with no numbers
        return ConditionResult(condition_name(str(spec.dataset or exc.dataset)),
                               {"status": "no_solution", "solve_status": exc.status, "message": str(exc),
                                "preset": spec.preset, "dataset": exc.dataset})
    summary = dict(res.summary)
    summary.pop("events", None)
    summary.pop("param_changes", None)
    weight = biped_of(res.built.model.ctx).total_mass * 9.81
    q, F, stance = (res.signal("FiveLinkDynamics", "q"), res.signal("GrfSource", "F"),
                    res.signal("PhaseDetector", "stance"))
    curves: dict[str, np.ndarray] = {}
    if res.results.t.size > 2 and q is not None and F is not None and stance is not None:
        t = res.results.t
        n = t.size
        if summary.get("metrics_until_s") is not None:  # a fallen run: cycles up to the fall only
            n = int(np.searchsorted(t, summary["metrics_until_s"], side="right"))
        signals = {"trunk_deg": np.degrees(q[:n, 2]), "knee_l_deg": np.degrees(q[:n, 5]),
                   "knee_r_deg": np.degrees(q[:n, 6]), "grf_ly_bw": F[:n, 1] / weight, "grf_ry_bw": F[:n, 3] / weight}
        ref = res.signal("ReferenceSource", "angles")
        if ref is not None:
            signals.update({"rec_trunk_deg": np.degrees(ref[:n, 0]), "rec_knee_l_deg": np.degrees(ref[:n, 3])})
        curves = cycle_curves(t[:n], stance[:n, 0], signals)
    summary["duration_s"] = float(res.built.t_end - res.built.model.ctx.t0)
    return ConditionResult(name=condition_name(res.built.dataset), summary=summary, cycle=curves)


def condition_name(dataset: str) -> str:
    """A bundled name as it is; a file (or a ``GRF|KINEMATICS`` pair, after its GRF file) by its stem."""
    grf_file = dataset.split("|")[0].strip()
    return Path(grf_file).stem if os.sep in grf_file or "/" in grf_file else dataset


def compare(datasets: Sequence[str], preset: str = COMPARE_PRESET, duration: float | None = None,
            progress: Callable[[int, int, str], None] | None = None, cancel: Callable[[], bool] | None = None,
            workers: int | None = None, base: RunSpec | None = None,
            start_method: str | None = None) -> list[ConditionResult]:
    """Run ``base`` (default: the default diagram with ``preset``) on every dataset, on the serial or
    process executor (:mod:`blocks.executors`; processes when ``workers`` > 1, started by
    ``start_method``: the GUI, which runs threads, spawns them); results in input order.
    ``duration`` [s] overrides the base's."""
    from app.runs import RunSpec
    from blocks.executors import make_executor

    base = base if base is not None else RunSpec(preset=preset)
    if duration is not None:
        base = replace(base, duration=duration)
    specs = [replace(base, dataset=d) for d in datasets]
    workers = max(1, min(len(specs), workers if workers is not None else (os.cpu_count() or 1)))
    results: list[ConditionResult | None] = [None] * len(specs)
    with make_executor("process", workers, start_method=start_method) as ex:
        stream = ex.imap(run_condition, specs)
        try:
            for done, (i, res) in enumerate(stream, start=1):
                results[i] = res
                if progress is not None:
                    progress(done, len(specs), datasets[i])
                if cancel is not None and cancel():
                    break
        finally:
            stream.close()
    return [r for r in results if r is not None]


def _preset(results: Sequence[ConditionResult], preset: str | None) -> str:
    """The preset given, else the one the runs record (``summary["preset"]``), else ``DEFAULT_PRESET``."""
    return preset or next((str(r.summary["preset"]) for r in results if r.summary.get("preset")), DEFAULT_PRESET)


def metrics_table(results: Sequence[ConditionResult], preset: str | None = None) -> list[list[str]]:
    """The labelled table of :mod:`app.compare_report`."""
    from app.compare_report import metrics_table as table

    return table(results, _preset(results, preset))


def verdict(results: Sequence[ConditionResult], preset: str | None = None) -> str:
    """The verdict of :mod:`app.compare_report` (metrics that are results only), with the cycle-mean trunk angles."""
    from app.compare_report import verdict as text

    means = {r.name: float(np.nanmean(r.cycle["trunk_deg"])) for r in results if "trunk_deg" in r.cycle}
    return text(results, _preset(results, preset), means)


def overlay_plots(results: Sequence[ConditionResult], out: Path) -> list[Path]:
    """PNG overlays of trunk angle, knee angle and vertical GRF against % gait cycle."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = (("trunk_deg", "trunk angle alpha [deg]", "trunk.png", "rec_trunk_deg"),
              ("knee_l_deg", "left knee flexion gamma_l [deg]", "knee.png", "rec_knee_l_deg"),
              ("grf_ly_bw", "left vertical GRF [BW]", "grf_vertical.png", None))
    paths = []
    colours = plt.get_cmap("tab10")
    for key, label, fname, rec_key in panels:
        fig, ax = plt.subplots(figsize=(6.8, 4.2), dpi=110)
        counts = []
        for i, r in enumerate(sorted(results, key=lambda r: r.name)):  # stable colours: by name
            if key not in r.cycle:
                continue
            c = colours(i % 10)
            pct, mean, sd = r.cycle["pct"], r.cycle[key], r.cycle[f"{key}_sd"]
            ax.plot(pct, mean, color=c, lw=1.8, label=f"{r.name} (simulation)")
            ax.fill_between(pct, mean - sd, mean + sd, color=c, alpha=0.18, lw=0)
            if rec_key and rec_key in r.cycle:
                ax.plot(pct, r.cycle[rec_key], color=c, lw=1.2, ls="--", label=f"{r.name} (recording)")
            counts.append(f"{r.name} {int(r.cycle['n_cycles'][0])}")
        preset = next((str(r.summary.get("preset", "")) for r in results if r.summary.get("preset")), "")
        duration = max((float(r.summary.get("duration_s", 0.0)) for r in results), default=0.0)
        ax.set_title(f"preset {preset or 'n/a'}, {duration:.1f} s per condition\n"
                     f"mean +/- 1 SD over cycles ({', '.join(counts)}); recording dashed", fontsize=8)
        ax.set_xlabel("gait cycle [%] (left landing = 0)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
        fig.tight_layout()
        path = out / fname
        fig.savefig(path)
        plt.close(fig)
        paths.append(path)
    return paths
