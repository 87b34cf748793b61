"""The posture study's real-trials table: every whole cycle of each real recording solved with its
speed free and given (``--speed trial``), mean +/- SD over cycles, the residual verdicts and the
recording's own trunk mean for comparison (:mod:`app.posture_study` puts it in ``docs/posture-results.md``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from app.posture import SolveSpec

__all__ = ["Trials", "real_trials_section"]


def progress(text: str) -> None:
    """One line on stderr per solve of the study (its parts take minutes)."""
    print(text, file=sys.stderr, flush=True)


Trials = dict[str, tuple[str, str, float | None, float | None]]


def real_trials_section(data_dir: Path | None, trials: Trials) -> list[str]:
    from app.posture import trial_speed
    from app.runs import RunSpec, solve
    from grf_data.registry import load_dataset

    lines = ["### Real trials", "", "Every whole cycle solved (GRF, CoP and the trial's own swing hip and knee); "
             "mean +/- SD over cycles; each trial with its speed free, and given (`--speed trial`: the trial's mean "
             "speed as its files state it or as its force plates' CoP progresses, `app.posture.trial_speed`).", "",
             "| trial | speed | cycles (status) | trunk mean [deg] | trunk range [deg] | stride [m] | speed [m/s] | "
             "stance-knee peak [deg] | worst residual force / moment | recorded trunk mean |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    if data_dir is None or not data_dir.is_dir():
        return lines + [f"| not run: the data folder ({data_dir}) was not found | | | | | | | | | |", ""]
    for label, (grf, kin, mass, height) in trials.items():
        try:
            given = f"given, {trial_speed(load_dataset(str(data_dir / grf), kinematics=str(data_dir / kin))):.3f} m/s"
        except Exception as exc:  # no speed in the files: the row says why
            given = f"given: not available ({exc})"
        for mode, speed in (("free", None), (given, "trial")):
            progress(f"posture study: real trial {label}, speed {mode}")
            if speed is not None and given.startswith("given:"):
                lines.append(f"| {label} | {given} | | | | | | | | |")
                continue
            try:
                r = solve(RunSpec(dataset=str(data_dir / grf), mass=mass, height=height,
                                  solve=SolveSpec(kinematics=str(data_dir / kin), cycle=None, speed=speed)))
            except Exception as exc:  # the table names what failed
                lines.append(f"| {label} | {mode} | failed: {exc} | | | | | | | |")
                continue
            s = r.summary
            states = ", ".join(sorted({c["status"] for c in s["cycles"]}))

            def ms(key: str, digits: int = 2, s: dict[str, Any] = s) -> str:
                v = s[key]
                return f"{v['mean']:.{digits}f} +/- {v['sd']:.{digits}f}"

            res = s["residual"]
            rec = s["recording"].get("trunk_deg", {}).get("mean")
            lines.append(f"| {label} | {mode} | {len(s['cycles'])} ({states}) | {ms('trunk_mean_deg')} | "
                         f"{ms('trunk_range_deg')} | {ms('stride_m', 3)} | {ms('speed_m_s', 3)} | "
                         f"{ms('stance_knee_peak_deg', 1)} | {100 * res['force_ratio']:.1f} % {res['force_verdict']} / "
                         f"{100 * res['moment_ratio']:.2f} % {res['moment_verdict']} | "
                         f"{'n/a' if rec is None else f'{rec:.2f}'} |")
    lines.append("")
    return lines
