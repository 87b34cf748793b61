"""TRC marker files (Motion Analysis / OpenSim): marker trajectories in metres.

Layout (tab separated)::

    PathFileType  4  (X/Y/Z)  name
    DataRate  CameraRate  NumFrames  NumMarkers  Units  OrigDataRate  …
    60.00     60.00       151        41          mm     60.00         …
    Frame#  Time  R.ASIS        L.ASIS        …
                  X1  Y1  Z1    X2  Y2  Z2    …
    1       0.000 617.2 1055.3 170.8 …

Empty cells are missing markers (NaN); rows may stop early when the last markers are
missing. Units ``mm``, ``cm`` or ``m`` (header line 3) are converted to m. The time column
must increase; the rate is computed over the whole file (the ``DataRate`` field is checked
against it). The axes are kept as in the file; :mod:`models.gaitdata.angles` finds which
one is vertical and which one is forward.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from models.errors import DataFormatError
from models.gaitdata.angles import sagittal_angles
from models.gaitdata.checks import check_time, parse_numeric, time_in_seconds
from models.gaitdata.quirks import quirk
from models.gaitdata.records import KinematicsRecord

_UNITS = {"mm": 1e-3, "cm": 1e-2, "m": 1.0, "dm": 0.1}


@dataclass
class MarkerSet:
    """Marker trajectories: ``xyz[name]`` (N, 3) in m, lab axes of the file."""

    t: np.ndarray
    xyz: dict[str, np.ndarray]
    rate_hz: float
    path: str
    warnings: list[str] = field(default_factory=list)


def header_fields(keys_line: str, values_line: str) -> dict[str, str]:
    """``{field name: value}`` of TRC header lines 2 and 3, matched by name.

    Fields are tab separated (else whitespace). Some writers leave empty tab fields in one line
    but not the other (``60.00\t60.00\t\t\t238\t41\tmm``): when the two lines do not hold the
    same number of fields, the empty ones are dropped from both before they are paired.
    """
    def split(line: str) -> list[str]:
        parts = line.rstrip("\r\n").split("\t") if "\t" in line else line.split()
        while parts and not parts[-1].strip():
            parts.pop()
        return [p.strip() for p in parts]

    keys, values = split(keys_line), split(values_line)
    if len(keys) != len(values):
        keys, values = [k for k in keys if k], [v for v in values if v]
    return {k: v for k, v in zip(keys, values) if k}


def parse_trc(text: str, path: str = "<text>") -> MarkerSet:
    """Parse the text of a ``.trc`` file (see module doc)."""
    lines = text.splitlines()
    if len(lines) < 6 or not lines[0].startswith("PathFileType"):
        raise DataFormatError("not a TRC file: it must start with 'PathFileType' and have 5 header lines",
                              path=path, line=1)
    meta = header_fields(lines[1], lines[2])
    unit = meta.get("Units", "mm").lower()
    if unit not in _UNITS:
        units_seen = {v.lower() for v in meta.values()} & set(_UNITS)
        if len(units_seen) != 1:
            raise DataFormatError(f"unknown Units {unit!r} (expected mm, cm or m; line 2 names the fields: "
                                  f"{', '.join(meta)})", path=path, line=3)
        unit = units_seen.pop()
    names_row = lines[3].rstrip("\r\n").split("\t")
    if len(names_row) < 3 or names_row[0].strip().lower() not in ("frame#", "frame") \
            or names_row[1].strip().lower() != "time":
        raise DataFormatError("line 4 must start with 'Frame#' and 'Time'", path=path, line=4)
    markers = [n.strip() for n in names_row[2:] if n.strip()]
    if not markers:
        raise DataFormatError("no marker names on line 4", path=path, line=4)
    warnings = []
    seen: dict[str, int] = {}
    for k, m in enumerate(markers):
        seen[m] = seen.get(m, 0) + 1
        if seen[m] > 1:
            markers[k] = f"{m}#{seen[m]}"
            warnings.append(f"marker {m!r} appears {seen[m]} times on line 4; the later one is read as "
                            f"{markers[k]!r}")
    cols = ["Frame#", "Time"] + [f"{m}.{a}" for m in markers for a in "XYZ"]
    rows = [(i + 1, ln) for i, ln in enumerate(lines[5:], start=5) if ln.strip()]
    data = parse_numeric(rows, cols, path, delimiter="\t", allow_nan=True, allow_short=True)
    line_numbers = [ln for ln, _ in rows]
    data[:, 1], ms_note = time_in_seconds(data[:, 1], path, "Time")
    if ms_note:
        warnings.append(ms_note)
    t = data[:, 1]
    rate = check_time(t, path, line_numbers, column="Time")
    declared = meta.get("DataRate")
    try:
        dr = float(declared) if declared else None
    except ValueError:
        raise DataFormatError(f"DataRate {declared!r} is not a number", path=path, line=3) from None
    if dr is not None and not (0.98 * rate <= dr <= 1.02 * rate):
        warnings.append(quirk("header-rate", f"header DataRate {dr:g} Hz disagrees with the time column "
                                             f"({rate:.4g} Hz); the time column is used"))
    for key, found in (("NumFrames", len(rows)), ("NumMarkers", len(markers))):
        declared_n = meta.get(key, "")
        if declared_n.isdigit() and int(declared_n) != found:
            warnings.append(quirk("header-count", f"header says {key}={declared_n} but the file has {found}; "
                                                  "the data are used"))
    scale = _UNITS[unit]
    xyz = {m: data[:, 2 + 3 * k: 5 + 3 * k] * scale for k, m in enumerate(markers)}
    return MarkerSet(t=t.copy(), xyz=xyz, rate_hz=rate, path=str(path), warnings=warnings)


def kinematics_from_trc(markers: MarkerSet) -> KinematicsRecord:
    """model angles from the sagittal markers (:func:`models.gaitdata.angles.sagittal_angles`)."""
    angles, channels, warnings, heels, soles, toes, height = sagittal_angles(markers.xyz, markers.path)
    return KinematicsRecord(t=markers.t, angles=angles, path=markers.path, fmt="trc-markers",
                            rate_hz=markers.rate_hz, channels=channels, warnings=markers.warnings + warnings,
                            heels=heels, soles=soles, toes=toes, height_m=height)
