r"""Per-condition figures (mean ± SD over trials and cycles) and the tests between conditions.

Figures (:data:`METRICS`) and their labels: ``solved`` (a result of the GRF, CoP and swing
reference), ``input`` (read from the recording: the cadence is the GRF's event timing),
``set-point`` (the generator's design value of a synthetic trial: never read by the solver) and
``recording`` (the kinematics recording's own value, for comparison only).

Descriptives pool every converged cycle of every trial of a condition: mean and sample SD
(``ddof = 1``; 0 with one value) with the numbers of trials and cycles. Cycles of one trial are not
independent, so every test uses **one value per trial** (the mean of its converged cycles):

* two conditions: paired t-test (:func:`scipy.stats.ttest_rel`) with Cohen's
  :math:`d_z = \bar{\Delta} / s_\Delta` when the trials are paired by subject (every condition has
  the same subjects, one trial each); else Welch's t-test (:func:`scipy.stats.ttest_ind`,
  ``equal_var=False``) with Cohen's :math:`d = (\bar{y}_B - \bar{y}_A) / s_{pooled}`;
* three or more: repeated-measures ANOVA (paired by subject; :math:`F = MS_{cond} / MS_{error}`,
  partial :math:`\eta^2 = SS_{cond} / (SS_{cond} + SS_{error})`, p from :func:`scipy.stats.f.sf`),
  else one-way ANOVA (:func:`scipy.stats.f_oneway`, :math:`\eta^2 = SS_{between} / SS_{total}`,
  which is also its partial :math:`\eta^2`).

A test needs at least two trials in every condition (paired: two subjects); otherwise no p-value
is given and the reason is said.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.footwear_report.trials import TrialSolve

__all__ = ["Metric", "METRICS", "descriptives", "trial_values", "compare_conditions", "conditions_of"]


@dataclass(frozen=True)
class Metric:
    """A reported figure: key, name, unit, label and decimals."""

    key: str
    name: str
    unit: str
    label: str
    digits: int


METRICS: tuple[Metric, ...] = (
    Metric("trunk_mean", "trunk inclination mean", "deg", "solved", 2),
    Metric("trunk_range", "trunk inclination range", "deg", "solved", 2),
    Metric("stride", "stride length", "m", "solved", 3),
    Metric("speed", "walking speed", "m/s", "solved", 3),
    Metric("knee", "stance-knee peak flexion", "deg", "solved", 1),
    Metric("cadence", "cadence", "steps/min", "input", 1),
)
RECORDING = Metric("trunk_mean_recorded", "trunk inclination mean (recording)", "deg", "recording", 2)
SET_POINTS: tuple[Metric, ...] = (
    Metric("trunk_lean_deg", "trunk lean of the generator", "deg", "set-point", 2),
    Metric("cadence_spm", "cadence of the generator", "steps/min", "set-point", 1),
    Metric("stride_m", "stride of the generator", "m", "set-point", 3),
)


def _cycle_value(metrics: dict[str, Any], key: str) -> float:
    return float({"trunk_mean": lambda m: m["trunk_deg"]["mean"], "trunk_range": lambda m: m["trunk_deg"]["range"],
                  "stride": lambda m: m["stride_m"], "speed": lambda m: m["speed_m_s"],
                  "knee": lambda m: m["stance_knee_peak_deg"], "cadence": lambda m: m["cadence_spm"]}[key](metrics))


def conditions_of(solves: Sequence[TrialSolve]) -> list[str]:
    """Conditions in manifest order."""
    return list(dict.fromkeys(s.trial.condition for s in solves))


def _stat(values: Sequence[float], trials: int) -> dict[str, float | int]:
    v = np.asarray([x for x in values if math.isfinite(x)], dtype=float)
    if v.size == 0:
        return {"mean": math.nan, "sd": math.nan, "n_cycles": 0, "n_trials": trials}
    return {"mean": float(v.mean()), "sd": float(v.std(ddof=1)) if v.size > 1 else 0.0, "n_cycles": int(v.size),
            "n_trials": trials}


def trial_values(solve: TrialSolve, key: str) -> list[float]:
    """``key`` on each converged cycle of ``solve`` (recording and set-point keys included)."""
    if key == RECORDING.key:
        return list(solve.recorded_trunk_mean_deg)
    if key in {m.key for m in SET_POINTS}:
        return [solve.design[key]] if key in solve.design else []
    return [_cycle_value(c.metrics, key) for c in solve.ok_cycles]


def descriptives(solves: Sequence[TrialSolve]) -> dict[str, dict[str, dict[str, float | int]]]:
    """``{condition: {metric key: {"mean", "sd", "n_cycles", "n_trials"}}}`` over converged cycles."""
    out: dict[str, dict[str, dict[str, float | int]]] = {}
    for cond in conditions_of(solves):
        mine = [s for s in solves if s.trial.condition == cond]
        entry = {}
        for m in (*METRICS, RECORDING, *SET_POINTS):
            vals = [v for s in mine for v in trial_values(s, m.key)]
            used = sum(1 for s in mine if trial_values(s, m.key))
            entry[m.key] = _stat(vals, used)
        out[cond] = entry
    return out


def _per_trial(solves: Sequence[TrialSolve], cond: str, key: str) -> dict[str, float]:
    """``{subject or label: mean over its converged cycles}`` of one condition."""
    out = {}
    for s in solves:
        if s.trial.condition != cond:
            continue
        vals = trial_values(s, key)
        if vals:
            out[s.trial.subject or s.trial.label] = float(np.mean(vals))
    return out


def _paired_subjects(groups: dict[str, dict[str, float]], solves: Sequence[TrialSolve]) -> list[str] | None:
    """Subjects common to every condition when the design is paired (one trial per subject and
    condition, the same subjects everywhere, at least two), else ``None``."""
    subjects = [s.trial.subject for s in solves]
    if any(not x for x in subjects):
        return None
    for cond in groups:
        mine = [s.trial.subject for s in solves if s.trial.condition == cond]
        if len(mine) != len(set(mine)):
            return None
    sets = [set(g) for g in groups.values()]
    if not sets or any(x != sets[0] for x in sets) or len(sets[0]) < 2:
        return None
    return sorted(sets[0])


def compare_conditions(solves: Sequence[TrialSolve], key: str) -> dict[str, Any]:
    """The test of ``key`` between the conditions (module doc).

    Returns ``{"test", "design", "p", "statistic", "df", "effect", "effect_name", "n", "note"}``;
    ``p`` is ``None`` when no test can be made (``note`` says why).
    """
    from scipy import stats

    conds = conditions_of(solves)
    groups = {c: _per_trial(solves, c, key) for c in conds}
    n = {c: len(g) for c, g in groups.items()}
    base: dict[str, Any] = {"test": None, "design": None, "p": None, "statistic": None, "df": None, "effect": None,
                            "effect_name": None, "n": n, "note": ""}
    if len(conds) < 2:
        return {**base, "note": "one condition: nothing to compare"}
    if max(n.values()) <= 1:
        return {**base, "note": "one trial per condition: no test, no p-value"}
    if min(n.values()) < 2:
        few = ", ".join(c for c in conds if n[c] < 2)
        return {**base, "note": f"fewer than two trials in {few}: no test, no p-value"}
    subjects = _paired_subjects(groups, solves)
    if subjects is not None:
        y = np.array([[groups[c][s] for c in conds] for s in subjects])   # (subjects, conditions)
        if len(conds) == 2:
            diff = y[:, 1] - y[:, 0]
            r = stats.ttest_rel(y[:, 1], y[:, 0])
            sd = float(diff.std(ddof=1))
            d = float(diff.mean() / sd) if sd > 0 else math.nan
            return {**base, "test": "paired t-test", "design": "paired by subject", "p": float(r.pvalue),
                    "statistic": float(r.statistic), "df": len(subjects) - 1, "effect": d, "effect_name": "Cohen's d_z"}
        k, s_n = len(conds), len(subjects)
        grand = y.mean()
        ss_cond = s_n * float(((y.mean(axis=0) - grand) ** 2).sum())
        ss_subj = k * float(((y.mean(axis=1) - grand) ** 2).sum())
        ss_err = float(((y - grand) ** 2).sum()) - ss_cond - ss_subj
        df1, df2 = k - 1, (k - 1) * (s_n - 1)
        f = (ss_cond / df1) / (ss_err / df2) if ss_err > 0 else math.inf
        eta = ss_cond / (ss_cond + ss_err) if ss_cond + ss_err > 0 else math.nan
        return {**base, "test": "repeated-measures ANOVA", "design": "paired by subject",
                "p": float(stats.f.sf(f, df1, df2)), "statistic": float(f), "df": (df1, df2), "effect": eta,
                "effect_name": "partial eta^2"}
    vals = [np.array(list(groups[c].values())) for c in conds]
    design = "independent samples (trials not paired by subject)"
    if len(conds) == 2:
        a, b = vals
        r = stats.ttest_ind(b, a, equal_var=False)
        pooled = math.sqrt(((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1)) / (a.size + b.size - 2))
        d = float((b.mean() - a.mean()) / pooled) if pooled > 0 else math.nan
        return {**base, "test": "Welch t-test", "design": design, "p": float(r.pvalue), "statistic": float(r.statistic),
                "df": None, "effect": d, "effect_name": "Cohen's d"}
    r = stats.f_oneway(*vals)
    allv = np.concatenate(vals)
    ss_b = float(sum(v.size * (v.mean() - allv.mean()) ** 2 for v in vals))
    ss_t = float(((allv - allv.mean()) ** 2).sum())
    return {**base, "test": "one-way ANOVA", "design": design, "p": float(r.pvalue), "statistic": float(r.statistic),
            "df": (len(conds) - 1, allv.size - len(conds)), "effect": ss_b / ss_t if ss_t > 0 else math.nan,
            "effect_name": "eta^2 (= partial eta^2, one factor)"}


def pairwise(solves: Sequence[TrialSolve], key: str) -> list[dict[str, Any]]:
    """:func:`compare_conditions` for each pair of conditions (two-condition tests), p Holm-adjusted
    over the pairs (``p_holm``)."""
    conds = conditions_of(solves)
    out = []
    for i, a in enumerate(conds):
        for b in conds[i + 1:]:
            sub = [s for s in solves if s.trial.condition in (a, b)]
            sub = sorted(sub, key=lambda s: conds.index(s.trial.condition))
            out.append({"a": a, "b": b, **compare_conditions(sub, key)})
    ps = [(r["p"], j) for j, r in enumerate(out) if r["p"] is not None]
    ps.sort()
    running = 0.0
    for rank, (p, j) in enumerate(ps):
        running = max(running, min(1.0, (len(ps) - rank) * p))
        out[j]["p_holm"] = running
    return out
