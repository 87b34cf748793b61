"""C3D files through ``ezc3d`` (a dependency of gaitblocks: ``pip install -e .`` installs it).

* Force platforms: ezc3d (``extract_forceplat_data=True``) turns each plate's analog
  channels into the force (N) and CoP (mm) in the lab frame, using the plate corners and
  origin. When a plate's vertical force is negative while loaded, it is the force the
  foot puts on the plate, and it is negated to the force on the foot (a warning says so).
* Lab axes: up is +Z (the C3D habit); the walking direction is the horizontal
  progression of the pelvis markers (ASIS/PSIS/SACR, LASI/RASI/LPSI/RPSI) when they travel
  more than 0.3 m, else +X.
* Each plate contact goes to the foot whose heel (or ankle) marker stays nearest its CoP
  (mean 3-D distance over the contact).
* Angles: Plug-in-Gait outputs when present, else sagittal markers
  (:mod:`models.gaitdata.angles`). A marker frame of exactly (0, 0, 0) is a gap (Vicon writes
  gaps so) and is read as NaN; a marker with no sample at all is absent.
* A file holding fewer frames than its header declares (words 4-5 of the header block, read
  from the bytes) is truncated: an error naming both counts (ezc3d alone reads the part there).
* Subject: ``PROCESSING:Bodymass`` [kg] and ``PROCESSING:Height`` [mm] (Vicon Nexus), or a
  ``SUBJECTS``/``SUBJECT`` group's ``MASS``/``HEIGHT``, go to ``ForceRecord.subject``.

Plug-in-Gait sign table (component 1 of each ``…Angles`` point, degrees):

=====================  ===============================================================
model angle            from Plug-in-Gait
=====================  ===============================================================
alpha (trunk fwd +)    shoulder-marker line (angles module) if present, else 0
beta_s                 ``sHipAngles[0] − sPelvisAngles[0] + alpha``: hip flexion is
                       relative to the pelvis, pelvis tilt (anterior +) is relative
                       to the lab, so the thigh's forward swing is their difference
gamma_s                ``sKneeAngles[0]`` (flexion +)
=====================  ===============================================================
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from models.errors import DataFormatError
from models.gaitdata.angles import foot_markers, lab_axes, sagittal_angles
from models.gaitdata.events import detect_contacts
from models.gaitdata.feet import foot_distance
from models.gaitdata.quirks import quirk
from models.gaitdata.records import ForceRecord, KinematicsRecord

_PELVIS = ("LASI", "RASI", "LPSI", "RPSI", "SACR", "R.ASIS", "L.ASIS", "R.PSIS", "L.PSIS")
_SCALE = {"mm": 1e-3, "cm": 1e-2, "m": 1.0}


def _ezc3d() -> Any:
    try:
        import ezc3d
    except ImportError:
        raise DataFormatError("reading C3D files needs ezc3d, a dependency of gaitblocks missing from this "
                              "environment: pip install ezc3d (or reinstall: pip install -e . in a clone)") from None
    return ezc3d


def _markers(c: Any, warnings: list[str]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], float]:
    labels = [str(x).strip() for x in c["parameters"]["POINT"]["LABELS"]["value"]]
    prefixed = [x for x in labels if ":" in x]
    if prefixed:
        warnings.append(quirk("subject-prefix", f"point labels carry a subject prefix "
                                                f"({prefixed[0].rsplit(':', 1)[0]}:); dropped"))
        labels = [x.rsplit(":", 1)[-1] for x in labels]
    rate = float(c["parameters"]["POINT"]["RATE"]["value"][0])
    if not np.isfinite(rate) or rate <= 0:
        raise DataFormatError(f"POINT:RATE {rate} Hz is not a rate", channel="POINT:RATE")
    unit_v = c["parameters"]["POINT"].get("UNITS", {}).get("value", ["mm"])
    scale = _SCALE.get(str(unit_v[0]).strip().lower() if len(unit_v) else "mm", 1e-3)
    pts = np.asarray(c["data"]["points"])[:3]
    markers, model = {}, {}
    for k, name in enumerate(labels):
        if name.endswith(("Angles", "Moment", "Moments", "Power", "Powers", "Force", "Forces")):
            model[name] = pts[:, k, :].T
        else:
            xyz = pts[:, k, :].T * scale
            markers[name] = np.where((xyz == 0).all(axis=1, keepdims=True), np.nan, xyz)  # Vicon: a gap is 0 0 0
    return markers, model, rate


def frames_declared(path: Path) -> int | None:
    """Point frames the C3D header declares (words 4-5 of the first block: first and last frame),
    read from the raw bytes: ezc3d rewrites its header copy to what it could read. None when
    the header does not say (or holds the 65535 cap of long files)."""
    with open(path, "rb") as f:
        head = f.read(512)
        if len(head) < 20:
            return None
        f.seek(max(head[0] - 1, 0) * 512 + 3)
        proc = f.read(1)
    order = ">" if proc and proc[0] == 86 else "<"  # processor type 86: MIPS, big-endian
    first, last = np.frombuffer(head[6:10], dtype=f"{order}u2")
    if last == 65535 or last < first:
        return None
    return int(last) - int(first) + 1


def check_complete(c: Any, path: Path) -> None:
    """Raise when the file holds fewer frames than its header declares (a truncated file:
    ezc3d reads what is there and stops, without a word)."""
    declared = frames_declared(path)
    read = int(np.asarray(c["data"]["points"]).shape[2])
    if not read:
        read = int(np.asarray(c["data"]["analogs"]).shape[2]) // max(int(c["header"]["analogs"].get(
            "nb_analog_by_frame", 1) or 1), 1)
    rate = float(c["parameters"]["POINT"]["RATE"]["value"][0] or 0.0)
    if declared is not None and read < declared:
        span = f" ({read / rate:.2f} of {declared / rate:.2f} s)" if rate > 0 else ""
        raise DataFormatError(f"truncated file: the header declares {declared} frames, only {read} were read"
                              f"{span}", path=path)


def _subject(c: Any) -> dict[str, Any]:
    """Body mass [kg] and height [m] stored in the C3D parameters, as Vicon Nexus writes them
    (``PROCESSING:Bodymass``, ``PROCESSING:Height`` in mm; also a ``SUBJECTS`` group), with where each
    came from; ``{}`` when none holds a plausible value (mass 10-400 kg, height 0.5-2.5 m)."""
    out: dict[str, Any] = {}
    params = c["parameters"]
    for group in ("PROCESSING", "SUBJECTS", "SUBJECT"):
        grp = params.get(group) or {}
        for key, val in grp.items():
            if not isinstance(val, dict) or "value" not in val:
                continue
            low = key.lower().replace("_", "")
            try:
                v = float(np.asarray(val["value"], dtype=float).reshape(-1)[0])
            except (TypeError, ValueError, IndexError):
                continue
            if low in ("bodymass", "mass", "weight") and "mass_kg" not in out and 10.0 <= v <= 400.0:
                out["mass_kg"], out["mass_source"] = v, f"read from the C3D ({group}:{key})"
            elif low in ("height", "bodyheight") and "height_m" not in out:
                h = v / 1000.0 if v > 10.0 else v  # Vicon writes mm
                if 0.5 <= h <= 2.5:
                    unit = " mm" if v > 10.0 else " m"
                    out["height_m"], out["height_source"] = h, f"read from the C3D ({group}:{key}, {v:g}{unit})"
    return out


def _axes(markers: dict[str, np.ndarray]) -> tuple[int, float, int, float, str]:
    """Lab axes (module doc) and how they were found."""
    pelvis = [markers[n] for n in _PELVIS if n in markers]
    up_vec = np.array([0.0, 0.0, 1.0])
    fwd_vec = np.array([1.0, 0.0, 0.0])
    how = "up = +Z (C3D default)"
    if pelvis:
        stack = np.stack(pelvis)
        seen = np.isfinite(stack).sum(axis=0)
        mid = np.where(seen > 0, np.nansum(stack, axis=0) / np.maximum(seen, 1), np.nan)
        ok = np.isfinite(mid).all(axis=1)
        if ok.sum() >= 2:
            travel = mid[ok][-1] - mid[ok][0]
            travel[int(np.argmax(np.abs(up_vec)))] = 0.0
            if np.linalg.norm(travel) > 0.3:
                fwd_vec, how = travel, how + ", forward = pelvis progression"
    up_ax, up_s, fwd_ax, fwd_s = lab_axes(up_vec, fwd_vec)
    return up_ax, up_s, fwd_ax, fwd_s, how


def read_c3d(path: str | Path) -> tuple[ForceRecord, KinematicsRecord | None]:
    """GRF of both feet (and angles where possible) from a C3D file (module doc)."""
    ezc3d = _ezc3d()
    p = Path(path)
    if not p.is_file():
        raise DataFormatError("file not found", path=p)
    try:
        c = ezc3d.c3d(str(p), extract_forceplat_data=True)
    except Exception as exc:  # ezc3d raises bare RuntimeError/ValueError on bad files
        raise DataFormatError(f"not a readable C3D file ({exc})", path=p) from None
    check_complete(c, p)
    warnings: list[str] = []
    markers, model, rate = _markers(c, warnings)
    up_ax, up_s, fwd_ax, fwd_s, how = _axes(markers)
    kin: KinematicsRecord | None = None
    heels: dict[str, np.ndarray] | None = None
    soles: dict[str, np.ndarray] | None = None
    toes: dict[str, np.ndarray] | None = None
    height: float | None = None
    t_pts = np.arange(np.asarray(c["data"]["points"]).shape[2]) / rate
    marker_error = ""
    try:
        angles, channels, kwarn, heels, soles, toes, height = sagittal_angles(markers, p)
    except DataFormatError as exc:
        angles, channels, kwarn = None, {}, [f"no marker angles: {exc.reason}"]
        marker_error = exc.reason
    pig = [f"{s}{j}Angles" for s in "LR" for j in ("Hip", "Knee", "Pelvis")]
    empty_pig = [n for n in pig if n in model and not (np.isfinite(model[n]) & (model[n] != 0)).any()]
    if empty_pig:
        kwarn.append(quirk("empty-marker", f"Plug-in-Gait output(s) {', '.join(empty_pig)} hold no sample (all NaN "
                                           "or all zero): the angles come from the markers"))
    if all(n in model for n in pig) and not empty_pig:
        alpha = angles[:, 0] if angles is not None else np.zeros(t_pts.shape[0])
        cols = [alpha]
        for s in "LR":
            cols.append(np.radians(model[f"{s}HipAngles"][:, 0] - model[f"{s}PelvisAngles"][:, 0]) + alpha)
        cols += [np.radians(model[f"{s}KneeAngles"][:, 0]) for s in "LR"]
        angles = np.column_stack(cols)
        channels = {"beta_l": "LHipAngles[0] - LPelvisAngles[0] + alpha",
                    "beta_r": "RHipAngles[0] - RPelvisAngles[0] + alpha",
                    "gamma_l": "LKneeAngles[0]", "gamma_r": "RKneeAngles[0]", "alpha": channels.get("alpha", "0")}
    if angles is not None:
        kin = KinematicsRecord(t=t_pts, angles=angles, path=str(p), fmt="c3d", rate_hz=rate,
                               channels=channels, warnings=kwarn, heels=heels, soles=soles, toes=toes, height_m=height)
    plats = c["data"].get("platform", [])
    if not plats:
        raise DataFormatError("no force platforms in the C3D file", path=p, channel="FORCE_PLATFORM")
    a_rate = float(c["parameters"]["ANALOG"]["RATE"]["value"][0])
    if not np.isfinite(a_rate) or a_rate <= 0:
        raise DataFormatError(f"ANALOG:RATE {a_rate} Hz is not a rate", path=p, channel="ANALOG:RATE")
    if abs(a_rate - rate) > 1e-6 * rate:
        warnings.append(quirk("analog-rate", f"forces at {a_rate:g} Hz, markers at {rate:g} Hz; the angles are "
                                             "resampled onto the force times"))
    marker_feet = (heels, toes) if heels is not None and toes is not None else foot_markers(markers)
    n = np.asarray(plats[0]["force"]).shape[1]
    t = np.arange(n) / a_rate
    grf = np.zeros((n, 4))
    feet: list[dict[str, Any]] = []
    for k, plat in enumerate(plats):
        force = np.asarray(plat["force"], dtype=float).T
        cop = np.asarray(plat["center_of_pressure"], dtype=float).T * _SCALE.get(str(plat["unit_position"]), 1e-3)
        vert = force[:, up_ax] * up_s
        if not np.isfinite(vert).any():
            warnings.append(f"plate {k + 1}: no finite force sample; plate ignored")
            continue
        if np.nanmax(vert) < -np.nanmin(vert):
            force, vert = -force, -vert
            warnings.append(f"plate {k + 1}: force on the plate negated to the force on the foot")
        contacts = detect_contacts(t, vert)
        sides = []
        for con in contacts:
            span = slice(con.first, con.last + 1)
            side = "r"
            if marker_feet is not None:
                d = {s: foot_distance(t[span], cop[span], t_pts, marker_feet[0][s], marker_feet[1][s])
                     for s in ("l", "r")}
                side = "l" if d["l"] < d["r"] else "r"
            else:
                warnings.append(quirk("plate-assignment", f"plate {k + 1}: no heel markers, contact given to the "
                                                          "right foot"))
            sides.append(side)
            feet.append({"plate": k + 1, "foot": side, "first": con.first, "last": con.last})
        if not contacts:
            continue
        # every sample of the plate goes to the contact nearest in time (keeps the tails)
        centres = np.array([(con.first + con.last) / 2 for con in contacts])
        owner = np.argmin(np.abs(np.arange(n)[:, None] - centres[None, :]), axis=1)
        for j, side in enumerate(sides):
            sel = owner == j
            col = 0 if side == "l" else 2
            grf[sel, col] += np.nan_to_num(force[sel, fwd_ax] * fwd_s)
            grf[sel, col + 1] += np.nan_to_num(vert[sel])
    if not feet:
        raise DataFormatError("no plate is loaded above 50 N: no footfall found", path=p, channel="FORCE_PLATFORM")
    if {f["foot"] for f in feet} != {"l", "r"}:
        only = "left" if feet[0]["foot"] == "l" else "right"
        if soles is None:
            raise DataFormatError(f"missing foot: the force plates hold contacts of the {only} foot only, and "
                                  "no heel/toe markers to fill the other", path=p, channel="FORCE_PLATFORM")
        warnings.append(quirk("one-foot-plates", f"every plate contact is on the {only} foot; the other foot's "
                                                 "contacts are filled from the heel/toe markers"))
    frc = ForceRecord(t=t, grf=grf, path=str(p), fmt="c3d", rate_hz=a_rate,
                      channels={"axes": f"{how}; up = {'+' if up_s > 0 else '-'}{'XYZ'[up_ax]}, forward = "
                                        f"{'+' if fwd_s > 0 else '-'}{'XYZ'[fwd_ax]}",
                                "footfalls": "; ".join(f"plate {f['plate']} {f['foot'].upper()} samples "
                                                       f"{f['first']}-{f['last']}" for f in feet)},
                      warnings=warnings, footfalls=feet, subject=_subject(c))
    if kin is None and marker_error:
        frc.channels["kinematics_error"] = marker_error
    return frc, kin
