r"""The answer: for each pair of conditions, the GRF x swing-kinematics factorial of the posture solver.

For conditions A and B (each represented by its first trial), the four cells GRF {A, B} x swing
kinematics {A, B} are solved on cycle 0; :func:`app.posture_study.effects` gives the GRF main
effect, the kinematics main effect and the interaction of the trunk mean [deg], the stride [m] and
the stance-knee peak [deg]. The interaction is the difference of differences
``y(B, B) - y(B, A) - y(A, B) + y(A, A)`` (how much the GRF effect changes with the swing):
:func:`~app.posture_study.effects` defines it as ``total - GRF - kinematics``, which is zero for
any four cells once the main effects are averages, so it is replaced here. The factorial is
repeated under each robustness variant
(:data:`app.posture_study.VARIANTS`; ``quick`` keeps the base solve, the segment swing reference
and the trunk CoM at -1 and +1 cm). An effect is ``robust`` when its sign is the same, and not
zero, under every variant whose four cells converged, else ``not identifiable``; with fewer than
two such variants it is ``untested``.

A cell solves the GRF and CoP of one trial with the swing hip and knee of another, read by swing
phase, on the body of the GRF trial (its mass and height): the same solve as
:func:`app.posture_study.cell`, for manifest trials (files, masses, heights).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from app.footwear_report.trials import SolveCache, SolvedCycle
from app.manifest import Trial
from app.posture import SolveSpec
from app.posture_study import VARIANTS, effects

__all__ = ["FIGURES", "EFFECTS", "robustness_variants", "FactorialResult", "run_factorial", "solve_cell",
           "cell_from_cycle"]

FIGURES: tuple[tuple[str, str, str], ...] = (("trunk_mean", "trunk mean", "deg"), ("stride", "stride", "m"),
                                              ("knee", "stance-knee peak", "deg"))
EFFECTS = ("grf", "kinematics", "interaction")
QUICK = ("joint, sigma 0.5 deg, 100 nodes", "segment reference", "trunk CoM -1 cm", "trunk CoM +1 cm")


def robustness_variants(level: str) -> tuple[tuple[str, SolveSpec], ...]:
    """``full``: every variant of :data:`app.posture_study.VARIANTS`; ``quick``: :data:`QUICK`;
    ``none``: the base solve alone (no verdicts); ``off``: no factorial at all."""
    if level == "full":
        return VARIANTS
    if level == "quick":
        return tuple(v for v in VARIANTS if v[0] in QUICK)
    if level == "off":
        return ()
    if level == "none":
        return VARIANTS[:1]
    raise ValueError(f"robustness must be quick, full or none, got {level!r}")


def _load(trial: Trial) -> Any:
    from grf_data.registry import load_dataset

    return load_dataset(trial.grf, kinematics=trial.kinematics, mass=trial.mass, height=trial.height)


def _cell(g: Trial, k: Trial, spec: SolveSpec) -> dict[str, Any]:
    from app.posture import model_params, solve_inputs, solver_options
    from models.errors import UserError
    from models.posture.metrics import answer_status, posture_metrics
    from models.posture.solver import solve_posture

    try:
        gds = _load(g)
        kds = None if k == g else _load(k)
        params = model_params(gds, spec, g.mass, g.height)
        ci = solve_inputs(gds, kds, spec, params, 0)
        sol = solve_posture(ci, params, solver_options(spec, gds, ci.period))
    except (UserError, ValueError, RuntimeError) as exc:
        return {"status": "failed", "why": f"{type(exc).__name__}: {exc}"}
    m = posture_metrics(sol)
    status, why = answer_status(sol, m)
    return {"status": status, "why": why, "trunk_mean": m["trunk_deg"]["mean"], "trunk_range": m["trunk_deg"]["range"],
            "stride": m["stride_m"], "knee": m["stance_knee_peak_deg"], "residual": m["residual"],
            "iterations": sol.iterations}


def solve_cell(g: Trial, k: Trial, spec: SolveSpec, cache: SolveCache) -> dict[str, Any]:
    """One factorial cell (module doc), cached: status, why, trunk_mean, stride, knee, residual."""
    result: dict[str, Any] = cache.get(cache.key("cell", g, k, asdict(spec)), lambda: _cell(g, k, spec))
    return result


@dataclass
class FactorialResult:
    """Cells per variant and, per pair and figure, the effects and their verdicts."""

    conditions: list[str]
    trials: dict[str, Trial]
    variants: list[str]
    cells: dict[str, dict[tuple[str, str], dict[str, Any]]] = field(default_factory=dict)
    effects: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)

    @property
    def pairs(self) -> list[tuple[str, str]]:
        c = self.conditions
        return [(a, b) for i, a in enumerate(c) for b in c[i + 1:]]


def _effects(cells: dict[tuple[str, str], dict[str, Any]], a: str, b: str, key: str) -> dict[str, float]:
    """:func:`app.posture_study.effects` with the interaction as the difference of differences (module doc)."""
    e = effects(cells, a, b, key)
    y = {gk: cells[gk][key] for gk in ((a, a), (a, b), (b, a), (b, b))}
    return {**e, "interaction": y[(b, b)] - y[(b, a)] - y[(a, b)] + y[(a, a)]}


def _verdict(values: list[float]) -> str:
    if len(values) < 2:
        return "untested"
    return "robust" if all(v > 0 for v in values) or all(v < 0 for v in values) else "not identifiable"


def cell_from_cycle(cycle: SolvedCycle) -> dict[str, Any]:
    """A factorial cell from a trial's own solve of cycle 0 (the base variant's diagonal cell)."""
    if not cycle.ok:
        return {"status": cycle.status, "why": cycle.why}
    m = cycle.metrics
    return {"status": cycle.status, "why": cycle.why, "trunk_mean": m["trunk_deg"]["mean"],
            "trunk_range": m["trunk_deg"]["range"], "stride": m["stride_m"], "knee": m["stance_knee_peak_deg"],
            "residual": m["residual"], "iterations": cycle.iterations}


def run_factorial(trials: dict[str, Trial], level: str, cache: SolveCache,
                  progress: Callable[[str], None] | None = None,
                  diagonal: dict[str, dict[str, Any]] | None = None) -> FactorialResult:
    """Every cell of every variant, then the effects of each pair (module doc). ``diagonal``: the
    base variant's cells (GRF and swing of the same trial) already solved, by condition."""
    conds = list(trials)
    variants = robustness_variants(level)
    out = FactorialResult(conds, trials, [v[0] for v in variants])
    for label, spec in variants:
        cells = {}
        for g in conds:
            for k in conds:
                if g == k and label == variants[0][0] and diagonal and g in diagonal:
                    cells[(g, k)] = diagonal[g]
                    continue
                if progress is not None:
                    progress(f"factorial [{label}]: GRF {g}, swing {k}")
                cells[(g, k)] = solve_cell(trials[g], trials[k], spec, cache)
        out.cells[label] = cells
    base = out.variants[0]
    for a, b in out.pairs:
        for key, _, _ in FIGURES:
            eff = {v: _effects(c, a, b, key) for v, c in out.cells.items()
                   if all(c[(g, k)]["status"] == "converged" for g in (a, b) for k in (a, b))}
            entry: dict[str, Any] = {"variants_converged": len(eff), "variants": len(variants),
                                     "base": eff.get(base)}
            for e in (*EFFECTS, "total"):
                vals = [x[e] for x in eff.values()]
                entry[e] = {"range": (min(vals), max(vals)) if vals else None, "verdict": _verdict(vals),
                            "values": vals}
            failed = [f"{v}: GRF {g}, swing {k} {c[(g, k)]['status']}" for v, c in out.cells.items()
                      for g in (a, b) for k in (a, b) if c[(g, k)]["status"] != "converged"]
            entry["failed_cells"] = failed
            out.effects[(a, b, key)] = entry
    return out
