"""Run several datasets with the same diagram and preset, and compare them as the paper does.

Used by ``gaitblocks compare`` and the GUI's compare view. For each condition the default
diagram runs headless; the walking metrics (:mod:`models.gait_metrics`) are computed and the
trunk angle, knee angles and vertical GRF are normalised to 0-100 % of the gait cycle (left
landing to left landing, mean over complete cycles, 101 points).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from models.gait_metrics import landings

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
    """Mean of each signal over complete cycles (left landing to left landing) on 0-100 %.

    ``<name>_cycles`` holds the cycles themselves, ``(n_cycles, 101)`` (for SDs over cycles).
    """
    land = landings(stance_l > 0.5)
    out: dict[str, np.ndarray] = {"pct": PCT}
    for name, sig in signals.items():
        rows = [np.interp(PCT, np.linspace(0, 100, b - a + 1), sig[a:b + 1]) for a, b in zip(land[:-1], land[1:])]
        out[name] = np.mean(rows, axis=0) if rows else np.full(PCT.size, np.nan)
        out[f"{name}_cycles"] = np.array(rows).reshape(len(rows), PCT.size)
    return out


def run_condition(spec: str, preset: str = "default", duration: float | None = None,
                  **subject: Any) -> ConditionResult:
    """Run the default diagram on ``spec`` (bundled name or file); never raises for a failed run.

    ``subject``: optional ``kinematics``, ``mass``, ``height``, ``start``, ``end`` as for ``gaitblocks run``.
    """
    from app.commands.run import prepare, summarise

    args = argparse.Namespace(diagram=None, grf=spec, duration=duration, dt=None, sets=[], preset=preset,
                              kinematics=None, mass=None, height=None, start=None, end=None, out=None)
    vars(args).update(subject)
    ctx = prepare(args)
    results = ctx.runner.run(ctx.model.ctx.t_end)
    summary = summarise(results, ctx)
    summary.pop("events", None)
    summary.pop("param_changes", None)
    weight = ctx.model.ctx.biped_params.total_mass * 9.81
    curves: dict[str, np.ndarray] = {}
    if results.t.size > 2 and "body.q" in results.signals:
        q, F = results["body.q"], results["grf.F"]
        curves = cycle_curves(results.t, results["phase.stance"][:, 0], {
            "trunk_deg": np.degrees(q[:, 2]), "knee_l_deg": np.degrees(q[:, 5]), "knee_r_deg": np.degrees(q[:, 6]),
            "grf_ly_bw": F[:, 1] / weight, "grf_ry_bw": F[:, 3] / weight})
    grf_file = spec.split("|")[0].strip()  # a GRF|KINEMATICS pair is named after its GRF file
    return ConditionResult(name=Path(grf_file).stem if os.sep in grf_file else spec, summary=summary, cycle=curves)


def _run_one(job: tuple[str, str, float | None]) -> ConditionResult:
    return run_condition(*job)


def compare(specs: Sequence[str], preset: str = "default", duration: float | None = None,
            progress: Callable[[int, int, str], None] | None = None, cancel: Callable[[], bool] | None = None,
            workers: int | None = None) -> list[ConditionResult]:
    """Run every condition (in parallel processes when ``workers`` > 1); results in input order."""
    jobs = [(s, preset, duration) for s in specs]
    workers = min(len(jobs), workers if workers is not None else (os.cpu_count() or 1))
    results: list[ConditionResult | None] = [None] * len(jobs)
    if workers <= 1:
        for i, job in enumerate(jobs):
            if cancel is not None and cancel():
                break
            results[i] = _run_one(job)
            if progress is not None:
                progress(i + 1, len(jobs), job[0])
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_run_one, job): i for i, job in enumerate(jobs)}
            done = 0
            for fut, i in futures.items():
                if cancel is not None and cancel():
                    pool.shutdown(cancel_futures=True)
                    break
                results[i] = fut.result()
                done += 1
                if progress is not None:
                    progress(done, len(jobs), jobs[i][0])
    return [r for r in results if r is not None]


def _fmt(v: Any, digits: int = 1) -> str:
    return "n/a" if v is None or (isinstance(v, float) and not np.isfinite(v)) else f"{v:.{digits}f}"


def metrics_table(results: Sequence[ConditionResult]) -> list[list[str]]:
    """Rows of the paper's metrics (header first): trunk ranges per take-off phase, knee range, stride."""
    header = ["condition", "status", "trunk R-off->L-land [deg]", "trunk L-off->R-land [deg]", "trunk range [deg]",
              "knee range L/R [deg]", "stride [m]", "cadence [steps/min]", "RMS hip/knee/trunk [deg]"]
    rows = [header]
    for r in results:
        s = r.summary
        tr = s.get("trunk_deg", {})
        a, b = tr.get("r_takeoff_to_l_landing", {}), tr.get("l_takeoff_to_r_landing", {})
        kr = s.get("knee_range_deg", {})
        rms = s.get("rms_deg", {})
        rows.append([
            r.name, str(s.get("status")),
            f"{_fmt(a.get('min'))} to {_fmt(a.get('max'))}", f"{_fmt(b.get('min'))} to {_fmt(b.get('max'))}",
            _fmt((tr.get("max", np.nan) or np.nan) - (tr.get("min", np.nan) or np.nan)),
            f"{_fmt(kr.get('l'))} / {_fmt(kr.get('r'))}", _fmt(s.get("stride_length_m"), 3),
            _fmt(s.get("cadence_steps_per_min")),
            f"{_fmt(max(rms.get('hip_l', np.nan), rms.get('hip_r', np.nan)), 2)} / "
            f"{_fmt(max(rms.get('knee_l', np.nan), rms.get('knee_r', np.nan)), 2)} / {_fmt(rms.get('trunk'), 2)}",
        ])
    return rows


def verdict(results: Sequence[ConditionResult]) -> str:
    """A few sentences on where each condition sits (lean, sway, stride), from the measured metrics."""
    ok = [r for r in results if r.ok and "trunk_deg" in r.summary]
    lines = [f"{r.name}: run {r.summary.get('status')} ({r.summary.get('message', '')})" for r in results if not r.ok]
    if len(ok) >= 1:
        def mean_trunk(r: ConditionResult) -> float:
            return float(np.nanmean(r.cycle.get("trunk_deg", np.array([np.nan]))))

        def sway(r: ConditionResult) -> float:
            return float(r.summary["trunk_deg"]["max"] - r.summary["trunk_deg"]["min"])

        lean = max(ok, key=mean_trunk)
        back = min(ok, key=lambda r: r.summary["trunk_deg"]["min"])
        lines.append(f"Most forward lean: {lean.name} (mean trunk angle {mean_trunk(lean):.1f} deg).")
        lines.append(f"Smallest trunk sway: {min(ok, key=sway).name} ({sway(min(ok, key=sway)):.1f} deg); "
                     f"largest: {max(ok, key=sway).name} ({sway(max(ok, key=sway)):.1f} deg).")
        if back.summary["trunk_deg"]["min"] < 0:
            low = back.summary["trunk_deg"]["min"]
            lines.append(f"{back.name} leans backward at times (trunk down to {low:.1f} deg).")
        strides = [(r.summary.get("stride_length_m", np.nan), r.name) for r in ok]
        strides = [s for s in strides if np.isfinite(s[0])]
        if strides:
            lines.append(f"Shortest stride: {min(strides)[1]} ({min(strides)[0]:.2f} m); "
                         f"longest: {max(strides)[1]} ({max(strides)[0]:.2f} m).")
    return "\n".join(lines)


def overlay_plots(results: Sequence[ConditionResult], out: Path) -> list[Path]:
    """PNG overlays of trunk angle, knee angle and vertical GRF against % gait cycle."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = (("trunk_deg", "trunk angle alpha [deg]", "trunk.png"),
              ("knee_l_deg", "left knee flexion gamma_l [deg]", "knee.png"),
              ("grf_ly_bw", "left vertical GRF [BW]", "grf_vertical.png"))
    paths = []
    for key, label, fname in panels:
        fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=110)
        for r in results:
            if key in r.cycle:
                ax.plot(r.cycle["pct"], r.cycle[key], label=r.name, lw=1.8)
        ax.set_xlabel("gait cycle [%] (left landing = 0)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        path = out / fname
        fig.savefig(path)
        plt.close(fig)
        paths.append(path)
    return paths
