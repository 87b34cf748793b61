"""Solve each trial of a manifest: the per-cycle figures and curves the footwear report is made of.

Every trial goes through the run service (:func:`app.runs.solve`, a :class:`~app.posture.SolveSpec`):

* synthetic trials (a generator CSV with its sidecar) are solved on cycle 0 only: the generator
  tiles one periodic cycle, so every whole cycle of the file is the same cycle;
* recordings are solved on every whole cycle (``SolveSpec(cycle=None)``), unless ``cycles="first"``.

A trial's manifest window (``start``/``end``) is not applied: the solver takes the recording's
whole cycles. A trial whose data cannot be loaded, or whose solve raises, is kept with its error;
a cycle whose status is ``failed`` or ``no_periodic_gait`` keeps its status and message and gives no
figures or curves (:attr:`SolvedCycle.ok`).

Curves are resampled to 101 points over the cycle (0 % = the right heel strike the cycle starts
at, 100 % = the next one; the solution is periodic, so node 0 closes it): trunk ``alpha``, right
hip ``beta_r`` and knee ``gamma_r`` [deg, model convention: + forward lean, + thigh forward,
+ flexed], right-foot vertical and fore-aft GRF [BW]. The recording's own trunk, hip and knee over
the same cycle are kept beside them (for comparison only: the solver never reads them).
"""

from __future__ import annotations

import hashlib
import json
import pickle
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from app.manifest import Trial
from app.posture import SolveSpec

__all__ = ["PCT", "SolvedCycle", "TrialSolve", "SolveCache", "solve_trial", "data_files", "is_synthetic",
           "code_version"]

PCT = np.linspace(0.0, 100.0, 101)
CURVES = ("trunk", "hip", "knee", "grf_y", "grf_x")


@dataclass
class SolvedCycle:
    """One solved cycle of a trial: status, the solver's account, figures and curves (when ``ok``)."""

    index: int
    status: str                      # converged | no_periodic_gait | failed
    why: str
    iterations: int
    objective: float
    violation: float
    solve_time_s: float
    metrics: dict[str, Any]          # models.posture.metrics.posture_metrics
    curves: dict[str, np.ndarray]    # CURVES -> (101,) on PCT
    recorded: dict[str, np.ndarray]  # trunk, hip, knee of the recording over the same cycle, deg

    @property
    def ok(self) -> bool:
        return self.status == "converged"


@dataclass
class TrialSolve:
    """A trial and what its solve gave: cycles, or the error that stopped it."""

    trial: Trial
    synthetic: bool
    cycles: list[SolvedCycle] = field(default_factory=list)
    error: str | None = None
    design: dict[str, float] = field(default_factory=dict)   # generator set-points (synthetic only)
    recorded_trunk_mean_deg: list[float] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> str:
        if self.error is not None:
            return "failed"
        bad = [c.status for c in self.cycles if not c.ok]
        return "converged" if not bad else ("failed" if "failed" in bad else "no_periodic_gait")

    @property
    def ok_cycles(self) -> list[SolvedCycle]:
        return [c for c in self.cycles if c.ok]


def data_files(trial: Trial) -> list[Path]:
    """The files a trial reads (a bundled name resolves to its package CSV and sidecar)."""
    from grf_data.registry import BUNDLED, bundled_path

    out: list[Path] = []
    for spec in [*trial.grf.split("|"), *([trial.kinematics] if trial.kinematics else [])]:
        spec = spec.strip()
        p = bundled_path(spec) if spec in BUNDLED else Path(spec)
        out.append(p)
        if p.suffix.lower() == ".csv" and p.with_suffix(".json").is_file():
            out.append(p.with_suffix(".json"))
    return out


def is_synthetic(trial: Trial) -> bool:
    """A generator CSV (its sidecar says ``synthetic``)."""
    for p in data_files(trial):
        if p.suffix.lower() == ".json" and p.is_file():
            try:
                return bool(json.loads(p.read_text(encoding="utf-8")).get("synthetic"))
            except ValueError:
                return False
    return False


def code_version() -> str:
    """Hash of the posture solver's sources and this package's trial code (a cache key part)."""
    import app.posture
    import models.posture

    h = hashlib.sha256()
    roots = [Path(models.posture.__file__).parent, Path(app.posture.__file__), Path(__file__)]
    for root in roots:
        for p in sorted(root.glob("*.py")) if root.is_dir() else [root]:
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


class SolveCache:
    """Solves kept in memory for one report run, and on disk in ``folder`` (``None``: memory only).

    The key is a hash of what the solve depends on: the request, each data file's size and
    modification time, and :func:`code_version`.
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self._mem: dict[str, Any] = {}
        self._code = code_version()
        self.hits = 0
        self.misses = 0

    def key(self, *parts: Any) -> str:
        stamp: list[Any] = []
        for part in parts:
            if isinstance(part, Trial):
                stamp.append(asdict(part))
                stamp.append([(str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in data_files(part)
                              if p.is_file()])
            else:
                stamp.append(part)
        text = json.dumps([self._code, stamp], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def get(self, key: str, make: Callable[[], Any]) -> Any:
        if key in self._mem:
            self.hits += 1
            return self._mem[key]
        path = None if self.folder is None else self.folder / f"{key}.pkl"
        if path is not None and path.is_file():
            try:
                self._mem[key] = pickle.loads(path.read_bytes())
                self.hits += 1
                return self._mem[key]
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
                pass
        self.misses += 1
        value = make()
        self._mem[key] = value
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(pickle.dumps(value))
        return value


def _on_cycle(values: np.ndarray) -> np.ndarray:
    """Resample a periodic node series (n,) over ``[t0, t0 + T)`` to :data:`PCT`."""
    n = values.shape[0]
    x = np.append(np.arange(n) / n, 1.0) * 100.0
    return np.interp(PCT, x, np.append(values, values[0]))


def _cycle(k: int, cell: dict[str, Any], sol: Any, angles: np.ndarray | None, t_rec: np.ndarray | None) -> SolvedCycle:
    curves: dict[str, np.ndarray] = {}
    recorded: dict[str, np.ndarray] = {}
    if cell["status"] == "converged":
        bw = sol.params.total_mass * sol.params.g
        q = np.rad2deg(sol.q)
        grf = sol.inputs.grf / bw
        curves = {"trunk": _on_cycle(q[:, 2]), "hip": _on_cycle(q[:, 4]), "knee": _on_cycle(q[:, 6]),
                  "grf_y": _on_cycle(grf[:, 3]), "grf_x": _on_cycle(grf[:, 2])}
        if angles is not None and t_rec is not None:
            tt = sol.inputs.t0 + PCT / 100.0 * sol.inputs.period
            if tt[0] >= t_rec[0] and tt[-1] <= t_rec[-1]:
                for name, col in (("trunk", 0), ("hip", 2), ("knee", 4)):
                    y = np.rad2deg(np.interp(tt, t_rec, angles[:, col]))
                    if np.isfinite(y).all():
                        recorded[name] = y
    metrics: dict[str, Any] = {key: cell[key] for key in ("trunk_deg", "stance_knee_peak_deg", "stride_m", "speed_m_s",
                                          "cadence_spm", "period_s", "residual") if key in cell}
    return SolvedCycle(index=k, status=cell["status"], why=str(cell["why"]), iterations=int(cell["iterations"]),
                       objective=float(cell["objective"]), violation=float(cell["constraint_violation"]),
                       solve_time_s=float(cell["solve_time_s"]),
                       metrics=metrics if cell["status"] == "converged" else {}, curves=curves, recorded=recorded)


def _solve(trial: Trial, cycles: str) -> TrialSolve:
    from app.runs import RunSpec, solve
    from grf_data.registry import load_dataset
    from models.errors import UserError

    synthetic = is_synthetic(trial)
    out = TrialSolve(trial=trial, synthetic=synthetic)
    which = 0 if (synthetic or cycles == "first") else None
    spec = SolveSpec(cycle=which)
    # a recording's own kinematics file goes in as a GRF|KINEMATICS pair: one recording, its own swing
    dataset = trial.grf if not trial.kinematics else f"{trial.grf}|{trial.kinematics}"
    out.settings = {"solve": asdict(spec), "dataset": dataset,
                    "cycles": "cycle 0" if which == 0 else "every whole cycle"}
    try:
        res = solve(RunSpec(dataset=dataset, mass=trial.mass, height=trial.height, solve=spec))
        ds = load_dataset(trial.grf, kinematics=trial.kinematics, mass=trial.mass, height=trial.height)
    except (UserError, ValueError, RuntimeError, OSError) as exc:
        out.error = f"{type(exc).__name__}: {exc}"
        return out
    angles = ds.reference_angles()
    out.settings["solver_options"] = res.summary["solver"]["options"]
    for cell, sol in zip(res.summary["cycles"], res.solutions):
        c = _cycle(int(cell["cycle"]), cell, sol, angles, ds.t)
        out.cycles.append(c)
        if "trunk" in c.recorded:
            out.recorded_trunk_mean_deg.append(float(c.recorded["trunk"][:-1].mean()))
    if synthetic:
        p = ds.meta.extra.get("parameters", {})
        out.design = {"trunk_lean_deg": float(p["trunk_lean_deg"]), "cadence_spm": float(p["cadence_spm"]),
                      "stride_m": float(p["stride_m"])} if p else {}
    return out


def solve_trial(trial: Trial, cache: SolveCache, cycles: str = "auto") -> TrialSolve:
    """Solve ``trial`` (module doc); ``cycles``: ``auto`` (synthetic: cycle 0, recordings: all) or ``first``."""
    result: TrialSolve = cache.get(cache.key("trial", trial, cycles), lambda: _solve(trial, cycles))
    return result
