"""A posture solve in a background process, with progress and cancel (no Qt: the GUI polls it).

The GUI's *Solve posture* (and any caller that must stay responsive) starts a :class:`SolveJob`:
a spawned process (never forked: a fork taken while another thread holds numba's or Qt's locks
can block for ever, ``docs/gui-threads.md``) runs :func:`app.runs.solve` and writes the result
folder (:func:`app.posture.write_outputs`); every IPOPT iteration it puts
``("progress", stage, iteration, objective)`` on a queue, and at the end ``("done", folder,
summary)`` or ``("error", message)``. :meth:`SolveJob.poll` drains the queue without blocking;
:meth:`SolveJob.cancel` terminates the process (IPOPT has no cooperative stop), after which the
job's state is ``cancelled`` and no folder is written.
"""

from __future__ import annotations

import multiprocessing as mp
import queue
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["SolveJob", "JobEvent"]


@dataclass
class JobEvent:
    """One message of the job: ``kind`` is ``progress``, ``done``, ``error`` or ``cancelled``."""

    kind: str
    stage: str = ""
    iteration: int = 0
    objective: float = float("nan")
    folder: Path | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    message: str = ""


def _work(spec: Any, out: str, events: Any) -> None:
    """The child process: solve, write, report (module doc)."""
    try:
        from app.posture import write_outputs
        from app.runs import solve

        def progress(stage: str, it: int, f: float, _v: float) -> None:
            events.put(("progress", stage, it, f))

        result = solve(spec, progress=progress)
        write_outputs(result, Path(out))
        events.put(("done", out, result.summary))
    except BaseException as exc:  # noqa: BLE001 -- every failure reaches the parent as one message
        events.put(("error", f"{type(exc).__name__}: {exc}"))


class SolveJob:
    """Solve ``spec`` (a :class:`~app.runs.RunSpec` with ``solve`` set) into ``out`` in a spawned process."""

    def __init__(self, spec: Any, out: Path) -> None:
        ctx = mp.get_context("spawn")
        self.out = Path(out)
        self._events: Any = ctx.Queue()
        self._proc = ctx.Process(target=_work, args=(spec, str(self.out), self._events), daemon=True)
        self.state = "running"
        self.iterations = 0
        self._proc.start()

    def poll(self) -> list[JobEvent]:
        """Every event since the last poll (never blocks)."""
        out: list[JobEvent] = []
        while True:
            try:
                msg = self._events.get_nowait()
            except queue.Empty:
                break
            if msg[0] == "progress":
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
