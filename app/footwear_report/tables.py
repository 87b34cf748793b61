"""The report's tables as rows of strings (CSV and Markdown), and its first paragraph.

* :func:`metrics_table` -- one row per figure: label (``input`` / ``solved`` / ``set-point`` /
  ``recording``), unit, mean ± SD (trials, cycles) per condition, the test, p and effect size;
* :func:`tidy_rows` -- the same numbers one row per figure and condition (``table.csv``);
* :func:`trials_table` -- one row per trial and cycle: status, residual verdicts, solver account;
  a failed or non-periodic cycle shows its status and reason, never numbers;
* :func:`factorial_table` -- per pair and figure: each effect under the base solve, its range
  over the robustness variants and its verdict;
* :func:`answer` -- the first paragraph: what the GRF alone does to posture, and how sure.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.footwear_report.factorial import EFFECTS, FIGURES, FactorialResult
from app.footwear_report.stats import METRICS, RECORDING, SET_POINTS, compare_conditions, conditions_of
from app.footwear_report.trials import TrialSolve

__all__ = ["metrics_table", "tidy_rows", "trials_table", "factorial_table", "answer", "write_csv", "markdown"]


def _num(v: Any, digits: int, sign: bool = False) -> str:
    if v is None or not isinstance(v, (int, float)) or not math.isfinite(v):
        return "n/a"
    return f"{v:{'+' if sign else ''}.{digits}f}"


def _p(p: float | None) -> str:
    if p is None:
        return "-"
    return "< 0.001" if p < 0.001 else f"{p:.3f}"


def metrics_table(solves: Sequence[TrialSolve], desc: dict[str, Any]) -> list[list[str]]:
    """Header + one row per figure (module doc)."""
    conds = conditions_of(solves)
    rows = [["figure", "label", "unit", *[f"{c} mean ± SD (trials, cycles)" for c in conds], "test", "p",
             "effect size"]]
    for m in (*METRICS, RECORDING, *SET_POINTS):
        cells = []
        for c in conds:
            s = desc[c][m.key]
            cells.append("n/a" if not s["n_cycles"] else
                         f"{_num(s['mean'], m.digits)} ± {_num(s['sd'], m.digits)} ({s['n_trials']}, {s['n_cycles']})")
        if all(x == "n/a" for x in cells):
            continue
        if m.label in ("solved", "input"):
            t = compare_conditions(solves, m.key)
            test = t["test"] or t["note"]
            if t["test"] and t["design"] and "independent" in t["design"]:
                test += " (independent samples)"
            eff = "-" if t["effect"] is None else f"{t['effect_name']} = {_num(t['effect'], 2)}"
            rows.append([m.name, m.label, m.unit, *cells, test, _p(t["p"]), eff])
        else:
            rows.append([m.name, m.label, m.unit, *cells, "-", "-", "-"])
    return rows


def tidy_rows(desc: dict[str, Any]) -> list[list[str]]:
    """``figure, label, unit, condition, mean, sd, n_trials, n_cycles`` per figure and condition."""
    rows = [["figure", "label", "unit", "condition", "mean", "sd", "n_trials", "n_cycles"]]
    for m in (*METRICS, RECORDING, *SET_POINTS):
        for cond, entry in desc.items():
            s = entry[m.key]
            if s["n_cycles"]:
                rows.append([m.name, m.label, m.unit, cond, f"{s['mean']:.6g}", f"{s['sd']:.6g}", str(s["n_trials"]),
                             str(s["n_cycles"])])
    return rows


def trials_table(solves: Sequence[TrialSolve]) -> list[list[str]]:
    """One row per trial and cycle (module doc)."""
    rows = [["condition", "trial", "synthetic", "cycle", "status", "trunk mean [deg]", "stride [m]",
             "residual force (verdict)", "residual moment (verdict)", "iterations", "solve time [s]"]]
    for s in solves:
        name = s.trial.subject or s.trial.label
        syn = "synthetic" if s.synthetic else "recorded"
        if s.error is not None:
            rows.append([s.trial.condition, name, syn, "-", f"failed: {s.error}", "", "", "", "", "", ""])
            continue
        for c in s.cycles:
            if not c.ok:
                rows.append([s.trial.condition, name, syn, str(c.index), f"{c.status}: {c.why}", "", "", "", "",
                             str(c.iterations), f"{c.solve_time_s:.1f}"])
                continue
            r = c.metrics["residual"]
            rows.append([s.trial.condition, name, syn, str(c.index), c.status, f"{c.metrics['trunk_deg']['mean']:.2f}",
                         f"{c.metrics['stride_m']:.3f}", f"{100 * r['force_ratio']:.2f} % ({r['force_verdict']})",
                         f"{100 * r['moment_ratio']:.3f} % ({r['moment_verdict']})", str(c.iterations),
                         f"{c.solve_time_s:.1f}"])
    return rows


def factorial_table(fac: FactorialResult) -> list[list[str]]:
    """Per pair and figure: base effect [range over variants] verdict, for each effect (module doc)."""
    rows = [["B vs A", "figure", "unit", "GRF effect", "GRF verdict", "kinematics effect", "kinematics verdict",
             "interaction", "interaction verdict", "B - A (solved)", "variants converged"]]
    for a, b in fac.pairs:
        for key, name, unit in FIGURES:
            e = fac.effects[(a, b, key)]
            digits = 3 if unit == "m" else 2
            if e["base"] is None:
                why = "; ".join(e["failed_cells"][:4]) or "a cell did not converge"
                rows.append([f"{b} vs {a}", name, unit, f"not solved ({why})", "", "", "", "", "", "",
                             f"{e['variants_converged']}/{e['variants']}"])
                continue
            cells = []
            for eff in EFFECTS:
                lo, hi = e[eff]["range"]
                rng = f"[{_num(lo, digits, True)} .. {_num(hi, digits, True)}]"
                cells += [f"{_num(e['base'][eff], digits, True)} {rng}", e[eff]["verdict"]]
            rows.append([f"{b} vs {a}", name, unit, *cells, _num(e["base"]["total"], digits, True),
                         f"{e['variants_converged']}/{e['variants']}"])
    return rows


def _phrase(value: float, unit: str, what: str) -> str:
    digits = 3 if unit == "m" else 2
    if unit == "m":
        return f"{'lengthens' if value > 0 else 'shortens'} the {what} by {abs(value) * 100:.1f} cm"
    size = f"{abs(value):.{digits}f} deg"
    if what == "trunk mean":
        return f"{'leans the trunk forward' if value > 0 else 'leans the trunk backward'} by {size}"
    return f"{'bends' if value > 0 else 'straightens'} the stance knee at its loading peak by {size}"


def answer(fac: FactorialResult) -> str:
    """The first paragraph (module doc), generated from the effects and their verdicts."""
    n_var = len(fac.variants)
    parts = []
    for a, b in fac.pairs:
        said: list[str] = []
        unsure: list[str] = []
        untested: list[str] = []
        missing: list[str] = []
        for key, name, unit in FIGURES:
            e = fac.effects[(a, b, key)]
            if e["base"] is None:
                missing.append(name)
                continue
            g = e["grf"]
            lo, hi = g["range"]
            rng = f"{lo:+.3f} to {hi:+.3f} m" if unit == "m" else f"{lo:+.2f} to {hi:+.2f} deg"
            text = f"{_phrase(e['base']['grf'], unit, name)} ({rng} over {e['variants_converged']} solver variants)"
            {"robust": said, "not identifiable": unsure}.get(g["verdict"], untested).append(text)
        sentence = (f"Replacing the GRF and CoP of {a.replace('_', ' ')} by those of {b.replace('_', ' ')}, "
                    "with the swing leg kept, ")
        if said:
            sentence += "; ".join(said) + " -- robust: the sign holds in every variant"
        if unsure:
            sentence += (("; it " if said else "") + "; ".join(unsure)
                         + " -- not identifiable: the sign flips between variants")
        if untested:
            sentence += (("; it " if said or unsure else "") + "; ".join(untested)
                         + " -- untested: one solver variant only, so no confidence is claimed")
        if missing:
            sentence += (("; " if said or unsure or untested else "gives no answer on ") + ", ".join(missing)
                         + " (a factorial cell did not converge)")
        parts.append(sentence + ".")
    head = ("What the GRF alone does to posture (GRF x swing-kinematics factorial of the posture solver, one trial "
            f"per condition, {n_var} robustness variant{'s' if n_var != 1 else ''}): ")
    return head + " ".join(parts)


def write_csv(rows: list[list[str]], path: Path) -> Path:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return path


def markdown(rows: list[list[str]]) -> str:
    def esc(x: str) -> str:
        return x.replace("|", "\\|")

    md = ["| " + " | ".join(esc(c) for c in rows[0]) + " |", "|" + "---|" * len(rows[0])]
    md += ["| " + " | ".join(esc(c) for c in row) + " |" for row in rows[1:]]
    return "\n".join(md) + "\n"
