"""Units of the signals of a compiled diagram: each port's declared unit, and, for the generic
blocks that declare none, the unit their inputs give them (no Qt, no numerics).

A block of the generic library does not know what it carries: a ``Selector`` of ``body.q``
carries angles, a ``Mux`` of two PID outputs carries torques. :func:`signal_units` gives every
output ``block.port`` of a :class:`~blocks.compile.CompiledModel` a unit:

* declared (``PortSpec.unit``), when the block declares one;
* else per column from the inputs, for the blocks whose output is (a scaled copy of) their inputs:
  ``Selector`` (the selected columns' units), ``Mux`` (the inputs' columns in order), ``Sum``
  (the inputs' unit where they agree; an input of unknown unit takes the others'), ``Gain``
  (``k`` is taken as dimensionless: ``y = k u`` keeps ``u``'s unit) and ``UnitDelay``;
* else ``""`` (unknown), e.g. a ``Constant``.

A unit is one text for all columns (``"rad"``) or one per column (``"rad, rad, N*m"``), as the
recorder's CSV header reads it; :func:`column_units` expands either form, and the generalised
coordinates' ``"m, rad"`` (positions ``x0``, ``y0`` in m, angles in rad).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from blocks.compile import CompiledModel

__all__ = ["PASS_THROUGH", "column_units", "join_units", "signal_units"]

#: generic block types whose output unit follows from their inputs (module doc)
PASS_THROUGH = ("Selector", "Mux", "Sum", "Gain", "UnitDelay")


def column_units(unit: str, labels: tuple[str, ...] | list[str], n: int | None = None) -> list[str]:
    """The unit of each of the ``n`` (default ``len(labels)``) columns of a signal in ``unit``: one
    unit for all, one per column (``"N, N, m"``), or, for generalised coordinates ``"m, rad"``, the
    first unit for the position columns (``x0``, ``y0``, …) and the second for the others."""
    n = len(labels) if n is None else n
    parts = [p.strip() for p in unit.split(",")]
    if len(parts) == 1:
        return parts * n
    if len(parts) == n:
        return parts
    labs = list(labels) + [""] * (n - len(labels))
    return [parts[0] if re.fullmatch(r"[xy]\d*", lab) else parts[-1] for lab in labs[:n]]


def join_units(cols: list[str]) -> str:
    """The compact unit of columns ``cols``: one text when they agree, else one per column."""
    if not cols:
        return ""
    return cols[0] if all(c == cols[0] for c in cols) else ", ".join(cols)


def _derived(kind: str, params: dict[str, object], ins: list[list[str]], n_out: int) -> list[str] | None:
    """Column units of a pass-through block's output from its inputs' column units (None: unknown)."""
    if kind == "Mux":
        cols = [u for cu in ins for u in cu]
    elif kind == "Selector":
        src = ins[0] if ins else []
        idx = [int(float(i)) for i in params.get("indices", ())]    # type: ignore[attr-defined]
        cols = [src[i] if i < len(src) else "" for i in idx]
    elif kind in ("Gain", "UnitDelay"):
        cols = list(ins[0]) if ins else []
    else:   # Sum: column by column, the inputs' unit where the known ones agree
        cols = []
        for k in range(n_out):
            known = {cu[k] for cu in ins if k < len(cu) and cu[k]}
            cols.append(known.pop() if len(known) == 1 else "")
    return cols if len(cols) == n_out and any(cols) else None


def signal_units(model: CompiledModel) -> dict[str, str]:
    """``"block.port"`` -> unit of every output of ``model`` (module doc)."""
    units: dict[str, str] = {}
    cols: dict[str, list[str]] = {}
    for b in model.blocks:
        for spec in model.outputs[b.name]:
            ref = f"{b.name}.{spec.name}"
            size = model.out_slot[ref][1]
            units[ref] = spec.unit
            cols[ref] = column_units(spec.unit, spec.labels, size) if spec.unit else [""] * size
    open_refs = {f"{b.name}.{spec.name}": b for b in model.blocks if type(b).__name__ in PASS_THROUGH
                 for spec in model.outputs[b.name] if not spec.unit}
    for _ in range(len(open_refs) + 1):     # a chain of n pass-through blocks settles in n passes
        changed = False
        for ref, b in open_refs.items():
            keys = [f"{b.name}.{p.name}" for p in model.inputs[b.name]]
            ins = [cols.get(model.in_source.get(k, ""), [""] * model.in_slot[k][1]) for k in keys]
            new = _derived(type(b).__name__, dict(b.values), ins, model.out_slot[ref][1])
            if new is not None and new != cols[ref]:
                cols[ref], units[ref], changed = new, join_units(new), True
        if not changed:
            break
    return units
