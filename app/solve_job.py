"""A posture solve in a background process, with progress and cancel (no Qt: the GUI polls it).

The GUI's *Solve posture* (and any caller that must stay responsive) starts a :class:`SolveJob`:
a spawned process (never forked: a fork taken while another thread holds numba's or Qt's locks
can block for ever, ``docs/gui-threads.md``) runs :func:`app.runs.solve` and writes the result
folder (:func:`app.posture.write_outputs`); every IPOPT iteration it puts
``("progress", stage, iteration, objective)`` on a queue, and at the end ``("done", folder,
summary)`` or ``("error", message)``. :meth:`SolveJob.poll` drains the queue without blocking;
:meth:`SolveJob.cancel` terminates the process (IPOPT has no cooperative stop), after which the
job's state is ``cancelled`` and no folder is written.

First of all the job says which stages it will solve, ``("plan", stages, stage_iter)``: the
solver's continuation stages, then one stage per ``sensitivity`` shift, and IPOPT's iteration cap
per stage (:class:`~models.posture.solver.SolverOptions`), so that a progress bar can be divided
before the first iteration.

**Sensitivity.** With ``sensitivity=(-0.01, 0.01)`` the same process solves the spec again with
the trunk's CoM moved by each shift [m] (``SolveSpec.trunk_com_shift_m``, added to the spec's own),
each warm-started from the base solution (same nodes and stances, so only the solver's last stage
runs), and adds to ``summary.json``::

    "sensitivity": {"parameter": "trunk_com_shift_m", "base_trunk_mean_deg": float,
                    "cases": [{"shift_m", "status", "iterations", "trunk_mean_deg", "delta_deg"}, ...],
                    "trunk_mean_deg_per_cm": float}   # central difference, null if a case failed

A case that raises is recorded with status ``failed`` and its message; the base solution stands.

**The recording beside it.** ``recording.npz`` in the folder holds the GRF trial's own recorded
angles ``[alpha, beta_l, beta_r, gamma_l, gamma_r]`` [rad] at the solution's nodes (``t``, ``angles``,
``name``), for the GUI's ghost and overlays (never read by a solver); without recorded angles it
holds ``t`` and ``name`` only.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import queue
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

__all__ = ["SolveJob", "JobEvent", "sensitivity_summary", "shift_label", "write_recording"]


@dataclass
class JobEvent:
    """One message of the job: ``kind`` is ``plan``, ``progress``, ``done``, ``error`` or ``cancelled``."""

    kind: str
    stage: str = ""
    iteration: int = 0
    objective: float = float("nan")
    folder: Path | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    message: str = ""
    stages: tuple[str, ...] = ()


def shift_label(shift_m: float) -> str:
    """The stage name of a sensitivity solve: ``trunk CoM +1 cm``."""
    return f"trunk CoM {100 * shift_m:+g} cm"


def sensitivity_summary(base: dict[str, Any], cases: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``sensitivity`` entry of ``summary.json`` (module doc) from the base summary and each case's
    ``{"shift_m", "status", "iterations", "trunk_mean_deg"}`` (``trunk_mean_deg`` None if it failed)."""
    mean0 = float(base["trunk_mean_deg"]["mean"])
    out = []
    for c in cases:
        m = c.get("trunk_mean_deg")
        out.append({**c, "delta_deg": None if m is None else float(m) - mean0})
    ok = [c for c in out if c["delta_deg"] is not None and c["status"] == "converged"]
    per_cm = None
    if len(ok) >= 2:
        lo, hi = min(ok, key=lambda c: c["shift_m"]), max(ok, key=lambda c: c["shift_m"])
        if hi["shift_m"] > lo["shift_m"]:
            per_cm = (hi["trunk_mean_deg"] - lo["trunk_mean_deg"]) / (100 * (hi["shift_m"] - lo["shift_m"]))
    return {"parameter": "trunk_com_shift_m", "base_trunk_mean_deg": mean0, "cases": out,
            "trunk_mean_deg_per_cm": per_cm if per_cm is None or math.isfinite(per_cm) else None}


def _work(spec: Any, out: str, events: Any, sensitivity: tuple[float, ...]) -> None:
    """The child process: solve, the sensitivity solves, write, report (module doc)."""
    try:
        from app.posture import SolveSpec, write_outputs
        from app.runs import solve
        from models.posture.solver import STAGES, SolverOptions

        base_spec = spec.solve or SolveSpec()
        stages = (STAGES if base_spec.dynamics else STAGES[:1]) + tuple(shift_label(d) for d in sensitivity)
        events.put(("plan", stages, SolverOptions().stage_iter))
        label: list[str] = []

        def progress(stage: str, it: int, f: float, _v: float) -> None:
            events.put(("progress", label[0] if label else stage, it, f))

        result = solve(spec, progress=progress)
        if sensitivity:
            cases = []
            for d in sensitivity:
                label[:] = [shift_label(d)]
                shifted = replace(spec, solve=replace(base_spec, trunk_com_shift_m=base_spec.trunk_com_shift_m + d))
                try:
                    r = solve(shifted, progress=progress, warm=result.solutions[0])
                    cases.append({"shift_m": d, "status": r.summary["status"], "iterations": r.summary["iterations"],
                                  "trunk_mean_deg": r.summary["trunk_mean_deg"]["mean"]})
                except Exception as exc:  # a failed case is reported, the base stands
                    cases.append({"shift_m": d, "status": "failed", "iterations": 0, "trunk_mean_deg": None,
                                  "message": f"{type(exc).__name__}: {exc}"})
            result.summary["sensitivity"] = sensitivity_summary(result.summary, cases)
        write_outputs(result, Path(out))
        write_recording(spec, result, Path(out))
        events.put(("done", out, result.summary))
    except BaseException as exc:  # every failure reaches the parent as one message
        events.put(("error", f"{type(exc).__name__}: {exc}"))


def write_recording(spec: Any, result: Any, out: Path) -> Path:
    """``recording.npz`` (module doc) of the solve ``result`` of ``spec`` in ``out``."""
    import numpy as np

    from grf_data.registry import load_dataset

    name = spec.dataset or result.dataset
    ds = load_dataset(name, mass=spec.mass, height=spec.height)
    kin = spec.solve.kinematics if spec.solve is not None else None
    if ds.reference_angles() is None and kin not in (None, name):
        ds = load_dataset(name, kinematics=kin, mass=spec.mass, height=spec.height)
    t = result.solutions[0].t
    arrays: dict[str, Any] = {"t": t, "name": np.array(ds.name)}
    angles = ds.reference_angles()
    if angles is not None and ds.t[0] <= t[0] and t[-1] <= ds.t[-1]:
        arrays["angles"] = np.column_stack([np.interp(t, ds.t, angles[:, j]) for j in range(5)])
    np.savez_compressed(out / "recording.npz", **arrays)
    return out / "recording.npz"


class SolveJob:
    """Solve ``spec`` (a :class:`~app.runs.RunSpec` with ``solve`` set) into ``out`` in a spawned process;
    ``sensitivity``: trunk-CoM shifts [m] solved after it (module doc)."""

    def __init__(self, spec: Any, out: Path, sensitivity: tuple[float, ...] = ()) -> None:
        ctx = mp.get_context("spawn")
        self.out = Path(out)
        self._events: Any = ctx.Queue()
        self._proc = ctx.Process(target=_work, args=(spec, str(self.out), self._events, tuple(sensitivity)),
                                 daemon=True)
        self.state = "running"
        self.iterations = 0
        self.stages: tuple[str, ...] = ()
        self.stage_iter = 0
        self._proc.start()

    def poll(self) -> list[JobEvent]:
        """Every event since the last poll (never blocks)."""
        out: list[JobEvent] = []
        while True:
            try:
                msg = self._events.get_nowait()
            except queue.Empty:
                break
            if msg[0] == "plan":
                self.stages, self.stage_iter = tuple(msg[1]), int(msg[2])
                out.append(JobEvent("plan", stages=self.stages, iteration=self.stage_iter))
            elif msg[0] == "progress":
                self.iterations += 1
                out.append(JobEvent("progress", stage=msg[1], iteration=msg[2], objective=msg[3]))
            elif msg[0] == "done":
                self.state = "done"
                out.append(JobEvent("done", folder=Path(msg[1]), summary=msg[2]))
            else:
                self.state = "error"
                out.append(JobEvent("error", message=msg[1]))
        if self.state == "running" and not self._proc.is_alive() and self._proc.exitcode not in (None, 0):
            self.state = "error"
            out.append(JobEvent("error", message=f"the solver process ended with exit code {self._proc.exitcode}"))
        return out

    def cancel(self) -> None:
        """Stop the solve now; the state becomes ``cancelled`` (nothing is written)."""
        if self.state == "running":
            self._proc.terminate()
            self._proc.join(5.0)
            self.state = "cancelled"

    @property
    def running(self) -> bool:
        return self.state == "running"

    def join(self, timeout: float | None = None) -> None:
        self._proc.join(timeout)
