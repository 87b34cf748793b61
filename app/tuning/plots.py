"""Figures of sweeps and tuning runs (matplotlib, Agg backend: headless, files only).

* :func:`heatmap` -- a 2-D sweep: one cell per grid point coloured by a column (e.g. the
  objective, log colour scale when it spans decades); failed runs are marked with a cross;
  random/LHS samples are drawn as coloured dots instead of cells;
* :func:`convergence` -- objective of each evaluation and the best so far, against evaluation number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["heatmap", "convergence"]


def _plt() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _f(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def heatmap(rows: Sequence[dict[str, Any]], x: str, y: str, column: str, path: Path, *, grid: bool = True,
            title: str = "") -> None:
    """Draw ``column`` over the ``(x, y)`` parameter plane into ``path`` (PNG)."""
    from matplotlib.colors import LogNorm

    plt = _plt()
    xs = np.array([_f(r[x]) for r in rows])
    ys = np.array([_f(r[y]) for r in rows])
    vs = np.array([_f(r.get(column)) for r in rows])
    ok = np.array([r.get("status") == "ok" for r in rows])
    good = vs[np.isfinite(vs) & ok]
    norm = LogNorm(good.min(), good.max()) if good.size and good.min() > 0 and good.max() > 10 * good.min() else None
    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    if grid:
        ux, uy = np.unique(xs), np.unique(ys)
        img = np.full((uy.size, ux.size), np.nan)
        for xv, yv, v, k in zip(xs, ys, vs, ok):
            img[np.searchsorted(uy, yv), np.searchsorted(ux, xv)] = v if k else np.nan
        ex = _edges(ux)
        ey = _edges(uy)
        mesh = ax.pcolormesh(ex, ey, np.ma.masked_invalid(img), norm=norm, cmap="viridis", shading="flat")
    else:
        mesh = ax.scatter(xs[ok], ys[ok], c=vs[ok], norm=norm, cmap="viridis", s=40)
    ax.plot(xs[~ok], ys[~ok], "rx", ms=8, label="failed")
    if good.size:
        best = int(np.nanargmin(np.where(ok, vs, np.nan)))
        ax.plot(xs[best], ys[best], "w*", ms=14, mec="k", label="best")
    fig.colorbar(mesh, ax=ax, label=column)
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(title or f"{column} over {x} x {y}")
    if (~ok).any() or good.size:
        ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def _edges(v: np.ndarray) -> np.ndarray:
    if v.size == 1:
        return np.array([v[0] - 0.5, v[0] + 0.5])
    mid = (v[1:] + v[:-1]) / 2
    return np.concatenate([[2 * v[0] - mid[0]], mid, [2 * v[-1] - mid[-1]]])


def convergence(values: Sequence[float], path: Path, *, baseline: float | None = None, title: str = "") -> None:
    """Objective per evaluation and the running best (log y when all are positive) into ``path``."""
    plt = _plt()
    v = np.array(values, dtype=float)
    best = np.fmin.accumulate(np.where(np.isfinite(v), v, np.inf))
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    n = np.arange(1, v.size + 1)
    ax.plot(n, v, ".", color="0.6", label="evaluation")
    ax.step(n, best, where="post", color="C0", label="best so far")
    if baseline is not None:
        ax.axhline(baseline, color="C3", ls="--", label=f"start {baseline:.4g}")
    if v.size and np.all(v[np.isfinite(v)] > 0):
        ax.set_yscale("log")
    ax.set_xlabel("evaluation")
    ax.set_ylabel("objective J")
    ax.set_title(title or "convergence")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
