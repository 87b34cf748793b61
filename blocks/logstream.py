r"""A run's log streamed to disk in chunks: memory flat in the run's duration.

A :class:`~blocks.recorder.Recorder` given a :class:`LogStream` (:meth:`Recorder.stream_to`) keeps
only ``chunk_rows`` rows in memory; each full chunk is handed to :meth:`LogStream.write`, which

* appends every signal's columns (and the time ``t = t0 + tick dt`` [s], the same expression as
  :meth:`Recorder.time`) to one raw float64 file per signal in a staging folder;
* appends the chunk to ``results.csv`` (optional), formatted as :meth:`Results.save_csv` formats it
  (the same bytes: header line, then ``%.10g`` numbers);
* keeps in memory the columns of the signals the summary reads (``keep``), every ``keep_every``-th row
  of the log (row ``r`` with ``r % keep_every == 0``) and always the last one, as a log recorded with
  ``--record-every keep_every`` would hold them.

:meth:`LogStream.finish` writes ``results.npz`` from the raw files without loading them: a zip
(stored, or deflated with ``compress``) of one ``.npy`` member per signal, the format
:func:`numpy.savez` writes and :func:`numpy.load` reads, so every reader of ``results.npz`` (the GUI's
run store, ``app/report.py``, the tests) reads a streamed log as it reads an in-memory one. Memory:
``8 x width x chunk_rows`` bytes for the chunk (4 MB for the walking diagram's 135 columns at the
default 4096 rows) plus the kept columns, whatever the duration.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from blocks.recorder import CHUNK_ROWS, CSV_ROWS, Recorder, csv_header, json_default

__all__ = ["LogStream", "CHUNK_ROWS"]

_COPY_BYTES = 1 << 20


class LogStream:
    """Where a streamed log goes (module docstring).

    Parameters
    ----------
    folder : Path
        Output folder: ``results.npz``, ``results.json`` and (``csv``) ``results.csv`` land there at
        :meth:`finish`; until then the parts are in ``folder/.log-partial``.
    csv : bool
        Also write ``results.csv``.
    keep : sequence of str
        Signals kept in memory for the summary (each must be logged).
    keep_every : int
        Keep every ``keep_every``-th row of them (and the last row).
    rows : int
        The rows the log is expected to hold (sizes the kept rows' buffer once; it grows if exceeded).
    """

    def __init__(self, folder: str | Path, csv: bool = True, keep: Sequence[str] = (), keep_every: int = 1,
                 rows: int = 0) -> None:
        if keep_every < 1:
            raise ValueError(f"keep every {keep_every} rows: must be >= 1")
        self.folder = Path(folder)
        self.stage = self.folder / ".log-partial"
        self.csv, self.keep, self.keep_every = csv, list(keep), int(keep_every)
        self.rows = 0
        self._files: dict[str, Any] = {}
        self._expect = max(int(rows), 0)
        self._kept = np.zeros((0, 0))  # (capacity, kept columns), rows [0, _nkept) filled
        self._kept_t = np.zeros(0)
        self._nkept = 0
        self._last: tuple[np.ndarray, np.ndarray] | None = None
        self._last_kept = False
        self._csv_fh: Any = None
        self.names: list[str] = []

    def open(self, rec: Recorder) -> None:
        """Take the layout of ``rec``'s rows (its signals, columns, labels, units, clock)."""
        missing = [n for n in self.keep if n not in rec.columns]
        if missing:
            raise ValueError(f"kept signal(s) {', '.join(missing)} are not logged")
        self.names, self.columns = list(rec.names), dict(rec.columns)
        self.labels, self.units = dict(rec.labels), dict(rec.units)
        self.t0, self.dt = rec.t0, rec.dt
        self.keep_cols = np.concatenate([np.arange(rec.columns[n].start, rec.columns[n].stop) for n in self.keep]
                                        ) if self.keep else np.zeros(0, dtype=np.intp)
        cap = self._expect // self.keep_every + 2
        self._kept, self._kept_t = np.zeros((cap, self.keep_cols.size)), np.zeros(cap)
        self.stage.mkdir(parents=True, exist_ok=True)
        self._files = {n: (self.stage / f"{i}.f8").open("wb") for i, n in enumerate(["t", *self.names])}
        if self.csv:
            self._csv_fh = (self.stage / "results.csv").open("wb")
            self._csv_fh.write(csv_header(self.names, self.labels, self.units, self.columns))

    def write(self, rows: np.ndarray, ticks: np.ndarray) -> None:
        """Append log rows ``rows`` (n, width) of ticks ``ticks`` (n,), rows ``self.rows ..`` of the log."""
        n = rows.shape[0]
        if n == 0:
            return
        t = self.t0 + ticks * self.dt
        self._files["t"].write(t.tobytes())
        for name in self.names:
            self._files[name].write(np.ascontiguousarray(rows[:, self.columns[name]]).tobytes())
        if self._csv_fh is not None:
            from blocks.csv_text import write_rows
            write_rows(self._csv_fh, (np.hstack([t[s: s + CSV_ROWS, None], rows[s: s + CSV_ROWS]])
                                      for s in range(0, n, CSV_ROWS)))
        # the kept rows (their times even when no signal is kept: the summary reads the run's end there)
        first = (-self.rows) % self.keep_every
        sel = slice(first, n, self.keep_every)
        k = len(range(first, n, self.keep_every))
        self._room(self._nkept + k + 1)
        np.take(rows[sel], self.keep_cols, axis=1, out=self._kept[self._nkept: self._nkept + k])
        self._kept_t[self._nkept: self._nkept + k] = t[sel]
        self._nkept += k
        self._last = (rows[n - 1, self.keep_cols].copy(), t[n - 1: n].copy())
        self._last_kept = (self.rows + n - 1) % self.keep_every == 0
        self.rows += n

    def _room(self, rows: int) -> None:
        if rows > self._kept.shape[0]:
            cap = max(rows, 2 * self._kept.shape[0])
            grown, grown_t = np.zeros((cap, self._kept.shape[1])), np.zeros(cap)
            grown[: self._nkept], grown_t[: self._nkept] = self._kept[: self._nkept], self._kept_t[: self._nkept]
            self._kept, self._kept_t = grown, grown_t

    def kept(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """``(t, signals)`` of the kept rows (module docstring), shaped as :meth:`Recorder.view` shapes them
        (views of one buffer: no copy)."""
        n = self._nkept
        if self._last is not None and not self._last_kept:
            self._room(n + 1)
            self._kept[n], self._kept_t[n] = self._last[0], self._last[1][0]
            n += 1
        data, t = self._kept[:n], self._kept_t[:n]
        out: dict[str, np.ndarray] = {}
        at = 0
        for name in self.keep:
            size = self.columns[name].stop - self.columns[name].start
            col = data[:, at: at + size]
            out[name] = col[:, 0] if size == 1 else col
            at += size
        return t, out

    def finish(self, info: dict[str, Any], compress: bool = False) -> Path:
        """Write ``results.npz`` (from the raw parts, a member at a time), ``results.json`` (``info``, with
        every logged signal's labels and unit) and ``results.csv``; remove the staging folder."""
        for fh in self._files.values():
            fh.close()
        if self._csv_fh is not None:
            self._csv_fh.close()
        npz = self.folder / "results.npz"
        tmp = self.stage / "results.npz"
        method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
        with zipfile.ZipFile(tmp, "w", compression=method, allowZip64=True) as zf:
            for i, name in enumerate(["t", *self.names]):
                width = 1 if name == "t" else self.columns[name].stop - self.columns[name].start
                shape = (self.rows,) if width == 1 else (self.rows, width)
                with zf.open(f"{name}.npy", "w", force_zip64=True) as member, \
                        (self.stage / f"{i}.f8").open("rb") as raw:
                    np.lib.format.write_array_header_1_0(member, {"descr": np.lib.format.dtype_to_descr(
                        np.dtype(np.float64)), "fortran_order": False, "shape": shape})
                    shutil.copyfileobj(raw, member, _COPY_BYTES)
        tmp.replace(npz)
        info = dict(info, signals={n: {"labels": list(self.labels[n]), "unit": self.units[n]} for n in self.names})
        npz.with_suffix(".json").write_text(json.dumps(info, indent=2, default=json_default) + "\n",
                                            encoding="utf-8")
        if self.csv:
            (self.stage / "results.csv").replace(self.folder / "results.csv")
        shutil.rmtree(self.stage, ignore_errors=True)
        return npz
