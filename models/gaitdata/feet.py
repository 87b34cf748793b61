"""Which foot stood on a force plate: the foot whose heel-toe line stays nearest the CoP.

For one plate contact (samples ``span`` on the force times ``t``), the distance of the CoP
``c`` (lab frame, m) to each foot is the mean over the contact of the distance from ``c`` to
the segment heel → toe (markers interpolated onto ``t``; the heel alone when no toe marker):

    d = mean_k | c_k − (h_k + s_k (e_k − h_k)) |,  s_k = clip(((c_k − h_k)·(e_k − h_k)) / |e_k − h_k|², 0, 1)

The stance foot's CoP runs from heel to toe along that segment, so d stays a few cm for it,
while the swinging foot passes the plate only briefly.
"""

from __future__ import annotations

import numpy as np

from models.gaitdata.records import KinematicsRecord


def _on(t: np.ndarray, kt: np.ndarray, xyz: np.ndarray) -> np.ndarray:
    return np.column_stack([np.interp(t, kt, xyz[:, a], left=np.nan, right=np.nan) for a in range(3)])


def foot_distance(t: np.ndarray, cop: np.ndarray, kt: np.ndarray, heel: np.ndarray,
                  toe: np.ndarray | None) -> float:
    """Mean distance [m] of the CoP ``cop`` (K, 3) at times ``t`` (K,) to one foot's heel/toe markers
    sampled at ``kt`` (module doc)."""
    h = _on(t, kt, heel)
    e = _on(t, kt, toe) if toe is not None else h
    seg = e - h
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.clip(np.sum((cop - h) * seg, axis=1) / np.sum(seg * seg, axis=1), 0.0, 1.0)
    s = np.where(np.isfinite(s), s, 0.0)
    d = np.linalg.norm(cop - (h + s[:, None] * seg), axis=1)
    d = d[np.isfinite(d)]
    return float(d.mean()) if d.size else float("inf")


def nearest_foot(t: np.ndarray, cop: np.ndarray, kin: KinematicsRecord) -> str:
    """``"l"`` or ``"r"``: the foot nearest the CoP over a contact (module doc)."""
    assert kin.heels is not None
    d = {s: foot_distance(t, cop, kin.t, kin.heels[s], None if kin.toes is None else kin.toes[s]) for s in ("l", "r")}
    return "l" if d["l"] < d["r"] else "r"
