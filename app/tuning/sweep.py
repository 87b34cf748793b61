"""The sweep loop: run every spec on an executor, show progress, stop cleanly on Ctrl+C.

:func:`run_sweep` collects one row per finished run (:func:`app.tuning.worker.run_one`), tagged
with its index ``run``. A ``KeyboardInterrupt`` (Ctrl+C) or a set ``cancel`` event stops it:
runs not started are cancelled, finished rows are kept and ``interrupted`` is set.
:func:`write_csv` writes the rows in run order with a fixed header: ``run``, the swept
parameters, ``status``, ``message``, ``objective``, ``job_wall_s``, then every metric column in
order of first appearance (a failed run leaves the metrics it does not have empty).
"""

from __future__ import annotations

import csv
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from app.runs import RunSpec
from app.tuning.worker import BASE_COLUMNS, run_one
from blocks.executors import Executor
from models.errors import UserError

__all__ = ["Progress", "SweepOutcome", "run_sweep", "write_csv", "read_csv"]


def _clock(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "--:--"
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


class Progress:
    """A one-line progress bar on ``stream``: ``done/total``, elapsed time and the estimated time left.

    ETA = elapsed / done * (total - done), i.e. the mean wall time per finished run so far.
    """

    def __init__(self, total: int, label: str = "sweep", stream: TextIO | None = None, width: int = 24) -> None:
        self.total, self.label, self.width = total, label, width
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.perf_counter()
        self.done = self.failed = 0

    def line(self) -> str:
        elapsed = time.perf_counter() - self.start
        eta = elapsed / self.done * (self.total - self.done) if self.done else math.nan
        fill = int(self.width * self.done / self.total) if self.total else self.width
        bar = "#" * fill + "." * (self.width - fill)
        failed = f", {self.failed} failed" if self.failed else ""
        return (f"{self.label} [{bar}] {self.done}/{self.total} done, elapsed {_clock(elapsed)}, "
                f"ETA {_clock(eta)}{failed}")

    def update(self, ok: bool) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        self.stream.write("\r" + self.line())
        self.stream.flush()

    def finish(self) -> None:
        self.stream.write("\n")
        self.stream.flush()


@dataclass
class SweepOutcome:
    """Finished rows (in run order), how many runs were planned, and whether the sweep was stopped."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    total: int = 0
    interrupted: bool = False


def run_sweep(specs: Sequence[RunSpec], executor: Executor, *, progress: Progress | None = None,
              cancel: threading.Event | None = None,
              on_row: Callable[[dict[str, Any]], None] | None = None,
              fn: Callable[[RunSpec], dict[str, Any]] = run_one) -> SweepOutcome:
    """Run ``specs`` on ``executor``; see the module docstring."""
    out = SweepOutcome(total=len(specs))
    stream: Generator[tuple[int, Any], None, None] = executor.imap(fn, specs)
    try:
        for i, row in stream:
            row = {"run": i, **row}
            out.rows.append(row)
            if progress is not None:
                progress.update(row.get("status") == "ok")
            if on_row is not None:
                on_row(row)
            if cancel is not None and cancel.is_set():
                out.interrupted = True
                break
    except KeyboardInterrupt:
        out.interrupted = True
    finally:
        try:
            stream.close()
        except KeyboardInterrupt:  # a second Ctrl+C while cancelling
            out.interrupted = True
        if progress is not None:
            progress.finish()
    out.rows.sort(key=lambda r: int(r["run"]))
    return out


def columns(rows: Sequence[dict[str, Any]], params: Sequence[str]) -> list[str]:
    """``run``, ``params``, the base columns, then other keys in order of first appearance."""
    head = ["run", *params, *BASE_COLUMNS]
    seen = set(head)
    rest: list[str] = []
    for row in rows:
        for key in row:
            if key not in seen:
                seen.add(key)
                rest.append(key)
    return head + rest


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return str(v)


def write_csv(rows: Sequence[dict[str, Any]], path: Path, params: Sequence[str]) -> list[str]:
    """Write ``rows`` to ``path`` (module docstring); returns the header."""
    header = columns(rows, params)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        with part.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            for row in rows:
                w.writerow([_cell(row.get(c)) for c in header])
        os.replace(part, path)  # readers never see a half-written file
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None
    return header


def read_csv(path: Path) -> list[dict[str, str]]:
    """Rows of a ``sweep.csv`` as text (for tests and the GUI)."""
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))
