"""The sweep loop: run every spec on an executor, show progress, keep every finished row.

:func:`run_sweep` collects one row per finished run (:func:`app.tuning.worker.run_one`), tagged
with its index ``run``. A set ``cancel`` event (the GUI's Stop; Ctrl+C in ``gaitblocks sweep``,
:class:`app.interrupt.SigintFlag`) starts no further run; the runs in flight finish and their rows
are kept, and ``interrupted`` is set. A ``KeyboardInterrupt`` (a second Ctrl+C) stops at once.
:class:`SweepCsv` writes ``sweep.csv`` as rows finish: each row is appended (and flushed) when it
comes, never the whole file again, so the command's cost is linear in N and a crash or Ctrl+C
keeps every finished row. The header is fixed by the first rows written: ``run``, the swept
parameters, ``status``, ``message``, ``objective``, ``job_wall_s``, then every metric column in
order of first appearance (a failed run leaves the metrics it does not have empty). Only when a
later row brings a column the header has not got (the first rows were failures without metrics)
is the file rewritten once with the wider header. Rows are in the order they finished (run order
for the vectorised executor); ``run`` gives the plan's order and :func:`read_csv` sorts by it.
With ``resume``, the rows already in the file are kept and their runs are not run again.
"""

from __future__ import annotations

import csv
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TextIO

from app.runs import RunSpec
from app.tuning.worker import BASE_COLUMNS, run_one
from blocks.executors import Executor
from models.errors import UserError

__all__ = ["Progress", "SweepOutcome", "SweepCsv", "run_sweep", "read_csv", "cell_text"]


def _clock(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "--:--"
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"


class Progress:
    """A one-line progress bar on ``stream``: ``done/total``, elapsed time and the estimated time left.

    ETA = elapsed / done * (total - done), i.e. the mean wall time per run finished here so far
    (``done`` counts from ``already``, the rows a resumed sweep found). :meth:`start` shows the line
    at once and redraws it every ``every`` seconds until :meth:`finish`, so a sweep whose first
    batch takes a while (a compile, a batch of copies) still shows that it is going.
    """

    def __init__(self, total: int, label: str = "sweep", stream: TextIO | None = None, width: int = 24,
                 already: int = 0) -> None:
        self.total, self.label, self.width = total, label, width
        self.stream = stream if stream is not None else sys.stderr
        self.start_s = time.perf_counter()
        self.already = already
        self.done = already
        self.failed = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def line(self) -> str:
        elapsed = time.perf_counter() - self.start_s
        here = self.done - self.already
        eta = elapsed / here * (self.total - self.done) if here else math.nan
        fill = int(self.width * self.done / self.total) if self.total else self.width
        bar = "#" * fill + "." * (self.width - fill)
        failed = f", {self.failed} failed" if self.failed else ""
        return (f"{self.label} [{bar}] {self.done}/{self.total} done, elapsed {_clock(elapsed)}, "
                f"ETA {_clock(eta)}{failed}")

    def _draw(self) -> None:
        with self._lock:
            self.stream.write("\r" + self.line())
            self.stream.flush()

    def start(self, every: float = 1.0) -> None:
        """Show the line now and redraw it every ``every`` seconds (a daemon thread) until :meth:`finish`."""
        self._draw()

        def tick() -> None:
            while not self._stop.wait(every):
                self._draw()

        self._ticker = threading.Thread(target=tick, name="sweep-progress", daemon=True)
        self._ticker.start()

    def update(self, ok: bool) -> None:
        self.done += 1
        self.failed += 0 if ok else 1
        self._draw()

    def finish(self) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
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
              fn: Callable[[RunSpec], dict[str, Any]] = run_one,
              index: Sequence[int] | None = None) -> SweepOutcome:
    """Run ``specs`` on ``executor``; see the module docstring. ``index[i]`` is the ``run`` of
    ``specs[i]`` (default ``i``: a resumed sweep runs only the rows it has not got)."""
    out = SweepOutcome(total=len(specs))
    runs = list(index) if index is not None else list(range(len(specs)))
    stream: Generator[tuple[int, Any], None, None] = executor.imap(fn, specs, stop=cancel)
    try:
        for i, row in stream:
            row = {"run": runs[i], **row}
            out.rows.append(row)
            if on_row is not None:  # first: a row the progress line counts is on disk already
                on_row(row)
            if progress is not None:
                progress.update(row.get("status") == "ok")
    except KeyboardInterrupt:
        out.interrupted = True
    finally:
        try:
            stream.close()
        except KeyboardInterrupt:  # a second Ctrl+C while cancelling
            out.interrupted = True
        if progress is not None:
            progress.finish()
    out.interrupted = out.interrupted or (cancel is not None and cancel.is_set() and len(out.rows) < len(specs))
    out.rows.sort(key=lambda r: int(r["run"]))
    return out


def columns(rows: Sequence[Mapping[str, Any]], params: Sequence[str]) -> list[str]:
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


def cell_text(v: Any) -> str:
    """A value as ``sweep.csv`` writes it: empty for None, ``repr`` for a float (it reads back exactly)."""
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _replace(path: Path, header: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> None:
    """Write ``rows`` under ``header`` to ``path`` through a ``.part`` file (readers never see half a file)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        part = path.with_name(path.name + ".part")
        with part.open("w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            for row in rows:
                w.writerow([cell_text(row.get(c)) for c in header])
        os.replace(part, path)  # readers never see a half-written file
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None


class SweepCsv:
    """``sweep.csv`` written as the rows finish (module docstring).

    Parameters
    ----------
    path : Path
        The file; a new sweep replaces it at its first row.
    params : sequence of str
        The fixed then swept parameters, the columns after ``run``.
    resume : bool
        Keep the rows already in ``path`` (:attr:`kept`, as text; a last line cut short by a crash
        is dropped) and append to them.
    """

    def __init__(self, path: Path, params: Sequence[str], resume: bool = False) -> None:
        self.path, self.params = Path(path), list(params)
        self.header: list[str] | None = None
        self._known: set[str] = set()  # the header's columns
        self.kept: list[dict[str, str]] = []
        self._fh: IO[str] | None = None
        self._writer: Any = None
        if resume and self.path.exists():
            _drop_cut_line(self.path)
            with self.path.open(newline="", encoding="utf-8") as fh:
                reader = csv.DictReader(fh)
                self.header = list(reader.fieldnames or []) or None
                self._known = set(self.header or ())
                self.kept = list(reader)
            if self.header is not None:
                self._open("a")

    def _open(self, mode: str) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fh = self.path.open(mode, newline="", encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {self.path}: {exc.strerror}") from None
        self._fh, self._writer = fh, csv.writer(fh)

    def add(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Append ``rows`` and flush them to the file."""
        if not rows:
            return
        if self.header is None:
            self.header = columns(rows, self.params)
            self._open("w")
            self._writer.writerow(self.header)
            self._known = set(self.header)
        elif not all(self._known.issuperset(row) for row in rows):
            self._widen(self.header + [c for c in columns(rows, self.params) if c not in self._known])
        assert self._fh is not None and self.header is not None
        try:
            # the csv writer writes None as an empty cell, a float (subclasses too) as its repr and anything
            # else as its str: cell_text's text, without a Python call per cell
            self._writer.writerows([[row.get(c) for c in self.header] for row in rows])
            self._fh.flush()
        except OSError as exc:
            raise UserError(f"cannot write {self.path}: {exc.strerror}") from None

    def _widen(self, header: list[str]) -> None:
        """Rewrite the file once with the wider ``header`` (module docstring)."""
        self.close()
        with self.path.open(newline="", encoding="utf-8") as fh:
            old = list(csv.DictReader(fh))
        _replace(self.path, header, old)
        self.header = header
        self._known = set(header)
        self._open("a")

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None

    def __enter__(self) -> SweepCsv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _drop_cut_line(path: Path) -> None:
    """Cut ``path`` after its last newline: a row half-written when the process was killed goes."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        with path.open("r+b") as fh:
            fh.truncate(data.rfind(b"\n") + 1)


def read_csv(path: Path) -> list[dict[str, str]]:
    """Rows of a ``sweep.csv`` as text, in run order (for tests, ``--resume`` and the GUI)."""
    with path.open(newline="", encoding="utf-8") as fh:
        return sorted(csv.DictReader(fh), key=lambda r: int(r["run"]))
