r"""What the posture solver reads of a recording: one gait cycle of GRF, CoP and swing kinematics.

The solver's inputs, and nothing else (:func:`cycle_inputs`):

* the recorded GRF of both feet and the centre of pressure (CoP) of each stance, from the
  *GRF recording* A;
* the gait events (heel strikes, toe-offs) of A's own vertical GRF
  (:func:`models.gaitdata.events.detect_contacts`): the cycle runs from one right heel strike
  to the next, and a foot is in stance between its heel strike and toe-off;
* the swing leg's reference from the *kinematics recording* B (B = A by default), read at the
  same *swing phase* ``s = (t - toe_off) / (heel_strike - toe_off)`` in [0, 1] of the same foot
  (for B = A the very same swing; otherwise B's middle complete swing of that foot).

Never read: the trunk angle, the stance leg, the CoM or the footprints of either recording.
The swing reference is one of (:data:`SWING_REFERENCES`)

* ``joint``: hip and knee flexion ``(beta, gamma)`` [rad] (the paper's PID; the hip is relative
  to the trunk, so B's trunk lean enters through it);
* ``segment``: thigh and shank angles to the vertical ``(alpha - beta, alpha - beta + gamma)`` [rad];
* ``foot``: the swing foot's position relative to the hip ``(x, y)`` [m].

Centre of pressure. The model's foot is a point ``P`` pinned at its footprint in stance; the
recorded force acts at ``P + d(t)``, where ``d = cop(t) - cop_mean`` is the recorded CoP
relative to its force-weighted mean over that contact (plus ``cop_shift`` [m], the CoP moved
forward under the foot), so the foot carries the ground moment ``mz = d F_y`` [N m]. The
contact's mean CoP (``anchor``) places the footprint in the solver's first stages; the last
stage frees the footprints. Without a recorded CoP, ``d = 0`` (the force acts at the foot).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from models.dataset import GaitDataset
from models.errors import UserError
from models.gaitdata.events import Contact, detect_contacts

__all__ = ["SWING_REFERENCES", "CycleInputs", "StanceRun", "cycle_inputs", "whole_cycles"]

SWING_REFERENCES = ("joint", "segment", "foot")


@dataclass(frozen=True)
class StanceRun:
    """One stance of a foot on the cycle's nodes.

    ``nodes`` are node indices in the stance's own time order; ``wrapped[i]`` is True for nodes before the cycle's
    start of a stance that began in the previous cycle (their footprint is ``X - stride``);
    ``anchor`` [m] is the stance's force-weighted mean CoP in the recording (None without CoP).
    """

    foot: int
    nodes: np.ndarray
    wrapped: np.ndarray
    anchor: float | None
    anchor_prev: float | None = None  # mean CoP of the previous contact (the wrapped nodes), m


@dataclass(frozen=True)
class CycleInputs:
    """One cycle on ``n`` nodes ``t_k = t0 + k T / n`` (k = 0..n-1): every array is (n, ...)."""

    name: str
    kinematics_name: str
    t0: float                 # s, the right heel strike the cycle starts at
    period: float             # s
    grf: np.ndarray           # (n, 4) N
    cop_d: np.ndarray         # (n, 2) m, CoP relative to the stance's mean CoP (0 in swing)
    stance: np.ndarray        # (n, 2) bool [left, right]
    runs: tuple[StanceRun, ...]
    swing_ref: np.ndarray     # (n, 2, 2) per foot, two tracked quantities (rad or m)
    swing_weight: np.ndarray  # (n, 2) 1 where the foot's swing reference is tracked, else 0
    swing_phase: np.ndarray   # (n, 2) swing phase in [0, 1] (NaN in stance)
    swing_reference: str
    has_cop: bool
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def n(self) -> int:
        return int(self.grf.shape[0])

    @property
    def t(self) -> np.ndarray:
        return self.t0 + np.arange(self.n) * self.period / self.n

    def with_(self, **changes: object) -> CycleInputs:
        from dataclasses import replace

        return replace(self, **changes)  # type: ignore[arg-type]


def _contacts(ds: GaitDataset) -> tuple[list[Contact], list[Contact]]:
    return (detect_contacts(ds.t, ds.grf[:, 1]), detect_contacts(ds.t, ds.grf[:, 3]))


def whole_cycles(ds: GaitDataset) -> list[tuple[float, float]]:
    """``(t0, t1)`` [s] of every gait cycle between two heel strikes of one foot whose swings are
    whole in the recording: the right foot's cycles first, then the left's."""
    contacts = _contacts(ds)
    out = []
    for foot in (1, 0):
        strikes = [c.on_s for c in contacts[foot] if c.heel_strike]
        windows = [w for f in (0, 1) for w in _swing_windows(contacts[f])]
        for t0, t1 in zip(strikes[:-1], strikes[1:], strict=False):
            other = contacts[1 - foot]
            # the other foot's swing inside the cycle must be whole: a heel strike and toe-off of it inside
            if any(c.heel_strike and t0 < c.on_s < t1 for c in other) and \
                    any(t0 <= a and b <= t1 or a < t0 < b or a < t1 < b for a, b in windows):
                out.append((t0, t1))
    return out


def _cop_anchor(ds: GaitDataset, c: Contact, foot: int) -> float | None:
    if ds.cop_x is None:
        return None
    sl = slice(c.first, c.last + 1)
    cop, fy = ds.cop_x[sl, foot], ds.grf[sl, 2 * foot + 1]
    ok = np.isfinite(cop) & (fy > 0)
    if not ok.any():
        return None
    return float(np.sum(cop[ok] * fy[ok]) / np.sum(fy[ok]))


def _cop_usable(ds: GaitDataset, leg_length: float) -> tuple[bool, str]:
    """Whether the recorded CoP is in a frame fixed to the floor: successive contacts of one foot must
    progress by at least a quarter leg length (not on a treadmill belt, nor in a frame that moves with
    the walker), and the CoP may travel at most 0.4 m within one contact (a foot's length and more)."""
    if ds.cop_x is None:
        return True, ""
    for foot, contacts in enumerate(_contacts(ds)):
        anchors = [a for a in (_cop_anchor(ds, c, foot) for c in contacts if c.complete) if a is not None]
        if len(anchors) >= 2:
            step = float(np.median(np.diff(anchors)))
            if step < 0.25 * leg_length:
                return False, (f"successive {'left' if foot == 0 else 'right'} contacts' mean CoP moves {step:+.3f} m "
                               f"(a stride is about {1.5 * leg_length:.2f} m): the CoP is not in a floor-fixed frame "
                               f"(a treadmill belt?)")
        for c in contacts:
            cop = ds.cop_x[c.first:c.last + 1, foot]
            cop = cop[np.isfinite(cop)]
            if cop.size and np.ptp(cop) > 0.4:
                return False, (f"the {'left' if foot == 0 else 'right'} CoP travels {np.ptp(cop):.2f} m within the "
                               f"contact at {c.on_s:.2f} s (a foot is about 0.25 m long)")
    return True, ""


def cop_speed(ds: GaitDataset) -> float | None:
    """The walking speed [m/s] the force plates record: the median, over pairs of successive whole
    contacts of one foot, of the step of their mean CoPs over the time between their mid-contacts;
    None without a CoP or without two whole contacts of one foot. It reads the GRF recording only;
    on a treadmill belt (CoP in the belt's frame) it is near 0, which the caller rejects."""
    if ds.cop_x is None:
        return None
    speeds = []
    for foot, contacts in enumerate(_contacts(ds)):
        whole = [c for c in contacts if c.complete]
        marks: list[tuple[float, float]] = []
        for c in whole:
            anchor = _cop_anchor(ds, c, foot)
            if anchor is not None:
                marks.append((0.5 * (c.on_s + c.off_s), anchor))
        speeds += [(a1 - a0) / (t1 - t0) for (t0, a0), (t1, a1) in zip(marks[:-1], marks[1:]) if t1 > t0]
    return float(np.median(speeds)) if speeds else None


def _interp(ds: GaitDataset, t: np.ndarray, values: np.ndarray) -> np.ndarray:
    return np.column_stack([np.interp(t, ds.t, v) for v in np.atleast_2d(values.T)])


def _swing_windows(contacts: list[Contact]) -> list[tuple[float, float]]:
    return [(a.off_s, b.on_s) for a, b in zip(contacts[:-1], contacts[1:], strict=False) if a.toe_off and b.heel_strike]


def _swing_quantities(angles: np.ndarray, reference: str, foot: int, params_lengths: tuple[float, float]) -> np.ndarray:
    """(m, 2) tracked swing quantities of ``foot`` from ``[alpha, beta_l, beta_r, gamma_l, gamma_r]`` rows."""
    a, b, g = angles[:, 0], angles[:, 1 + foot], angles[:, 3 + foot]
    if reference == "joint":
        return np.column_stack([b, g])
    th1, th2 = a - b, a - b + g
    if reference == "segment":
        return np.column_stack([th1, th2])
    l1, l2 = params_lengths
    return np.column_stack([-l1 * np.sin(th1) - l2 * np.sin(th2), -l1 * np.cos(th1) - l2 * np.cos(th2)])


def cycle_inputs(grf_ds: GaitDataset, kin_ds: GaitDataset | None = None, *, n: int = 100, cycle: int = 0,
                 swing_reference: str = "joint", lengths: tuple[float, float] = (0.406, 0.473),
                 cop_shift: float = 0.0, mid_swing_only: bool = False, grf_gain: tuple[float, float] = (1.0, 1.0),
                 ) -> CycleInputs:
    """The solver's inputs for cycle number ``cycle`` (0 = the first whole one) of ``grf_ds``.

    ``lengths`` = (thigh, shank) [m] of the model (the ``foot`` reference only). ``cop_shift`` [m]
    moves every recorded CoP forward under its foot; ``grf_gain`` = (fore-aft, vertical) scales
    the recorded force (perturbations); ``mid_swing_only`` tracks the swing reference only at
    swing phases 0.3-0.7.
    """
    if swing_reference not in SWING_REFERENCES:
        raise UserError(f"swing reference must be one of {', '.join(SWING_REFERENCES)}, got {swing_reference!r}")
    kin = grf_ds if kin_ds is None else kin_ds
    kin_angles = kin.reference_angles()
    if kin_angles is None:
        raise UserError(f"{kin.name}: no joint angles to take the swing hip and knee from")
    cycles = whole_cycles(grf_ds)
    if not cycles:
        raise UserError(f"{grf_ds.name}: the GRF holds no whole gait cycle (two heel strikes of one foot with the "
                        f"other foot's swing and heel strike between them); the posture solver needs one")
    if not 0 <= cycle < len(cycles):
        raise UserError(f"{grf_ds.name}: cycle {cycle} asked for, the GRF holds {len(cycles)} whole cycle(s)")
    t0, t1 = cycles[cycle]
    notes: list[str] = []
    cop_ok, why = _cop_usable(grf_ds, leg_length=sum(lengths))
    if not cop_ok:
        notes.append(f"the centre of pressure is not used: {why}; the force acts at the foot point")
        from dataclasses import replace

        grf_ds = replace(grf_ds, cop_x=None)
    T = t1 - t0
    t = t0 + np.arange(n) * T / n
    grf = _interp(grf_ds, t, grf_ds.grf) * np.array([grf_gain[0], grf_gain[1], grf_gain[0], grf_gain[1]])
    contacts_a = _contacts(grf_ds)
    same = kin_ds is None or kin_ds is grf_ds
    contacts_b = contacts_a if same else _contacts(kin)
    stance = np.zeros((n, 2), dtype=bool)
    cop_d = np.zeros((n, 2))
    swing_ref = np.zeros((n, 2, 2))
    swing_w = np.zeros((n, 2))
    swing_phase = np.full((n, 2), np.nan)
    runs: list[StanceRun] = []
    for foot in (0, 1):
        untracked = ~np.zeros(n, dtype=bool)
        touching = [c for c in contacts_a[foot] if c.off_s > t0 and c.on_s < t1]
        for c in touching:
            inside = (t >= c.on_s) & (t <= c.off_s)
            stance[inside, foot] = True
            anchor = _cop_anchor(grf_ds, c, foot)
            if anchor is not None and grf_ds.cop_x is not None:
                cop = np.interp(t[inside], grf_ds.t, np.nan_to_num(grf_ds.cop_x[:, foot], nan=anchor))
                cop_d[inside, foot] = cop - anchor + cop_shift
        # stance runs on the circle of nodes: a contact open at t0 continues the one open at t1
        first = [c for c in touching if c.on_s <= t0]
        last = [c for c in touching if c.off_s >= t1]
        for c in touching:
            if c in first and last and c not in last:
                continue  # joined to the run of the contact still open at t1
            nodes = np.flatnonzero((t >= c.on_s) & (t <= c.off_s))
            wrapped = np.zeros(nodes.shape, dtype=bool)
            anchor_prev = None
            if c in last and first and c not in first:
                prev = first[0]
                head = np.flatnonzero((t >= prev.on_s) & (t <= prev.off_s))
                # in the order of the stance's own time: from its heel strike (end of the cycle) on
                wrapped = np.concatenate([np.zeros(nodes.shape, dtype=bool), np.ones(head.shape, dtype=bool)])
                nodes = np.concatenate([nodes, head])
                anchor_prev = _cop_anchor(grf_ds, prev, foot)
            if nodes.size:
                runs.append(StanceRun(foot, nodes, wrapped, _cop_anchor(grf_ds, c, foot), anchor_prev))
        # the swing reference by swing phase
        windows_a = _swing_windows(contacts_a[foot])
        windows_b = _swing_windows(contacts_b[foot])
        if not windows_b:
            raise UserError(f"{kin.name}: no complete swing of the {'left' if foot == 0 else 'right'} foot to read "
                            f"the swing reference from")
        quantities = _swing_quantities(kin_angles, swing_reference, foot, lengths)
        middle = windows_b[len(windows_b) // 2]
        for off_a, on_a in windows_a:
            inside = (t > off_a) & (t < on_a)
            if not inside.any():
                continue
            s = (t[inside] - off_a) / (on_a - off_a)
            off_b, on_b = (off_a, on_a) if same else middle
            tb = off_b + s * (on_b - off_b)
            swing_ref[inside, foot] = _interp(kin, tb, quantities)
            swing_phase[inside, foot] = s
            swing_w[inside, foot] = ((s >= 0.3) & (s <= 0.7)) if mid_swing_only else 1.0
            untracked &= ~inside
        lost = untracked & ~stance[:, foot]
        if lost.any():
            notes.append(f"{int(lost.sum())} swing node(s) of the {'left' if foot == 0 else 'right'} foot lie in a "
                         f"swing the recording does not hold whole: not tracked")
    if grf_ds.cop_x is None and cop_ok:
        notes.append("no centre of pressure recorded: the force acts at the foot point")
    return CycleInputs(name=grf_ds.name, kinematics_name=kin.name, t0=float(t0), period=float(T), grf=grf,
                       cop_d=cop_d, stance=stance, runs=tuple(runs), swing_ref=swing_ref, swing_weight=swing_w,
                       swing_phase=swing_phase, swing_reference=swing_reference, has_cop=grf_ds.cop_x is not None,
                       notes=tuple(notes))
