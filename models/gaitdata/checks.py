"""Shared checks of text data files: decoding, numeric blocks, time columns.

Every function raises exactly one :class:`~models.errors.DataFormatError` naming the file,
the line (1-based, as an editor shows it) and the column or channel where the problem is.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from models.errors import DataFormatError

#: fraction of control bytes above which a file is taken to be binary
_BINARY_FRACTION = 0.05
_TEXT_CONTROLS = {9, 10, 12, 13}


def read_bytes(path: str | Path) -> bytes:
    """The bytes of ``path``; a missing file or a folder is a :class:`DataFormatError`."""
    p = Path(path)
    if not p.exists():
        raise DataFormatError("file not found", path=p)
    if p.is_dir():
        raise DataFormatError("is a folder, expected a data file", path=p)
    try:
        return p.read_bytes()
    except OSError as exc:
        raise DataFormatError(f"cannot read file ({exc.strerror})", path=p) from None


def decode_text(raw: bytes, path: object) -> str:
    """Decode a text data file, refusing empty and binary files.

    A file is binary when it holds a NUL byte or more than 5 % control bytes (other than
    tab, CR, LF, FF) in its first 64 KiB. UTF-8 is tried first, then Latin-1.
    """
    if not raw.strip():
        raise DataFormatError("file is empty", path=path)
    head = raw[:65536]
    controls = sum(1 for b in head if b < 32 and b not in _TEXT_CONTROLS)
    if b"\x00" in head or controls > _BINARY_FRACTION * len(head):
        raise DataFormatError("binary file where a text table was expected "
                              "(wrong file, or a C3D passed with a text extension?)", path=path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return text


def split_row(line: str, delimiter: str | None) -> list[str]:
    """Tokens of one data row (``delimiter=None`` splits on any whitespace)."""
    if delimiter is None:
        return line.split()
    return [tok.strip() for tok in line.rstrip("\r\n").split(delimiter)]


def parse_numeric(rows: Sequence[tuple[int, str]], names: Sequence[str], path: object,
                  delimiter: str | None = None, allow_nan: bool = True,
                  allow_short: bool = False) -> np.ndarray:
    """Parse data rows into an (N, len(names)) float array.

    Parameters
    ----------
    rows : (line number, text) of each data line, blank lines already removed.
    names : column names, used in error messages.
    delimiter : ``None`` for whitespace, else the separator.
    allow_nan : empty cells and ``nan`` are NaN (missing markers); otherwise an error.
    allow_short : rows may have fewer cells than ``names`` (missing trailing cells are NaN).

    Raises
    ------
    DataFormatError
        Text in a numeric column, a wrong number of cells (a truncated file), infinities.
    """
    ncol = len(names)
    if not rows:
        raise DataFormatError("no data rows after the header (truncated file?)", path=path)
    out = np.empty((len(rows), ncol))
    last = rows[-1][0]
    for i, (lineno, line) in enumerate(rows):
        toks = split_row(line, delimiter)
        if delimiter is not None and len(toks) > ncol and all(t == "" for t in toks[ncol:]):
            toks = toks[:ncol]
        if len(toks) != ncol and not (allow_short and len(toks) < ncol):
            hint = " (truncated file?)" if lineno == last else ""
            raise DataFormatError(f"{len(toks)} values, expected {ncol}{hint}", path=path, line=lineno)
        for j in range(ncol):
            tok = toks[j] if j < len(toks) else ""
            try:
                value = float(tok) if tok else float("nan")
            except ValueError:
                raise DataFormatError(f"text {tok[:20]!r} in a numeric column", path=path, line=lineno,
                                      column=names[j]) from None
            if value != value:
                if not allow_nan:
                    raise DataFormatError("missing value (NaN)", path=path, line=lineno, column=names[j])
            elif value in (float("inf"), float("-inf")) or "_" in tok:
                raise DataFormatError(f"invalid number {tok[:20]!r}", path=path, line=lineno,
                                      column=names[j])
            out[i, j] = value
    return out


#: slowest plausible sampling of a gait recording, Hz; a time column slower than this whose
#: values read as milliseconds give a plausible rate (MS_RATE_HZ) is taken to be in ms
MIN_GAIT_RATE_HZ = 5.0
MS_RATE_HZ = (10.0, 20000.0)


def time_in_seconds(t: np.ndarray, path: object, column: str = "time", declared: str = "") -> tuple[
        np.ndarray, str | None]:
    """A time column in s, and the ``time-ms`` warning when it was read as milliseconds.

    Milliseconds when the file says so (``declared`` unit ``ms``, or a column named ``time_ms`` /
    ``time(ms)``), or when the rate the values imply in seconds is below :data:`MIN_GAIT_RATE_HZ`
    (absurd for gait) while in ms it lies in :data:`MS_RATE_HZ` (a filter cut-off of 6-20 Hz then works).
    """
    from models.gaitdata.quirks import quirk

    finite = t[np.isfinite(t)]
    low = column.strip().lower().replace(" ", "")
    said = declared.strip().lower() == "ms" or low in ("time_ms", "time(ms)", "time[ms]", "timems")
    span = float(finite[-1] - finite[0]) if finite.size >= 2 else 0.0
    rate = (finite.size - 1) / span if span > 0 else float("nan")
    implied = said or (np.isfinite(rate) and rate < MIN_GAIT_RATE_HZ
                       and MS_RATE_HZ[0] <= rate * 1000.0 <= MS_RATE_HZ[1])
    if not implied:
        return t, None
    why = "the file declares ms" if said else (f"in s its steps give {rate:.3g} Hz, absurd for gait; in ms "
                                                f"{rate * 1000:.4g} Hz")
    return t * 1e-3, quirk("time-ms", f"{path}: time column {column!r} read as milliseconds ({why}); converted to s")


def check_time(t: np.ndarray, path: object, lines: Sequence[int] | None = None,
               column: str = "time") -> float:
    """Check a time column and return its mean rate in Hz over the whole file.

    The rate is ``(N - 1) / (t[-1] - t[0])``: files round their times (600 Hz written as
    0.0017, 0.0033, ...), so one step alone would be wrong.

    Raises
    ------
    DataFormatError
        Fewer than 2 samples, NaN times, or a duplicated or decreasing time (naming its line).
    """
    if t.shape[0] < 2:
        raise DataFormatError("fewer than 2 samples (truncated file?)", path=path)
    bad = ~np.isfinite(t)
    if bad.any():
        i = int(np.argmax(bad))
        raise DataFormatError("missing time value", path=path, line=None if lines is None else lines[i],
                              column=column)
    dt = np.diff(t)
    if (dt <= 0).any():
        i = int(np.argmax(dt <= 0)) + 1
        kind = "duplicated" if dt[i - 1] == 0 else "decreasing"
        raise DataFormatError(f"{kind} time {t[i]:.6g} s after {t[i - 1]:.6g} s", path=path,
                              line=None if lines is None else lines[i], column=column)
    span = float(t[-1] - t[0])
    rate = (t.shape[0] - 1) / span
    if not np.isfinite(rate) or span <= 0:
        raise DataFormatError("time column has no span", path=path, column=column)
    if dt.max() > 5.0 * span / (t.shape[0] - 1):
        i = int(np.argmax(dt)) + 1
        raise DataFormatError(f"gap in time: {dt[i - 1]:.4g} s before t = {t[i]:.6g} s "
                              f"(mean step {span / (t.shape[0] - 1):.4g} s)", path=path,
                              line=None if lines is None else lines[i], column=column)
    return float(rate)


def data_lines(text: str, start: int = 0, comment: str | None = None) -> list[tuple[int, str]]:
    """(1-based line number, line) of the non-blank lines from index ``start`` on."""
    out = []
    for i, line in enumerate(text.splitlines()[start:], start=start + 1):
        s = line.strip()
        if not s or (comment is not None and s.startswith(comment)):
            continue
        out.append((i, line))
    return out


def require_finite(values: np.ndarray, names: Sequence[str], path: object, t: np.ndarray) -> None:
    """Raise naming the channel and time of the first non-finite value."""
    bad = ~np.isfinite(values)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise DataFormatError(f"non-finite value at t = {t[i]:.4f} s", path=path, channel=names[j])
