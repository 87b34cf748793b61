"""What the scopes show: traces, scope specs and the default scope set.

A :class:`ScopeSpec` lists the traces ``(signal, column, scale)`` of one plot; angles are shown
in degrees (``scale = DEG = 180/pi``). :func:`default_scopes` locates the signals by block type,
so presets may rename blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.gui.figure.stick_figure import LEFT, RIGHT
from app.gui.scopes.scope_units import DEG
from app.gui.session.session import SimSession

__all__ = ["DEG", "PALETTE", "ScopeSpec", "Trace", "block_scopes", "default_scopes"]

PALETTE = ("#1f77b4", "#e8710a", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf")


@dataclass
class Trace:
    """One curve: column ``col`` of logged signal ``signal`` times ``scale``."""

    label: str
    signal: str
    col: int | None
    scale: float = 1.0
    color: str = "#1f77b4"
    dashed: bool = False
    width: float = 1.6


@dataclass
class ScopeSpec:
    """One plot: ``traces`` against time (``unit`` on y), or, with ``x`` set, an XY plot of
    every trace (y, in ``unit``) against the trace ``x`` (in ``x_unit``), e.g. a phase portrait."""

    title: str
    unit: str
    traces: list[Trace]
    shade_stance: bool = False
    mark_filled: bool = False     # grey bands where the loader filled a contact no force plate saw
    extra: dict[str, float] = field(default_factory=dict)
    x: Trace | None = None
    x_unit: str = ""

    def all_traces(self) -> list[Trace]:
        """The y traces, and the x trace of an XY plot."""
        return [*self.traces, *([self.x] if self.x is not None else [])]

    def shape(self) -> tuple[object, ...]:
        """What the plot items depend on (titles, pens, options), not which signals feed them:
        a scope of the same shape is reused on a recompile instead of rebuilt."""
        pens = tuple((tr.label, tr.color, tr.dashed, tr.width) for tr in self.traces)
        return (self.title, self.unit, pens, self.shade_stance, self.mark_filled, self.x is not None,
                self.x_unit, self.x.label if self.x is not None else "")


def default_scopes(s: SimSession) -> list[ScopeSpec]:
    """The default scopes, located by block type so presets may rename blocks."""
    q = s.find("FiveLinkDynamics", "q")
    ref = s.find("ReferenceSource", "angles")
    est = s.find("NetTorqueEstimator", "tau")
    sw = s.find("GrfMatch", "tau") or s.find("TorqueSwitch", "tau")  # the torque the body gets
    grf = s.find("GrfSource", "F")
    cop = s.find("AnkleBalance", "cop")
    out: list[ScopeSpec] = []

    def angle_scope(title: str, qcols: tuple[int, int], rcols: tuple[int, int]) -> None:
        tr = []
        for side, qc, rc, col in (("L", qcols[0], rcols[0], LEFT), ("R", qcols[1], rcols[1], RIGHT)):
            if q:
                tr.append(Trace(side, q, qc, DEG, col))
            if ref:
                tr.append(Trace(f"{side} ref", ref, rc, DEG, col, dashed=True, width=1.0))
        out.append(ScopeSpec(title, "deg", tr))

    angle_scope("Hip flexion β", (3, 4), (1, 2))
    angle_scope("Knee flexion γ", (5, 6), (3, 4))
    # joint torques of both legs: columns [hip_l, hip_r, knee_l, knee_r] of est.tau and the applied torque
    for title, cols in (("Hip torque", (0, 1)), ("Knee torque", (2, 3))):
        tr = []
        for side, c, colour in (("L", cols[0], LEFT), ("R", cols[1], RIGHT)):
            if sw:
                tr.append(Trace(side, sw, c, 1.0, colour, width=1.8))
            if est:
                tr.append(Trace(f"{side} estimator", est, c, 1.0, colour, dashed=True, width=1.0))
        out.append(ScopeSpec(title, "N*m", tr))
    if grf:
        out.append(ScopeSpec("Vertical GRF", "N", [Trace("L", grf, 1, 1.0, LEFT), Trace("R", grf, 3, 1.0, RIGHT)],
                             shade_stance=True, mark_filled=True))
        out.append(ScopeSpec("Fore-aft GRF", "N", [Trace("L", grf, 0, 1.0, LEFT), Trace("R", grf, 2, 1.0, RIGHT)],
                             shade_stance=True, mark_filled=True))
    tr = [Trace("α", q, 2, DEG, "#222222", width=2.0)] if q else []
    if ref:
        tr.append(Trace("α ref", ref, 0, DEG, "#222222", dashed=True, width=1.0))
    out.append(ScopeSpec("Trunk angle α", "deg", tr))
    if cop:
        out.append(ScopeSpec("CoP shift ahead of the contact (ankle)", "cm",
                             [Trace("L", cop, 0, 100.0, LEFT), Trace("R", cop, 1, 100.0, RIGHT)], shade_stance=True))
    out = [sp for sp in out if sp.traces]     # a diagram without the walking blocks shows none of their scopes
    return out + block_scopes(s, fallback=not out)


def block_scopes(s: SimSession, fallback: bool = False, most: int = 4) -> list[ScopeSpec]:
    """One scope per ``Scope`` block of the diagram, titled with its name: its input as logged (the
    tap ``NAME.u``, else the output wired to it), one trace per element, in the block's ``unit`` if
    set; with ``fallback`` and no ``Scope`` block, the first ``most`` logged signals, one scope each,
    so that a diagram with neither still shows something."""
    logged = set(s.signal_names())
    wired = {dst: src for src, dst in s.diagram.connections}
    shown: list[tuple[str, str, str]] = []          # (title, signal, unit)
    for b in s.blocks_of_type("Scope"):
        sig = next((x for x in (f"{b}.u", wired.get(f"{b}.u")) if x in logged), None)
        if sig is not None:
            shown.append((b, sig, str(s.diagram.value(f"{b}.unit")) or s.unit(sig)))
    if not shown and fallback:
        shown = [(sig, sig, s.unit(sig)) for sig in s.signal_names()[:most]]
    out = []
    for title, sig, unit in shown:
        labels = s.labels(sig) or (sig,)
        traces = [Trace(lab, sig, i if len(labels) > 1 else None, 1.0, PALETTE[i % len(PALETTE)])
                  for i, lab in enumerate(labels)]
        out.append(ScopeSpec(title, unit, traces))
    return out
