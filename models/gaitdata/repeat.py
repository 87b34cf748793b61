r"""A recording made longer by repeating its whole gait cycles (``gaitblocks run --repeat-cycles``).

The bundled sets and most lab trials last 2-11 s; a 60 s run needs more. The recording is cut
at two heel strikes of the *same* foot (:func:`models.gaitdata.events.detect_contacts`: the
first sample of the contact, the force just above ``OFF_N``), samples ``a`` and ``b > a``:
the span ``[a, b)`` is a whole number of strides. The new dataset is the recording up to
``b`` (exclusive), then that span again and again:

.. math:: y'[b + jL + s] = y[a + s] + c_j(s), \qquad L = b - a,\ 0 \le s < L,\ j = 0, 1, \dots

until at least :data:`EDGE_S` past the duration asked, ending with a whole repetition;
so the sample after ``y[b-1]`` is, as in the recording, the foot's heel strike. The clock keeps
running: ``t'[k] = t[0] + k\,\Delta t`` (one uniform base, no reset at a seam). The corrections
``c_j``:

* GRF: none (``c = 0``). Both seams are the same kind of event (this foot lands, the other
  unloads), so the force jumps by ``y[a] - y[b]`` only: 0 for an exactly periodic set, about
  one sample-to-sample change on the real trials (``seam_jump_n`` in the metadata). A ramp
  would put force on a foot in swing.
* Joint angles and the trunk's height (``angles``, ``q[:, 1:7]``): a linear ramp that closes
  the stride, :math:`c(s) = (y[b] - y[a])(1 - s/L)`, so every repeated span starts at ``y[b]``
  and ends next to it: angle and rate continuous (a jump would be an infinite rate in the
  reference's spline).
* Horizontal positions (the trunk's ``q[:, 0]``, the CoP ``cop_x``, m): shifted forward by
  the distance walked in one span per repetition, :math:`c_j = (j+1) D`, ``D`` from the
  same foot's CoP (else the trunk's x) at the two heel strikes (0 on a treadmill).

**Folded** (``compact``, the default): a long run does not hold every repetition. Repetition
``j`` of the lengthened data differs from repetition 1 only by the shift ``(j - 1) D`` of the
horizontal positions (and by the filters' and the spline's end effects, which fade within a
repetition), so only the prefix and repetitions 0, 1 and the last one are kept (``reps_kept`` = 3
of ``reps``), and a reader of the data maps a data time ``x`` in repetition
``j = floor((x - t_b) / P)`` (``t_b`` the first repeated sample, ``P = L dt`` the period [s]) to
``x - m P`` with ``m = 0`` for ``j <= 1``, ``m = j - 1`` for ``2 <= j <= reps - 2`` and
``m = reps - 3`` for the last, adding ``m D`` to the horizontal positions
(:func:`fold_of`; the data sources' kernels, :mod:`blocks.library.sources_kernels`). The data held
is then that of a run of three repetitions, whatever the duration.

Of the two feet, the pair of heel strikes spanning the most strides is used, ties broken
by the smaller GRF seam jump; with fewer than two heel strikes of one foot there is no whole
cycle to repeat: :class:`~models.errors.UserError`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from models.dataset import GaitDataset
from models.errors import UserError
from models.gaitdata.events import detect_contacts

__all__ = ["CycleSpan", "Fold", "cycle_span", "fold_of", "repeat_dataset", "REPEAT_TAG", "EDGE_S"]

#: the repeated data runs on at least this long [s] after the duration asked, in whole repetitions:
#: the reference spline's end derivative and the filters' edges stay outside the run
EDGE_S = 0.5

#: what the name of a repeated dataset carries (``"sneakers [cycles 0.566-9.462 s repeated]"``)
REPEAT_TAG = "repeated"


@dataclass(frozen=True)
class Fold:
    """How a folded repeated recording maps data times (module docstring): the first repeated sample's
    time ``start_s`` [s], the period ``period_s`` [s], the repetitions ``reps`` of the unfolded data and
    the distance ``shift_m`` [m] walked per repetition."""

    start_s: float
    period_s: float
    reps: int
    shift_m: float

    def count(self, x: np.ndarray) -> np.ndarray:
        """The periods ``m`` (integers, as floats) to take off data times ``x`` [s]."""
        j = np.floor((np.asarray(x, dtype=np.float64) - self.start_s) / self.period_s)
        return np.where(j <= 1.0, 0.0, np.where(j <= self.reps - 2, j - 1.0, float(self.reps - 3)))


def fold_of(data: GaitDataset) -> Fold | None:
    """The :class:`Fold` of a folded repeated recording, else None."""
    info = data.meta.extra.get("repeated_cycles") or {}
    fold = info.get("fold")
    return Fold(**fold) if fold else None


@dataclass(frozen=True)
class CycleSpan:
    """Samples ``[first, last)`` of a recording between two heel strikes of ``foot``."""

    foot: str  # "left" or "right"
    first: int
    last: int
    strides: int
    seam_jump_n: float  # largest |GRF[first] - GRF[last]| over the four columns [N]

    def times(self, data: GaitDataset) -> tuple[float, float]:
        """Data times [s] of the two heel-strike samples."""
        return float(data.t[self.first]), float(data.t[self.last])


def cycle_span(data: GaitDataset) -> CycleSpan:
    """The span to repeat (module docstring); :class:`UserError` without two same-foot heel strikes."""
    best: CycleSpan | None = None
    for foot, col in (("left", 1), ("right", 3)):
        strikes = [c.first for c in detect_contacts(data.t, data.grf[:, col]) if c.heel_strike]
        if len(strikes) < 2:
            continue
        a, b = strikes[0], strikes[-1]
        jump = float(np.max(np.abs(data.grf[a] - data.grf[b])))
        span = CycleSpan(foot, a, b, len(strikes) - 1, jump)
        if best is None or (span.strides, -span.seam_jump_n) > (best.strides, -best.seam_jump_n):
            best = span
    if best is None:
        raise UserError(f"dataset '{data.name}' ({data.duration:.2f} s): no foot has two heel strikes, so there "
                        "is no whole gait cycle to repeat; use a longer trial or a --duration within the data")
    return best


def repeat_dataset(data: GaitDataset, duration: float, compact: bool = True) -> GaitDataset:
    """``data`` lengthened to at least ``duration`` [s] by repeating whole cycles (module docstring).

    ``data`` itself if it is long enough already. The result's ``meta.name`` says what was done
    and ``meta.extra["repeated_cycles"]`` holds the span (data times [s], foot, strides, seam jump [N]);
    ``compact`` (with more than three repetitions) keeps three and adds the ``fold`` (:class:`Fold`)
    by which readers map the others onto them. ``duration_s`` is the lengthened data's, folded or not.
    """
    if duration <= data.duration + 0.5 * data.dt:
        return data
    span = cycle_span(data)
    a, b = span.first, span.last
    period = b - a
    need = int(np.ceil((duration + EDGE_S) / data.dt - 1e-9)) + 1  # samples of t[0] .. t[0] + duration + EDGE_S
    reps = max(-(-(need - b) // period), 1)
    full = reps
    if compact and reps > 3:
        reps = 3  # the rest are folded onto these (module docstring)
    n = b + reps * period  # whole repetitions
    rel = np.arange(reps * period)
    src = a + rel % period  # sample of the recording each new sample repeats
    j = rel // period  # which repetition
    ramp = 1.0 - (rel % period) / period
    last = data.t.shape[0] - 1

    def closed(y: np.ndarray) -> np.ndarray:
        """Repeated samples with the stride closed by the ramp ``(y[b] - y[a]) (1 - s/L)``."""
        return y[src] + np.outer(ramp, y[b] - y[a]).reshape((-1,) + y.shape[1:])

    def shifted(y: np.ndarray, d: float) -> np.ndarray:
        return y[src] + ((j + 1) * d).reshape((-1,) + (1,) * (y.ndim - 1))

    side = 0 if span.foot == "left" else 1
    walked = 0.0
    if data.cop_x is not None and np.all(np.isfinite(data.cop_x[[a, b], side])):
        walked = float(data.cop_x[b, side] - data.cop_x[a, side])
    elif data.q is not None:
        walked = float(data.q[b, 0] - data.q[a, 0])

    grf = np.concatenate([data.grf[:b], data.grf[src]])
    angles = None if data.angles is None else np.concatenate([data.angles[:b], closed(data.angles)])
    q = None
    if data.q is not None:
        q_rep = np.column_stack([shifted(data.q[:, 0], walked), closed(data.q[:, 1:])])
        q = np.concatenate([data.q[:b], q_rep])
    cop = None if data.cop_x is None else np.concatenate([data.cop_x[:b], shifted(data.cop_x, walked)])
    t = data.t[0] + np.arange(n) * data.dt
    t0, t1 = span.times(data)
    info = {"foot": span.foot, "from_s": t0, "to_s": t1, "strides": span.strides, "seam_jump_n": span.seam_jump_n,
            "distance_per_repeat_m": walked, "recording_s": float(data.t[last] - data.t[0]),
            "duration_s": float(t[0] + (b + full * period - 1) * data.dt - t[0])}
    if full > reps:
        info["fold"] = {"start_s": float(t[b]), "period_s": float(period * data.dt), "reps": int(full),
                        "shift_m": walked}
    meta = replace(data.meta, name=f"{data.name} [cycles {t0:.3f}-{t1:.3f} s {REPEAT_TAG}]",
                   extra={**data.meta.extra, "repeated_cycles": info})
    return replace(data, t=t, grf=grf, angles=angles, q=q, cop_x=cop, meta=meta)
