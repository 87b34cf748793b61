"""The posture solve as a run: settings, data, solve, summary and files (``gaitblocks solve``).

:func:`app.runs.solve` is the entry point (a :class:`~app.runs.RunSpec` whose ``solve`` holds a
:class:`SolveSpec`); the CLI, the GUI and Python all come through it. This module does the work:

* :func:`model_params` -- the biped of the GRF recording's subject, with the study's perturbations
  (whole-body mass, trunk mass, trunk CoM shift);
* :func:`solve_inputs` -- the cycle inputs of :mod:`models.posture.inputs` (GRF and CoP of the
  GRF recording, the swing reference of the kinematics recording);
* :func:`solve_one` -- solve one cycle and summarise it (:mod:`models.posture.metrics`);
* :func:`write_outputs` -- ``results.csv``, ``results.npz`` and ``summary.json`` of the same shape as
  ``gaitblocks run``'s.

The summary labels every figure ``solved`` (a result of the GRF, CoP and swing reference) or
``input`` (read from the recording), and gives beside it the kinematics recording's own value
under ``recording`` for comparison (never fed to the solver).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from models.errors import UserError

if TYPE_CHECKING:
    from models.dataset import GaitDataset
    from models.params import BipedParams
    from models.posture.inputs import CycleInputs
    from models.posture.solver import PostureSolution, SolverOptions

RRA_LIMIT_M = 0.03  # how far the RRA-style option may move the trunk CoM [m]

__all__ = ["SolveSpec", "RRA_LIMIT_M", "SolveResult", "model_params", "solve_inputs", "solve_one", "write_outputs",
           "recording_figures", "LABELS"]

# which figures are results of the solve and which are read from the recording
LABELS = {"trunk_deg": "solved", "stance_knee_peak_deg": "solved", "stride_m": "solved", "speed_m_s": "solved",
          "com_height_m": "solved", "peak_torque_nm_per_kg": "solved", "cadence_spm": "input",
          "period_s": "input", "swing": "input", "grf": "input", "cop": "input"}


@dataclass(frozen=True)
class SolveSpec:
    """How to solve the posture of a recording (every field has a default; units in comments).

    ``kinematics``: a kinematics *file* is paired with the GRF file (one recording, its own swing); a
    dataset *name* (bundled, registered, or a ``GRF|KINEMATICS`` pair) gives its swing to the GRF,
    read by swing phase (a swap). Default: the GRF recording's own.
    ``cycle``: which whole cycle (0 = first), or ``None`` for every whole cycle (mean +/- SD).
    ``speed``: ``None`` = free, a number [m/s] = given, ``"trial"`` = the recording's mean speed.
    """

    kinematics: str | None = None
    nodes: int = 100
    cycle: int | None = 0
    swing_reference: str = "joint"
    sigma_deg: float = 0.5
    mid_swing_only: bool = False
    dynamics: bool = True
    footprints: str = "free"
    speed: float | str | None = None
    cop_shift_m: float = 0.0
    propulsion_gain: float = 1.0
    vertical_gain: float = 1.0
    mass_gain: float = 1.0
    trunk_mass_gain: float = 1.0
    trunk_com_shift_m: float = 0.0
    rra: bool = False  # RRA-style: let the trunk CoM move up to RRA_LIMIT_M to reduce the residual moment

    def check(self) -> None:
        if not (isinstance(self.nodes, int) and 20 <= self.nodes <= 1000):
            raise UserError(f"--nodes must be a whole number in 20..1000, got {self.nodes!r}")
        if self.footprints not in ("free", "cop"):
            raise UserError(f"--footprints must be 'free' or 'cop', got {self.footprints!r}")
        for name in ("sigma_deg", "propulsion_gain", "vertical_gain", "mass_gain", "trunk_mass_gain"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v > 0):
                raise UserError(f"--{name.replace('_', '-')} must be a positive number, got {v!r}")
        if isinstance(self.speed, str) and self.speed != "trial":
            raise UserError(f"--speed must be 'free', 'trial' or a number of m/s, got {self.speed!r}")


class SolveInterrupted(Exception):
    """The caller's ``progress`` asked the solve to stop (Ctrl+C, Cancel): no answer, nothing written."""

    def __init__(self, cycle: int, stage: str, iterations: int) -> None:
        self.cycle, self.stage, self.iterations = cycle, stage, iterations
        super().__init__(f"interrupted in cycle {cycle}, stage {stage!r}, after {iterations} IPOPT iterations")


@dataclass
class SolveResult:
    """A finished solve: the spec, one :class:`PostureSolution` per cycle solved, and the summary."""

    dataset: str
    spec: SolveSpec
    solutions: list[PostureSolution]
    summary: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.summary.get("status") == "converged"


def model_params(ds: GaitDataset, spec: SolveSpec, mass: float | None = None,
                 height: float | None = None) -> BipedParams:
    """The biped of ``ds``'s subject: the paper's model for the bundled sets (their generator's),
    else scaled to the subject's mass and height; then the spec's perturbations."""
    from models.params import BipedParams, LinkParams

    meta = ds.meta
    m = mass if mass is not None else meta.body_mass_kg
    h = height if height is not None else meta.height_m
    if meta.extra.get("model") == "BipedParams.paper()" or (meta.synthetic and mass is None and height is None) \
            or m is None or h is None:
        params = BipedParams.paper()
        if m is not None and h is not None and not meta.synthetic:
            params = BipedParams.scaled(m, h)
    else:
        params = BipedParams.scaled(m, h)

    def scale(link: LinkParams, gain: float) -> LinkParams:
        return replace(link, mass=link.mass * gain, inertia=link.inertia * gain)

    trunk = scale(params.trunk, spec.mass_gain * spec.trunk_mass_gain)
    trunk = replace(trunk, com=min(max(trunk.com + spec.trunk_com_shift_m, 0.0), trunk.length))
    return replace(params, trunk=trunk, thigh=scale(params.thigh, spec.mass_gain),
                   shank=scale(params.shank, spec.mass_gain), foot_radius=0.0)


def _load(name: str, mass: float | None, height: float | None) -> GaitDataset:
    from grf_data.registry import load_dataset

    return load_dataset(name, mass=mass, height=height)


def solve_inputs(grf_ds: GaitDataset, kin_ds: GaitDataset | None, spec: SolveSpec, params: BipedParams,
                 cycle: int) -> CycleInputs:
    from models.posture.inputs import cycle_inputs

    return cycle_inputs(grf_ds, kin_ds, n=spec.nodes, cycle=cycle, swing_reference=spec.swing_reference,
                        lengths=(params.thigh.length, params.shank.length), cop_shift=spec.cop_shift_m,
                        mid_swing_only=spec.mid_swing_only, grf_gain=(spec.propulsion_gain, spec.vertical_gain))


def trial_speed(ds: GaitDataset) -> float:
    """The recording's mean walking speed [m/s]: as stated in its metadata, else the mean forward
    velocity of its kinematics' trunk (``(x0(end) - x0(start)) / duration``), else the progression of
    its force plates' CoP (:func:`models.posture.inputs.cop_speed`). An input of the ``--speed trial``
    mode only; a treadmill recording without a stated belt speed needs ``--speed``."""
    from models.posture.inputs import cop_speed

    if ds.meta.speed_m_s is not None:
        return float(ds.meta.speed_m_s)
    if ds.q is not None and np.isfinite(ds.q[[0, -1], 0]).all() and ds.t[-1] > ds.t[0]:
        v = float((ds.q[-1, 0] - ds.q[0, 0]) / (ds.t[-1] - ds.t[0]))
        if v > 0.1:
            return v
    v_cop = cop_speed(ds)
    if v_cop is not None and v_cop > 0.1:
        return v_cop
    raise UserError(f"{ds.name}: the recording states no mean speed, and neither its kinematics nor its centre "
                    f"of pressure progress (a treadmill?); give --speed in m/s")


def solver_options(spec: SolveSpec, grf_ds: GaitDataset, period: float) -> SolverOptions:
    from models.posture.solver import STAGES, SolverOptions

    speed: float | None
    if spec.speed == "trial":
        speed = trial_speed(grf_ds)
    else:
        speed = None if spec.speed is None else float(spec.speed)
    stages = STAGES[:1] if not spec.dynamics else STAGES
    return SolverOptions(sigma_deg=spec.sigma_deg, footprints=spec.footprints, speed=speed, stages=stages,
                         rra_m=RRA_LIMIT_M if spec.rra else 0.0)


def recording_figures(kin_ds: GaitDataset, ci: CycleInputs) -> dict[str, Any]:
    """The kinematics recording's own trunk mean/range and stride over the same cycle, for comparison
    only (the solver never reads them); empty where the recording has no such data."""
    out: dict[str, Any] = {}
    angles = kin_ds.reference_angles()
    if angles is not None and kin_ds is not None:
        t = ci.t
        if ci.kinematics_name == ci.name and t[-1] <= kin_ds.t[-1]:
            a = np.rad2deg(np.interp(t, kin_ds.t, angles[:, 0]))
            if np.isfinite(a).all() and np.ptp(a) > 0:
                out["trunk_deg"] = {"mean": float(a.mean()), "min": float(a.min()), "max": float(a.max()),
                                    "range": float(np.ptp(a))}
    stride = kin_ds.meta.extra.get("stride_m")
    if stride is not None:
        out["stride_m"] = float(stride)
    return out


def _mean_sd(values: list[float]) -> dict[str, float | int]:
    a = np.asarray(values, dtype=float)
    return {"mean": float(a.mean()), "sd": float(a.std(ddof=1)) if a.size > 1 else 0.0, "n": int(a.size)}


def solve_one(grf_name: str, spec: SolveSpec, mass: float | None = None, height: float | None = None,
              progress: Any = None, warm: PostureSolution | None = None) -> SolveResult:
    """Solve ``spec`` on the recording ``grf_name`` (module doc). ``progress(stage, iteration, objective,
    violation)``: per IPOPT iteration; returning True stops the solve (:class:`SolveInterrupted`)."""
    from models.posture.inputs import whole_cycles
    from models.posture.metrics import answer_status, posture_metrics
    from models.posture.solver import solve_posture

    spec.check()
    grf_ds = _load(grf_name, mass, height)
    kin_ds = None
    if spec.kinematics not in (None, grf_name):
        if Path(str(spec.kinematics)).expanduser().is_file():  # a GRF file and its trial's kinematics file
            from grf_data.registry import load_dataset

            grf_ds = load_dataset(grf_name, kinematics=spec.kinematics, mass=mass, height=height)
        else:  # another dataset's swing (a bundled or registered name, or a GRF|KINEMATICS pair), by swing phase
            kin_ds = _load(str(spec.kinematics), mass, height)
    params = model_params(grf_ds, spec, mass, height)
    n_cycles = len(whole_cycles(grf_ds))
    cycles = list(range(n_cycles)) if spec.cycle is None else [spec.cycle]
    solutions, cells = [], []
    for k in cycles:
        ci = solve_inputs(grf_ds, kin_ds, spec, params, k)
        sol = solve_posture(ci, params, solver_options(spec, grf_ds, ci.period), warm=warm, progress=progress)
        if sol.status == "interrupted":
            raise SolveInterrupted(k, sol.stage_log[-1]["stage"], sol.iterations)
        metrics = posture_metrics(sol)
        status, why = answer_status(sol, metrics)
        solutions.append(sol)
        cells.append({"cycle": k, "t0_s": ci.t0, "status": status, "why": why, "iterations": sol.iterations,
                      "solve_time_s": sol.solve_time_s, "objective": sol.objective,
                      "constraint_violation": sol.constraint_violation, "stages": sol.stage_log,
                      "rra_trunk_com_shift_m": sol.trunk_com_shift, **metrics})
    first = solutions[0]
    ci = first.inputs
    order = ("failed", "no_periodic_gait", "implausible")
    worst = next((c for s in order for c in cells if c["status"] == s), cells[0])
    summary: dict[str, Any] = {
        "mode": "solve",
        "status": worst["status"], "message": worst["why"],
        "grf": grf_ds.name, "kinematics": (kin_ds or grf_ds).name,
        "read_from_recording": ["GRF (both feet)", "centre of pressure" if ci.has_cop else "no CoP (none recorded)",
                                f"swing {'hip and knee' if spec.swing_reference == 'joint' else spec.swing_reference}"
                                f" reference of {(kin_ds or grf_ds).name}", "gait events (timing) of the GRF"],
        "labels": LABELS,
        "settings": asdict(spec),
        "solver": {"method": "direct collocation, trapezoidal, CasADi + IPOPT (MUMPS)",
                   "options": asdict(first.options), "nodes": ci.n},
        "model": {"mass_kg": params.total_mass, "trunk_com_m": params.trunk.com, "leg_length_m": params.leg_length},
        "whole_cycles_in_recording": n_cycles,
        "cycles": cells,
        "recording": recording_figures(kin_ds or grf_ds, ci),
        "notes": list(ci.notes),
    }
    for key in ("stride_m", "speed_m_s", "cadence_spm", "stance_knee_peak_deg"):
        summary[key] = _mean_sd([c[key] for c in cells])
    summary["trunk_mean_deg"] = _mean_sd([c["trunk_deg"]["mean"] for c in cells])
    summary["trunk_range_deg"] = _mean_sd([c["trunk_deg"]["range"] for c in cells])
    summary["residual"] = cells[0]["residual"] if len(cells) == 1 else {
        "force_ratio": max(c["residual"]["force_ratio"] for c in cells),
        "moment_ratio": max(c["residual"]["moment_ratio"] for c in cells),
        "force_verdict": worst["residual"]["force_verdict"], "moment_verdict": worst["residual"]["moment_verdict"]}
    summary["iterations"] = sum(c["iterations"] for c in cells)
    summary["solve_time_s"] = sum(c["solve_time_s"] for c in cells)
    return SolveResult(grf_ds.name, spec, solutions, summary)


def write_outputs(result: SolveResult, out: Path) -> dict[str, Path]:
    """In ``out``: ``results.npz`` (every cycle's arrays ``cycle{k}_`` ``t, q, qd, qdd, tau, residual, grf,
    stance`` and ``mz``, the ground moments [N m] of the recorded force acting at the recorded CoP),
    ``results.csv`` (the first cycle: time, q, qd, tau, residual, GRF) and ``summary.json`` (strict
    JSON: non-finite numbers are ``null``)."""
    out.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, np.ndarray] = {}
    for i, sol in enumerate(result.solutions):
        for key in ("t", "q", "qd", "qdd", "tau", "residual"):
            arrays[f"cycle{i}_{key}"] = getattr(sol, key)
        arrays[f"cycle{i}_grf"] = sol.inputs.grf
        arrays[f"cycle{i}_mz"] = sol.mz
        arrays[f"cycle{i}_stance"] = sol.inputs.stance
    np.savez_compressed(out / "results.npz", **arrays)  # type: ignore[arg-type]
    sol = result.solutions[0]
    from models.biped import GRF_NAMES, Q_NAMES, TAU_NAMES

    header = (["time"] + list(Q_NAMES) + [f"{n}_dot" for n in Q_NAMES] + [f"tau_{n}" for n in TAU_NAMES]
              + ["R_x", "R_y", "R_m"] + list(GRF_NAMES))
    table = np.column_stack([sol.t, sol.q, sol.qd, sol.tau, sol.residual, sol.inputs.grf])
    np.savetxt(out / "results.csv", table, delimiter=",", header=",".join(header), comments="", fmt="%.9g")
    digest = hashlib.sha256((out / "results.npz").read_bytes()).hexdigest()
    summary = {**result.summary, "results_sha256": digest}
    from app.jsontext import dumps

    (out / "summary.json").write_text(dumps(summary, indent=1) + "\n", encoding="utf-8")
    return {"npz": out / "results.npz", "csv": out / "results.csv", "summary": out / "summary.json"}
