"""Sagittal joint angles from markers, in the models.biped convention.

Landmarks (names matched case-insensitively after dropping ``.``, ``_``, ``-`` and spaces;
side prefix ``R``/``L``/``Right``/``Left``):

===========  =====================================================================
landmark     marker names tried, in order
===========  =====================================================================
hip          GTR, GTRO, TROCH, HIP, HJC, FH; else from ASIS (+ PSIS/sacrum):
             mid-ASIS + 0.19·PW backward + 0.30·PW down (Bell et al. 1990, PW = ASIS width)
knee         KNEE, LEK, LFE, KNE, LKNE (averaged with KNEEMEDIAL/MEK/MFE when present)
ankle        ANKLE, LM, ANK, LMAL (averaged with ANKLEMEDIAL/MM/MMAL when present)
heel         HEEL, HEE, CAL, CA
toe          MT2, MT1, MT5, TOE, TOETIP, MT, TOE
shoulder     ACROMIUM, ACROMION, SHO, SHOULDER, ACR (both sides averaged); else C7, STERNUM
===========  =====================================================================

Axes: the vertical axis is the lab axis along which the hips stand furthest above the
ankles (its sign gives "up"); the forward axis is the horizontal axis along which the toes
lie furthest ahead of the heels (works on treadmills too). Points are projected onto
(forward, up).

Sign table (φ = segment angle from the downward vertical, positive = distal end forward):

===================  ===============================================================
model angle          from the projected landmarks
===================  ===============================================================
alpha (trunk fwd +)  atan2(x_sh − x_hip, y_sh − y_hip), hip = mid of both hips
                     (0 with a warning when no shoulder marker exists)
beta (thigh/trunk)   φ_thigh + alpha,  φ_thigh = atan2(x_knee − x_hip, y_hip − y_knee)
gamma (knee flex +)  φ_thigh − φ_shank, φ_shank = atan2(x_ankle − x_knee, y_knee − y_ankle)
===================  ===============================================================

These follow from the models.biped convention: thigh θ1 = alpha − beta = −φ_thigh, shank θ2 = alpha − beta +
gamma = −φ_shank. The marker lines are not the joint axes of a calibrated model, so the
angles carry an offset of a few degrees (the knee marker sits on the lateral epicondyle).
"""

from __future__ import annotations

import re
from warnings import catch_warnings, simplefilter

import numpy as np

from models.errors import DataFormatError
from models.gaitdata.quirks import quirk
from models.gaitdata.subject import stature_from_legs

_HIP = ("FEP", "HJC", "GTR", "GTRO", "TROCH", "HIP", "FH")
_KNEE = ("FEO", "KJC", "KNEE", "LEK", "LFE", "KNE", "LKNE")
_KNEE_MED = ("KNEEMEDIAL", "MEK", "MFE", "MKNE")
_ANKLE = ("TIO", "AJC", "ANKLE", "LM", "ANK", "LMAL")
_ANKLE_MED = ("ANKLEMEDIAL", "MM", "MMAL")
_HEEL = ("HEEL", "HEE", "CAL", "CA")
_TOE = ("MT2", "MT1", "MT5", "TOE", "TOETIP", "MT", "TOELAT", "MIDFOOTSUP", "FOO", "FMH", "FM2")
_SHOULDER = ("ACROMIUM", "ACROMION", "SHO", "SHOULDER", "ACR")
_ASIS = ("ASIS", "ASI")
_BACK = ("PSIS", "PSI")
#: Plug-in-Gait joint centres (virtual markers): femur proximal/origin, tibia origin
_JOINT_CENTRES = {"FEP", "HJC", "FEO", "KJC", "TIO", "AJC"}
_TRUNK = ("C7", "STERNUM", "STRN", "CLAV", "T10", "RIBCAGE", "TRXO")


def _key(name: str) -> str:
    """Upper-case name without separators and without a Nexus ``Subject:`` prefix."""
    return re.sub(r"[\s._\-]+", "", name.rsplit(":", 1)[-1]).upper()


def _index(xyz: dict[str, np.ndarray]) -> dict[tuple[str, str], str]:
    """``(side, bare key) -> marker name`` for side-prefixed markers, ``("", key)`` otherwise."""
    out: dict[tuple[str, str], str] = {}
    for name in xyz:
        k = _key(name)
        for prefix, side in (("RIGHT", "r"), ("LEFT", "l"), ("R", "r"), ("L", "l")):
            if k.startswith(prefix) and len(k) > len(prefix):
                out.setdefault((side, k[len(prefix):]), name)
        out.setdefault(("", k), name)
    return out


def _find(xyz: dict[str, np.ndarray], idx: dict[tuple[str, str], str], side: str,
          keys: tuple[str, ...]) -> tuple[np.ndarray, str] | None:
    for k in keys:
        name = idx.get((side, k))
        if name is not None:
            return xyz[name], name
    return None


def drop_empty(xyz: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], list[str]]:
    """The markers that hold samples, and an ``empty-marker`` warning naming the others.

    A marker whose every frame is NaN, or exactly (0, 0, 0) (Vicon writes a gap as zeros), is
    absent: the landmark search then falls back as for a marker set without it (another marker,
    the pelvis estimate, or alpha = 0 with the ``no-trunk-marker`` warning).
    """
    empty = [n for n, v in xyz.items() if not (np.isfinite(v) & (v != 0)).any()]
    if not empty:
        return xyz, []
    kept = {n: v for n, v in xyz.items() if n not in empty}
    shown = ", ".join(empty[:8]) + (f" (+{len(empty) - 8} more)" if len(empty) > 8 else "")
    return kept, [quirk("empty-marker", f"marker(s) {shown} hold no sample (all NaN or all zero): taken as absent")]


def lab_axes(up_vec: np.ndarray, fwd_vec: np.ndarray) -> tuple[int, float, int, float]:
    """``(up axis, its sign, forward axis, its sign)`` from mean "up" and "forward" vectors."""
    up_ax = int(np.argmax(np.abs(up_vec)))
    horiz = [a for a in range(3) if a != up_ax]
    fwd_ax = horiz[int(np.argmax(np.abs(fwd_vec[horiz])))]
    return up_ax, float(np.sign(up_vec[up_ax]) or 1.0), fwd_ax, float(np.sign(fwd_vec[fwd_ax]) or 1.0)


def sagittal_angles(xyz: dict[str, np.ndarray], path: object) -> tuple[
        np.ndarray, dict[str, str], list[str], dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray],
        float | None]:
    """``(angles (N, 5) rad, channels used, warnings, heels, soles, toes, height m)`` from markers.

    ``heels`` / ``toes`` ``{"l", "r"}``: (N, 3) heel / toe (or ankle) marker positions in the lab frame, m;
    ``soles`` ``{"l", "r"}``: (N, 2, 2) heel and toe markers projected onto (forward, up), m
    (the ankle stands in for a missing heel or toe marker).

    Raises
    ------
    DataFormatError
        A landmark needed for a leg is missing (naming the markers looked for).
    """
    kept, warnings = drop_empty(xyz)
    try:
        return _sagittal_angles(kept, path, warnings)
    except DataFormatError as exc:
        empty = [n for n in xyz if n not in kept]
        if not empty:
            raise
        raise DataFormatError(f"{exc.reason} (present but holding no sample: {', '.join(empty[:8])})", path=path,
                              channel=exc.channel) from None


def _sagittal_angles(xyz: dict[str, np.ndarray], path: object, warnings: list[str]) -> tuple[
        np.ndarray, dict[str, str], list[str], dict[str, np.ndarray], dict[str, np.ndarray], dict[str, np.ndarray],
        float | None]:
    idx = _index(xyz)
    channels: dict[str, str] = {}
    land: dict[str, dict[str, np.ndarray]] = {"hip": {}, "knee": {}, "ankle": {}, "heel": {}, "toe": {}}
    for side in ("l", "r"):
        parts: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
            ("knee", _KNEE, _KNEE_MED), ("ankle", _ANKLE, _ANKLE_MED))
        for part, keys, med in parts:
            found = _find(xyz, idx, side, keys)
            if found is None:
                raise DataFormatError(f"no {'left' if side == 'l' else 'right'} {part} marker "
                                      f"(looked for {side.upper()}.{'/'.join(keys)})", path=path,
                                      channel=f"{side.upper()}.{part}")
            arr, name = found
            medial = None if _key(name)[1:] in _JOINT_CENTRES else _find(xyz, idx, side, med)
            if medial is not None:
                arr = 0.5 * (arr + medial[0])
                name = f"mean({name}, {medial[1]})"
            land[part][side], channels[f"{part}_{side}"] = arr, name
    for side in ("l", "r"):
        hip = _find(xyz, idx, side, _HIP) or _hip_from_pelvis(xyz, idx, side, path, warnings, land["knee"])
        land["hip"][side], channels[f"hip_{side}"] = hip
        ends: tuple[tuple[str, tuple[str, ...]], ...] = (("heel", _HEEL), ("toe", _TOE))
        for part, keys in ends:
            f = _find(xyz, idx, side, keys)
            land[part][side] = land["ankle"][side] if f is None else f[0]
    used = sorted(n for k, n in channels.items() if _key(n.split("(")[-1].split(",")[0])[1:] in _JOINT_CENTRES)
    if used:
        warnings.append(quirk("pig-joint-centres", f"Plug-in-Gait joint centres used as landmarks: {', '.join(used)}"))
    if any(":" in n for n in xyz):
        warnings.append(quirk("subject-prefix", f"marker labels carry a subject prefix "
                                                f"({next(n for n in xyz if ':' in n).rsplit(':', 1)[0]}:); dropped"))
    hip_mid = 0.5 * (land["hip"]["l"] + land["hip"]["r"])
    ankle_mid = 0.5 * (land["ankle"]["l"] + land["ankle"]["r"])
    with catch_warnings():  # an all-NaN marker gives NaN here, reported just below
        simplefilter("ignore", RuntimeWarning)
        up_vec = np.nanmean(hip_mid - ankle_mid, axis=0)
        fwd_vec = np.nanmean(land["toe"]["l"] + land["toe"]["r"] - land["heel"]["l"] - land["heel"]["r"], axis=0)
    if not (np.isfinite(up_vec).all() and np.isfinite(fwd_vec).all()):
        which = "hip and ankle" if not np.isfinite(up_vec).all() else "heel and toe"
        raise DataFormatError(f"cannot find the lab axes: the {which} markers hold no sample", path=path)
    up_ax, up_s, fwd_ax, fwd_s = lab_axes(up_vec, fwd_vec)
    fwd_name = f"{'+' if fwd_s > 0 else '-'}{'XYZ'[fwd_ax]}"
    channels["axes"] = f"forward = {fwd_name}, up = {'+' if up_s > 0 else '-'}{'XYZ'[up_ax]}"

    def xy(p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return p[:, fwd_ax] * fwd_s, p[:, up_ax] * up_s

    hx, hy = xy(hip_mid)
    shoulder = _shoulder(xyz, idx)
    if shoulder is None:
        alpha = np.zeros(hx.shape[0])
        warnings.append(quirk("no-trunk-marker", "no shoulder/acromion/C7/sternum/clavicle marker (looked for "
                                                 f"{'/'.join(_SHOULDER + _TRUNK)}): trunk angle alpha taken as 0"))
    else:
        sx, sy = xy(shoulder[0])
        alpha = np.arctan2(sx - hx, sy - hy)
        channels["alpha"] = f"line hip centre -> {shoulder[1]}"
    cols = [alpha]
    phis = {}
    for side in ("l", "r"):
        hxs, hys = xy(land["hip"][side])
        kx, ky = xy(land["knee"][side])
        ax_, ay = xy(land["ankle"][side])
        phis[side] = (np.arctan2(kx - hxs, hys - ky), np.arctan2(ax_ - kx, ky - ay))
    cols += [phis["l"][0] + alpha, phis["r"][0] + alpha]
    cols += [phis["l"][0] - phis["l"][1], phis["r"][0] - phis["r"][1]]
    heels = {s: land["heel"][s] for s in ("l", "r")}
    toes = {s: land["toe"][s] for s in ("l", "r")}
    height = stature_from_legs(land["hip"], land["knee"], land["ankle"])
    soles = {s: np.stack([np.column_stack(xy(land[end][s])) for end in ("heel", "toe")], axis=1)
             for s in ("l", "r")}
    return np.column_stack(cols), channels, warnings, heels, soles, toes, height


def foot_markers(xyz: dict[str, np.ndarray]) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None:
    """``(heels, toes)`` (N, 3) per side from the heel/toe (else ankle) markers alone, or None."""
    xyz, _ = drop_empty(xyz)
    idx = _index(xyz)
    heels, toes = {}, {}
    for side in ("l", "r"):
        ankle = _find(xyz, idx, side, _ANKLE)
        heel = _find(xyz, idx, side, _HEEL) or ankle
        toe = _find(xyz, idx, side, _TOE) or ankle
        if heel is None or toe is None:
            return None
        heels[side], toes[side] = heel[0], toe[0]
    return heels, toes


def _shoulder(xyz: dict[str, np.ndarray], idx: dict[tuple[str, str], str]) -> tuple[np.ndarray, str] | None:
    both = [_find(xyz, idx, s, _SHOULDER) for s in ("l", "r")]
    got = [b for b in both if b is not None]
    if got:
        mean = np.mean(np.stack([g[0] for g in got]), axis=0)
        return mean, " + ".join(g[1] for g in got)
    for k in _TRUNK:
        name = idx.get(("", k))
        if name is not None and np.isfinite(xyz[name]).any():
            return xyz[name], name
    return None


def _hip_from_pelvis(xyz: dict[str, np.ndarray], idx: dict[tuple[str, str], str], side: str,
                     path: object, warnings: list[str] | None = None,
                     knees: dict[str, np.ndarray] | None = None) -> tuple[np.ndarray, str]:
    """Hip centre estimate from the pelvis markers (Bell et al. 1990, sagittal part).

    The pelvis frame: lateral ``l`` = L→R ASIS, forward ``f`` = rear (PSIS/sacrum) → mid-ASIS,
    up ``u = l × f``; hip = mid-ASIS − 0.19·PW·f − 0.30·PW·u (PW = ASIS distance). Without
    PSIS/sacrum markers, up is first taken along the mid-knee → mid-ASIS line, ``f = u × l``
    and ``u = l × f`` (a warning ``no-psis`` says so). Frames where a marker is missing are NaN
    (gaps, handled downstream).
    """
    asis = {s: _find(xyz, idx, s, _ASIS) for s in ("l", "r")}
    looked = f"{'/'.join(_HIP)}, or the ASIS pair ({'/'.join(_ASIS)}) with {'/'.join(_BACK)}/SACR"
    if asis["l"] is None or asis["r"] is None:
        raise DataFormatError(f"no {'left' if side == 'l' else 'right'} hip marker (looked for {looked})",
                              path=path, channel=f"{side.upper()}.GTR")
    left, right = asis["l"], asis["r"]
    la, ra = left[0], right[0]
    if not (np.isfinite(la).all(axis=1) & np.isfinite(ra).all(axis=1)).any():
        raise DataFormatError(f"no {'left' if side == 'l' else 'right'} hip marker and the ASIS markers hold no "
                              f"sample (looked for {looked})", path=path, channel=f"{left[1]}, {right[1]}")
    mid = 0.5 * (la + ra)
    pw = np.linalg.norm(ra - la, axis=1, keepdims=True)
    lat = (ra - la) / pw
    back = [_find(xyz, idx, s, _BACK) for s in ("l", "r")]
    back_pts = [b[0] for b in back if b is not None and np.isfinite(b[0]).any()]
    sacrum = idx.get(("", "VSACRAL")) or idx.get(("", "SACRUM")) or idx.get(("", "SACR"))
    if sacrum is not None and np.isfinite(xyz[sacrum]).any():
        back_pts.append(xyz[sacrum])
    with np.errstate(invalid="ignore", divide="ignore"):
        if back_pts:
            rear = sum(back_pts) / len(back_pts)
            fwd = mid - rear
            fwd /= np.linalg.norm(fwd, axis=1, keepdims=True)
            up = np.cross(lat, fwd)
        else:
            if knees is None or len(knees) < 2:
                raise DataFormatError(f"no PSIS/sacrum marker to orient the pelvis for the hip estimate (looked "
                                      f"for {looked})", path=path, channel="PSIS")
            up0 = mid - 0.5 * (knees["l"] + knees["r"])
            up0 /= np.linalg.norm(up0, axis=1, keepdims=True)
            fwd = np.cross(up0, lat)
            fwd /= np.linalg.norm(fwd, axis=1, keepdims=True)
            up = np.cross(lat, fwd)
            note = quirk("no-psis", "no PSIS/sacrum marker: pelvis oriented by the knee -> ASIS line for the "
                                    "hip-centre estimate")
            if warnings is not None and note not in warnings:
                warnings.append(note)
    ok = np.isfinite(up).all(axis=1)
    if not ok.any():
        raise DataFormatError(f"the pelvis markers ({left[1]}, {right[1]}) never hold a full frame: cannot "
                              f"estimate the hip (looked for {looked})", path=path, channel=f"{side.upper()}.GTR")
    mean_up = up[ok].mean(axis=0)
    up_dir = np.sign(mean_up[int(np.argmax(np.abs(mean_up)))])
    up *= up_dir if up_dir != 0 else 1.0
    hip = mid - 0.19 * pw * fwd - 0.30 * pw * up
    return hip, f"Bell estimate from {(left if side == 'l' else right)[1]}"
