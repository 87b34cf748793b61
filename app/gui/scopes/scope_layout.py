"""The scope layout as saved in session files (``view["scopes"]``); no Qt in this module.

::

    {"units": "SI" | "BW", "cycle": bool, "custom": bool,
     "scopes": [{"title", "unit", "traces": [{"label", "signal", "col", "scale", "color", "dashed",
                 "width"}], "shade_stance", "mark_filled", "x": trace | null, "x_unit"}]}

``custom`` says the user chose the scopes (added or removed signals, XY plots); without it the
scopes are the default set, which is rebuilt for the session's diagram on loading.
:func:`specs_from_state` reads the list back and checks it against the signals the session logs:
a layout naming a signal the session does not log (an older diagram) gives None, and the
default scopes are shown instead.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from app.gui.scopes.scope_specs import ScopeSpec, Trace
from app.gui.scopes.scope_units import UNIT_MODES

__all__ = ["layout_dict", "specs_from_state", "trace_from_dict"]


def layout_dict(specs: list[ScopeSpec], units: str, cycle: bool, custom: bool) -> dict[str, Any]:
    """The JSON-able layout of ``specs`` with the display options."""
    return {"units": units, "cycle": bool(cycle), "custom": bool(custom),
            "scopes": [{**asdict(sp), "extra": dict(sp.extra)} for sp in specs]}


def trace_from_dict(d: Any) -> Trace:
    """A :class:`Trace` from its dict (``ValueError``/``TypeError``/``KeyError`` on a bad one)."""
    col = d["col"]
    return Trace(str(d["label"]), str(d["signal"]), None if col is None else int(col), float(d.get("scale", 1.0)),
                 str(d.get("color", "#1f77b4")), bool(d.get("dashed", False)), float(d.get("width", 1.6)))


def specs_from_state(state: Any, signals: set[str]) -> list[ScopeSpec] | None:
    """The saved scopes if ``state`` is a custom layout whose every signal is in ``signals``, else None."""
    if not isinstance(state, dict) or not state.get("custom") or not isinstance(state.get("scopes"), list):
        return None
    try:
        specs = [ScopeSpec(str(d["title"]), str(d["unit"]), [trace_from_dict(t) for t in d["traces"]],
                           bool(d.get("shade_stance", False)), bool(d.get("mark_filled", False)),
                           {str(k): float(v) for k, v in dict(d.get("extra", {})).items()},
                           None if d.get("x") is None else trace_from_dict(d["x"]), str(d.get("x_unit", "")))
                 for d in state["scopes"]]
    except (KeyError, TypeError, ValueError):
        return None
    ok = all(tr.signal in signals for sp in specs for tr in sp.all_traces())
    return specs if ok else None


def units_of(state: Any) -> str | None:
    """The saved units mode, if valid."""
    u = state.get("units") if isinstance(state, dict) else None
    return u if u in UNIT_MODES else None
