r"""Gait-phase detection from the vertical GRF of each foot.

Per foot, with vertical force ``F_y`` [N], threshold ``F_on`` and hysteresis ``h``:

* swing -> stance when ``F_y > F_on``;
* stance -> swing when ``F_y < F_on - h``;
* a switch is allowed only when the foot has stayed in its current state for at least
  ``min_dwell`` seconds (the first decision, at the start of the run, is free).

Gait-phase code: 0 double support, 1 left single support, 2 right single support, 3 flight.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from blocks.core import Block, CompileContext, Kernels, ParameterValueError, Params, PortSpec
from blocks.core import ParamSpec as P
from blocks.kernels import kernel
from blocks.packing import state_offsets

__all__ = ["PhaseDetector", "PHASE_NAMES", "phase_code", "foot_decision"]

PHASE_NAMES = {0: "double support", 1: "left single", 2: "right single", 3: "flight"}
_FOOT = {-1: "initial", 0: "swing", 1: "stance"}
_NEVER = -1e30
#: the discrete state per foot ``[l, r]``: the foot's mode (-1 undecided, 0 swing, 1 stance) and its last
#: switch time [s]; between them the gait-phase code (the three modes come first)
_STATE = state_offsets((("foot", 2), ("phase", 1), ("t_switch", 2)), {})
_ZFOOT, _ZPHASE, _ZT = (_STATE[k] for k in ("foot", "phase", "t_switch"))


@kernel
def foot_decision(prev, since, fy, t, on, off, dwell):
    """New state (0 swing / 1 stance) of one foot; ``prev`` -1 means undecided, ``since`` the last switch [s]."""
    if prev < 0:
        return 1 if fy > on else 0
    if t - since < dwell - 1e-12:
        return int(prev)
    if prev >= 0.5:
        return 0 if fy < off else 1
    return 1 if fy > on else 0


@kernel
def phase_code(sl, sr):
    """0 double support, 1 left single, 2 right single, 3 flight."""
    if sl and sr:
        return 0
    return 1 if sl else 2 if sr else 3


@kernel
def _phase_decide(t, z, f, p):
    on, off, dwell = p[_ON], p[_ON] - p[_HYST], p[_DWELL]
    return (foot_decision(z[_ZFOOT], z[_ZT], f[1], t, on, off, dwell),
            foot_decision(z[_ZFOOT + 1], z[_ZT + 1], f[3], t, on, off, dwell))


@kernel
def _phase_output(t, x, z, f, p, stance, swing, phase):
    sl, sr = _phase_decide(t, z, f, p)
    stance[0], stance[1] = sl, sr
    swing[0], swing[1] = 1 - sl, 1 - sr
    phase[0] = phase_code(sl != 0, sr != 0)


@kernel
def _phase_update(t, x, z, f, p, znext):
    sl, sr = _phase_decide(t, z, f, p)
    tl = t if (sl != z[_ZFOOT] and z[_ZFOOT] >= 0) else z[_ZT]
    tr = t if (sr != z[_ZFOOT + 1] and z[_ZFOOT + 1] >= 0) else z[_ZT + 1]
    znext[_ZFOOT], znext[_ZFOOT + 1], znext[_ZPHASE] = sl, sr, phase_code(sl != 0, sr != 0)
    znext[_ZT], znext[_ZT + 1] = tl, tr  # the first decision starts no dwell


class PhaseDetector(Block):
    """Stance/swing per foot with threshold, hysteresis and minimum dwell; gait-phase code.

    Discrete state ``[left, right, phase, t_switch_l, t_switch_r]`` (offsets from its declaration,
    ``_STATE``); the first three are modes whose switches go into the event table.
    """

    params = {"threshold_n": P(40.0, min=0.0, max=5000.0, unit="N", description="stance when F_y exceeds this"),
              "hysteresis_n": P(10.0, min=0.0, max=5000.0, unit="N",
                                description="back to swing only below threshold - hysteresis"),
              "min_dwell_s": P(0.05, min=0.0, max=5.0, unit="s", description="minimum time between switches")}
    inputs = (PortSpec("F", 4, "N", "ground reaction forces [F_lx, F_ly, F_rx, F_ry]"),)
    outputs = (PortSpec("stance", 2, "1", "stance flags", ("l", "r")),
               PortSpec("swing", 2, "1", "swing flags: 1 - stance", ("l", "r")),
               PortSpec("phase", 1, "1", "0 double, 1 left single, 2 right single, 3 flight"))
    discrete = True
    n_discrete = _STATE["size"]
    modes = ("left", "right", "phase")
    mode_labels = {"left": _FOOT, "right": _FOOT, "phase": {-1: "initial", **PHASE_NAMES}}
    law = Kernels(output=_phase_output, update=_phase_update)

    def check(self, values: Mapping[str, Any]) -> None:
        if values["hysteresis_n"] > values["threshold_n"]:
            raise ParameterValueError(f"block '{self.name}': hysteresis ({values['hysteresis_n']} N) must not exceed "
                                      f"the threshold ({values['threshold_n']} N)")

    packed = ("threshold_n", "hysteresis_n", "min_dwell_s")

    def initial_discrete(self, p: Params, ctx: CompileContext) -> np.ndarray:
        z = np.full(self.discrete_size(), -1.0)
        z[_ZT: _ZT + 2] = _NEVER
        return z


#: where the kernels above read each packed entry (numba takes them as constants when it compiles)
_ON, _HYST, _DWELL = PhaseDetector.packed_at("threshold_n", "hysteresis_n", "min_dwell_s")
