"""Plain CSV / whitespace tables.

The documented gaitblocks table (comma, tab or whitespace separated, one header row):

===========  ===============================================  =====================
column       meaning                                          units (default)
===========  ===============================================  =====================
time         time, increasing                                 s (ms)
F_lx, F_ly   left-foot force on the foot, x forward, y up     N (BW, N/kg)
F_rx, F_ry   right-foot force on the foot                     N (BW, N/kg)
cop_lx       left COP along x (optional)                      m (mm)
cop_rx       right COP along x (optional)                     m (mm)
alpha        trunk lean from vertical, forward + (optional)   deg (rad)
beta_l/_r    hip flexion, thigh vs trunk line (optional)      deg (rad)
gamma_l/_r   knee flexion (optional)                          deg (rad)
===========  ===============================================  =====================

Names are case-insensitive. Units may be declared by a second header row of unit names
(``s, N, N, N, N``) or a comment ``# units: s N N N N``; undeclared forces are checked by
size (N vs BW vs N/kg, :mod:`models.gaitdata.units`) and undeclared angles are degrees when
any exceeds 3.5 in magnitude, radians otherwise (with a warning). Lines starting with ``#``
or ``%`` are comments; the last comment line just before the data is taken as the header
when the file has no other (as in csu-hmc ``rawdata.txt``: ``% TimeStamp RSHO.PosX …``).
Empty cells and ``nan`` are missing values.

Files without a header are read as ``col1 … colN``; a two-column headerless file is taken as
``time, vertical force`` of one foot (csu-hmc ``example_vertical_grf.csv``), which suits
event detection but not a two-foot trial.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from models.dataset import ANGLE_NAMES
from models.errors import DataFormatError
from models.gaitdata.checks import check_time, parse_numeric, time_in_seconds
from models.gaitdata.records import ForceRecord, KinematicsRecord

_TIME = ("time", "t", "timestamp", "time_s", "frame_time", "time_ms", "time(ms)")
_UNIT_WORDS = {"s", "ms", "n", "bw", "n/kg", "m", "mm", "cm", "deg", "rad", "-", "n·m", "nm", "hz"}
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(nan|inf)$", re.IGNORECASE)


@dataclass
class Table:
    """A numeric table: ``names`` (C,), ``units`` (C,) ('' when undeclared), ``data`` (N, C)."""

    names: list[str]
    units: list[str]
    data: np.ndarray
    lines: list[int]
    path: str
    has_header: bool
    rate_hz: float | None = None
    warnings: list[str] = field(default_factory=list)

    def index(self, name: str) -> int | None:
        low = [n.lower() for n in self.names]
        return low.index(name.lower()) if name.lower() in low else None


def _delimiter(line: str) -> str | None:
    if "," in line:
        return ","
    if ";" in line:
        return ";"
    if "\t" in line:
        return "\t"
    return None


def _split(line: str, delim: str | None) -> list[str]:
    toks = line.split() if delim is None else [t.strip() for t in line.split(delim)]
    while toks and toks[-1] == "":
        toks.pop()
    return toks


def _is_numeric_row(toks: list[str]) -> bool:
    return bool(toks) and all(not t or _NUMBER.match(t) for t in toks)


def parse_table(text: str, path: str = "<text>") -> Table:
    """Parse a CSV / whitespace table (see module doc)."""
    lines = text.splitlines()
    first_data = None
    for i, ln in enumerate(lines):
        s = ln.strip()
        if not s or s[0] in "#%":
            continue
        if _is_numeric_row(_split(s, _delimiter(s))):
            first_data = i
            break
    if first_data is None:
        raise DataFormatError("no numeric data rows found", path=path)
    delim = _delimiter(lines[first_data])
    header_idx = [i for i in range(first_data) if lines[i].strip()]
    names: list[str] = []
    units: list[str] = []
    for i in header_idx:
        s = lines[i].strip()
        comment = s[0] in "#%"
        body = s.lstrip("#%").strip()
        if body.lower().startswith("units:"):
            rest = body[len("units:"):].strip()
            units = [u.lower() for u in _split(rest, _delimiter(rest))]
            continue
        toks = _split(body, _delimiter(body))
        if not comment and names and toks and _NUMBER.match(toks[0]):  # a number after the header: a broken data row
            bad = next(t for t in toks if t and not _NUMBER.match(t))
            raise DataFormatError(f"not a number: {bad!r} in the data row {body!r}", path=path, line=i + 1)
        if names and toks and all(t.lower().strip("[]()") in _UNIT_WORDS for t in toks):
            units = [t.lower().strip("[]()") for t in toks]
        elif not comment or (not names and i == header_idx[-1]):
            names = toks
    ncol = len(_split(lines[first_data], delim))
    has_header = bool(names)
    if not has_header:
        names = [f"col{j + 1}" for j in range(ncol)]
    if len(names) != ncol:
        raise DataFormatError(f"header has {len(names)} names but the first data row has {ncol} values",
                              path=path, line=first_data + 1)
    low = [n.lower() for n in names]
    if len(set(low)) != len(low):
        dup = next(n for n in names if low.count(n.lower()) > 1)
        raise DataFormatError(f"column {dup!r} appears twice in the header", path=path)
    if units and len(units) != ncol:
        raise DataFormatError(f"{len(units)} units declared for {ncol} columns", path=path)
    rows = [(i + 1, ln) for i, ln in enumerate(lines[first_data:], start=first_data)
            if ln.strip() and ln.strip()[0] not in "#%"]
    data = parse_numeric(rows, names, path, delimiter=delim, allow_nan=True)
    line_numbers = [ln for ln, _ in rows]
    rate = None
    tcol = next((j for j, n in enumerate(low) if n in _TIME), None)
    if tcol is None and not has_header and ncol == 2:
        tcol = 0
    if tcol is not None:
        tt, ms_note = time_in_seconds(data[:, tcol], path, names[tcol], units[tcol] if units else "")
        data[:, tcol] = tt
        rate = check_time(tt, path, line_numbers, column=names[tcol])
    return Table(names, units or [""] * ncol, data, line_numbers, str(path), has_header, rate,
                 [ms_note] if tcol is not None and ms_note else [])


def read_table_text(text: str, path: str = "<text>") -> tuple[ForceRecord | None, KinematicsRecord | None]:
    """GRF and/or angles of a documented gaitblocks table (module doc)."""
    tab = parse_table(text, path)
    cols = {n.lower(): j for j, n in enumerate(tab.names)}
    tcol = next((cols[n] for n in _TIME if n in cols), None)
    if tcol is None:
        raise DataFormatError("no time column (name it 'time')", path=path)
    t = tab.data[:, tcol]
    rate = tab.rate_hz or 0.0
    frc = None
    present = [c for c in ("f_lx", "f_ly", "f_rx", "f_ry") if c in cols]
    if present:
        missing = [c for c in ("f_lx", "f_ly", "f_rx", "f_ry") if c not in cols]
        if missing:
            shown = ", ".join("F_" + m[2:] for m in missing)
            raise DataFormatError(f"missing foot: no {shown} column", path=path, channel="F_" + missing[0][2:])
        force_units = {tab.units[cols[c]] for c in ("f_lx", "f_ly", "f_rx", "f_ry")} - {""}
        if len(force_units) > 1:
            raise DataFormatError(f"forces declared in mixed units {sorted(force_units)}", path=path)
        unit = {"n": "N", "bw": "BW", "n/kg": "N/kg"}.get(next(iter(force_units), "n"), None)
        if unit is None:
            raise DataFormatError(f"unknown force unit {next(iter(force_units))!r} (N, BW or N/kg)", path=path)
        grf = tab.data[:, [cols["f_lx"], cols["f_ly"], cols["f_rx"], cols["f_ry"]]]
        cop = None
        if "cop_lx" in cols and "cop_rx" in cols:
            cop = tab.data[:, [cols["cop_lx"], cols["cop_rx"]]].copy()
            cu = tab.units[cols["cop_lx"]]
            cop *= {"mm": 1e-3, "cm": 1e-2}.get(cu, 1.0)
        frc = ForceRecord(t=t.copy(), grf=grf, path=path, fmt="table", rate_hz=rate, cop_x=cop,
                          channels={n: tab.names[cols[n.lower()]] for n in ("F_lx", "F_ly", "F_rx", "F_ry")},
                          units=unit, warnings=list(tab.warnings))
    kin = None
    if any(a in cols for a in ANGLE_NAMES):
        missing = [a for a in ANGLE_NAMES if a not in cols]
        if missing:
            raise DataFormatError(f"angle columns incomplete: no {', '.join(missing)}", path=path,
                                  channel=missing[0])
        ang = tab.data[:, [cols[a] for a in ANGLE_NAMES]].copy()
        au = {tab.units[cols[a]] for a in ANGLE_NAMES} - {""}
        warnings = list(tab.warnings)
        if not au:
            deg = bool(np.nanmax(np.abs(ang)) > 3.5) if np.isfinite(ang).any() else True
            warnings.append(f"angle units not declared: taken as {'degrees' if deg else 'radians'}")
        elif au <= {"deg", "rad"} and len(au) == 1:
            deg = au == {"deg"}
        else:
            raise DataFormatError(f"angle units {sorted(au)} not understood (deg or rad, one for all)", path=path)
        if deg:
            ang = np.radians(ang)
        kin = KinematicsRecord(t=t.copy(), angles=ang, path=path, fmt="table", rate_hz=rate,
                               channels={a: a for a in ANGLE_NAMES}, warnings=warnings)
    if frc is None and kin is None:
        raise DataFormatError("no F_lx/F_ly/F_rx/F_ry or angle columns (see the documented table header)",
                              path=path)
    return frc, kin
