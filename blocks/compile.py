"""Compile a :class:`~blocks.diagram.Diagram` into an execution plan.

Steps:

1. instantiate every block (unknown types and parameters raise);
2. check each connection's ports, and that every input is driven exactly once;
3. build the port-level direct-feedthrough graph (output ``a.y`` -> input ``b.u`` -> output
   ``b.v`` when ``(u, v)`` is a feedthrough pair) and reject a cycle with an
   :class:`~blocks.core.AlgebraicLoopError` naming it ``a.y -> b.u -> b.v -> ... -> a.y``;
4. sort the blocks topologically (stable: diagram order breaks ties); then resolve the widths that
   inherit (:mod:`blocks.widths`) and check every wire's width;
5. lay out one flat signal buffer (every output port is a slice; an input is a view of the
   output that drives it, so wiring costs nothing at run time), the continuous state vector
   and the discrete state vector;
6. find which blocks must be re-evaluated inside RK4 stages ("minor" blocks): those that
   vary continuously (states, time sources, or fed through by such blocks) and feed a block
   with continuous states. Discrete blocks hold their outputs between sample hits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from blocks.core import AlgebraicLoopError, Block, CompileContext, DiagramError, Params, PortSpec
from blocks.diagram import Diagram, split_port
from blocks.widths import Inherited, resolve_widths

__all__ = ["CompiledModel", "compile_diagram"]


@dataclass
class CompiledModel:
    """The execution plan. Offsets index the runner's flat buffers; nothing here mutates at run time.

    Attributes
    ----------
    blocks : list of Block
        In evaluation (topological) order.
    inputs, outputs : dict
        Per block name, its resolved :class:`PortSpec` tuples.
    out_slot : dict
        ``"block.output"`` -> ``(offset, size)`` in the signal buffer.
    in_source : dict
        ``"block.input"`` -> ``"block.output"`` driving it (unconnected optional inputs absent).
    in_slot : dict
        ``"block.input"`` -> ``(offset, size)`` it reads: its source's slot, or a slot of zeros
        beyond the outputs for an unconnected optional input.
    x_slot, z_slot : dict
        Block name -> ``(offset, size)`` in the continuous / discrete state vectors.
    ticks : dict
        Block name -> sample period in solver ticks (1 for non-discrete blocks).
    minor : set of str
        Blocks re-evaluated at RK4 stages 2-4.
    inherited : dict
        Block name -> :class:`~blocks.widths.Inherited`, for each block whose width was inherited
        (``blocks`` hold the resolved widths, as if written).
    """

    diagram: Diagram
    ctx: CompileContext
    blocks: list[Block]
    inputs: dict[str, tuple[PortSpec, ...]]
    outputs: dict[str, tuple[PortSpec, ...]]
    out_slot: dict[str, tuple[int, int]]
    in_source: dict[str, str]
    in_slot: dict[str, tuple[int, int]]
    x_slot: dict[str, tuple[int, int]]
    z_slot: dict[str, tuple[int, int]]
    ticks: dict[str, int]
    minor: set[str]
    params: dict[str, Params]
    x0: np.ndarray
    z0: np.ndarray
    n_signals: int
    inherited: dict[str, Inherited] = field(default_factory=dict)

    @property
    def dt(self) -> float:
        return self.ctx.dt

    @property
    def widths(self) -> dict[str, int]:
        """``"block.output"`` -> its width (the width of every wire it drives), resolved."""
        return {key: size for key, (_, size) in self.out_slot.items()}

    def block(self, name: str) -> Block:
        for b in self.blocks:
            if b.name == name:
                return b
        raise DiagramError(f"no block '{name}'")

    def signal_names(self) -> list[str]:
        return list(self.out_slot)


def compile_diagram(diagram: Diagram, *, dataset: str | None = None,
                    dt: float | None = None, t_end: float | None = None,
                    resources: Mapping[str, Any] | None = None) -> CompiledModel:
    """Check and plan ``diagram``. ``dataset``/``dt``/``t_end`` override the diagram's settings;
    ``resources`` are handed to the blocks by name (:attr:`CompileContext.resources`), over the
    ones the diagram's named sections provide (:meth:`~blocks.diagram.Diagram.resources`; a run's
    build hooks pass theirs, :mod:`app.runs`). Compiling reads no data."""
    solver = diagram.solver
    ctx = CompileContext(dt=solver.dt if dt is None else float(dt), t0=solver.t_start,
                         t_end=solver.t_end if t_end is None else float(t_end),
                         dataset=diagram.dataset if dataset is None else dataset)
    blocks = {name: diagram.instantiate(name) for name in diagram.blocks}
    ctx.resources = {**diagram.resources(), **(resources or {})}
    inputs: dict[str, tuple[PortSpec, ...]] = {}
    outputs: dict[str, tuple[PortSpec, ...]] = {}
    for name, b in blocks.items():
        inputs[name], outputs[name] = b.port_specs()

    in_source = _check_wiring(diagram, blocks, inputs, outputs)
    for block in blocks.values():
        block.check_wiring(in_source, blocks)
    order = _sort(diagram, blocks, in_source)   # an algebraic loop first: it does not depend on widths
    inherited, misfits = resolve_widths(blocks, in_source)
    for name in inherited:
        inputs[name], outputs[name] = blocks[name].port_specs()
    _check_widths(in_source, inputs, outputs, inherited)
    if misfits:
        raise DiagramError(misfits[0])
    order = [blocks[b.name] for b in order]     # the blocks built with their widths
    ticks = _sample_ticks(blocks, ctx.dt)

    out_slot: dict[str, tuple[int, int]] = {}
    off = 0
    for b in order:
        for s in outputs[b.name]:
            out_slot[f"{b.name}.{s.name}"] = (off, int(s.size))
            off += int(s.size)
    in_slot: dict[str, tuple[int, int]] = {}
    for b in order:
        for s in inputs[b.name]:
            key = f"{b.name}.{s.name}"
            if key in in_source:
                in_slot[key] = out_slot[in_source[key]]
            else:  # unconnected optional input: zeros nobody writes
                in_slot[key] = (off, int(s.size))
                off += int(s.size)
    params = {b.name: b.make_params(ctx) for b in order}
    x_slot, z_slot, xs, zs = {}, {}, [], []
    xo = zo = 0
    for b in order:
        nx, nz = b.state_size(), b.discrete_size()
        x_slot[b.name], z_slot[b.name] = (xo, nx), (zo, nz)
        if nx:
            xs.append(_initial(b, b.initial_state(params[b.name], ctx), nx, "continuous"))
        if nz:
            zs.append(_initial(b, b.initial_discrete(params[b.name], ctx), nz, "discrete"))
        xo, zo = xo + nx, zo + nz
    x0 = np.concatenate(xs) if xs else np.zeros(0)
    z0 = np.concatenate(zs) if zs else np.zeros(0)
    minor = _minor_blocks(order, in_source, ticks)
    return CompiledModel(diagram, ctx, order, inputs, outputs, out_slot, in_source, in_slot, x_slot, z_slot, ticks,
                         minor, params, x0, z0, off, inherited)


def _initial(b: Block, v: np.ndarray, n: int, what: str) -> np.ndarray:
    v = np.asarray(v, dtype=np.float64).reshape(-1)
    if v.shape != (n,):
        raise DiagramError(f"block '{b.name}': initial {what} state has {v.size} values, expected {n}")
    if not np.all(np.isfinite(v)):
        raise DiagramError(f"block '{b.name}': initial {what} state is not finite: {v}")
    return v


def _check_wiring(diagram: Diagram, blocks: dict[str, Block], inputs: dict[str, tuple[PortSpec, ...]],
                  outputs: dict[str, tuple[PortSpec, ...]]) -> dict[str, str]:
    in_source: dict[str, str] = {}
    for src, dst in diagram.connections:
        sb, sp = split_port(src)
        db, dp = split_port(dst)
        for blk in (sb, db):
            if blk not in blocks:
                raise DiagramError(f"connection {src} -> {dst}: no block '{blk}'")
        souts = {s.name: s for s in outputs[sb]}
        dins = {s.name: s for s in inputs[db]}
        if sp not in souts:
            raise DiagramError(f"connection {src} -> {dst}: block '{sb}' has no output '{sp}'")
        if dp not in dins:
            raise DiagramError(f"connection {src} -> {dst}: block '{db}' has no input '{dp}'")
        if dst in in_source:
            raise DiagramError(f"fan-in: input '{dst}' is driven by both '{in_source[dst]}' and '{src}'")
        in_source[dst] = src
    for name, ins in inputs.items():
        for s in ins:
            if f"{name}.{s.name}" not in in_source and not s.optional:
                raise DiagramError(f"block '{name}' ({blocks[name].type_name}): input '{s.name}' is not connected")
    return in_source


def _check_widths(in_source: dict[str, str], inputs: dict[str, tuple[PortSpec, ...]],
                  outputs: dict[str, tuple[PortSpec, ...]], inherited: dict[str, Inherited]) -> None:
    """Every wire's output and input widths agree; the message names both ports, Simulink style:
    ``width mismatch: k.u is 3 wide but c.y gives 2``, and where an inherited width came from."""
    for dst, src in in_source.items():
        (db, dp), (sb, sp) = dst.split("."), src.split(".")
        w_in = next(int(s.size) for s in inputs[db] if s.name == dp)
        w_out = next(int(s.size) for s in outputs[sb] if s.name == sp)
        if w_in != w_out:
            how = inherited.get(db)
            note = f" ({db}.{how.param} = {how.width} is inherited from {how.source})" if how else ""
            raise DiagramError(f"width mismatch: {dst} is {w_in} wide but {src} gives {w_out}{note}")


def _sort(diagram: Diagram, blocks: dict[str, Block], in_source: dict[str, str]) -> list[Block]:
    feed = {name: b.feedthrough_pairs() for name, b in blocks.items()}
    # port graph: output "a.y" -> [(input "b.u", output "b.v"), ...]
    graph: dict[str, list[tuple[str, str]]] = {}
    for dst, src in in_source.items():
        db, dp = dst.split(".")
        for u, v in feed[db]:
            if u == dp:
                graph.setdefault(src, []).append((dst, f"{db}.{v}"))
    cycle = _find_cycle(graph)
    if cycle:
        raise AlgebraicLoopError("algebraic loop: " + " → ".join(cycle) +
                                 "; break it with a UnitDelay block (or a block with state)")
    deps: dict[str, set[str]] = {name: set() for name in blocks}
    for dst, src in in_source.items():
        db, dp = dst.split(".")
        if any(u == dp for u, _ in feed[db]):
            deps[db].add(src.split(".")[0])
    order: list[Block] = []
    done: set[str] = set()
    names = list(diagram.blocks)
    while len(order) < len(names):
        ready = [n for n in names if n not in done and deps[n] <= done]
        if not ready:
            stuck = [n for n in names if n not in done]
            raise DiagramError(f"blocks {', '.join(stuck)} depend on each other through blocks that mix "
                               "feedthrough and non-feedthrough outputs; split such a block in two")
        done.add(ready[0])
        order.append(blocks[ready[0]])
    return order


def _find_cycle(graph: dict[str, list[tuple[str, str]]]) -> list[str]:
    """Depth-first search; a cycle is returned as ``[a.y, b.u, b.v, ..., a.y]``."""
    state: dict[str, int] = {}
    parent: dict[str, tuple[str, str]] = {}

    for root in sorted(graph):
        if state.get(root):
            continue
        stack: list[tuple[str, int]] = [(root, 0)]
        state[root] = 1
        while stack:
            node, i = stack.pop()
            edges = graph.get(node, [])
            if i < len(edges):
                stack.append((node, i + 1))
                via, nxt = edges[i]
                if state.get(nxt) == 1:
                    path = [nxt]
                    cur, hop = node, via
                    while True:
                        path += [hop, cur]
                        if cur == nxt:
                            break
                        cur, hop = parent[cur][0], parent[cur][1]
                    return path[::-1]
                if not state.get(nxt):
                    state[nxt] = 1
                    parent[nxt] = (node, via)
                    stack.append((nxt, 0))
            else:
                state[node] = 2
    return []


def _sample_ticks(blocks: dict[str, Block], dt: float) -> dict[str, int]:
    ticks = {}
    for name, b in blocks.items():
        if not b.discrete or b.values["ts"] == 0.0:
            ticks[name] = 1
            continue
        ratio = b.values["ts"] / dt
        n = int(round(ratio))
        if n < 1 or abs(ratio - n) > 1e-9 * max(1.0, ratio):
            raise DiagramError(f"block '{name}': sample period ts = {b.values['ts']} s is not a whole number of "
                               f"solver ticks (dt = {dt} s)")
        ticks[name] = n
    return ticks


def _minor_blocks(order: list[Block], in_source: dict[str, str], ticks: dict[str, int]) -> set[str]:
    by_name = {b.name: b for b in order}
    varying: set[str] = set()
    for b in order:
        if b.discrete and not b.state_size():  # a block with continuous states varies even if it samples too
            continue
        if b.state_size() or b.time_varying:
            varying.add(b.name)
            continue
        for u, _ in b.feedthrough_pairs():
            if in_source.get(f"{b.name}.{u}", "").split(".")[0] in varying:
                varying.add(b.name)
                break
    need: set[str] = set()
    stack = []
    for b in order:
        if b.state_size():
            stack += [in_source[key].split(".")[0] for s in b.port_specs()[0]
                      if (key := f"{b.name}.{s.name}") in in_source]
    while stack:
        name = stack.pop()
        if name in need or name not in varying:
            continue
        need.add(name)
        blk = by_name[name]
        stack += [in_source[key].split(".")[0] for u, _ in blk.feedthrough_pairs()
                  if (key := f"{name}.{u}") in in_source]
    return need
