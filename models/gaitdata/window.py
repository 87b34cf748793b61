"""The usable window of a trial: where both feet's GRF and all five angles are measured.

Order of work (so a gap outside the part the user wants never rejects the file):

1. find, per channel, the NaN runs longer than ``MAX_GAP_S`` (short runs are filled later
   with PCHIP, :func:`models.gaitdata.preprocess.fill_gaps`);
2. a GRF sample is *usable* when no force channel is inside such a run and, with kinematics,
   the angle samples on both sides of it are usable too; only the span both files cover counts;
3. *usable windows* are the runs of usable samples at least ``MIN_WINDOW_S`` long;
4. the window used is ``[start, end]`` when the user gives one (a long gap inside it is then
   one :class:`DataFormatError` naming the channel and time span), else the longest usable
   window (a ``window`` warning says so when it is not the whole overlap).

The records are then cropped to the window *before* gaps are filled and values validated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from models.dataset import ANGLE_NAMES, GRF_COLUMNS
from models.errors import DataFormatError
from models.gaitdata.preprocess import MAX_GAP_S
from models.gaitdata.quirks import quirk
from models.gaitdata.records import ForceRecord, KinematicsRecord

#: shortest usable window, s (about one step)
MIN_WINDOW_S = 0.5


@dataclass(frozen=True)
class Gap:
    """A NaN run longer than ``MAX_GAP_S``: channel, first and last missing time (s)."""

    channel: str
    start_s: float
    end_s: float

    def text(self) -> str:
        return f"{self.channel} {self.start_s:.3f}-{self.end_s:.3f} s"


def long_gaps(t: np.ndarray, y: np.ndarray, names: Sequence[str], max_gap_s: float = MAX_GAP_S) -> list[Gap]:
    """NaN runs of ``y`` (N, C) longer than ``max_gap_s`` (same span rule as ``fill_gaps``)."""
    out = []
    n = t.shape[0]
    for j in range(y.shape[1]):
        bad = np.isnan(y[:, j])
        if not bad.any():
            continue
        edges = np.flatnonzero(np.diff(np.r_[0, bad.astype(np.int8), 0]))
        for a, b in zip(edges[::2], edges[1::2]):
            if bad.all() or float(t[min(b, n - 1)] - t[max(a - 1, 0)]) > max_gap_s:
                out.append(Gap(names[j], float(t[a]), float(t[b - 1])))
    return out


def angle_labels(kin: KinematicsRecord) -> list[str]:
    """Angle channel names with the markers each comes from (marker files), for gap messages."""
    ch = kin.channels
    if "knee_l" not in ch:
        return list(ANGLE_NAMES)
    src = {"alpha": ["hip_l", "hip_r"], "beta_l": ["hip_l", "knee_l"], "beta_r": ["hip_r", "knee_r"],
           "gamma_l": ["hip_l", "knee_l", "ankle_l"], "gamma_r": ["hip_r", "knee_r", "ankle_r"]}
    out = []
    for name in ANGLE_NAMES:
        used = [ch[k] for k in src[name] if k in ch]
        if name == "alpha" and "alpha" in ch:
            used.append(ch["alpha"])
        out.append(f"{name} (markers {', '.join(used)})" if used else name)
    return out


def _usable(t: np.ndarray, gaps: list[Gap]) -> np.ndarray:
    ok = np.ones(t.shape[0], dtype=bool)
    for g in gaps:
        ok &= ~((t >= g.start_s - 1e-9) & (t <= g.end_s + 1e-9))
    return ok


def usable_windows(frc: ForceRecord, kin: KinematicsRecord | None) -> tuple[list[tuple[float, float]], list[Gap]]:
    """Usable windows ``[(start, end)]`` in s on the GRF clock, and the long gaps found (module doc)."""
    t = frc.t
    gaps = long_gaps(t, frc.grf, GRF_COLUMNS)
    ok = _usable(t, gaps)
    if kin is not None:
        kgaps = long_gaps(kin.t, kin.angles, angle_labels(kin))
        gaps += kgaps
        kok = _usable(kin.t, kgaps).astype(float)
        ok &= np.interp(t, kin.t, kok, left=0.0, right=0.0) > 0.999
        ok &= (t >= kin.t[0] - 1e-9) & (t <= kin.t[-1] + 1e-9)
    d = np.diff(np.r_[0, ok.astype(np.int8), 0])
    runs = zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1) - 1, strict=True)
    wins = [(float(t[a]), float(t[b])) for a, b in runs if t[b] - t[a] >= MIN_WINDOW_S - 1e-9]
    return wins, gaps


def choose_window(frc: ForceRecord, kin: KinematicsRecord | None, start: float | None, end: float | None
                  ) -> tuple[float, float, list[str], dict[str, object]]:
    """``(lo, hi, warnings, info)``: the window to crop to (module doc), ``info`` for ``meta.extra``."""
    wins, gaps = usable_windows(frc, kin)
    lo_all = max(frc.t[0], kin.t[0]) if kin is not None else frc.t[0]
    hi_all = min(frc.t[-1], kin.t[-1]) if kin is not None else frc.t[-1]
    info: dict[str, object] = {"usable_windows": [[round(a, 4), round(b, 4)] for a, b in wins],
                               "long_gaps": [g.text() for g in gaps]}
    notes: list[str] = []
    if start is not None or end is not None:
        lo = lo_all if start is None else max(float(start), lo_all)
        hi = hi_all if end is None else min(float(end), hi_all)
        if hi - lo <= 0:
            raise DataFormatError(f"window {start}-{end} s holds no data (the files cover {lo_all:.3f}-"
                                  f"{hi_all:.3f} s)", path=frc.path)
        how = "given"
    elif not gaps:
        lo, hi, how = float(lo_all), float(hi_all), "whole recording"
    elif not wins:
        first = gaps[0]
        raise DataFormatError(f"no usable window of {MIN_WINDOW_S} s: NaN run {first.start_s:.3f}-{first.end_s:.3f} s "
                              f"is longer than {MAX_GAP_S * 1000:.0f} ms (and {len(gaps) - 1} more long gaps)",
                              path=kin.path if kin is not None and first.channel not in GRF_COLUMNS else frc.path,
                              channel=first.channel)
    else:
        lo, hi = max(wins, key=lambda w: w[1] - w[0])
        how = "automatic"
        notes.append(quirk("window", f"usable window {lo:.3f}-{hi:.3f} s chosen automatically (of "
                                     f"{len(wins)} usable: " + ", ".join(f"{a:.2f}-{b:.2f}" for a, b in wins) + ")"))
    outside = [g for g in gaps if g.end_s < lo - 1e-9 or g.start_s > hi + 1e-9]
    for g in outside:
        notes.append(quirk("long-gap-outside", f"NaN run {g.text()} lies outside the window used; ignored"))
    info["window_s"] = [round(lo, 4), round(hi, 4)]
    info["window_source"] = how
    return lo, hi, notes, info


def crop_force(frc: ForceRecord, lo: float, hi: float) -> ForceRecord:
    keep = (frc.t >= lo - 1e-9) & (frc.t <= hi + 1e-9)
    if keep.sum() < 2:
        raise DataFormatError(f"window {lo:.3f}-{hi:.3f} s keeps fewer than 2 force samples", path=frc.path)
    return replace(frc, t=frc.t[keep], grf=frc.grf[keep], cop_x=None if frc.cop_x is None else frc.cop_x[keep])


def crop_kinematics(kin: KinematicsRecord, lo: float, hi: float) -> KinematicsRecord:
    """The samples in ``[lo, hi]`` plus one on each side (for the resampling onto the GRF times)."""
    idx = np.flatnonzero((kin.t >= lo - 1e-9) & (kin.t <= hi + 1e-9))
    if idx.size == 0:
        raise DataFormatError(f"window {lo:.3f}-{hi:.3f} s holds no kinematics sample", path=kin.path)
    a, b = max(int(idx[0]) - 1, 0), min(int(idx[-1]) + 2, kin.t.shape[0])
    if np.isnan(kin.angles[a]).any():
        a += 1
    if np.isnan(kin.angles[b - 1]).any():
        b -= 1
    if b - a < 2:
        raise DataFormatError(f"window {lo:.3f}-{hi:.3f} s keeps fewer than 2 kinematics samples", path=kin.path)

    def cut(d: dict[str, np.ndarray] | None) -> dict[str, np.ndarray] | None:
        return None if d is None else {k: v[a:b] for k, v in d.items()}

    return replace(kin, t=kin.t[a:b], angles=kin.angles[a:b], heels=cut(kin.heels), soles=cut(kin.soles),
                   toes=cut(kin.toes))
