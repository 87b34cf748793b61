"""Write small synthetic C3D trials with ezc3d at test time (one quirk per file).

Walking along -Y of the lab (Z up): the left foot lands on plate 1 (0.2-0.8 s), the right on
plate 2 (0.7-1.3 s), the left again on plate 3 (1.2-1.8 s) when there are three plates. Each
heel marker sits on the plate its foot stands on. Forces are a half-sine of 700 N.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

RATE, N = 100.0, 200
CONTACTS = ((0.2, 0.8), (0.7, 1.3), (1.2, 1.8))          # plate k: foot L, R, L
CENTRES = ((0.0, 0.5), (0.0, -0.3), (0.0, -1.1))          # plate centres (X, Y) m
FEET = ("L", "R", "L")


def stance(tt: np.ndarray, on: float, off: float, peak: float = 700.0) -> np.ndarray:
    ph = (tt - on) / (off - on)
    return np.where((ph > 0) & (ph < 1), peak * np.sin(np.pi * np.clip(ph, 0, 1)), 0.0)


def _param(c, group: str, name: str, arr, integer: bool = False) -> None:
    from ezc3d import ezc3d as sw
    arr = np.asarray(arr)
    p = sw.Parameter(name, "")
    flat = arr.reshape(-1, order="F")
    p.set(sw.VecInt([int(v) for v in flat]) if integer else sw.VecDouble([float(v) for v in flat]),
          [int(s) for s in arr.shape])
    c._storage["parameters"].add_parameter(group, p)


def markers(t: np.ndarray, n_plates: int = 2, pig_centres: bool = False) -> dict[str, np.ndarray]:
    """A lower-body Plug-in-Gait-like marker set (m, lab frame) walking along -Y."""
    y_p = 1.0 - 1.2 * t
    z = 0 * t
    out: dict[str, np.ndarray] = {}
    for side, x in (("L", 0.1), ("R", -0.1)):   # right = forward x up = -X when walking along -Y
        out[f"{side}ASI"] = np.column_stack([x + z, y_p - 0.1, 1.0 + z])
        out[f"{side}PSI"] = np.column_stack([x / 2 + z, y_p + 0.1, 1.05 + z])
        out[f"{side}KNE"] = np.column_stack([x + z, y_p - 0.1, 0.5 + z])
        out[f"{side}ANK"] = np.column_stack([x + z, y_p, 0.1 + z])
        mine = [k for k in range(n_plates) if FEET[k] == side]
        heel_y = np.full(t.shape, CENTRES[mine[0]][1] if mine else 1.5)
        for k in mine[1:]:
            heel_y[t >= CONTACTS[k][0] - 0.15] = CENTRES[k][1]
        out[f"{side}HEE"] = np.column_stack([x + z, heel_y + 0.1, 0.05 + z])
        out[f"{side}TOE"] = np.column_stack([x + z, heel_y - 0.1, 0.05 + z])
        out[f"{side}SHO"] = np.column_stack([x + z, y_p - 0.05, 1.45 + z])
        if pig_centres:
            out[f"{side}FEP"] = np.column_stack([x * 0.8 + z, y_p, 0.9 + z])
            out[f"{side}FEO"] = np.column_stack([x + z, y_p - 0.08, 0.5 + z])
            out[f"{side}TIO"] = np.column_stack([x + z, y_p - 0.01, 0.1 + z])
    return out


def _corners(cx: float, cy: float) -> np.ndarray:
    # C3D plate axes: x = corner1 - corner2, y = corner1 - corner4; here x = +X, y = -Y, z down
    mm = np.array([[cx + 0.3, cy - 0.2, 0], [cx - 0.3, cy - 0.2, 0], [cx - 0.3, cy + 0.2, 0],
                   [cx + 0.3, cy + 0.2, 0]]) * 1000.0
    return mm.T


def write_trial(path: Path, *, plate_type: int = 2, n_plates: int = 2, analog_factor: int = 4,
                drop: tuple[str, ...] = (), nan_runs: dict[str, tuple[float, float]] | None = None,
                pig_angles: bool = False, pig_centres: bool = False, prefix: str = "",
                point_unit: str = "mm", zero_plates: tuple[int, ...] = (), rate: float = RATE,
                n: int = N, empty: dict[str, float] | None = None,
                params: dict[tuple[str, str], list[float]] | None = None) -> Path:
    """One C3D file (module doc); ``drop`` removes markers, ``nan_runs`` blanks marker time spans,
    ``empty`` adds markers holding one value in every frame (NaN, or 0 as Vicon writes gaps),
    ``params`` adds ``(group, name) -> values`` parameters (e.g. ``PROCESSING:Bodymass``)."""
    import ezc3d

    c = ezc3d.c3d()
    t = np.arange(n) / rate
    xyz = {k: v for k, v in markers(t, n_plates, pig_centres).items() if k not in drop}
    for name, value in (empty or {}).items():
        xyz[name] = np.full((n, 3), value)
    scale = {"mm": 1000.0, "m": 1.0}[point_unit]
    names, pts = [], []
    for name, v in xyz.items():
        v = v * scale
        if nan_runs and name in nan_runs:
            a, b = nan_runs[name]
            v = v.copy()
            v[(t >= a) & (t <= b)] = np.nan
        names.append(prefix + name)
        pts.append(v)
    if pig_angles:
        for side in "LR":
            for j, val in (("Hip", 20.0), ("Knee", 30.0), ("Pelvis", 5.0)):
                names.append(f"{prefix}{side}{j}Angles")
                pts.append(np.column_stack([np.full(n, val), np.zeros(n), np.zeros(n)]))
    p = np.ones((4, len(names), n))
    p[:3] = np.stack(pts, axis=1).transpose(2, 1, 0)
    c["parameters"]["POINT"]["RATE"]["value"] = [rate]
    c["parameters"]["POINT"]["LABELS"]["value"] = tuple(names)
    c["parameters"]["POINT"]["UNITS"]["value"] = [point_unit]
    c["data"]["points"] = p
    na = n * analog_factor
    ta = np.arange(na) / (rate * analog_factor)
    per = {1: 6, 2: 6, 3: 8, 4: 6}[plate_type]
    an = np.zeros((1, per * n_plates, na))
    for k in range(n_plates):
        f = 0.0 * ta if k in zero_plates else stance(ta, *CONTACTS[k])
        base = per * k
        if plate_type == 3:                 # fx12 fx34 fy14 fy23 fz1 fz2 fz3 fz4, load at the centre
            an[0, base + 2] = 0.05 * f      # plate y = lab -Y: a forward push
            an[0, base + 4:base + 8] = -f / 4.0
        else:
            an[0, base + 1] = 0.1 * f
            an[0, base + 2] = -f
    c["parameters"]["ANALOG"]["RATE"]["value"] = [rate * analog_factor]
    c["parameters"]["ANALOG"]["LABELS"]["value"] = tuple(f"A{i + 1}" for i in range(per * n_plates))
    c["parameters"]["ANALOG"]["UNITS"]["value"] = ["N"] * (per * n_plates)
    c["data"]["analogs"] = an
    _param(c, "FORCE_PLATFORM", "USED", [n_plates], True)
    _param(c, "FORCE_PLATFORM", "TYPE", [plate_type] * n_plates, True)
    _param(c, "FORCE_PLATFORM", "ZERO", [1, 0], True)
    _param(c, "FORCE_PLATFORM", "CORNERS", np.stack([_corners(*CENTRES[k]) for k in range(n_plates)], axis=2))
    origin = [200.0, 300.0, -40.0] if plate_type == 3 else [0.0, 0.0, -40.0]
    _param(c, "FORCE_PLATFORM", "ORIGIN", np.array([origin] * n_plates).T)
    _param(c, "FORCE_PLATFORM", "CHANNEL", np.array([[per * k + i + 1 for k in range(n_plates)]
                                                     for i in range(per)]), True)
    if plate_type == 4:
        _param(c, "FORCE_PLATFORM", "CAL_MATRIX", np.stack([np.eye(6)] * n_plates, axis=2))
    for (group, name), values in (params or {}).items():
        _param(c, group, name, values)
    c.write(str(path))
    return path


def write_walk(path: Path, *, duration: float = 4.0, on_plates: tuple[int, ...] = (2, 3, 4, 5),
               rate: float = RATE, speed: float = 1.2) -> Path:
    """A C3D of steady walking along +X (Z up) whose feet move as in gait, for windows.

    Contacts (stride 1.0 s, stance 0.6 s): left heel strikes at 0.2 + k s, right at 0.7 + k s
    (the right foot also stands at the start, cut by the recording: -0.3-0.3 s). Contacts are
    numbered in time order from 0 (left 0.2 s) and those in ``on_plates`` stand on a force plate
    of their own (type 2, load at its centre = the foot's centre); the others are steps on the
    bare floor, seen only by the heel and toe markers. Default: plates under 1.2 L, 1.7 R, 2.2 L,
    2.7 R; floor steps 0.2 L, 0.7 R, 3.2 L (whole) and the cut ones at the ends.
    """
    import ezc3d

    n = int(round(duration * rate))
    t = np.arange(n) / rate
    strikes = sorted([(0.2 + k, "L") for k in range(int(duration) + 1)] +
                     [(-0.3 + k, "R") for k in range(int(duration) + 2)])
    feet: dict[str, list[tuple[float, float]]] = {"L": [], "R": []}
    for ts, side in strikes:
        feet[side].append((ts, speed * (ts + 0.3)))   # strike time, foot x (the body passes it mid-stance)
    xyz: dict[str, np.ndarray] = {}
    for side, y in (("L", 0.1), ("R", -0.1)):
        fx, fz = np.zeros(n), np.zeros(n)
        steps = feet[side]
        for (t0, x0), (t1, x1) in zip(steps[:-1], steps[1:]):
            st = (t >= t0) & (t < t0 + 0.6)
            fx[st] = x0
            sw = (t >= t0 + 0.6) & (t < t1)
            ph = (t[sw] - t0 - 0.6) / (t1 - t0 - 0.6)
            fx[sw] = x0 + (x1 - x0) * 0.5 * (1 - np.cos(np.pi * ph))
            fz[sw] = 0.12 * np.sin(np.pi * ph)
        fx[t < steps[0][0]] = steps[0][1]
        pel = speed * t
        xyz[f"{side}HEE"] = np.column_stack([fx - 0.1, y + 0 * t, 0.05 + fz])
        xyz[f"{side}TOE"] = np.column_stack([fx + 0.1, y + 0 * t, 0.05 + fz])
        xyz[f"{side}ANK"] = np.column_stack([fx - 0.05, y + 0 * t, 0.1 + fz])
        hip = np.column_stack([pel, y + 0 * t, 0.9 + 0 * t])
        ank = xyz[f"{side}ANK"]
        xyz[f"{side}KNE"] = 0.5 * (hip + ank) + np.array([0.04, 0.0, 0.0])
        xyz[f"{side}ASI"] = np.column_stack([pel + 0.1, y + 0 * t, 1.0 + 0 * t])
        xyz[f"{side}PSI"] = np.column_stack([pel - 0.1, y / 2 + 0 * t, 1.05 + 0 * t])
        xyz[f"{side}SHO"] = np.column_stack([pel + 0.05, y + 0 * t, 1.45 + 0 * t])
    c = ezc3d.c3d()
    names = list(xyz)
    p = np.ones((4, len(names), n))
    p[:3] = np.stack([xyz[k] * 1000.0 for k in names], axis=1).transpose(2, 1, 0)
    c["parameters"]["POINT"]["RATE"]["value"] = [rate]
    c["parameters"]["POINT"]["LABELS"]["value"] = tuple(names)
    c["parameters"]["POINT"]["UNITS"]["value"] = ["mm"]
    c["data"]["points"] = p
    contacts = [(ts, side, next(x for s, x in feet[side] if s == ts)) for ts, side in strikes if ts >= 0]
    plates = [contacts[k] for k in on_plates]
    fa = 4
    na = n * fa
    ta = np.arange(na) / (rate * fa)
    an = np.zeros((1, 6 * len(plates), na))
    corners = []
    for k, (ts, side, x) in enumerate(plates):
        f = stance(ta, ts, ts + 0.6)
        an[0, 6 * k] = 0.1 * f          # plate x = lab +X: a forward push
        an[0, 6 * k + 2] = -f           # plate z down
        cy = 0.1 if side == "L" else -0.1
        corners.append(np.array([[x + 0.25, cy - 0.2, 0], [x - 0.25, cy - 0.2, 0], [x - 0.25, cy + 0.2, 0],
                                 [x + 0.25, cy + 0.2, 0]]).T * 1000.0)
    c["parameters"]["ANALOG"]["RATE"]["value"] = [rate * fa]
    c["parameters"]["ANALOG"]["LABELS"]["value"] = tuple(f"A{i + 1}" for i in range(6 * len(plates)))
    c["parameters"]["ANALOG"]["UNITS"]["value"] = ["N"] * (6 * len(plates))
    c["data"]["analogs"] = an
    _param(c, "FORCE_PLATFORM", "USED", [len(plates)], True)
    _param(c, "FORCE_PLATFORM", "TYPE", [2] * len(plates), True)
    _param(c, "FORCE_PLATFORM", "ZERO", [1, 0], True)
    _param(c, "FORCE_PLATFORM", "CORNERS", np.stack(corners, axis=2))
    _param(c, "FORCE_PLATFORM", "ORIGIN", np.array([[0.0, 0.0, -40.0]] * len(plates)).T)
    _param(c, "FORCE_PLATFORM", "CHANNEL", np.array([[6 * k + i + 1 for k in range(len(plates))]
                                                     for i in range(6)]), True)
    c.write(str(path))
    return path
