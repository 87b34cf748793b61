"""The solved gait of a run: which posture solution the diagram walks, where it comes from, how well it holds.

A diagram uses the posture solver's gait when a ``SolvedGait`` block reads the run's solution
(``source = run``) or the dynamics start on it (``init = solution``): the ``emergent`` preset
(``docs/presets.md``). The solution is ``RunSpec.solution``:

* a solve output folder (``gaitblocks solve --out DIR``) or its ``results.npz``: read as it is;
* ``None``: the run's dataset solved with the default settings (:class:`app.posture.SolveSpec`; the
  swing reference from ``RunSpec.kinematics`` when it names one),
  kept under the user cache dir (``<cache>/solutions/<name>-<hash>``, :func:`models.userdirs.user_dir`)
  keyed by the dataset's content (time, GRF, CoP, reference angles, mass) and the solve settings,
  so a second run does not solve again.

The solver models point feet, so a run on a solved gait uses point feet unless it names a foot
radius. ``summary.json`` gets ``solution`` (the file, its SHA-256, how it was found, its period,
stride and first node's time) and ``solved_gait``, how tightly the diagram holds it:

* ``trunk_rms_deg``: RMS of the model's trunk angle minus the solution's at the same phase;
* ``pd_stance_share``: ``int |tau_pd| dt / int |tau| dt`` summed over the hip and knee of the legs
  in stance (``tau`` the torque the body gets), the PD's share of the stance joint impulse;
* ``ff_stance_share``: the same for the solution's own torques.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from models.errors import UserError

if TYPE_CHECKING:
    from app.runs import Built, RunSpec
    from blocks import Diagram, Results
    from blocks.library.solved_gait import SolvedCycle
    from models.dataset import GaitDataset
    from models.params import BipedParams

__all__ = ["uses_solution", "prepare_diagram", "solution_path", "solution_resources", "solved_summary",
           "solved_signals"]


class NoSolution(UserError):
    """The posture solver found no acceptable gait for a dataset, so a diagram that walks the solved
    gait cannot run on it. ``status``: the solve's answer status (``failed``, ``no_periodic_gait``,
    ``implausible``; :func:`models.posture.metrics.answer_status`); ``why``: its reason."""

    def __init__(self, dataset: str, status: str, why: str) -> None:
        self.dataset, self.status, self.why = dataset, status, why
        super().__init__(f"{dataset}: the posture solve did not converge ({status}: {why}); "
                         f"give a solution with --solution DIR")


def uses_solution(diagram: Diagram) -> bool:
    """True when a block of ``diagram`` reads the run's solved gait (module doc)."""
    for name, entry in diagram.blocks.items():
        values = diagram.instantiate(name).values
        if entry.type == "SolvedGait" and values["source"] == "run":
            return True
        if entry.type == "FiveLinkDynamics" and values["init"] == "solution":
            return True
    return False


def prepare_diagram(diagram: Diagram, spec: RunSpec) -> Diagram:
    """``diagram`` with point feet when it walks a solved gait and the spec names no foot radius
    (the solver's feet are points); otherwise unchanged."""
    from blocks.library.settings import MODEL

    model = diagram.section(MODEL)
    if spec.foot_radius is None and model.foot_radius_m is None and uses_solution(diagram):
        diagram.set_section(MODEL, replace(model, foot_radius_m=0.0))
    return diagram


def _content_hash(ds: GaitDataset) -> str:
    from app.posture import SolveSpec

    h = hashlib.sha256()
    for a in (ds.t, ds.grf, ds.cop_x, ds.reference_angles()):
        if a is not None:
            h.update(np.ascontiguousarray(a, dtype=np.float64).tobytes())
    h.update(repr((ds.meta.body_mass_kg, ds.meta.height_m, asdict(SolveSpec()))).encode())
    return h.hexdigest()


def solution_path(spec: RunSpec, dataset: str, data: GaitDataset) -> tuple[Path, str]:
    """``(path, how)``: the solution file the run reads, and ``given``, ``cached`` or ``solved``."""
    from models.userdirs import user_dir

    if spec.solution is not None:
        path = Path(spec.solution)
        path = path / "results.npz" if path.is_dir() else path
        if not path.is_file():
            raise UserError(f"--solution {spec.solution}: no results.npz there (write one with gaitblocks solve)")
        return path, "given"
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in Path(dataset).stem)[:40]
    folder = user_dir("cache") / "solutions" / f"{safe}-{_content_hash(data)[:16]}"
    path = folder / "results.npz"
    if path.is_file():
        return path, "cached"
    from app.posture import SolveSpec, write_outputs
    from app.runs import RunSpec, solve

    how = SolveSpec(kinematics=spec.kinematics)  # a GRF file's own kinematics file, or another recording's swing
    result = solve(RunSpec(dataset=dataset, mass=spec.mass, height=spec.height, solve=how))
    if not result.ok:
        raise NoSolution(dataset, str(result.summary.get("status")), str(result.summary.get("message")))
    # written aside, then moved into place whole: a parallel run of the same dataset never reads half a file
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent) as tmp:
        write_outputs(result, Path(tmp) / "out")
        try:
            os.replace(Path(tmp) / "out", folder)
        except OSError:  # another run put it there first: same content key, use that one
            if not path.is_file():
                raise
    return path, "solved"


def solution_resources(spec: RunSpec, diagram: Diagram, dataset: str, data: GaitDataset,
                       biped: BipedParams) -> dict[str, Any]:
    """The compile resources of a run on a solved gait (``{}`` when ``diagram`` uses none)."""
    if not uses_solution(diagram):
        return {}
    from blocks.library.solved_gait import SOLVED_GAIT, load_solved_cycle

    path, how = solution_path(spec, dataset, data)
    cycle = load_solved_cycle(path, biped)
    return {SOLVED_GAIT: replace(cycle, source=f"{how}:{path}")}


def _stance_share(part: np.ndarray, total: np.ndarray, stance: np.ndarray, t: np.ndarray) -> float:
    legs = np.repeat(stance > 0.5, 2, axis=1)[:, [0, 2, 1, 3]]  # [hip_l hip_r knee_l knee_r] -> its leg
    dt = np.diff(t, append=t[-1])
    den = float(np.sum(np.abs(np.where(legs, total, 0.0)).sum(axis=1) * dt))
    num = float(np.sum(np.abs(np.where(legs, part, 0.0)).sum(axis=1) * dt))
    return num / den if den > 0 else float("nan")


def solved_summary(results: Results, built: Built) -> dict[str, Any]:
    """``solution`` and ``solved_gait`` of ``summary.json`` (module doc); ``{}`` without a solved gait."""
    from app.signals import find_signal
    from blocks.library.solved_gait import SOLVED_GAIT

    cycle: SolvedCycle | None = built.model.ctx.resources.get(SOLVED_GAIT)
    if cycle is None:
        return {}
    how, _, path = cycle.source.partition(":")
    out: dict[str, Any] = {"solution": {"path": path, "sha256": cycle.sha256, "how": how, "t0_s": cycle.t0,
                                        "period_s": cycle.period, "stride_m": cycle.stride, "nodes": cycle.n}}
    sig = results.signals
    names = {port: find_signal(built.diagram, "SolvedGait", port, sig) for port in ("trunk", "tau_pd", "tau_ff")}
    needed = ("body.q", "phase.stance", "switch.tau")
    if any(v is None for v in names.values()) or any(k not in sig for k in needed) or results.t.size < 2:
        return out
    t = results.t
    tau = sig["switch.tau"] + sig["grf_match.dtau"] if "grf_match.dtau" in sig else sig["switch.tau"]
    err = np.degrees(sig["body.q"][:, 2] - np.reshape(sig[str(names["trunk"])], (t.size, -1))[:, 0])
    out["solved_gait"] = {
        "trunk_rms_deg": float(np.sqrt(np.mean(err ** 2))),
        "trunk_max_deg": float(np.abs(err).max()),
        "pd_stance_share": _stance_share(sig[str(names["tau_pd"])], tau, sig["phase.stance"], t),
        "ff_stance_share": _stance_share(sig[str(names["tau_ff"])], tau, sig["phase.stance"], t),
    }
    return out


def solved_signals(diagram: Diagram) -> list[str]:
    """The ``block.port`` signals :func:`solved_summary` reads on ``diagram`` (beyond the walking ones)."""
    return [f"{name}.{port}" for name, entry in diagram.blocks.items() if entry.type == "SolvedGait"
            for port in ("trunk", "tau_pd", "tau_ff")]
