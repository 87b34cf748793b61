"""A finished posture solve as the GUI shows it: read from its output folder, no solving, no Qt.

:func:`load_solved` reads what :class:`app.solve_job.SolveJob` writes (``summary.json``,
``results.npz``, and ``recording.npz`` when there) into a :class:`SolvedGait`; a folder written by
``gaitblocks solve`` without ``recording.npz`` loads too, with no recording to compare.

The solved cycle has ``n`` nodes ``t_k = t0 + k T / n``; node ``n`` is node 0 moved on by one
stride ``D`` in x (periodicity). :meth:`SolvedGait.pose` gives the pose at any time by playing the
cycle over and over, each repetition ``D`` further on; :meth:`SolvedGait.cycle_curves` gives the
trunk, hip and knee angles over 0..100 % of the cycle (the right heel strike at 0, as the solver
cuts it) with the recording's at the same nodes.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from models.errors import DataFormatError

__all__ = ["SolvedGait", "load_solved", "CURVES"]

# (title, columns of q, columns of the recording's [alpha, beta_l, beta_r, gamma_l, gamma_r])
CURVES = (("Trunk α", (2,), (0,)), ("Hip flexion β", (3, 4), (1, 2)), ("Knee flexion γ", (5, 6), (3, 4)))


@dataclass
class SolvedGait:
    """One solved cycle (SI units) and its summary; ``recorded`` (n, 5) [rad] or None."""

    folder: Path
    summary: dict[str, Any]
    t: np.ndarray          # (n,) s
    q: np.ndarray          # (n, 7)
    grf: np.ndarray        # (n, 4) N
    stance: np.ndarray     # (n, 2) bool
    recorded: np.ndarray | None
    recording_name: str

    @property
    def n(self) -> int:
        return int(self.t.size)

    @property
    def period(self) -> float:
        return float(self.summary["cycles"][0]["period_s"])

    @property
    def stride(self) -> float:
        return float(self.summary["cycles"][0]["stride_m"])

    @property
    def status(self) -> str:
        return str(self.summary.get("status", ""))

    def _node(self, t: float) -> tuple[int, int, float, float]:
        """``(cycle, node k, fraction to node k+1, phase in [0, 1))`` of time ``t`` [s] from the first node."""
        phase_t = (t % self.period) / self.period * self.n
        k = min(int(math.floor(phase_t)), self.n - 1)
        return int(t // self.period), k, phase_t - k, phase_t / self.n

    def pose(self, t: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
        """``(q (7,), grf (4,), stance (2,), recorded angles (5,) or None)`` at ``t`` [s] after the
        cycle's first node, the cycle repeated (module doc); linear between nodes, the stance of node k."""
        cycle, k, f, _ = self._node(t)
        k1 = (k + 1) % self.n
        q1 = self.q[k1].copy()
        if k1 == 0:
            q1[0] += self.stride
        q = (1 - f) * self.q[k] + f * q1
        q[0] += cycle * self.stride
        grf = (1 - f) * self.grf[k] + f * self.grf[k1]
        rec = None if self.recorded is None else (1 - f) * self.recorded[k] + f * self.recorded[k1]
        return q, grf, self.stance[k].astype(float), rec

    def cycle_curves(self) -> tuple[np.ndarray, list[tuple[str, list[np.ndarray], list[np.ndarray | None]]]]:
        """``(pct (n+1,), [(title, solved curves [deg], recorded curves [deg] or None), ...])`` per
        :data:`CURVES`; the cycle closed by its first node again at 100 %."""
        pct = 100.0 * np.arange(self.n + 1) / self.n
        out = []
        for title, qcols, rcols in CURVES:
            solved = [np.rad2deg(np.append(self.q[:, c], self.q[0, c])) for c in qcols]
            rec: list[np.ndarray | None] = [
                None if self.recorded is None else np.rad2deg(np.append(self.recorded[:, c], self.recorded[0, c]))
                for c in rcols]
            out.append((title, solved, rec))
        return pct, out


def load_solved(folder: str | Path) -> SolvedGait:
    """The :class:`SolvedGait` in ``folder`` (module doc); a missing or broken folder raises
    ``DataFormatError`` naming it."""
    folder = Path(folder)
    try:
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
        with np.load(folder / "results.npz") as z:
            t, q, grf, stance = (np.asarray(z[f"cycle0_{k}"]) for k in ("t", "q", "grf", "stance"))
    except (OSError, KeyError, ValueError) as exc:
        raise DataFormatError(f"not a readable posture solution: {exc}", path=folder) from None
    recorded, name = None, str(summary.get("grf", ""))
    rec_file = folder / "recording.npz"
    if rec_file.is_file():
        with np.load(rec_file) as z:
            name = str(z["name"])
            if "angles" in z.files and z["angles"].shape == (t.size, 5):
                recorded = np.asarray(z["angles"], dtype=float)
    return SolvedGait(folder, summary, t, q, grf, stance.astype(bool), recorded, name)
