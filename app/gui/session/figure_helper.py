"""The process that draws the journal figures of a window, started once and kept.

A figure is drawn by matplotlib in another process (:mod:`app.gui.session.export_job`: in a thread,
its long C calls held the GIL and froze the window). Spawned afresh for each export, that process
imported numpy and matplotlib and loaded its fonts again every time: an export took 4-8 s of wall
time on the loaded 2-core machine, mostly that start (issue 32 §2). :class:`FigureHelper` keeps one
spawned process (:func:`~app.gui.scopes.scope_figure.figure_server`) that warms matplotlib up as soon as
it starts and then waits for figures: the window starts it when the Export menu opens
(:meth:`FigureHelper.start`, idle in the background while the user picks a file) and keeps it for
the next export. One figure at a time; Cancel terminates the process (the next export starts a new
one), and so does closing the window (:meth:`FigureHelper.stop`).
"""

from __future__ import annotations

import multiprocessing as mp
import queue
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from app.gui.scopes.scope_figure import FigureData, figure_server
from models.errors import UserError

__all__ = ["POLL_S", "FigureHelper"]

POLL_S = 0.1     # how often a waiting export looks at Cancel and at the process [s]


class FigureHelper:
    """A spawned figure process (module docstring); ``draw`` runs in an export's worker thread."""

    def __init__(self) -> None:
        self._proc: Any = None
        self._jobs: Any = None
        self._out: Any = None
        self._lock = threading.Lock()      # one figure at a time
        self.started = 0                   # processes started (tests and benchmarks)

    def alive(self) -> bool:
        return self._proc is not None and self._proc.is_alive()

    def start(self) -> None:
        """Start the process (it warms matplotlib up, then waits) unless it runs already."""
        if self.alive():
            return
        ctx = mp.get_context("spawn")
        self._jobs, self._out = ctx.Queue(), ctx.Queue()
        self._proc = ctx.Process(target=figure_server, args=(self._jobs, self._out), daemon=True,
                                 name="gaitblocks figure export")
        self._proc.start()
        self.started += 1

    def stop(self) -> None:
        """End the process (terminated: it may be drawing)."""
        if self._proc is not None:
            self._proc.terminate()
            self._proc.join(timeout=5.0)
            for q in (self._jobs, self._out):   # a figure nobody will read may still fill the pipe:
                q.cancel_join_thread()          # exiting must not wait for its feeder thread
                q.close()
        self._proc = None

    def draw(self, data: FigureData, path: Path, width_mm: float, cancelled: Callable[[], bool]) -> Path:
        """Draw ``data`` ``width_mm`` wide into ``path`` in the process (started if need be), looking
        at ``cancelled`` every :data:`POLL_S`; a cancel or a failure removes the partial file and
        raises :class:`UserError`."""
        with self._lock:
            self.start()
            self._jobs.put((data, str(path), width_mm))
            while True:
                if cancelled():
                    self.stop()
                    path.unlink(missing_ok=True)
                    raise UserError("export cancelled")
                try:
                    error = self._out.get(timeout=POLL_S)
                    break
                except queue.Empty:
                    if not self.alive():
                        code = self._proc.exitcode if self._proc is not None else None
                        self.stop()
                        error = f"the export process ended with code {code}"
                        break
        if error:
            path.unlink(missing_ok=True)
            raise UserError(f"figure export failed: {error}")
        return path
