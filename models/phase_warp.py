r"""Follow a reference by gait phase: one recording's kinematics under another recording's GRF.

Two recordings walk at different cadences, so the kinematics of recording B cannot be read
on the clock of recording A's GRF. Each is cut into gait phases by its *own* GRF events
(heel strikes and toe-offs of both feet, :func:`models.gaitdata.events.detect_contacts`),
and time ``t`` of A is mapped to the time of B at the same gait phase: piecewise linear
between matched events,

.. math:: \tau_B(t) = e_{B,k} + (t - e_{A,k}) \frac{e_{B,k+1} - e_{B,k}}{e_{A,k+1} - e_{A,k}},
          \qquad e_{A,k} \le t < e_{A,k+1}

where ``e_{A,k}``, ``e_{B,k}`` are the k-th matched events (the same kind of event, in the same
order, starting from each recording's first left heel strike). Before the first and after the
last matched event the nearest segment's rate is extended. So "40 % of the cycle after a left
heel strike" in A reads "40 % of the cycle after a left heel strike" in B.
"""

from __future__ import annotations

import numpy as np

from models.gaitdata.events import detect_contacts

__all__ = ["gait_events", "phase_map"]

_KINDS = ("L_on", "R_on", "L_off", "R_off")


def gait_events(t: np.ndarray, grf: np.ndarray) -> list[tuple[float, str]]:
    """Sorted ``(time [s], kind)`` of every heel strike (``L_on``/``R_on``) and toe-off (``L_off``/``R_off``)."""
    out: list[tuple[float, str]] = []
    for side, col in (("L", 1), ("R", 3)):
        for c in detect_contacts(t, grf[:, col]):
            if c.heel_strike:
                out.append((c.on_s, f"{side}_on"))
            if c.toe_off:
                out.append((c.off_s, f"{side}_off"))
    return sorted(out)


def _from_first_left_strike(events: list[tuple[float, str]]) -> list[tuple[float, str]]:
    for i, (_, kind) in enumerate(events):
        if kind == "L_on":
            return events[i:]
    raise ValueError("no left heel strike in the GRF: cannot cut it into gait cycles")


def phase_map(t_a: np.ndarray, events_a: list[tuple[float, str]], events_b: list[tuple[float, str]]) -> np.ndarray:
    """``tau_B(t_a)`` of the module docstring: for each time of A, the time of B at the same gait phase."""
    a, b = _from_first_left_strike(events_a), _from_first_left_strike(events_b)
    ka, kb = [k for _, k in a], [k for _, k in b]
    n = 0
    while n < min(len(ka), len(kb)) and ka[n] == kb[n]:
        n += 1
    if n < 2:
        raise ValueError("the two recordings share fewer than two matching gait events")
    ta = np.array([x for x, _ in a[:n]])
    tb = np.array([x for x, _ in b[:n]])
    out = np.interp(t_a, ta, tb)
    lo, hi = t_a < ta[0], t_a > ta[-1]
    out[lo] = tb[0] + (t_a[lo] - ta[0]) * (tb[1] - tb[0]) / (ta[1] - ta[0])
    out[hi] = tb[-1] + (t_a[hi] - ta[-1]) * (tb[-1] - tb[-2]) / (ta[-1] - ta[-2])
    return out
