"""The report's figures, at journal sizes: vector PDF and SVG, and PNG at 300 dpi.

* :func:`gait_figure` -- ``figure.*`` (180 mm wide) and ``figure_85mm.*`` (85 mm): trunk
  inclination, right hip and knee, right-foot vertical and fore-aft GRF over % gait cycle, mean ±
  SD band per condition over every converged cycle of its trials, the recording dashed; and a bar
  chart of the trunk-inclination mean ± SD per condition beside the recordings' own and the
  published ranges (:data:`PUBLISHED`).
* :func:`effects_figure` -- ``effects.*`` (180 mm): for each pair of conditions the GRF and
  kinematics main effects and the interaction on trunk mean, stride and stance knee, each bar the
  base solve with a whisker over the robustness variants; not-identifiable effects hatched.

Fonts are 7 pt or larger; nothing but the data, axes and legends is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from app.footwear_report.factorial import EFFECTS, FIGURES, FactorialResult
from app.footwear_report.stats import conditions_of
from app.footwear_report.trials import PCT, TrialSolve
from app.journal import FONT_PT, MM, PNG_DPI, RC

__all__ = ["PUBLISHED", "CITATION", "published_range", "gait_figure", "effects_figure", "MM", "FONT_PT"]

CITATION = ("Luxman R, Zielinska T (2017) Robot motion synthesis using ground reaction forces pattern: analysis of "
            "walking posture. Int J Adv Robotic Systems 14(4). doi:10.1177/1729881417720873")
#: published trunk inclination [deg] (+ forward): (R take-off -> L landing, L take-off -> R landing), DESIGN.md §7
PUBLISHED: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "barefoot": ((0.7, 2.5), (1.2, 3.7)),
    "sneakers": ((3.2, 5.9), (2.8, 6.2)),
    "high heels": ((2.2, 5.2), (-1.8, 5.7)),
}
PANELS = (("trunk", "a", "trunk inclination α [deg]"), ("hip", "b", "right hip flexion β_R [deg]"),
          ("knee", "c", "right knee flexion γ_R [deg]"), ("grf_y", "d", "right vertical GRF [BW]"),
          ("grf_x", "e", "right fore-aft GRF [BW]"))
EFFECT_LABELS = {"grf": "GRF (main)", "kinematics": "swing kinematics (main)", "interaction": "interaction"}


def published_range(condition: str) -> tuple[float, float] | None:
    """The paper's overall trunk-inclination range [deg] of a condition named like a footwear, else None."""
    key = condition.lower().replace("_", " ").strip()
    for name, (a, b) in PUBLISHED.items():
        if key == name or key.startswith(name):
            return min(a[0], b[0]), max(a[1], b[1])
    return None


def _style() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({**RC, "axes.spines.top": False, "axes.spines.right": False, "lines.linewidth": 1.0,
                         "axes.linewidth": 0.6, "savefig.dpi": PNG_DPI})
    return plt


def _save(fig: Any, out: Path, stem: str) -> list[Path]:
    paths = []
    for ext in ("pdf", "svg", "png"):
        p = out / f"{stem}.{ext}"
        fig.savefig(p, dpi=PNG_DPI, metadata={"Date": None} if ext == "pdf" else None)
        paths.append(p)
    return paths


def _stack(solves: Sequence[TrialSolve], cond: str, key: str, recorded: bool = False) -> np.ndarray:
    rows = [(c.recorded if recorded else c.curves)[key] for s in solves if s.trial.condition == cond
            for c in s.ok_cycles if key in (c.recorded if recorded else c.curves)]
    return np.array(rows) if rows else np.empty((0, PCT.size))


def _bars(ax: Any, solves: Sequence[TrialSolve], desc: dict[str, Any], conds: list[str]) -> None:
    x = np.arange(len(conds))
    w = 0.26
    solved = [desc[c]["trunk_mean"] for c in conds]
    rec = [desc[c]["trunk_mean_recorded"] for c in conds]
    colors = [f"C{i}" for i in range(len(conds))]
    ax.bar(x - w, [s["mean"] for s in solved], w, yerr=[s["sd"] for s in solved], color=colors, capsize=2,
           error_kw={"lw": 0.6}, label="solved")
    ax.bar(x, [r["mean"] if r["n_cycles"] else np.nan for r in rec], w,
           yerr=[r["sd"] if r["n_cycles"] else 0 for r in rec], color="white", edgecolor=colors, hatch="////", lw=0.6,
           capsize=2, error_kw={"lw": 0.6}, label="recording")
    pub = [published_range(c) for c in conds]
    first = next((j for j, q in enumerate(pub) if q), -1)
    for i, r in enumerate(pub):
        if r is None:
            continue
        ax.bar(x[i] + w, r[1] - r[0], w, bottom=r[0], color="0.8", edgecolor="0.4", lw=0.6,
               label="published range (Luxman & Zielinska 2017)" if i == first else None)
    ax.axhline(0.0, color="0.5", lw=0.5)
    names = [c.replace("_", " ") for c in conds]
    tilt = len(conds) > 3 or max(len(n) for n in names) > 11
    ax.set_xticks(x, names, rotation=25 if tilt else 0, ha="right" if tilt else "center")
    ax.set_ylabel("trunk inclination mean [deg]")


def gait_figure(solves: Sequence[TrialSolve], desc: dict[str, Any], out: Path, width_mm: float = 180.0,
                stem: str = "figure") -> list[Path]:
    """The multi-panel gait figure (module doc) at ``width_mm``: 3 x 2 panels, or 2 x 3 below 120 mm."""
    plt = _style()
    conds = conditions_of(solves)
    wide = width_mm >= 120
    rows, cols = (2, 3) if wide else (3, 2)
    fig, axes = plt.subplots(rows, cols, figsize=(width_mm * MM, (120 if wide else 190) * MM), layout="constrained")
    flat = axes.ravel()
    for ax, (key, letter, label) in zip(flat, PANELS):
        for i, cond in enumerate(conds):
            cyc = _stack(solves, cond, key)
            if not cyc.shape[0]:
                continue
            m = cyc.mean(axis=0)
            sd = cyc.std(axis=0, ddof=1) if cyc.shape[0] > 1 else np.zeros_like(m)
            n = cyc.shape[0]
            ax.plot(PCT, m, color=f"C{i}", label=f"{cond.replace('_', ' ')} ({n} cycle{'s' if n > 1 else ''})")
            ax.fill_between(PCT, m - sd, m + sd, color=f"C{i}", alpha=0.25, lw=0)
            rec = _stack(solves, cond, key, recorded=True)
            if rec.shape[0]:
                ax.plot(PCT, rec.mean(axis=0), color=f"C{i}", ls="--", lw=0.8)
        ax.set_ylabel(label)
        ax.set_xlim(0, 100)
        ax.set_xlabel("gait cycle [%]")
        ax.set_title(letter, loc="left", fontweight="bold")
    from matplotlib.lines import Line2D

    handles, labels = flat[0].get_legend_handles_labels()
    handles.append(Line2D([], [], color="0.3", ls="--", lw=0.8))
    labels.append("recording (not read by the solver)")
    _bars(flat[5], solves, desc, conds)
    flat[5].set_title("f", loc="left", fontweight="bold")
    bh, bl = flat[5].get_legend_handles_labels()
    fig.legend(handles + bh, labels + ["bars (f): " + x for x in bl], loc="outside upper center", frameon=False,
               ncol=3 if wide else 1)
    paths = _save(fig, out, stem)
    plt.close(fig)
    return paths


def effects_figure(fac: FactorialResult, out: Path, width_mm: float = 180.0, stem: str = "effects") -> list[Path]:
    """The paired bar chart of factorial effects with their ranges across variants (module doc)."""
    plt = _style()
    fig, axes = plt.subplots(1, len(FIGURES), figsize=(width_mm * MM, 75 * MM), layout="constrained")
    pairs = fac.pairs
    x = np.arange(len(pairs))
    w = 0.26
    for ax, (key, name, unit) in zip(np.atleast_1d(axes), FIGURES):
        for j, eff in enumerate(EFFECTS):
            base, lo, hi, hatch = [], [], [], []
            for a, b in pairs:
                e = fac.effects[(a, b, key)]
                v = np.nan if e["base"] is None else e["base"][eff]
                r = e[eff]["range"] or (np.nan, np.nan)
                base.append(v)
                lo.append(max(v - r[0], 0.0) if np.isfinite(v) else 0.0)
                hi.append(max(r[1] - v, 0.0) if np.isfinite(v) else 0.0)
                hatch.append(e[eff]["verdict"] != "robust")
            bars = ax.bar(x + (j - 1) * w, base, w, yerr=[lo, hi], color=f"C{j + 3}", capsize=2, error_kw={"lw": 0.6},
                          label=EFFECT_LABELS[eff], edgecolor="0.2", lw=0.4)
            for bar, h in zip(bars, hatch):
                if h:
                    bar.set_hatch("////")
                    bar.set_facecolor("white")
                    bar.set_edgecolor(f"C{j + 3}")
        ax.axhline(0.0, color="0.4", lw=0.5)
        ax.set_xticks(x, [f"{b.replace('_', ' ')}\nvs\n{a.replace('_', ' ')}" for a, b in pairs])
        ax.set_ylabel(f"effect on {name} [{unit}]")
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=f"C{j + 3}", edgecolor="0.2", lw=0.4) for j in range(len(EFFECTS))]
    fig.legend(handles, [EFFECT_LABELS[e] for e in EFFECTS], loc="outside upper center", frameon=False, ncol=3,
               title="B vs A: bar = base solve, whisker = range over the robustness variants; hatched = not robust",
               title_fontsize=FONT_PT)
    paths = _save(fig, out, stem)
    plt.close(fig)
    return paths
