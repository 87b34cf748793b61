"""Contacts no force plate saw: found from the heel and toe markers, filled from a measured one.

Overground trials record only the steps that land on a plate. Before the first plate and
between plates a foot can stand on the bare floor: its force reads 0 N although it carries
the body, and a GRF-driven simulation would start in free fall.

Marker contact (per foot; the foot-marker idea of O'Connor et al. 2007 and Zeni et al. 2008)
---------------------------------------------------------------------------------------------
The foot is on the floor while its heel *or* its toe marker is

* within ``HEIGHT_TOL_M`` of that marker's floor level (its 5th-percentile height over the
  trial, m), and
* moving forward slower than ``SPEED_TOL_M_S`` (positions low-passed at ``FILTER_HZ``, zero lag).

On demotu-BMC ``walk1`` these spans match the plate contacts within 0.035 s (tested).

Fill
----
A marker-contact span of at least ``MIN_GAP_S`` that no plate contact of that foot overlaps
(:func:`models.gaitdata.events.detect_contacts` on its vertical force) is an *unmeasured
contact*; where markers and plate merely disagree about the ends of a measured contact,
nothing is filled. It gets the force ``(F_x, F_y)`` [N] of a *template*: a complete plate
contact of the same foot (nearest in time), else of the other foot. Template and gap are
aligned on the events the markers show for both:

* a span open at the recording start (its heel strike unseen): the marker toe-offs coincide;
* a span open at the recording end (toe-off unseen): the marker heel strikes coincide;
* a whole span: the template's marker span is stretched linearly onto it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.filters import butter2, filtfilt2
from models.gaitdata.events import Contact, detect_contacts

HEIGHT_TOL_M = 0.02
SPEED_TOL_M_S = 0.6
FILTER_HZ = 6.0
MIN_GAP_S = 0.06
FLOOR_PERCENTILE = 5.0


@dataclass(frozen=True)
class FilledContact:
    """One unmeasured contact and what filled it (times in s on the trial clock)."""

    foot: str
    start_s: float
    end_s: float
    template_foot: str
    template_s: tuple[float, float]
    aligned: str
    impulse_ns: float

    def note(self) -> str:
        side = {"l": "left", "r": "right"}
        return (f"{side[self.foot]} foot on the floor but on no force plate {self.start_s:.3f}-{self.end_s:.3f} s "
                f"(heel/toe markers): filled with the {side[self.template_foot]} foot's plate contact "
                f"{self.template_s[0]:.3f}-{self.template_s[1]:.3f} s, aligned at {self.aligned} "
                f"(vertical impulse {self.impulse_ns:.0f} N s)")


def _interp_nan(x: np.ndarray) -> np.ndarray | None:
    ok = np.isfinite(x)
    if ok.sum() < 10:
        return None
    idx = np.arange(x.shape[0])
    return np.interp(idx, idx[ok], x[ok])


def marker_contacts(t: np.ndarray, sole: np.ndarray) -> np.ndarray:
    """``(N,)`` bool: the foot is on the floor (module doc), from ``sole`` ``(N, 2, 2)``
    ``[heel, toe] x [forward, up]`` in m sampled at times ``t`` [s]."""
    rate = (t.shape[0] - 1) / (t[-1] - t[0])
    on = np.zeros(t.shape[0], dtype=bool)
    b, a = butter2(min(FILTER_HZ, 0.99 * 0.5 * rate), rate)
    for k in range(sole.shape[1]):
        fwd, up = _interp_nan(sole[:, k, 0]), _interp_nan(sole[:, k, 1])
        if fwd is None or up is None:
            continue
        fwd_f = filtfilt2(b, a, fwd) if t.shape[0] > 15 else fwd  # filtfilt needs more than its pad length
        speed = np.abs(np.gradient(fwd_f, t))
        low = up - np.percentile(up, FLOOR_PERCENTILE) < HEIGHT_TOL_M
        on |= low & (speed < SPEED_TOL_M_S) & np.isfinite(sole[:, k, 1])
    return on


def spans(mask: np.ndarray) -> list[tuple[int, int]]:
    """``(first, last)`` sample indices of the runs of ``True`` in ``mask``."""
    d = np.diff(np.concatenate([[0], mask.astype(np.int8), [0]]))
    return list(zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1) - 1, strict=True))


def _template(plates: dict[str, list[Contact]], foot: str, mid: float) -> tuple[str, Contact] | None:
    for side in (foot, "r" if foot == "l" else "l"):
        whole = [c for c in plates[side] if c.complete]
        if whole:
            return side, min(whole, key=lambda c: abs(0.5 * (c.on_s + c.off_s) - mid))
    return None


def fill_offplate(t: np.ndarray, grf: np.ndarray, on_floor: dict[str, np.ndarray]
                  ) -> tuple[np.ndarray, list[FilledContact]]:
    """GRF ``(N, 4)`` [N] with the unmeasured contacts filled (module doc), and what was filled.

    ``on_floor`` maps ``"l"``/``"r"`` to the marker contact ``(N,)`` bool on the GRF times ``t``.
    """
    out = grf.copy()
    cols = {"l": 0, "r": 2}
    plates = {s: detect_contacts(t, grf[:, cols[s] + 1]) for s in cols}
    marker_spans = {s: spans(on_floor[s]) for s in cols}
    dt = float(t[1] - t[0])
    filled: list[FilledContact] = []
    for foot, col in cols.items():
        for a, b in marker_spans[foot]:
            measured = any(c.first <= b and c.last >= a for c in plates[foot])
            if measured or (b - a + 1) * dt < MIN_GAP_S:
                continue
            found = _template(plates, foot, 0.5 * (t[a] + t[b]))
            if found is None:
                continue
            side, tpl = found
            over = [s for s in marker_spans[side] if s[0] <= tpl.last and s[1] >= tpl.first]
            ta, tb = (over[0] if over else (tpl.first, tpl.last))
            if a == 0 and b < t.shape[0] - 1:
                src, how = t[a:b + 1] - t[b] + t[tb], "toe-off"
            elif b == t.shape[0] - 1 and a > 0:
                src, how = t[a:b + 1] - t[a] + t[ta], "heel strike"
            else:
                scale = (t[tb] - t[ta]) / max(t[b] - t[a], dt)
                src, how = t[ta] + (t[a:b + 1] - t[a]) * scale, "both ends (stretched)"
            tcol = cols[side]
            fx = np.interp(src, t, grf[:, tcol], left=0.0, right=0.0)
            fy = np.interp(src, t, grf[:, tcol + 1], left=0.0, right=0.0)
            out[a:b + 1, col], out[a:b + 1, col + 1] = fx, fy
            filled.append(FilledContact(foot, float(t[a]), float(t[b]), side, (tpl.on_s, tpl.off_s), how,
                                        float(np.sum(fy) * dt)))
    return out, filled
