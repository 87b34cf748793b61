"""Signal taps into preallocated arrays, and the :class:`Results` of a run.

The recorder gathers the logged signals from the runner's flat signal buffer with one
precomputed index array per tick (``np.take(..., out=row)``), into a preallocated
``(capacity, width)`` array. With ``every = k`` (``--record-every``) only ticks ``0, k, 2k, ...``
are kept, row ``r`` holding tick ``r k`` (time ``t0 + r k dt``); the runner's final tick
(:meth:`blocks.runner.Runner.results`) is always kept, as one more row, so a run's last
sample is its end. Memory: ``8 x width`` bytes per kept row (about 1 kB for the walking diagram's
every output, 1 MB per simulated second at every 1 ms tick). Capacity doubles when an
open-ended run (GUI) outgrows it. :meth:`Recorder.view` gives live read-only views the GUI can
plot while the run goes on.

:meth:`Recorder.share` lends views of the rows so far to a :class:`Results` without copying;
a later write into a lent row (a rewind, or the runner re-evaluating its last tick) first
copies the buffer, so lent views never change.

:meth:`Recorder.stream_to` sends the log to disk in chunks instead (:mod:`blocks.logstream`): the
buffer then holds rows ``row0 .. row0 + length - 1`` of the log, and a full buffer is written out
before more ticks are stepped, so memory stays flat in the run's duration.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from blocks.core import DiagramError
from blocks.diagram import split_port
from blocks.units import signal_units

if TYPE_CHECKING:
    from blocks.compile import CompiledModel

__all__ = ["CHUNK_ROWS", "CSV_ROWS", "Recorder", "Results", "Sink"]

#: rows a streamed log holds in memory between writes (about 4.4 MB for the walking diagram's 135 columns)
CHUNK_ROWS = 4096

#: rows formatted at a time by :meth:`Results.save_csv` (about 1 MB of table for the walking diagram)
CSV_ROWS = 1000
#: rows a :class:`Recorder` allocates when made, at most (70 MB for the walking diagram's 135 columns)
PREALLOCATE = 65_536


class Sink(Protocol):
    """Where a streamed log goes (:class:`blocks.logstream.LogStream` is one)."""

    def open(self, rec: Recorder) -> None: ...

    def write(self, rows: np.ndarray, ticks: np.ndarray) -> None: ...

    def kept(self) -> tuple[np.ndarray, dict[str, np.ndarray]]: ...


class Recorder:
    """Named taps ``"block.port"`` (an output, or a sink's input) recorded every ``every``-th tick."""

    def __init__(self, model: CompiledModel, logged: list[str] | None = None, capacity: int = 1024,
                 every: int = 1) -> None:
        if every < 1:
            raise ValueError(f"record every {every} ticks: must be >= 1")
        self.every = int(every)
        names = list(logged) if logged else _default_taps(model)
        self.names: list[str] = []
        self.columns: dict[str, slice] = {}
        self.labels: dict[str, tuple[str, ...]] = {}
        self.units: dict[str, str] = {}
        idx: list[int] = []
        units = signal_units(model)    # declared, or, for generic blocks, from their inputs (blocks.units)
        for name in names:
            src = _resolve(model, name)
            off, size = model.out_slot[src]
            sb, sp = src.split(".")
            spec = next(s for s in model.outputs[sb] if s.name == sp)
            self.names.append(name)
            self.columns[name] = slice(len(idx), len(idx) + size)
            self.labels[name] = spec.labels if len(spec.labels) == size else tuple(str(i) for i in range(size))
            self.units[name] = units.get(src, spec.unit)
            idx.extend(range(off, off + size))
        self.index = np.array(idx, dtype=np.intp)
        self.t0, self.dt = model.ctx.t0, model.ctx.dt
        # at most PREALLOCATE rows up front: a long run that streams its log (stream_to) never holds the
        # whole log, and one that does not reserves it before stepping (reserve_ticks)
        self.data = np.zeros((min(max(int(capacity), 1), PREALLOCATE), len(idx)))
        self.ticks = np.zeros(self.data.shape[0], dtype=np.int64)  # the tick each row holds
        self.length = 0  # rows in the buffer
        self.row0 = 0  # the log's row that buffer row 0 holds (> 0 only when streamed)
        self.sink: Sink | None = None
        self._lent = 0  # rows [0, _lent) are viewed by a Results (share): copy before writing there

    def stream_to(self, sink: Sink, chunk_rows: int | None = None) -> None:
        """Stream the log to ``sink`` in chunks of ``chunk_rows`` rows (default
        :data:`CHUNK_ROWS`), from the first row on (module docstring)."""
        if self.length or self.row0:
            raise ValueError("a log can be streamed only from its first row")
        self.sink = sink
        sink.open(self)
        rows = max(int(chunk_rows or CHUNK_ROWS), 2)
        self.data = np.zeros((rows, self.data.shape[1]))
        self.ticks = np.zeros(rows, dtype=np.int64)

    def flush(self) -> None:
        """Write the buffered rows to the sink (streamed logs only) and empty the buffer."""
        if self.sink is None or not self.length:
            return
        self.sink.write(self.data[: self.length], self.ticks[: self.length])
        self.row0 += self.length
        self.length = 0

    def reserve(self, rows: int) -> None:
        """Make room for ``rows`` rows (one allocation, before a run; a streamed log keeps its chunk)."""
        if self.sink is None and rows > self.data.shape[0]:
            self._grow(rows)

    def reserve_ticks(self, ticks: int) -> None:
        """Make room for the rows of ticks ``0 .. ticks`` (and a final off-grid one)."""
        self.reserve(ticks // self.every + 2)

    def _grow(self, rows: int) -> None:
        grown = np.zeros((rows, self.data.shape[1]))
        grown[: self.length] = self.data[: self.length]
        ticks = np.zeros(rows, dtype=np.int64)
        ticks[: self.length] = self.ticks[: self.length]
        self.data, self.ticks, self._lent = grown, ticks, 0

    def record(self, k: int, sig: np.ndarray, final: bool = False) -> None:
        """Keep tick ``k`` if it is on the ``every`` grid, or if it is the run's ``final`` tick."""
        e = self.every
        if e != 1 and k % e:
            if not final:
                return
            row = k // e + 1
        else:
            row = k // e
        row -= self.row0
        if row < 0:
            raise ValueError(f"tick {k} was already streamed to disk")
        if self.sink is not None and row >= self.data.shape[0]:
            self.flush()
            row = (k // e + (1 if e != 1 and k % e else 0)) - self.row0
        if row < self._lent:
            self._grow(self.data.shape[0])  # copy-on-write: the lent rows keep their values
        elif row >= self.data.shape[0]:
            self._grow(max(2 * self.data.shape[0], row + 1))
        np.take(sig, self.index, out=self.data[row])
        self.ticks[row] = k
        self.length = row + 1

    def writable(self, k0: int, k1: int) -> int:
        """Make the rows of ticks ``k0 .. k1`` writable in place (grown, and unshared): the compiled
        engine then writes them itself (:meth:`recorded`). Returns how many of those ticks fit: all of
        them, unless the log is streamed, when a full buffer is first written out and the ticks are
        cut to what the chunk holds (at least one)."""
        e = self.every
        if self.sink is not None:
            room = self.data.shape[0] - 1  # the last buffer row: kept free for the final, off-grid one
            if -(-k0 // e) - self.row0 >= room:
                self.flush()
            if k1 // e - self.row0 >= room:
                return max(1, (self.row0 + room) * e - k0)
            return k1 - k0 + 1
        first, last = -(-k0 // e) - self.row0, k1 // e - self.row0
        if first < self._lent:
            self._grow(self.data.shape[0])
        if last >= self.data.shape[0]:
            self._grow(max(2 * self.data.shape[0], last + 2))
        return k1 - k0 + 1

    def recorded(self, k0: int, k1: int) -> None:
        """The rows of ticks ``k0 .. k1`` were written by the compiled engine."""
        last = k1 // self.every
        if k1 >= k0 and last * self.every >= k0:
            self.length = last + 1 - self.row0

    def truncate(self, tick: int) -> None:
        """Drop the rows of ticks ``>= tick`` (a rewind to ``tick``)."""
        if self.row0 and (not self.length or tick < self.ticks[0]):
            raise ValueError(f"cannot rewind to tick {tick}: the log before tick "
                             f"{self.ticks[0] if self.length else '?'} is on disk")
        self.length = int(np.searchsorted(self.ticks[: self.length], tick, side="left"))

    def time(self) -> np.ndarray:
        """Time [s] of each row."""
        return self.t0 + self.ticks[: self.length] * self.dt

    def share(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """``(t, signals)`` as read-only views of the rows so far, no copy (module docstring). A streamed
        log writes its buffer out and gives the rows its sink kept for the summary
        (:meth:`blocks.logstream.LogStream.kept`)."""
        if self.sink is not None:
            self.flush()
            return self.sink.kept()
        self._lent = max(self._lent, self.length)
        return self.time(), {n: self.view(n) for n in self.names}

    def view(self, name: str) -> np.ndarray:
        """Recorded samples of ``name``: ``(n,)`` for a scalar signal, else ``(n, size)`` (read-only view)."""
        if name not in self.columns:
            raise KeyError(f"signal '{name}' is not logged; logged: {', '.join(self.names)}")
        col = self.data[: self.length, self.columns[name]]
        out = col[:, 0] if col.shape[1] == 1 else col
        out = out.view()
        out.setflags(write=False)
        return out


def _default_taps(model: CompiledModel) -> list[str]:
    """Every output, in the signal buffer's order, but those declared ``record = False`` (a ``PortSpec`` flag)."""
    unrecorded = {f"{b}.{s.name}" for b, outs in model.outputs.items() for s in outs if not s.record}
    return [name for name in model.out_slot if name not in unrecorded]


def _resolve(model: CompiledModel, name: str) -> str:
    block, port = split_port(name, "logged signal")
    if name in model.out_slot:
        return name
    if name in model.in_source:
        return model.in_source[name]
    raise DiagramError(f"logged signal '{name}': block '{block}' has no output or input '{port}'")


@dataclass
class Results:
    """Everything a run produced.

    Attributes
    ----------
    t : (n,) array
        Time [s] of each recorded tick.
    signals : dict
        ``"block.port"`` -> ``(n,)`` or ``(n, size)`` array; ``labels`` and ``units`` describe them.
    events : list of dict
        Mode switches ``{"t", "block", "mode", "from", "to"}``.
    param_changes : list of dict
        Live parameter changes ``{"t", "name", "old", "new"}``.
    params : dict
        ``"block.param"`` -> value in force at the end of the run.
    solver, stats : dict
        Solver settings; ``steps``, ``rhs_calls``, ``wall_s``, ``realtime_factor``, ``sim_time_s``.
    status, message : str
        ``"ok"`` or ``"failed"`` with the reason (block, port, time).
    """

    t: np.ndarray
    signals: dict[str, np.ndarray]
    labels: dict[str, tuple[str, ...]]
    units: dict[str, str]
    events: list[dict[str, Any]]
    param_changes: list[dict[str, Any]]
    params: dict[str, Any]
    solver: dict[str, Any]
    stats: dict[str, Any]
    status: str = "ok"
    message: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of_run(cls, model: CompiledModel, rec: Recorder, t: np.ndarray, signals: dict[str, np.ndarray], *,
               steps: int, rhs_calls: int, wall_s: float, engine: str, events: list[dict[str, Any]],
               param_changes: list[dict[str, Any]], params: dict[str, Any], status: str = "ok",
               message: str = "") -> Results:
        """The results of one run of ``model``: the one place they are assembled, for a single run
        (:meth:`blocks.runner.Runner.results`) and each copy of a batch (:mod:`app.tuning.vectorized`).
        ``signals`` as ``rec`` recorded them (their labels and units come from ``rec``); ``steps``
        solver ticks of ``dt`` [s] took ``wall_s`` [s] of stepping (``realtime_factor`` = simulated
        over wall time)."""
        ctx = model.ctx
        solver = model.diagram.solver
        sim_time = steps * ctx.dt
        stats = {"steps": steps, "rhs_calls": rhs_calls, "wall_s": wall_s, "sim_time_s": sim_time,
                 "realtime_factor": sim_time / wall_s if wall_s > 0 else None,
                 "blocks": len(model.blocks), "engine": engine}
        solver_info = {"method": solver.method, "dt": ctx.dt, "t_start": ctx.t0, "t_end": ctx.t_end}
        if solver.method == "solve_ivp":
            solver_info |= {"rtol": solver.rtol, "atol": solver.atol}
        return cls(t, signals, {n: rec.labels[n] for n in signals}, {n: rec.units[n] for n in signals}, events,
                   param_changes, params, solver_info, stats, status, message,
                   {"diagram": model.diagram.name, "dataset": ctx.dataset})

    def __getitem__(self, name: str) -> np.ndarray:
        return self.signals[name]

    def info(self) -> dict[str, Any]:
        """The JSON-able part: everything except the arrays."""
        return {
            "status": self.status, "message": self.message, "meta": self.meta, "solver": self.solver,
            "stats": self.stats, "events": self.events, "param_changes": self.param_changes,
            "params": {k: list(v) if isinstance(v, tuple) else v for k, v in self.params.items()
                       if not callable(v)},
            "signals": {k: {"labels": list(self.labels[k]), "unit": self.units[k]} for k in self.signals},
        }

    def save_npz(self, path: str | Path, compress: bool = False) -> tuple[Path, Path]:
        """``path`` (.npz: ``t`` and one array per signal; zip-compressed only when ``compress``)
        and a ``.json`` sidecar with :meth:`info`."""
        path = Path(path)
        arrays: dict[str, Any] = {"t": self.t, **self.signals}
        (np.savez_compressed if compress else np.savez)(path, **arrays)
        side = path.with_suffix(".json")
        side.write_text(json.dumps(self.info(), indent=2, default=json_default) + "\n", encoding="utf-8")
        return path, side

    @classmethod
    def load_npz(cls, path: str | Path) -> Results:
        path = Path(path)
        info = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        with np.load(path) as npz:
            t = npz["t"]
            signals = {k: npz[k] for k in info["signals"]}
        return cls(t, signals, {k: tuple(v["labels"]) for k, v in info["signals"].items()},
                   {k: v["unit"] for k, v in info["signals"].items()}, info["events"], info["param_changes"],
                   info["params"], info["solver"], info["stats"], info["status"], info["message"], info["meta"])

    def save_csv(self, path: str | Path) -> Path:
        """One row per tick: ``t [s]`` then ``block.port[label] [unit]`` columns; 10 significant digits.

        A unit listing one entry per element (``"m, m, rad"``) is split over the columns; a mixed
        unit with fewer entries (``"m, rad"``) is written ``[m or rad]`` (no comma in a header).

        Written in blocks of :data:`CSV_ROWS` rows, each formatted in one pass into a byte buffer
        (:func:`blocks.csv_text.write_rows`: the bytes of ``"%.10g"``, as :func:`numpy.savetxt`
        wrote them before): the table is never assembled whole, so writing adds no copy of the log."""
        path = Path(path)
        from blocks.csv_text import write_rows

        columns, at = {}, 0
        for name, arr in self.signals.items():
            width = arr.reshape(arr.shape[0], -1).shape[1]
            columns[name], at = slice(at, at + width), at + width
        with path.open("wb") as fh:
            fh.write(csv_header(list(self.signals), self.labels, self.units, columns))
            cols = [self.t[:, None]] + [a.reshape(a.shape[0], -1) for a in self.signals.values()]
            write_rows(fh, (np.hstack([c[start: start + CSV_ROWS] for c in cols])
                            for start in range(0, self.t.shape[0], CSV_ROWS)))
        return path


def csv_header(names: list[str], labels: dict[str, tuple[str, ...]], units: dict[str, str],
               columns: dict[str, slice]) -> bytes:
    """The header line of ``results.csv`` (:meth:`Results.save_csv`): ``t [s]`` then one
    ``block.port[label] [unit]`` per column, quoted where needed, ending ``\\r\\n``."""
    header = ["t [s]"]
    for name in names:
        width = columns[name].stop - columns[name].start
        cols_units = _column_units(units.get(name, ""), width)
        header += [(f"{name}[{lab}]" if width > 1 else name) + (f" [{u}]" if u else "")
                   for lab, u in zip(labels[name][:width], cols_units)]
    line = io.StringIO()
    csv.writer(line).writerow(header)  # quoted where needed, "\r\n"
    return line.getvalue().encode("utf-8")


def _column_units(unit: str, n: int) -> list[str]:
    parts = [u.strip() for u in unit.split(",")]
    if len(parts) == n:
        return parts
    return [" or ".join(parts)] * n


def json_default(obj: Any) -> Any:
    """``json.dumps``' fallback: arrays as lists, numpy scalars as numbers, anything else as its text."""
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (np.floating, np.integer)):
        return obj.item()
    return str(obj)
