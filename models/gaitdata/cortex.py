"""Cortex (Motion Analysis) ``.forces`` files: several force plates → GRF of each foot.

Layout (tab separated)::

    [Force Data]
    NumberOfForcePlates=7
    SampleRate=450.000000
    NumberOfSamples=1092
    #Sample  FX1 FY1 FZ1 X1 Y1 Z1 MZ1  FX2 …
    1        0.00 …

Per plate k: force ``FXk, FYk, FZk`` in N (the force on the foot: FY > 0 in stance), COP
``Xk, Yk, Zk`` in mm in the lab frame, free moment ``MZk``. Y is vertical, X is the
walking axis, Z lateral. Time is ``(Sample − first sample) / SampleRate``.

Each plate's contacts are found with :func:`models.gaitdata.events.detect_contacts`. Every
contact is one footfall; the samples of a plate go to the footfall nearest in time.

Walking direction: the sign of X along which the footfalls follow each other in time
(with one footfall, the COP progression heel → toe within it). Forces and COP are turned
so that x is forward.

Which foot stood on which plate:

1. with markers (a ``kinematics`` record with heel markers, or a ``.trc`` with the same
   name beside the ``.forces`` file): the foot whose heel marker is nearest the footfall's
   COP (mean 3-D distance over the contact: the stance heel stays within a foot length of
   the COP, the swinging heel passes it only briefly);
2. otherwise footfalls alternate; the set of alternate footfalls standing further to the
   right is the right foot, "right" assuming a right-handed lab frame (right = forward × up,
   i.e. +Z when walking along +X). A warning says so: the demotu-BMC ``walk1``/``walk2``
   lab is *not* right-handed (its right foot has the smaller Z), so there the markers are
   needed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.errors import DataFormatError
from models.gaitdata.checks import check_time, data_lines, parse_numeric
from models.gaitdata.events import detect_contacts
from models.gaitdata.feet import nearest_foot
from models.gaitdata.quirks import quirk
from models.gaitdata.records import ForceRecord, KinematicsRecord


@dataclass(frozen=True)
class Footfall:
    """One contact on one plate (0-based sample indices ``first..last``)."""

    plate: int
    first: int
    last: int
    x_mm: float
    z_mm: float
    foot: str = ""


def parse_forces(text: str, path: str = "<text>") -> tuple[float, np.ndarray, np.ndarray, list[int], list[str]]:
    """``(rate Hz, t (N,), plates (N, P, 7) [FX FY FZ X Y Z MZ], line numbers, header warnings)``."""
    notes: list[str] = []
    lines = text.splitlines()
    if not lines or lines[0].strip() != "[Force Data]":
        raise DataFormatError("not a Cortex .forces file: first line must be '[Force Data]'", path=path, line=1)
    header: dict[str, str] = {}
    col_line = None
    for i, ln in enumerate(lines[1:12], start=1):
        if ln.lstrip().startswith("#"):
            col_line = i
            break
        key, _, value = ln.partition("=")
        header[key.strip().lower()] = value.strip()
    if col_line is None:
        raise DataFormatError("no '#Sample …' column line in the header", path=path)
    try:
        n_plates = int(header.get("numberofforceplates", ""))
        rate = float(header.get("samplerate", ""))
    except ValueError:
        raise DataFormatError("header needs NumberOfForcePlates=<int> and SampleRate=<Hz>", path=path,
                              line=2) from None
    if not (1 <= n_plates <= 64) or not (np.isfinite(rate) and 1.0 <= rate <= 1e6):
        raise DataFormatError(f"implausible header: {n_plates} plates at {rate:g} Hz", path=path, line=2)
    names = lines[col_line].lstrip("#").split()
    want = ["Sample"] + [f"{q}{k}" for k in range(1, n_plates + 1) for q in ("FX", "FY", "FZ", "X", "Y", "Z", "MZ")]
    if [n.lower() for n in names] != [w.lower() for w in want]:
        raise DataFormatError(f"column line does not match {n_plates} plates (expected "
                              f"{' '.join(want[:8])} …)", path=path, line=col_line + 1)
    rows = data_lines(text, col_line + 1)
    data = parse_numeric(rows, want, path, allow_nan=True)
    declared = header.get("numberofsamples", "")
    if declared.isdigit() and int(declared) != len(rows):
        notes.append(quirk("header-count", f"header says NumberOfSamples={declared} but the file has "
                                                   f"{len(rows)} rows" + (" (truncated file?)" if int(declared) >
                                                                          len(rows) else "") + "; the rows are used"))
    line_numbers = [ln for ln, _ in rows]
    sample = data[:, 0]
    check_time(sample, path, line_numbers, column="Sample")
    t = (sample - sample[0]) / rate
    return rate, t, data[:, 1:].reshape(len(rows), n_plates, 7), line_numbers, notes


def _footfalls(t: np.ndarray, plates: np.ndarray) -> list[Footfall]:
    out = []
    for k in range(plates.shape[1]):
        fy = np.nan_to_num(plates[:, k, 1])
        for c in detect_contacts(t, fy):
            w = np.clip(fy[c.first:c.last + 1], 0.0, None)
            x = plates[c.first:c.last + 1, k, 3]
            z = plates[c.first:c.last + 1, k, 5]
            ok = np.isfinite(x) & np.isfinite(z) & (w > 0)
            if not ok.any():
                continue
            out.append(Footfall(k, c.first, c.last, float(np.average(x[ok], weights=w[ok])),
                                float(np.average(z[ok], weights=w[ok]))))
    return sorted(out, key=lambda f: f.first)


def _walking_sign(t: np.ndarray, plates: np.ndarray, falls: list[Footfall]) -> float:
    if len(falls) >= 2:
        return float(np.sign(falls[-1].x_mm - falls[0].x_mm) or 1.0)
    f = falls[0]
    x = plates[f.first:f.last + 1, f.plate, 3]
    return float(np.sign(x[-1] - x[0]) or 1.0)


def _sides_from_heels(t: np.ndarray, plates: np.ndarray, falls: list[Footfall],
                      kin: KinematicsRecord) -> list[str]:
    """Foot whose heel-toe line stays nearest the plate's COP (:mod:`models.gaitdata.feet`)."""
    return [nearest_foot(t[f.first:f.last + 1], plates[f.first:f.last + 1, f.plate, 3:6] / 1000.0, kin)
            for f in falls]


def read_forces_text(text: str, path: str = "<text>", kinematics: KinematicsRecord | None = None,
                     sibling: Path | None = None,
                     read_sibling: Callable[[Path], KinematicsRecord] | None = None) -> ForceRecord:
    """Both feet's GRF from the text of a ``.forces`` file (see module doc)."""
    rate, t, plates, _, warnings = parse_forces(text, path)
    falls = _footfalls(t, plates)
    if not falls:
        raise DataFormatError("no plate is loaded above 50 N: no footfall found", path=path, channel="FY*")
    kin = kinematics if kinematics is not None and kinematics.heels is not None else None
    if kin is None and sibling is not None and read_sibling is not None and sibling.is_file():
        kin = read_sibling(sibling)  # the loader's reader: this module imports no other importer
        warnings.append(quirk("plate-assignment", f"feet assigned to plates with the heel and toe markers of "
                                                   f"{sibling.name}"))
    sign = _walking_sign(t, plates, falls)
    if kin is not None:
        sides = _sides_from_heels(t, plates, falls, kin)
    else:
        alt = [i % 2 for i in range(len(falls))]
        lateral = [np.mean([sign * f.z_mm for f, a in zip(falls, alt) if a == g] or [np.nan]) for g in (0, 1)]
        right_group = 0 if len(falls) == 1 or lateral[0] > lateral[1] else 1
        sides = ["r" if a == right_group else "l" for a in alt]
        warnings.append("[plate-assignment] no markers: feet assigned by alternation, right = the footfalls "
                        "further along forward x up (right-handed lab frame assumed); pass the .trc to be sure")
    falls = [Footfall(f.plate, f.first, f.last, f.x_mm, f.z_mm, s) for f, s in zip(falls, sides)]
    if {f.foot for f in falls} != {"l", "r"}:
        only = "left" if falls[0].foot == "l" else "right"
        if kin is None or kin.soles is None:
            raise DataFormatError(f"missing foot: every footfall is on the {only} foot (give the marker file "
                                  "with --kinematics so the other foot can be filled from its markers)",
                                  path=path, channel="FY*")
        warnings.append(quirk("one-foot-plates", f"every plate contact is on the {only} foot; the other foot's "
                                                 "contacts are filled from the heel/toe markers"))
    n = t.shape[0]
    grf = np.zeros((n, 4))
    moment = np.zeros((n, 2))
    for k in range(plates.shape[1]):
        mine = [f for f in falls if f.plate == k]
        if not mine:
            continue
        centres = np.array([(f.first + f.last) / 2 for f in mine])
        owner = np.argmin(np.abs(np.arange(n)[:, None] - centres[None, :]), axis=1)
        fx, fy, x = plates[:, k, 0], plates[:, k, 1], plates[:, k, 3]
        for j, f in enumerate(mine):
            col = 0 if f.foot == "l" else 1
            sel = owner == j
            grf[sel, 2 * col] += sign * fx[sel]
            grf[sel, 2 * col + 1] += fy[sel]
            w = np.where(np.isfinite(x[sel]) & (fy[sel] > 0), fy[sel], 0.0)
            moment[sel, col] += w * np.nan_to_num(sign * x[sel] / 1000.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        cop = np.where(grf[:, 1::2] > 0, moment / grf[:, 1::2], np.nan)
    bad = np.isnan(plates[:, :, :2]).any(axis=(1, 2))
    grf[bad] = np.nan
    channels = {"F_lx": "FX of " + ", ".join(f"plate {f.plate + 1}" for f in falls if f.foot == "l"),
                "F_rx": "FX of " + ", ".join(f"plate {f.plate + 1}" for f in falls if f.foot == "r")}
    channels["F_ly"] = channels["F_lx"].replace("FX", "FY")
    channels["F_ry"] = channels["F_rx"].replace("FX", "FY")
    channels["footfalls"] = "; ".join(f"plate {f.plate + 1} {'L' if f.foot == 'l' else 'R'} samples "
                                      f"{f.first}-{f.last}" for f in falls)
    if sign < 0:
        warnings.append("walking along -X: x flipped")
    return ForceRecord(t=t, grf=grf, path=path, fmt="cortex-forces", rate_hz=rate, cop_x=cop,
                       channels=channels, warnings=warnings,
                       footfalls=[{"plate": f.plate + 1, "foot": f.foot, "first": f.first, "last": f.last}
                                  for f in falls])
