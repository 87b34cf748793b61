"""Measured results, generated from real runs: ``python -m app.report [--out docs/results.md]``.

Every figure in ``docs/results.md`` comes from this script running :func:`app.runs.run`; none is
typed by hand. It runs

* the bundled synthetic sets (``sneakers``, ``barefoot``, ``high_heels``) and the swap (the
  high-heels GRF with the sneakers kinematics, followed by gait phase), 10 s, under each preset
  (``tracking``, ``setpoint``, ``paper``), and ``tracking`` without the net-torque estimator
  (``est.gain = 0``);
* the real trials of the reference data folder (``$GAITBLOCKS_DATA``, else the shipped
  ``grf_data/reference``; skipped with a note when it is missing), full length, the same configurations.

Each table carries the posture beside the recording's own value (``recording`` in
``summary.json``), the force account (stance-leg joint impulse shares) and the residual.

Targets are those of ``docs/walking.md`` (bundled: RMS hip/knee/trunk <= 2/3/2 deg, slip <= 1 cm,
torque <= 1.5 N m/kg; recordings: <= 3/5/3 deg, slip <= 5 cm, torque <= 2 N m/kg).
"""

from __future__ import annotations

import argparse
import datetime
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.runs import RunResult, RunSpec, run
from grf_data.refdata import data_dir as reference_dir

BUNDLED = ("sneakers", "barefoot", "high_heels")
SWAP = ("high_heels", "sneakers")  # the swap eval's pair: this GRF with these kinematics, by gait phase
SWAP_LABEL = "swap: high_heels GRF, sneakers kinematics"
TRIALS: dict[str, tuple[str, str, float | None, float | None]] = {  # grf, kinematics, mass kg, height m
    "OpenSim subject01": ("opensim-core/subject01_walk1_grf.mot", "opensim-core/subject01_walk_IK.mot", 72.6, 1.8),
    "demotu walk1": ("demotu-BMC/walk1.forces", "demotu-BMC/walk1.trc", None, None),
    "demotu walk2": ("demotu-BMC/walk2.forces", "demotu-BMC/walk2.trc", None, None),
}


# (preset, estimator gain, label) of each table
CONFIGS: tuple[tuple[str, float, str], ...] = (
    ("tracking", 1.0, "with the estimator"), ("setpoint", 1.0, "with the estimator"),
    ("paper", 1.0, "with the estimator"), ("tracking", 0.0, "without the estimator (`est.gain = 0`)"))


def _f(v: Any, scale: float = 1.0, digits: int = 2, sign: bool = False) -> str:
    if not isinstance(v, (int, float)) or not math.isfinite(v):
        return "n/a"
    return f"{v * scale:{'+' if sign else ''}.{digits}f}"


def rows(results: Sequence[RunResult]) -> list[tuple[str, list[str]]]:
    """One ``(measure, [value per run])`` row per figure of a summary."""
    def get(r: RunResult, *path: str) -> Any:
        v: Any = r.summary
        for p in path:
            v = v.get(p) if isinstance(v, dict) else None
        return v

    def rms(r: RunResult) -> str:
        m = r.summary.get("rms_deg", {})
        if not m:
            return "n/a"
        return (f"{_f(max(m['hip_l'], m['hip_r']))} / {_f(max(m['knee_l'], m['knee_r']))} / "
                f"{_f(m['trunk'])}")

    def fell(r: RunResult) -> str:
        t, why = r.summary.get("fell_at_s"), r.summary.get("fell_because")
        return (f"fell at {t:.2f} s" + (f": {why}" if why else "")) if isinstance(t, (int, float)) else "no"

    table: list[tuple[str, Any]] = [
        ("status (simulated s)", lambda r: f"{r.summary['status']} ({r.summary['t_end_reached']:.2f})"),
        ("fell (criterion)", fell),
        ("cycles completed", lambda r: str(r.summary.get("cycles_completed", "n/a"))),
        ("RMS from the recording, hip / knee / trunk [deg]", rms),
        ("trunk α range [deg]", lambda r: f"{_f(get(r, 'trunk_deg', 'min'), digits=1)} to "
                                          f"{_f(get(r, 'trunk_deg', 'max'), digits=1)}"),
        ("stance slip / height, max [cm]", lambda r: f"{_f(r.summary.get('stance_slip_m_max'), 100)} / "
                                                     f"{_f(r.summary.get('stance_height_m_max'), 100)}"),
        ("peak torque hip / knee [N·m/kg]", lambda r: f"{_f(get(r, 'peak_torque_nm_per_kg', 'hip'))} / "
                                                      f"{_f(get(r, 'peak_torque_nm_per_kg', 'knee'))}"),
        ("CoP shift RMS / max [cm]", lambda r: f"{_f(get(r, 'cop_shift_m', 'rms'), 100, 1)} / "
                                               f"{_f(get(r, 'cop_shift_m', 'max'), 100, 1)}"),
        ("stride [m], cadence [steps/min]", lambda r: f"{_f(r.summary.get('stride_length_m'))}, "
                                                      f"{_f(r.summary.get('cadence_steps_per_min'), digits=0)}"),
        ("recording: trunk α range [deg], stride [m]",
         lambda r: f"{_f(get(r, 'recording', 'trunk_deg', 'min'), digits=1)} to "
                   f"{_f(get(r, 'recording', 'trunk_deg', 'max'), digits=1)}, "
                   f"{_f(get(r, 'recording', 'stride_length_m'))}"),
        ("CoM height, mean [m] (recording)", lambda r: f"{_f(r.summary.get('com_height_m'), digits=3)} "
                                                       f"({_f(get(r, 'recording', 'com_height_m'), digits=3)})"),
        ("stance joint impulse: estimator / feedback / trunk / stance damping / GRF match [%]",
         lambda r: " / ".join(_f(get(r, 'actuation', 'stance_joint_impulse_share', k), 100, 0)
                              for k in ("estimator", "joint_feedback", "trunk_balance", "stance_damping",
                                        "grf_match"))),
        ("contact correction RMS [BW]", lambda r: _f(get(r, "actuation", "contact_correction", "rms_bw"))),
        ("residual x / y, RMS [% of peak GRF]: verdict",
         lambda r: f"{_f(get(r, 'residual', 'x', 'rms_fraction'), 100, 1)} / "
                   f"{_f(get(r, 'residual', 'y', 'rms_fraction'), 100, 1)}: {get(r, 'residual', 'verdict')}"),
        ("residual moment RMS [N·m] (% of peak GRF × CoM height): verdict",
         lambda r: f"{_f(get(r, 'residual', 'moment', 'rms_nm'), digits=0)} "
                   f"({_f(get(r, 'residual', 'moment', 'rms_fraction'), 100, 1)}): "
                   f"{get(r, 'residual', 'moment_verdict')}"),
        ("mean speed [m/s] = initial + recorded GRF + floor",
         lambda r: f"{_f(get(r, 'speed_account', 'mean_m_s'))} = {_f(get(r, 'speed_account', 'initial_m_s'))} "
                   f"{_f(get(r, 'speed_account', 'recorded_grf_m_s'), sign=True)} "
                   f"{_f(get(r, 'speed_account', 'residual_m_s'), sign=True)}"),
        ("real-time factor", lambda r: f"{_f(r.summary.get('realtime_factor'), digits=1)}x"),
    ]
    return [(name, [fn(r) for r in results]) for name, fn in table]


def markdown(title: str, names: Sequence[str], results: Sequence[RunResult]) -> list[str]:
    out = [f"## {title}", "", "| measure | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    out += [f"| {m} | " + " | ".join(vals) + " |" for m, vals in rows(results)]
    return out + [""]


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def report(data_dir: Path | None, duration: float = 10.0) -> str:
    """The whole ``docs/results.md`` text (runs every configuration; about a minute)."""
    lines = ["# Measured results", "",
             "Generated by `python -m app.report` (`app/report.py`) from real runs on "
             f"{datetime.date.today().isoformat()}; do not edit by hand, run the script again.", "",
             "Every column is one `app.runs.run` of a `RunSpec`; the same figures are in each run's "
             "`summary.json` (`gaitblocks run`). Targets: `docs/walking.md`.", ""]
    for preset, est, label in CONFIGS:
        results = []
        for name, kinematics in [(n, None) for n in BUNDLED] + [SWAP]:
            _progress(f"report: {name}{'' if kinematics is None else ' + ' + kinematics}, {preset}, {label}")
            results.append(run(RunSpec(dataset=name, kinematics=kinematics, preset=preset, duration=duration,
                                       settings=(("est.gain", est),))))
        lines += markdown(f"Bundled synthetic sets, {duration:g} s, `{preset}` preset, {label}",
                          [*BUNDLED, SWAP_LABEL], results)
    if data_dir is None or not data_dir.is_dir():
        lines += ["## Real trials", "", f"Not run: the reference data folder ({data_dir}) was not found; unset "
                  "`GAITBLOCKS_DATA` (the shipped grf_data/reference) or fix it and run the script again.", ""]
        return "\n".join(lines)
    for preset, est, label in CONFIGS:
        results = []
        for name, (grf, kin, mass, height) in TRIALS.items():
            _progress(f"report: {name}, {preset}, {label}")
            results.append(run(RunSpec(dataset=str(data_dir / grf), kinematics=str(data_dir / kin), mass=mass,
                                       height=height, preset=preset, settings=(("est.gain", est),))))
        lines += markdown(f"Real trials, full length, `{preset}` preset, rolling foot fitted, {label}",
                          list(TRIALS), results)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m app.report", description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("docs/results.md"), help="markdown file to write")
    ap.add_argument("--data", type=Path, default=reference_dir(),
                    help="data folder with the real trials (default: $GAITBLOCKS_DATA, else grf_data/reference)")
    ap.add_argument("--duration", type=float, default=10.0, help="simulated seconds on the bundled sets")
    ap.add_argument("--posture", action="store_true",
                    help="append the posture solver's tables (python -m app.posture_study; about an hour)")
    args = ap.parse_args(argv)
    text = report(args.data, args.duration)
    if args.posture:
        from app.posture_study import markdown as posture_markdown

        text += "\n\n" + "\n".join(posture_markdown(args.data, TRIALS, workers=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
