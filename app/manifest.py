"""Trial manifests: many trials per condition and subject, for ``gaitblocks compare --trials FILE``.

TOML (read with :mod:`tomllib`)::

    [[trial]]
    condition = "sneakers"           # required: the group a trial belongs to
    subject = "s01"                  # optional (default: the GRF file's stem)
    grf = "s01/walk_03.forces"       # required: file (relative to the manifest) or bundled/registered name
    kinematics = "s01/walk_03.trc"   # optional
    mass = 72.6                      # kg, optional (else estimated from the GRF)
    height = 1.80                    # m, optional (else from the markers, else the default)
    window = [0.4, 2.1]              # s, optional (else the automatic usable window)

JSON: a list of trial objects with the same keys, or ``{"trials": [...]}`` (other top-level keys
are left to the caller: :mod:`app.footwear_report` reads ``synthetic_repeats``)::

    {"trials": [{"condition": "sneakers", "grf": "s01/walk_03.forces", "mass": 72.6}]}

CSV: one header row ``condition,subject,grf,kinematics,mass,height,start,end`` (only
``condition`` and ``grf`` required; empty cells are "not given"); ``#`` lines are comments.

On the command line, ``--grf`` entries (``NAME|FILE`` or ``GRF|KINEMATICS`` pairs) each become one
trial of their own condition, with ``--mass`` giving one mass per entry.
"""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from models.errors import UserError

FIELDS = ("condition", "subject", "grf", "kinematics", "mass", "height", "start", "end")
_PAIR = "|"


@dataclass(frozen=True)
class Trial:
    """One recorded trial of a condition (units: kg, m, s)."""

    condition: str
    grf: str
    subject: str = ""
    kinematics: str | None = None
    mass: float | None = None
    height: float | None = None
    start: float | None = None
    end: float | None = None

    @property
    def label(self) -> str:
        stem = Path(self.grf.split(_PAIR)[0].strip()).stem or self.grf
        return f"{self.condition}/{self.subject or stem}"

    def subject_args(self) -> dict[str, Any]:
        return {"kinematics": self.kinematics, "mass": self.mass, "height": self.height, "start": self.start,
                "end": self.end}


def _number(value: Any, what: str, where: str, low: float, high: float) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise UserError(f"{where}: {what} {value!r} is not a number") from None
    if not (math.isfinite(x) and low <= x <= high):
        raise UserError(f"{where}: {what} {x:g} outside {low:g}-{high:g}")
    return x


def _path(value: str, base: Path, where: str, what: str) -> str:
    """A file relative to the manifest's folder, or a bundled/registered name left as it is."""
    text = value.strip()
    if not text:
        raise UserError(f"{where}: empty {what}")
    if _PAIR in text:
        return _PAIR.join(_path(part, base, where, what) for part in text.split(_PAIR))
    p = Path(text).expanduser()
    candidate = p if p.is_absolute() else base / p
    if candidate.exists():
        return str(candidate)
    if p.suffix or "/" in text or "\\" in text:
        raise UserError(f"{where}: {what} file {candidate} not found")
    return text   # a dataset name, resolved by the registry


def _trial(entry: dict[str, Any], base: Path, where: str) -> Trial:
    unknown = set(entry) - set(FIELDS) - {"window"}
    if unknown:
        raise UserError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} (known: {', '.join(FIELDS)}, window)")
    cond = str(entry.get("condition") or "").strip()
    if not cond:
        raise UserError(f"{where}: no condition")
    if not str(entry.get("grf") or "").strip():
        raise UserError(f"{where}: no grf file")
    start, end = entry.get("start"), entry.get("end")
    if "window" in entry:
        w = entry["window"]
        if not (isinstance(w, (list, tuple)) and len(w) == 2):
            raise UserError(f"{where}: window must be [start, end] in seconds")
        start, end = w
    start_s = _number(start, "start", where, -1e6, 1e6)
    end_s = _number(end, "end", where, -1e6, 1e6)
    if start_s is not None and end_s is not None and end_s <= start_s:
        raise UserError(f"{where}: window end {end_s:g} s is not after its start {start_s:g} s")
    kin = entry.get("kinematics")
    return Trial(condition=cond, grf=_path(str(entry["grf"]), base, where, "grf"),
                 subject=str(entry.get("subject") or "").strip(),
                 kinematics=_path(str(kin), base, where, "kinematics") if kin not in (None, "") else None,
                 mass=_number(entry.get("mass"), "mass", where, 10.0, 400.0),
                 height=_number(entry.get("height"), "height", where, 0.5, 2.6), start=start_s, end=end_s)


def read_manifest(path: str | Path) -> list[Trial]:
    """The trials of a TOML, JSON or CSV manifest (module doc); paths relative to its folder."""
    p = Path(path)
    if not p.is_file():
        raise UserError(f"{p}: manifest not found")
    base = p.resolve().parent
    text = p.read_text(encoding="utf-8-sig")
    if p.suffix.lower() == ".toml":
        try:
            import tomllib
        except ModuleNotFoundError:  # Python 3.10
            import tomli as tomllib  # type: ignore[no-redef]
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise UserError(f"{p}: not valid TOML ({exc})") from None
        entries = data.get("trial")
        if not isinstance(entries, list) or not entries:
            raise UserError(f"{p}: no [[trial]] tables")
        trials = [_trial(e, base, f"{p}, trial {i + 1}") for i, e in enumerate(entries)]
    elif p.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise UserError(f"{p}: not valid JSON ({exc})") from None
        entries = data.get("trials") if isinstance(data, dict) else data
        if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
            raise UserError(f'{p}: no trials (a list of trial objects, or {{"trials": [...]}})')
        trials = [_trial(e, base, f"{p}, trial {i + 1}") for i, e in enumerate(entries)]
    else:
        lines = [(i + 1, ln) for i, ln in enumerate(text.splitlines())
                 if ln.strip() and not ln.lstrip().startswith("#")]
        if not lines:
            raise UserError(f"{p}: empty manifest")
        reader = list(csv.reader([ln for _, ln in lines]))
        header = [h.strip().lower() for h in reader[0]]
        if "condition" not in header or "grf" not in header:
            raise UserError(f"{p}, line {lines[0][0]}: the header needs condition and grf columns "
                            f"(known: {', '.join(FIELDS)})")
        trials = []
        for (lineno, _), row in zip(lines[1:], reader[1:]):
            if len(row) > len(header):
                raise UserError(f"{p}, line {lineno}: {len(row)} cells for {len(header)} columns")
            entry = {h: (row[j].strip() if j < len(row) else "") for j, h in enumerate(header) if h}
            trials.append(_trial(entry, base, f"{p}, line {lineno}"))
        if not trials:
            raise UserError(f"{p}: no trials after the header")
    return trials


def trials_from_args(specs: list[str], masses: list[float] | None) -> list[Trial]:
    """``--grf`` entries (each its own condition) with ``--mass`` one per entry (or none)."""
    if masses and len(masses) != len(specs):
        raise UserError(f"--mass: {len(masses)} masses for {len(specs)} --grf entries (give one per entry)")
    out = []
    for i, spec in enumerate(specs):
        name = Path(spec.split(_PAIR)[0].strip()).stem or spec
        mass = _number(masses[i], "--mass", f"--grf {spec}", 10.0, 400.0) if masses else None
        out.append(Trial(condition=name, grf=spec, mass=mass))
    return out
