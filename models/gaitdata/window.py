"""The usable window of a trial: where both feet's GRF and all five angles are measured.

Order of work (so a gap outside the part the user wants never rejects the file):

1. find, per channel, the NaN runs longer than ``MAX_GAP_S`` (short runs are filled later
   with PCHIP, :func:`models.gaitdata.preprocess.fill_gaps`);
2. a GRF sample is *usable* when no force channel is inside such a run and, with kinematics,
   the angle samples on both sides of it are usable too; only the span both files cover counts;
3. *usable windows* are the runs of usable samples at least ``MIN_WINDOW_S`` long;
4. the window used is ``[start, end]`` when the user gives one (a long gap inside it is then
   one :class:`DataFormatError` naming the channel and time span), else the longest usable
   window (a ``window`` warning says so when it is not the whole overlap);
5. without ``start``/``end``, when the heel/toe markers show whole foot contacts that no force
   plate measured (:mod:`models.gaitdata.offplate`; steps on the bare floor), the window is
   narrowed to the longest part of it in which every foot contact is on a plate and that holds
   a whole gait cycle (two plate heel strikes of one foot): a ``window-plates`` warning names
   the window and the off-plate contacts left out. When no such part holds a whole cycle, the
   window stays and the warning says the off-plate contacts will be filled from the markers.
   A contact cut by the recording's start or end is not a whole step on the floor: it stays in
   the window and a run fills it, aligned at its toe-off or heel strike (as on demotu ``walk1``,
   whose right foot stands off the plates for the first 0.30 s).

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
    if how != "given":
        plates = plate_window(frc, kin, float(lo), float(hi))
        if plates is not None:
            if (plates[0], plates[1]) != (lo, hi):
                how = "automatic: every foot contact on a force plate"
            lo, hi = plates[0], plates[1]
            notes.append(plates[2])
    outside = [g for g in gaps if g.end_s < lo - 1e-9 or g.start_s > hi + 1e-9]
    for g in outside:
        notes.append(quirk("long-gap-outside", f"NaN run {g.text()} lies outside the window used; ignored"))
    info["window_s"] = [round(lo, 4), round(hi, 4)]
    info["window_source"] = how
    return lo, hi, notes, info


def offplate_contacts(frc: ForceRecord, kin: KinematicsRecord | None) -> list[tuple[str, float, float]]:
    """Whole contacts ``(foot "l"/"r", start s, end s)`` the heel/toe markers show and no plate contact of
    that foot overlaps (:mod:`models.gaitdata.offplate`), not those cut by the recording's start or end
    (module doc, step 5); empty without sole markers."""
    from models.gaitdata.events import detect_contacts
    from models.gaitdata.offplate import MIN_GAP_S, marker_contacts, spans

    if kin is None or kin.soles is None or kin.t.shape[0] < 16:
        return []
    out = []
    for side, col in (("l", 1), ("r", 3)):
        plates = detect_contacts(frc.t, np.nan_to_num(frc.grf[:, col]))
        n = kin.t.shape[0]
        for a, b in spans(marker_contacts(kin.t, kin.soles[side])):
            t0, t1 = float(kin.t[a]), float(kin.t[b])
            whole = a > 0 and b < n - 1  # not cut by the recording
            if whole and t1 - t0 >= MIN_GAP_S and not any(c.on_s <= t1 and c.off_s >= t0 for c in plates):
                out.append((side, t0, t1))
    return sorted(out, key=lambda c: c[1])


def _whole_cycles(frc: ForceRecord, lo: float, hi: float) -> int:
    """Plate strides (heel strike to heel strike of one foot) inside ``[lo, hi]``."""
    from models.gaitdata.events import detect_contacts

    n = 0
    for col in (1, 3):
        strikes = [c.on_s for c in detect_contacts(frc.t, np.nan_to_num(frc.grf[:, col]))
                   if c.heel_strike and lo - 1e-9 <= c.on_s <= hi + 1e-9]
        n += max(len(strikes) - 1, 0)
    return n


def plate_window(frc: ForceRecord, kin: KinematicsRecord | None, lo: float, hi: float
                 ) -> tuple[float, float, str] | None:
    """Within ``[lo, hi]``, the longest span free of off-plate contacts that holds a whole gait cycle
    (module doc, step 5), with the ``window-plates`` note; None when no contact is off the plates."""
    off = [c for c in offplate_contacts(frc, kin) if c[2] >= lo and c[1] <= hi]
    if not off:
        return None
    side = {"l": "left", "r": "right"}
    shown = ", ".join(f"{side[f]} {a:.2f}-{b:.2f} s" for f, a, b in off[:6]) + (
        f" (+{len(off) - 6} more)" if len(off) > 6 else "")
    merged: list[list[float]] = []
    for _, a, b in off:  # sorted by start; double supports overlap
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    edges = [lo] + [x for a, b in merged for x in (a, b)] + [hi]
    free = [(max(edges[k], lo), min(edges[k + 1], hi)) for k in range(0, len(edges), 2)]
    best = max(((a, b) for a, b in free if b - a >= MIN_WINDOW_S - 1e-9 and _whole_cycles(frc, a, b) > 0),
               key=lambda w: w[1] - w[0], default=None)
    if best is None:
        return lo, hi, quirk("window-plates", f"contacts on no force plate ({shown}); no part of {lo:.3f}-{hi:.3f} s "
                                              "with every contact on a plate holds a whole gait cycle, so the "
                                              "window stays and a run fills them from the markers")
    return best[0], best[1], quirk("window-plates", f"window {best[0]:.3f}-{best[1]:.3f} s chosen automatically: "
                                                    f"every foot contact in it is on a force plate and it holds "
                                                    f"{_whole_cycles(frc, *best)} whole plate stride(s); left out: "
                                                    f"contacts on no plate ({shown})")


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
