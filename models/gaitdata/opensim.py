"""OpenSim ``.mot`` / ``.sto`` files: GRF per foot and IK joint angles.

Header styles accepted (everything up to a line ``endheader``):

* version 1: ``name``, ``version=1``, ``nRows=…``, ``nColumns=…``, ``inDegrees=yes|no``, free text;
* short: ``name`` (and maybe free text) then ``endheader``;
* OpenSim 4 ``.sto``: ``version=1``, ``OpenSimVersion=…``, ``DataType=double``, ``inDegrees=…``.

Then one line of column names (tab or space separated) and the numeric rows. OpenSim 4
column paths such as ``/jointset/hip_r/hip_flexion_r/value`` are reduced to the coordinate
name ``hip_flexion_r``; ``…/speed`` columns are kept as ``hip_flexion_r/speed`` and unused.

GRF columns: every group ``<prefix>force_v{x,y,z}`` is one force set, with COP
``<prefix>force_p{x,y,z}``. The side comes from the prefix (``r``/``right``/``l``/``left``
as a ``_``-separated token, e.g. ``ground_force_r_vx``, ``r_ground_force_vx``,
``calcn_l_ground_force_vx``). When the names do not say (``ground_force_vx`` and
``1_ground_force_vx`` in OpenSim's ``subject01_walk1_grf.mot``) the side comes from the mean
lateral COP during stance: OpenSim's ground frame is x forward, y up, z to the right, so the
set standing at larger z is the right foot. (In ``subject01_walk1_grf.mot`` the un-prefixed
set stands at z ≈ +0.13 m and ``1_`` at z ≈ −0.05 m, so un-prefixed = right, which matches the
stance windows R 0.618–1.410 s, L 1.247–2.018 s of the data README.)

Sign table, IK coordinates → model angles (all OpenSim rotations are about the
ground/pelvis z axis, which points to the subject's right, so a positive rotation turns the
forward axis upward: it is a *backward* rotation in the sagittal plane):

=====================  =========================================================
model angle            from OpenSim coordinates
=====================  =========================================================
alpha (trunk, fwd +)   lean of the hip → HAT-CoM line (below, :func:`hat_lean`)
beta (thigh vs trunk)  pelvis_tilt + hip_flexion + alpha
gamma (knee flexion)   −knee_angle (gait2392 convention, flexion negative), or
                       +knee_angle when the file's knee is positive in flexion
=====================  =========================================================

Knee sign (:func:`knee_convention`): gait2392 / gait10dof18musc / Hamner models turn the knee
negative in flexion (range −120…10°); Rajagopal 2015 and others positive (0…120°). A .sto does
not carry the model's ranges, so the convention of each knee is read from its data: in walking
the knee is near 0° in stance and flexes 50–70° in swing, so the largest excursion from 0 (the
swing peak) has the sign of flexion: ``flexion-positive`` when ``max + min > 0`` (98th and 2nd
percentiles), else ``flexion-negative``. A column named ``knee_flexion_*`` is flexion-positive by
name. ``--knee-sign {auto,flexion-positive,flexion-negative}`` overrides the detection; the
choice is printed (``channels["knee_sign"]``) and, when it is not gait2392's, a ``knee-sign``
warning says so. The other coordinates used (``pelvis_tilt``, ``hip_flexion``,
``lumbar_extension``) share one convention in every OpenSim gait model (positive = backward
rotation about the ground z axis, i.e. anterior tilt, flexion and extension).

Why: the five-link trunk is the HAT (pelvis + torso), a rigid link from the hip joint to the
HAT centre of mass, so alpha is the lean of that line, not of OpenSim's torso frame. With the
generic gait2392 / gait10dof18musc geometry (pelvis frame, m: hip centre (−0.0707, −0.0661),
lumbar joint (−0.1007, 0.0815), pelvis CoM (−0.0707, 0); torso CoM (−0.03, 0.32) in the torso
frame; masses 11.777 and 34.2366 kg) the HAT CoM is found with the torso turned by
``lumbar_extension`` and the whole turned by ``pelvis_tilt``; ``alpha = atan2(v_x, v_y)`` of
the hip → HAT-CoM vector ``v``. At zero angles that line leans 7.0° back from the torso frame's
y axis; a subject's scaled model is assumed to keep these proportions. The thigh's absolute
forward swing is ``pelvis_tilt + hip_flexion``; beta is the thigh relative to the trunk line,
``beta = thigh_forward + alpha`` (models.biped: thigh angle from the downward vertical
``θ1 = alpha − beta``).
Checked on ``subject01_walk_IK.mot`` against the markers of ``subject01_walk1.trc``:
with ``+pelvis_tilt`` in the thigh angle the predicted heel-to-pelvis distance fits the
markers (r = 0.999, bias 8 cm from the rough hip-centre estimate) better than with
``−pelvis_tilt`` (bias 12 cm the other way). The torso frame of that trial leans 13.1° forward on
average, but its lumbar joint is flexed 21° and sits behind the hip, so the HAT line is upright:
−1.08° on average, against −0.96° for the independent line from the estimated hip centres to
the acromion markers of the same trial.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from models.errors import DataFormatError
from models.gaitdata.checks import check_time, data_lines, parse_numeric, time_in_seconds
from models.gaitdata.opensim_subject import subject_from_header, subject_from_setup
from models.gaitdata.quirks import quirk
from models.gaitdata.records import ForceRecord, KinematicsRecord

# generic gait2392 / gait10dof18musc geometry (pelvis and torso frames, m) and masses (kg)
_HIP_C = (-0.0707, -0.0661)
_LUMBAR = (-0.1007, 0.0815)
_PELVIS_COM = (-0.0707, 0.0)
_TORSO_COM = (-0.03, 0.32)
_M_PELVIS, _M_TORSO = 11.777, 34.2366

#: knee sign choices (``--knee-sign``); "auto" reads it from the data (module doc)
KNEE_SIGNS = ("auto", "flexion-positive", "flexion-negative")
#: below this |max + min| [deg] the knee's excursion does not say its sign; gait2392's is kept
_KNEE_AMBIGUOUS_DEG = 10.0
_knee_sign_default = ["auto"]


@contextmanager
def knee_sign(value: str | None) -> Iterator[None]:
    """Within the block, :func:`angles_from_table` reads the knee with ``value`` (``None``: unchanged)."""
    if value is not None and value not in KNEE_SIGNS:
        raise DataFormatError(f"--knee-sign {value!r}: expected one of {', '.join(KNEE_SIGNS)}")
    old = _knee_sign_default[0]
    _knee_sign_default[0] = value or old
    try:
        yield
    finally:
        _knee_sign_default[0] = old


def knee_convention(name: str, values_deg: np.ndarray, choice: str = "auto") -> tuple[int, str]:
    """``(sign, text)``: ``gamma = sign * knee`` for the knee column ``name`` (values in deg), and
    the convention chosen with why (module doc)."""
    finite = values_deg[np.isfinite(values_deg)]
    lo, hi = (float(np.percentile(finite, 2)), float(np.percentile(finite, 98))) if finite.size else (0.0, 0.0)
    seen = f"{name} {lo:+.1f}..{hi:+.1f} deg"
    if choice == "flexion-positive":
        return 1, f"flexion-positive (given; {seen})"
    if choice == "flexion-negative":
        return -1, f"flexion-negative (given; {seen})"
    if name.startswith("knee_flexion"):
        return 1, f"flexion-positive (auto: the column is named {name}; {seen})"
    if abs(hi + lo) < _KNEE_AMBIGUOUS_DEG:
        return -1, (f"flexion-negative (auto, unsure: {seen} has no clear swing peak; gait2392's convention "
                    "kept, --knee-sign overrides)")
    if hi + lo > 0:
        return 1, f"flexion-positive (auto: {seen}, swing peak {hi:+.1f} deg)"
    return -1, f"flexion-negative (auto: {seen}, swing peak {lo:+.1f} deg, as gait2392)"


_FORCE_RE = re.compile(r"^(?P<pre>.*?)force_(?P<side>[rl]_)?(?P<kind>[vp])(?P<axis>[xyz])$")


@dataclass
class StoTable:
    """A parsed ``.mot``/``.sto``: column names (reduced), data (N, C), header fields."""

    names: list[str]
    data: np.ndarray
    lines: list[int]
    header: dict[str, str]
    rate_hz: float
    path: str
    warnings: list[str] = field(default_factory=list)

    def col(self, name: str) -> np.ndarray:
        return self.data[:, self.names.index(name)]

    @property
    def t(self) -> np.ndarray:
        return self.data[:, 0]

    @property
    def in_degrees(self) -> bool | None:
        v = self.header.get("indegrees")
        return None if v is None else v.strip().lower() in ("yes", "true", "1")


def _reduce(name: str) -> str:
    """``/jointset/hip_r/hip_flexion_r/value`` → ``hip_flexion_r``."""
    if not name.startswith("/"):
        return name
    parts = [p for p in name.split("/") if p]
    if len(parts) >= 2 and parts[-1] == "value":
        return parts[-2]
    return "/".join(parts[-2:]) if len(parts) >= 2 else (parts[0] if parts else name)


def parse_sto(text: str, path: str = "<text>") -> StoTable:
    """Parse the text of an OpenSim ``.mot``/``.sto`` file (see module doc for the styles)."""
    lines = text.splitlines()
    end = next((i for i, ln in enumerate(lines) if ln.strip().lower() == "endheader"), None)
    if end is None:
        raise DataFormatError("no 'endheader' line: not an OpenSim .mot/.sto file", path=path)
    header: dict[str, str] = {}
    for ln in lines[:end]:
        if "=" in ln:
            key, _, value = ln.partition("=")
            header[key.strip().lower()] = value.strip()
    body = data_lines(text, end + 1)
    if not body:
        raise DataFormatError("no column-name line after 'endheader' (truncated file?)", path=path)
    name_line, name_text = body[0]
    raw_names = [n.strip() for n in name_text.split("\t")] if "\t" in name_text else name_text.split()
    raw_names = [n for n in raw_names if n]
    if not raw_names or raw_names[0].lower() not in ("time", "time_ms", "time(ms)"):
        raise DataFormatError("first column must be 'time'", path=path, line=name_line)
    names = [_reduce(n) for n in raw_names]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise DataFormatError(f"column {dup!r} appears twice", path=path, line=name_line)
    warnings: list[str] = []
    ncols = header.get("ncolumns")
    if ncols is not None and ncols.strip().isdigit() and int(ncols) != len(names):
        warnings.append(quirk("header-count", f"header says nColumns={ncols} but line {name_line} has "
                                              f"{len(names)} column names; the names are used"))
    rows = body[1:]
    if rows and _is_units_row(rows[0][1]):
        shown = " ".join(rows[0][1].split())[:40]
        warnings.append(quirk("units-row", f"line {rows[0][0]} holds units ({shown}); skipped"))
        rows = rows[1:]
    data = parse_numeric(rows, names, path, allow_nan=True)
    nrows = header.get("nrows")
    if nrows is not None and nrows.strip().isdigit() and int(nrows) != len(rows):
        warnings.append(quirk("header-count", f"header says nRows={nrows} but the file has {len(rows)} data rows"
                                              + (" (truncated file?)" if int(nrows) > len(rows) else "")
                                              + "; the rows are used"))
    line_numbers = [ln for ln, _ in rows]
    data[:, 0], ms_note = time_in_seconds(data[:, 0], path, raw_names[0], header.get("timeunits", ""))
    if ms_note:
        warnings.append(ms_note)
    rate = check_time(data[:, 0], path, line_numbers)
    return StoTable(names, data, line_numbers, header, rate, str(path), warnings)


_UNIT_TOKENS = {"s", "sec", "n", "m", "mm", "deg", "rad", "nm", "n.m", "n*m", "n·m", "n-m", "-", "m/s", "rad/s",
                "deg/s", "bw", "n/kg", "hz", "%", "none"}


def _is_units_row(line: str) -> bool:
    """A row of unit names (``s  N  N  m …``), as Visual3D and some OpenSim exports write."""
    toks = [t.strip().strip("[]()").lower() for t in re.split(r"[\t,]|\s+", line) if t.strip()]
    return bool(toks) and all(t in _UNIT_TOKENS for t in toks)


def _force_sets(table: StoTable) -> dict[str, dict[str, int]]:
    """``{set key: {"vx": col, "vy": col, "px": col, …}}`` from the GRF column names."""
    sets: dict[str, dict[str, int]] = {}
    for j, name in enumerate(table.names):
        m = _FORCE_RE.match(name.lower())
        if m is None:
            continue
        key = m.group("pre") + (m.group("side") or "")
        sets.setdefault(key, {})[m.group("kind") + m.group("axis")] = j
    return {k: v for k, v in sets.items() if "vx" in v and "vy" in v}


def _side_from_name(key: str) -> str | None:
    tokens = {tok for tok in re.split(r"[_\W]+", key.lower()) if tok}
    if tokens & {"r", "right", "calcn_r"}:
        return "r"
    if tokens & {"l", "left", "calcn_l"}:
        return "l"
    return None


def has_grf(table: StoTable) -> bool:
    return bool(_force_sets(table))


def grf_from_table(table: StoTable) -> ForceRecord:
    """Both feet's GRF from a ``.mot`` GRF file (OpenSim ground frame: x fwd, y up, z right)."""
    path = table.path
    sets = _force_sets(table)
    if len(sets) < 2:
        found = ", ".join(sorted(sets)) or "none"
        raise DataFormatError(f"missing foot: found {len(sets)} GRF column set(s) ({found}), need one "
                              "per foot (e.g. ground_force_r_vx… and ground_force_l_vx…)", path=path,
                              channel="ground_force_*")
    warnings: list[str] = []
    sides = {k: _side_from_name(k) for k in sets}
    if sorted(v for v in sides.values() if v) != ["l", "r"] or len(sets) > 2:
        if len(sets) > 2:
            raise DataFormatError(f"{len(sets)} GRF column sets ({', '.join(sorted(sets))}); expected "
                                  "one per foot", path=path, channel="ground_force_*")
        k0, k1 = sorted(sets)
        z = {}
        for k in (k0, k1):
            if "pz" not in sets[k]:
                raise DataFormatError("cannot tell the feet apart: no side in the column names and no "
                                      "COP z column", path=path, channel=f"{k}force_vy")
            fy, pz = table.data[:, sets[k]["vy"]], table.data[:, sets[k]["pz"]]
            on = np.isfinite(pz) & (fy > 0.1 * np.nanmax(np.abs(fy)))
            z[k] = float(np.mean(pz[on])) if on.any() else float("nan")
        if not np.isfinite(z[k0] - z[k1]) or z[k0] == z[k1]:
            raise DataFormatError("cannot tell the feet apart from the COP z", path=path,
                                  channel=f"{k0}force_pz")
        right = k0 if z[k0] > z[k1] else k1
        sides = {k: ("r" if k == right else "l") for k in (k0, k1)}
        warnings.append(f"feet told apart by the lateral COP: '{right or '(no prefix)'}force_*' "
                        f"stands at z = {max(z.values()):.3f} m (right), the other at "
                        f"{min(z.values()):.3f} m (left)")
    by_side = {side: key for key, side in sides.items()}
    n = table.data.shape[0]
    grf = np.empty((n, 4))
    cop = np.full((n, 2), np.nan)
    channels: dict[str, str] = {}
    for i, side in enumerate(("l", "r")):
        cols = sets[by_side[side]]
        grf[:, 2 * i] = table.data[:, cols["vx"]]
        grf[:, 2 * i + 1] = table.data[:, cols["vy"]]
        channels[f"F_{side}x"] = table.names[cols["vx"]]
        channels[f"F_{side}y"] = table.names[cols["vy"]]
        if "px" in cols:
            cop[:, i] = table.data[:, cols["px"]]
            channels[f"cop_{side}x"] = table.names[cols["px"]]
    has_cop = any(f"cop_{s}x" in channels for s in "lr")
    return ForceRecord(t=table.t.copy(), grf=grf, path=path, fmt="opensim-mot", rate_hz=table.rate_hz,
                       cop_x=cop if has_cop else None, channels=channels, warnings=table.warnings + warnings,
                       subject={**subject_from_setup(path), **subject_from_header(table)})


def has_coordinates(table: StoTable) -> bool:
    return "hip_flexion_r" in table.names or "hip_flexion_l" in table.names


def _knee_name(table: StoTable, side: str) -> str:
    return next((n for n in (f"knee_angle_{side}", f"knee_flexion_{side}") if n in table.names), f"knee_angle_{side}")


def angles_from_table(table: StoTable, knee: str | None = None) -> KinematicsRecord:
    """model angles from OpenSim IK coordinates (sign table in the module doc); ``knee``: one of
    :data:`KNEE_SIGNS` (``None``: the one set by :func:`knee_sign`, else auto)."""
    knee = knee or _knee_sign_default[0]
    path = table.path
    warnings: list[str] = []
    deg = table.in_degrees
    if deg is None:
        rot = [n for n in table.names if n.startswith(("hip_", "knee_", "pelvis_tilt", "lumbar_"))]
        big = max((float(np.nanmax(np.abs(table.col(n)))) for n in rot), default=0.0)
        deg = big > 3.5
        warnings.append(f"no inDegrees in the header; angles taken as {'degrees' if deg else 'radians'} "
                        f"(largest magnitude {big:.3g})")
    scale = np.pi / 180.0 if deg else 1.0

    def coord(name: str, required: bool) -> np.ndarray:
        if name in table.names:
            return table.col(name) * scale
        if required:
            raise DataFormatError("missing coordinate column", path=path, channel=name)
        warnings.append(f"no {name} column: taken as 0")
        return np.zeros(table.data.shape[0])

    tilt = coord("pelvis_tilt", False)
    lumbar = coord("lumbar_extension", False)
    alpha = hat_lean(tilt, lumbar)
    cols = [alpha]
    signs: dict[str, tuple[int, str]] = {}
    for part in ("hip_flexion", "knee_angle"):
        for side in ("l", "r"):
            if f"hip_flexion_{side}" not in table.names:
                raise DataFormatError(f"missing foot: no hip_flexion_{side} column", path=path,
                                      channel=f"hip_flexion_{side}")
            if part == "hip_flexion":
                cols.append(tilt + coord(f"hip_flexion_{side}", True) + alpha)
                continue
            name = _knee_name(table, side)
            v = coord(name, True)
            signs[side] = knee_convention(name, np.degrees(v), knee)
            cols.append(signs[side][0] * v)
    angles = np.column_stack(cols)
    channels = {"alpha": "lean of the hip -> HAT CoM line (pelvis_tilt, lumbar_extension, gait2392 geometry)",
                "beta_l": "pelvis_tilt + hip_flexion_l + alpha", "beta_r": "pelvis_tilt + hip_flexion_r + alpha",
                "gamma_l": f"{'+' if signs['l'][0] > 0 else '-'}{_knee_name(table, 'l')}",
                "gamma_r": f"{'+' if signs['r'][0] > 0 else '-'}{_knee_name(table, 'r')}",
                "knee_sign": "; ".join(f"{s} knee {signs[s][1]}" for s in ("l", "r"))}
    if any(sign > 0 for sign, _ in signs.values()):
        warnings.append(quirk("knee-sign", "knee angle read as positive in flexion (not gait2392's convention): "
                              + channels["knee_sign"]))
    return KinematicsRecord(t=table.t.copy(), angles=angles, path=path, fmt="opensim-ik",
                            rate_hz=table.rate_hz, channels=channels, warnings=table.warnings + warnings,
                            subject={**subject_from_setup(path), **subject_from_header(table)})


def hat_lean(tilt: np.ndarray, lumbar: np.ndarray) -> np.ndarray:
    """Forward lean [rad] of the hip -> HAT-CoM line from ``pelvis_tilt`` and ``lumbar_extension`` [rad].

    Rotations are counter-clockwise seen from the subject's right (OpenSim z); see the module doc.
    """
    c, s = np.cos(lumbar), np.sin(lumbar)
    tx = _LUMBAR[0] + c * _TORSO_COM[0] - s * _TORSO_COM[1]
    ty = _LUMBAR[1] + s * _TORSO_COM[0] + c * _TORSO_COM[1]
    m = _M_PELVIS + _M_TORSO
    vx = (_M_PELVIS * _PELVIS_COM[0] + _M_TORSO * tx) / m - _HIP_C[0]
    vy = (_M_PELVIS * _PELVIS_COM[1] + _M_TORSO * ty) / m - _HIP_C[1]
    ct, st = np.cos(tilt), np.sin(tilt)
    return np.arctan2(ct * vx - st * vy, st * vx + ct * vy)
