"""``load_trial``: one GRF file (and optionally a kinematics file) → :class:`GaitDataset`.

The format is sniffed from the extension and, for ambiguous ones, the content:

===============  ======================================================  ====================
extension        format                                                  gives
===============  ======================================================  ====================
.mot, .sto       OpenSim storage (``models.gaitdata.opensim``)           GRF and/or IK angles
.trc             marker file (``models.gaitdata.trc``)                   angles from markers
.forces          Cortex force plates (``models.gaitdata.cortex``)        GRF
.c3d             C3D via ezc3d (``models.gaitdata.c3d``)                 GRF, markers, PiG angles
other            CSV / whitespace table (``models.gaitdata.table``)      GRF and/or angles
===============  ======================================================  ====================

Pipeline: read (an OpenSim knee's sign read from its data, ``--knee-sign``; markers without a
sample dropped) → refuse recordings under 10 samples / 0.5 s and knees bent backwards throughout →
take the subject's mass/height from the file where it stores them → choose the window (one
with every contact on a plate when the markers show steps beside them) → convert units (N vs
BW vs N/kg, m vs mm) → fill short NaN gaps (long ones are errors) → resample onto a uniform
grid at the file's mean rate → crop to the span the kinematics cover → resample the angles
onto the GRF times (cubic) → check the vertical force sign and size → estimate the body
weight over whole strides (from measured force only) → fill the contacts the heel/toe
markers show but no plate measured (:mod:`models.gaitdata.offplate`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from models.dataset import GRF_COLUMNS, DatasetMeta, GaitDataset
from models.errors import DataFormatError
from models.gaitdata import cortex, offplate, opensim, table, trc
from models.gaitdata.checks import decode_text, read_bytes
from models.gaitdata.preprocess import fill_gaps, resample, uniform_grid
from models.gaitdata.quirks import quirk
from models.gaitdata.records import ForceRecord, KinematicsRecord
from models.gaitdata.subject import estimate_height
from models.gaitdata.units import G, check_vertical, force_scale, length_scale
from models.gaitdata.window import MIN_WINDOW_S, angle_labels, choose_window, crop_force, crop_kinematics


def _text(path: Path) -> str:
    return decode_text(read_bytes(path), path)


Reader = Callable[[Path, KinematicsRecord | None], tuple[ForceRecord | None, KinematicsRecord | None]]


@dataclass(frozen=True)
class Format:
    """One importer: file suffixes it owns, an optional content test, and its reader."""

    name: str
    suffixes: tuple[str, ...]
    read: Reader
    sniff: Callable[[str], bool] | None = None  # on the decoded text, for files with another suffix
    binary: bool = False


#: the importers by format name, in the order they are tried (as blocks are registered by type)
FORMATS: dict[str, Format] = {}


def register_format(name: str, suffixes: tuple[str, ...] = (), sniff: Callable[[str], bool] | None = None,
                    binary: bool = False) -> Callable[[Reader], Reader]:
    """Decorator: register ``reader(path, kinematics) -> (grf record, kinematics record)``."""
    def deco(read: Reader) -> Reader:
        FORMATS[name] = Format(name, suffixes, read, sniff, binary)
        return read
    return deco


@register_format("c3d", (".c3d",), binary=True)
def _read_c3d(p: Path, kinematics: KinematicsRecord | None) -> tuple[ForceRecord | None, KinematicsRecord | None]:
    from models.gaitdata import c3d
    return c3d.read_c3d(p)


@register_format("trc", (".trc",))
def _read_trc(p: Path, kinematics: KinematicsRecord | None) -> tuple[ForceRecord | None, KinematicsRecord | None]:
    return None, trc.kinematics_from_trc(trc.parse_trc(_text(p), str(p)))


@register_format("cortex-forces", (".forces",), sniff=lambda text: text.lstrip().startswith("[Force Data]"))
def _read_forces(p: Path, kinematics: KinematicsRecord | None) -> tuple[ForceRecord | None, KinematicsRecord | None]:
    return cortex.read_forces_text(_text(p), str(p), kinematics=kinematics, sibling=p.with_suffix(".trc"),
                                   read_sibling=read_kinematics), None


@register_format("opensim-sto", (".mot", ".sto"), sniff=lambda text: "\nendheader" in text.lower())
def _read_sto(p: Path, kinematics: KinematicsRecord | None) -> tuple[ForceRecord | None, KinematicsRecord | None]:
    tab = opensim.parse_sto(_text(p), str(p))
    _check_length(tab.t, p, "the force recording" if opensim.has_grf(tab) else "the kinematics recording")
    grf = opensim.grf_from_table(tab) if opensim.has_grf(tab) else None
    kin = opensim.angles_from_table(tab) if opensim.has_coordinates(tab) else None
    if grf is None and kin is None:
        raise DataFormatError("no GRF columns (…force_vx/vy) and no hip_flexion_* columns found", path=p)
    return grf, kin


@register_format("table")  # the fallback: any delimited table with a time column
def _read_table(p: Path, kinematics: KinematicsRecord | None) -> tuple[ForceRecord | None, KinematicsRecord | None]:
    return table.read_table_text(_text(p), str(p))


def format_of(p: Path) -> Format:
    """The importer of ``p``: by suffix, else the first whose content test accepts the text, else
    ``table`` (so a ``.txt`` or ``.csv`` holding a ``.forces`` or ``.sto`` file is still read as one)."""
    ext = p.suffix.lower()
    for fmt in FORMATS.values():
        if ext in fmt.suffixes:
            return fmt
    text = _text(p)
    return next((f for f in FORMATS.values() if f.sniff is not None and f.sniff(text)), FORMATS["table"])


def read_any(path: str | Path, kinematics: KinematicsRecord | None = None) -> tuple[
        ForceRecord | None, KinematicsRecord | None]:
    """Read one file of any registered format (:data:`FORMATS`): its GRF record and/or its kinematics record."""
    p = Path(path)
    return format_of(p).read(p, kinematics)


def read_kinematics(path: str | Path) -> KinematicsRecord:
    """The reference angles of a kinematics file (IK ``.mot``, ``.trc``, C3D, table)."""
    _, kin = read_any(path)
    if kin is None:
        raise DataFormatError("no joint angles or sagittal markers found in the kinematics file", path=path)
    return kin


def prepare_forces(rec: ForceRecord, mass_kg: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None,
                                                                     list[str], str]:
    """GRF in N on a uniform grid: ``(t, grf, cop_x, notes, unit found)``."""
    if rec.units == "N":
        scale, unit = force_scale(rec.grf, mass_kg, rec.path)
    elif mass_kg is None:
        raise DataFormatError(f"forces are declared in {rec.units}; give the body mass (--mass KG)",
                              path=rec.path)
    else:
        scale, unit = (mass_kg * G if rec.units == "BW" else mass_kg), rec.units
    grf, notes = fill_gaps(rec.t, rec.grf * scale, GRF_COLUMNS, rec.path)
    t_new = uniform_grid(rec.t, rec.rate_hz)
    grf_u = resample(rec.t, grf, t_new)
    cop_u = None
    if rec.cop_x is not None:
        cop = rec.cop_x * length_scale(rec.cop_x)
        loaded = grf[:, 1::2] > 20.0
        cop = np.where(loaded, cop, np.nan)
        cop_u = np.column_stack([np.interp(t_new, rec.t, c, left=np.nan, right=np.nan) for c in cop.T])
        cop_u[grf_u[:, 1::2] <= 20.0] = np.nan
    return t_new, grf_u, cop_u, notes, unit


#: the shortest recording a run accepts, s (about one step; the usable-window minimum)
MIN_DURATION_S = MIN_WINDOW_S
#: ... and the fewest samples (the zero-lag filters of the data sources pad 9 samples on each side)
MIN_SAMPLES = 10
#: a recorded knee bent backwards beyond this [deg] is read with the wrong sign (the fall criterion's 30 deg)
KNEE_HYPEREXTENSION_DEG = 30.0


def _check_length(t: np.ndarray, path: object, what: str) -> None:
    """Raise when a recording is too short to run on (:data:`MIN_SAMPLES`, :data:`MIN_DURATION_S`)."""
    span = float(t[-1] - t[0]) if t.size else 0.0
    if t.shape[0] < MIN_SAMPLES or span < MIN_DURATION_S - 1e-9:
        raise DataFormatError(f"too short: {what} holds {t.shape[0]} samples over {span:.3f} s; a run needs at "
                              f"least {MIN_SAMPLES} samples and {MIN_DURATION_S:g} s (about one step; a gait "
                              "cycle takes about 1 s)", path=path)


def _check_knees(kin: KinematicsRecord) -> list[str]:
    """Raise when a knee is hyperextended through the whole recording, or its recording bends it
    backwards beyond :data:`KNEE_HYPEREXTENSION_DEG` (a sign error of the file's knee, which a run
    would report as a fall at 0.00 s); warn when a knee never flexes 20 deg. Gamma is knee flexion,
    + (models.biped); the 2nd/98th percentiles stand for the extremes (a noisy sample is no finding)."""
    notes = []
    for j, side in ((3, "left"), (4, "right")):
        g = np.degrees(kin.angles[:, j])
        g = g[np.isfinite(g)]
        if not g.size:
            continue
        lo, hi = float(np.percentile(g, 2)), float(np.percentile(g, 98))
        if hi < 0.0 or lo < -KNEE_HYPEREXTENSION_DEG:
            src = kin.channels.get(f"gamma_{side[0]}", f"gamma_{side[0]}").lstrip("+-")
            hint = (" (--knee-sign flexion-positive or flexion-negative overrides the sign chosen: "
                    f"{kin.channels['knee_sign']})" if "knee_sign" in kin.channels else "")
            what = "is hyperextended through the whole recording" if hi < 0.0 else f"hyperextends to {g.min():.1f} deg"
            raise DataFormatError(f"the {side} knee {what} (flexion {g.min():.1f}..{g.max():.1f} deg; a walking knee "
                                  f"flexes +50..70 deg in swing and never bends {KNEE_HYPEREXTENSION_DEG:.0f} deg "
                                  "backwards): wrong knee sign?" + hint, path=kin.path, channel=src)
        if hi < 20.0:
            notes.append(f"the {side} knee never flexes beyond {hi:.1f} deg (a walking knee flexes 50-70 deg in "
                         "swing): check the knee angle's sign and units")
    return notes


def load_trial(path: str | Path, kinematics: str | Path | None = None, mass: float | None = None,
               height: float | None = None, fill_offplate: bool = True, start: float | None = None,
               end: float | None = None, knee_sign: str | None = None) -> GaitDataset:
    """Load a recorded trial as a :class:`~models.dataset.GaitDataset`.

    Parameters
    ----------
    path : GRF file (.mot/.sto, .forces, .c3d, .csv/.txt table).
    kinematics : optional angles file (OpenSim IK .mot, .trc markers, .c3d, table) of the
        same trial; its angles are resampled onto the GRF times and the trial is cropped
        to the span both cover. Without it, angles come from the GRF file when it holds
        them, else ``angles`` is ``None``.
    mass : body mass in kg; estimated as BW/g from the GRF when omitted.
    height : body height in m; when omitted, estimated from the markers where there are any
        (:mod:`models.gaitdata.subject`), else left ``None``.
    start, end : the window to use, s on the file's clock. Without them the longest usable
        window is chosen (:mod:`models.gaitdata.window`). Records are cropped to it before
        gaps are filled and values checked.
    fill_offplate : fill the contacts that the heel/toe markers show but no force plate
        measured (:mod:`models.gaitdata.offplate`); each fill is a warning and an entry of
        ``meta.extra["filled_contacts"]``.
    knee_sign : ``auto``, ``flexion-positive`` or ``flexion-negative``: how an OpenSim knee angle
        is read (:func:`models.gaitdata.opensim.knee_convention`); ``None``: as set by
        the :func:`models.gaitdata.opensim.knee_sign` context (``run --knee-sign``), else auto.

    Returns
    -------
    GaitDataset
        ``grf`` (N, 4) N ``[F_lx, F_ly, F_rx, F_ry]`` on the foot (x forward, y up), ``cop_x``
        (N, 2) m when known, ``angles`` (N, 5) rad, ``meta.extra`` with ``format``,
        ``rate_hz_source``, ``channels``, ``warnings``, ``bw_estimate_n``, ``mass_source``.

    Raises
    ------
    DataFormatError
        Anything wrong with the files (one message naming file, line/column or channel), a
        recording shorter than :data:`MIN_DURATION_S`, a knee hyperextended throughout.
    """
    with opensim.knee_sign(knee_sign):
        return _load_trial(path, kinematics, mass, height, fill_offplate, start, end)


def _load_trial(path: str | Path, kinematics: str | Path | None, mass: float | None, height: float | None,
                fill_offplate: bool, start: float | None, end: float | None) -> GaitDataset:
    if mass is not None and not (np.isfinite(mass) and 10.0 <= mass <= 400.0):
        raise DataFormatError(f"body mass {mass} kg is not plausible (10-400 kg)", path=path)
    kin: KinematicsRecord | None = read_kinematics(kinematics) if kinematics is not None else None
    frc, own_kin = read_any(path, kinematics=kin)
    if frc is None:
        raise DataFormatError("no ground reaction forces found (this looks like a kinematics file; "
                              "pass it with --kinematics)", path=path)
    kin = kin if kin is not None else own_kin
    sibling_note: list[str] = []
    if kin is None and kinematics is None and Path(path).with_suffix(".trc").is_file():
        kin = read_kinematics(Path(path).with_suffix(".trc"))
        sibling_note.append(quirk("sibling-kinematics", f"no --kinematics given: the angles come from "
                                                        f"{Path(path).with_suffix('.trc').name} beside the GRF file"))
    _check_length(frc.t, path, "the force recording")
    knee_notes: list[str] = []
    if kin is not None:
        _check_length(kin.t, kin.path, "the kinematics recording")
        knee_notes = _check_knees(kin)
    file_subject = dict(frc.subject)
    if kin is not None:
        file_subject = {**kin.subject, **file_subject}
    height_est = estimate_height(kin) if height is None and kin is not None else None
    lo, hi, win_notes, win_info = choose_window(frc, kin, start, end)
    frc = crop_force(frc, lo, hi)
    if kin is not None:
        kin = crop_kinematics(kin, lo, hi)
    warnings = list(frc.warnings) + sibling_note + win_notes + knee_notes
    conv_mass = mass if mass is not None else file_subject.get("mass_kg")
    t, grf, cop, notes, unit = prepare_forces(frc, conv_mass)
    warnings += [quirk("gap-filled", n) for n in notes]
    if unit != "N":
        warnings.append(f"forces were in {unit}; converted to N with mass {conv_mass} kg")
    angles = None
    filled: list[offplate.FilledContact] = []
    if kin is not None:
        warnings += kin.warnings
        lo, hi = max(t[0], kin.t[0]), min(t[-1], kin.t[-1])
        if hi - lo <= 0:
            raise DataFormatError(f"kinematics ({kin.t[0]:.3f}-{kin.t[-1]:.3f} s) and GRF ({t[0]:.3f}-"
                                  f"{t[-1]:.3f} s) do not overlap in time", path=kin.path)
        keep = (t >= lo - 1e-9) & (t <= hi + 1e-9)
        if keep.sum() < t.shape[0]:
            warnings.append(f"cropped to {lo:.3f}-{hi:.3f} s, the span both files cover")
        t, grf = t[keep], grf[keep]
        cop = None if cop is None else cop[keep]
        ang, ang_notes = fill_gaps(kin.t, kin.angles, angle_labels(kin), kin.path)
        warnings += [quirk("gap-filled", n) for n in ang_notes]
        angles = resample(kin.t, ang, t, kind="cubic")
    _check_length(t, path, f"the span used ({t[0]:.3f}-{t[-1]:.3f} s)")
    bw, vwarn = check_vertical(t, grf, path, mass)
    warnings += vwarn
    if mass is None and "mass_kg" in file_subject and bw is not None:
        ratio = bw / (file_subject["mass_kg"] * G)
        if abs(ratio - 1.0) > 0.15:
            warnings.append(f"the file's body mass {file_subject['mass_kg']:g} kg ({file_subject['mass_source']}) "
                            f"differs from the GRF's mean over whole strides ({bw / G:.1f} kg) by "
                            f"{100 * (ratio - 1):+.0f} %; the file's is used, --mass overrides")
    if fill_offplate and kin is not None and kin.soles is not None:
        grf, filled = _fill_offplate(t, grf, kin)  # after the BW estimate: that uses measured force only
        warnings += [f.note() for f in filled]
    for side, col in (("left", 1), ("right", 3)):
        if fill_offplate and float(np.nanmax(grf[:, col], initial=0.0)) <= 50.0:
            raise DataFormatError(f"missing foot: the {side} foot never carries 50 N in {t[0]:.3f}-{t[-1]:.3f} s "
                                  "(no plate contact and none filled from markers)", path=path,
                                  channel=f"F_{side[0]}y")
    if mass is not None:
        body_mass, mass_source = float(mass), "given"
    elif "mass_kg" in file_subject:
        body_mass, mass_source = float(file_subject["mass_kg"]), str(file_subject["mass_source"])
        warnings.append(quirk("file-subject", f"body mass {body_mass:g} kg {mass_source}; --mass overrides"))
    elif bw is not None:
        body_mass, mass_source = bw / G, "estimated from the GRF (mean vertical force over whole strides / g)"
    else:
        body_mass, mass_source = None, "unknown"
    if height is not None:
        body_height, height_source = float(height), "given"
    elif "height_m" in file_subject:
        body_height, height_source = float(file_subject["height_m"]), str(file_subject["height_source"])
        warnings.append(quirk("file-subject", f"height {body_height:.3f} m {height_source}; --height overrides"))
    elif height_est is not None:
        body_height, height_source = height_est
    else:
        body_height, height_source = None, "unknown"
    extra: dict[str, Any] = {
        **win_info, "height_source": height_source,
        "format": frc.fmt, "grf_file": str(path), "rate_hz_source": frc.rate_hz,
        "channels": dict(frc.channels), "warnings": warnings, "bw_estimate_n": bw,
        "mass_source": mass_source, "force_units_found": unit,
    }
    if filled:
        extra["filled_contacts"] = [asdict(f) for f in filled]
    if kin is not None:
        extra.update({"kinematics_file": kin.path, "kinematics_format": kin.fmt,
                      "kinematics_rate_hz": kin.rate_hz,
                      "angle_channels": dict(kin.channels)})
    if "kinematics_error" in frc.channels and kin is None:
        extra["kinematics_error"] = frc.channels["kinematics_error"]
    extra["warnings"] = list(dict.fromkeys(warnings))  # in order, each once
    meta = DatasetMeta(name=Path(path).stem, body_mass_kg=body_mass, height_m=body_height,
                       source=f"file {Path(path).name}" + (f" + {Path(kin.path).name}" if kin else ""),
                       synthetic=False, extra=extra)
    return GaitDataset(t=t, grf=grf, meta=meta, angles=angles, cop_x=cop)


def _fill_offplate(t: np.ndarray, grf: np.ndarray, kin: KinematicsRecord
                   ) -> tuple[np.ndarray, list[offplate.FilledContact]]:
    """:func:`models.gaitdata.offplate.fill_offplate` with the marker contacts put on the GRF times."""
    assert kin.soles is not None
    on_floor = {s: np.interp(t, kin.t, offplate.marker_contacts(kin.t, kin.soles[s]).astype(float)) > 0.5
                for s in ("l", "r")}
    return offplate.fill_offplate(t, grf, on_floor)


def with_mass(ds: GaitDataset, mass_kg: float) -> GaitDataset:
    """The dataset with its GRF scaled to ``mass_kg`` (same GRF in BW)."""
    if ds.meta.body_mass_kg is None:
        raise DataFormatError("dataset has no body mass to scale from", path=ds.name)
    factor = mass_kg / ds.meta.body_mass_kg
    return replace(ds, grf=ds.grf * factor, meta=replace(ds.meta, body_mass_kg=mass_kg))
