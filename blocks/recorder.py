"""Signal taps into preallocated arrays, and the :class:`Results` of a run.

The recorder gathers the logged signals from the runner's flat signal buffer with one
precomputed index array per tick (``np.take(..., out=row)``), into a preallocated
``(capacity, width)`` array; row ``k`` holds tick ``k`` (time ``t0 + k dt``). Capacity doubles
when an open-ended run (GUI) outgrows it. :meth:`Recorder.view` gives live read-only views
the GUI can plot while the run goes on.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from blocks.core import DiagramError
from blocks.diagram import split_port

if TYPE_CHECKING:
    from blocks.compile import CompiledModel

__all__ = ["Recorder", "Results"]


class Recorder:
    """Named taps ``"block.port"`` (an output, or a sink's input) recorded every tick."""

    def __init__(self, model: CompiledModel, logged: list[str] | None = None, capacity: int = 1024) -> None:
        names = list(logged) if logged else _default_taps(model)
        self.names: list[str] = []
        self.columns: dict[str, slice] = {}
        self.labels: dict[str, tuple[str, ...]] = {}
        self.units: dict[str, str] = {}
        idx: list[int] = []
        for name in names:
            src = _resolve(model, name)
            off, size = model.out_slot[src]
            sb, sp = src.split(".")
            spec = next(s for s in model.outputs[sb] if s.name == sp)
            self.names.append(name)
            self.columns[name] = slice(len(idx), len(idx) + size)
            self.labels[name] = spec.labels if len(spec.labels) == size else tuple(str(i) for i in range(size))
            self.units[name] = spec.unit
            idx.extend(range(off, off + size))
        self.index = np.array(idx, dtype=np.intp)
        self.t0, self.dt = model.ctx.t0, model.ctx.dt
        self.data = np.zeros((max(int(capacity), 1), len(idx)))
        self.length = 0

    def reserve(self, rows: int) -> None:
        """Make room for ``rows`` rows (one allocation, before a run)."""
        if rows > self.data.shape[0]:
            grown = np.zeros((rows, self.data.shape[1]))
            grown[: self.length] = self.data[: self.length]
            self.data = grown

    def record(self, k: int, sig: np.ndarray) -> None:
        if k >= self.data.shape[0]:
            self.reserve(max(2 * self.data.shape[0], k + 1))
        np.take(sig, self.index, out=self.data[k])
        self.length = k + 1

    def truncate(self, length: int) -> None:
        self.length = min(self.length, length)

    def time(self) -> np.ndarray:
        return self.t0 + np.arange(self.length) * self.dt

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
    return list(model.out_slot)


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
        side.write_text(json.dumps(self.info(), indent=2, default=_json_default) + "\n", encoding="utf-8")
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

        Written by :func:`numpy.savetxt` over the whole table (one format string per row)."""
        path = Path(path)
        header = ["t [s]"]
        cols = [self.t[:, None]]
        for name, arr in self.signals.items():
            a = arr.reshape(arr.shape[0], -1)
            labels = self.labels[name]
            units = _column_units(self.units.get(name, ""), a.shape[1])
            header += [(f"{name}[{lab}]" if a.shape[1] > 1 else name) + (f" [{u}]" if u else "")
                       for lab, u in zip(labels[: a.shape[1]], units)]
            cols.append(a)
        table = np.hstack(cols) if cols else np.zeros((0, 1))
        with path.open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerow(header)
            np.savetxt(fh, table, fmt="%.10g", delimiter=",")
        return path


def _column_units(unit: str, n: int) -> list[str]:
    parts = [u.strip() for u in unit.split(",")]
    if len(parts) == n:
        return parts
    return [" or ".join(parts)] * n


def _json_default(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, (np.floating, np.integer)):
        return obj.item()
    return str(obj)
