"""Width inference: a width parameter set to :data:`~blocks.spec.INHERIT` (``-1``, as Simulink's
inherited port dimensions) takes, at compile, the width of the signal that drives the ports it sizes.

A block class marks one ``int`` parameter ``ParamSpec(inherit=True)`` (Gain, Sum, UnitDelay,
Integrator, Selector and Scope: their ``n``); every port whose size names it is sized by it.
:func:`resolve_widths` runs after the wiring is checked and before anything else reads a width:

1. every output of a fixed width (a number, or an explicit width parameter) is *known*;
2. a block whose width inherits is resolved once one input sized by it is driven by a known output
   of width ``w``: the block is rebuilt with ``n = w`` exactly as if ``n = w`` had been written (so its
   checks, per-item parameters, states, packed parameters and kernels see a plain number), and
   its outputs sized by ``n`` become known;
3. step 2 repeats until nothing changes (a fixed point over the wires: a loop through a stateful
   block resolves from wherever a width enters it).

A block left over is an error: one whose inherited inputs are unconnected, or a loop of blocks that
all inherit with no width entering it (the message walks the loop). The widths of the other inputs
of a resolved block (a Sum's second input, say) are checked afterwards with every other wire
(:func:`blocks.compile.compile_diagram`: ``"k.u is 3 wide but c.y gives 2"``); a per-element
parameter whose length differs from the inherited width (an Integrator's ``x0``) is reported after
them, since a wrong width upstream is the likelier cause.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from blocks.core import Block
from blocks.spec import INHERIT, BlockError, DiagramError

__all__ = ["Inherited", "resolve_widths", "width_change", "width_param"]


@dataclass(frozen=True)
class Inherited:
    """How one block's width was resolved: ``param = width``, taken by input ``port`` from ``source``."""

    param: str
    width: int
    port: str
    source: str


def width_param(b: Block) -> str | None:
    """The name of ``b``'s width parameter when it is set to inherit, else None."""
    for key, spec in b.params.items():
        if spec.inherit and b.values[key] == INHERIT:
            return key
    return None


def width_change(b: Block, param: str, value: Any) -> str | None:
    """What setting ``param = value`` would change in ``b``'s port widths or state sizes (a constant's
    ``value`` of another length, say), or None. A running model keeps its widths: such a change is
    structural, even for a tunable parameter (:meth:`blocks.registry.ParameterRegistry.set` refuses it)."""
    trial = type(b)(b.name, **{**{k: b.values[k] for k in b.explicit}, param: value})
    (ins, outs), (new_ins, new_outs) = b.port_specs(), trial.port_specs()
    for old, new in zip((*ins, *outs), (*new_ins, *new_outs)):
        if old.size != new.size:
            return f"{b.name}.{old.name} would be {new.size} wide, not {old.size}"
    if (trial.state_size(), trial.discrete_size()) != (b.state_size(), b.discrete_size()):
        return f"block '{b.name}' would have another number of states"
    return None


def _with_width(b: Block, param: str, width: int, source: str, late: list[str]) -> Block:
    """``b`` built with ``param = width``. A per-element parameter of the wrong length is noted in
    ``late`` and left out (its block still gives its ports' widths); any other error raises."""
    values = {k: b.values[k] for k in b.explicit}
    values[param] = width
    try:
        return type(b)(b.name, **values)
    except BlockError as exc:
        message = f"{exc} ({b.name}.{param} = {width} is inherited from {source})"
        per_element = {k for k, spec in b.params.items() if spec.size == param}
        if not per_element:
            raise DiagramError(message) from None
        late.append(message)
        return type(b)(b.name, **{k: v for k, v in values.items() if k not in per_element})


def resolve_widths(blocks: dict[str, Block], in_source: dict[str, str]) -> tuple[dict[str, Inherited], list[str]]:
    """Resolve every inherited width (module docstring): replaces those blocks in ``blocks`` (in place)
    by ones built with the width. Returns how each was resolved, by block name, and the messages of
    per-element parameters whose length does not fit (to raise once the wires' widths are checked).

    ``in_source`` maps each connected ``"block.input"`` to the ``"block.output"`` driving it."""
    known: dict[str, int] = {}
    pending: dict[str, str] = {}
    for name, b in blocks.items():
        for s in b.port_specs()[1]:
            if s.size != INHERIT:
                known[f"{name}.{s.name}"] = int(s.size)
        param = width_param(b)
        if param is not None:
            pending[name] = param
    resolved: dict[str, Inherited] = {}
    late: list[str] = []
    progress = True
    while pending and progress:
        progress = False
        for name in list(pending):
            b = blocks[name]
            ports = [f"{name}.{s.name}" for s in b.port_specs()[0] if s.size == INHERIT]
            hit = next((p for p in ports if in_source.get(p) in known), None)
            if hit is None:
                continue
            param, width = pending.pop(name), known[in_source[hit]]
            blocks[name] = _with_width(b, param, width, in_source[hit], late)
            resolved[name] = Inherited(param, width, hit, in_source[hit])
            for s in blocks[name].port_specs()[1]:
                known[f"{name}.{s.name}"] = int(s.size)
            progress = True
    if pending:
        raise DiagramError(_unresolved(blocks, pending, in_source))
    return resolved, late


def _unresolved(blocks: dict[str, Block], pending: dict[str, str], in_source: dict[str, str]) -> str:
    """Why the first block left over has no width: walk back through inheriting sources to a block
    with nothing connected, or round a loop."""
    path: list[str] = []
    name = next(iter(pending))
    while name not in path:
        path.append(name)
        b = blocks[name]
        ports = [f"{name}.{s.name}" for s in b.port_specs()[0] if s.size == INHERIT]
        sources = [in_source[p].split(".")[0] for p in ports if p in in_source]
        if not sources:
            what = f"input(s) {', '.join(ports)} are not connected" if ports else "it has no input it sizes"
            return (f"block '{name}' ({b.type_name}): its width {name}.{pending[name]} is inherited but {what}; "
                    f"connect a signal or set {pending[name]}")
        name = next((s for s in sources if s in pending), sources[0])
    loop = path[path.index(name):] + [name]
    return ("widths cannot be inherited around the loop " + " → ".join(loop) + ": every block on it inherits "
            "its width and no signal of known width enters it; set the width of one of them ("
            + ", ".join(f"{n}.{pending[n]}" for n in loop[:-1]) + ")")
