"""What the canvas shows at one level of a diagram with subsystems (no Qt in this module).

A *level* is the top of the diagram (``None``) or one opened subsystem (its name):

* top level: every block outside any subsystem, and one node per subsystem whose ports are its
  :func:`~blocks.subsystems.boundary` signals (inputs and outputs named ``"block.port"``);
* inside subsystem ``S``: its blocks, plus an *inport* node per outside signal read inside
  (left) and an *outport* node per inside signal read outside (right), titled by the signal.

Every diagram connection maps onto at most one visible :class:`Wire`; an outside signal feeding
several blocks of a subsystem is one wire into the subsystem (its ``conns`` lists them all).
A visible port reference is ``"node.port"`` split at the *first* dot (a subsystem's port names
are signal names that contain a dot). Node sizes (scene px) are the canvas's: :func:`node_size`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from blocks import Diagram
from blocks.subsystems import boundary, find, owners, subsystems

__all__ = ["BLOCK_W", "CHAR_W", "PORT_DY", "Node", "Wire", "level_view", "node_size", "split_ref"]

BLOCK_W = 150.0     # block width [scene px]
PORT_DY = 22.0      # port pitch [scene px]
TITLE_H = 46.0      # title and type rows [scene px]
CHAR_W = 8.0        # width of one port-label character at 13 px, generous [scene px]
INPORT, OUTPORT, SUBSYSTEM, BLOCK = "Inport", "Outport", "Subsystem", "block"


def split_ref(ref: str) -> tuple[str, str]:
    """``"node.port"`` -> ``(node, port)``, split at the first dot."""
    node, port = ref.split(".", 1)
    return node, port


@dataclass
class Node:
    """A box on the canvas: a block, a collapsed subsystem, or a subsystem's inport/outport."""

    name: str
    kind: str                      # BLOCK, SUBSYSTEM, INPORT or OUTPORT
    type_name: str                 # the block type, "Subsystem", "Inport" or "Outport"
    title: str
    inputs: list[str]
    outputs: list[str]
    signal: str = ""               # inport/outport: the signal it stands for
    state_outputs: set[str] = field(default_factory=set)   # outputs depending on no input directly
    delay_inputs: set[str] = field(default_factory=set)    # inputs feeding no output directly

    def source_signal(self, port: str) -> str | None:
        """The diagram signal an output port of this node carries (``None``: not a source here)."""
        if self.kind == BLOCK:
            return f"{self.name}.{port}" if port in self.outputs else None
        if self.kind == SUBSYSTEM:
            return port if port in self.outputs else None
        return self.signal if self.kind == INPORT else None


@dataclass
class Wire:
    """A visible wire ``src`` -> ``dst`` (``"node.port"``) showing ``signal``; ``conns`` are the
    diagram connections it stands for."""

    src: str
    dst: str
    signal: str
    conns: list[tuple[str, str]] = field(default_factory=list)


def node_size(node: Node) -> tuple[float, float]:
    """(width, height) [scene px] of a node's box, ports excluded."""
    n = max(len(node.inputs), len(node.outputs), 1)
    h = TITLE_H + PORT_DY * n
    if node.kind == BLOCK:
        return BLOCK_W, h
    longest_in = max((len(p) for p in node.inputs), default=0)
    longest_out = max((len(p) for p in node.outputs), default=0)
    if node.kind == SUBSYSTEM:
        return max(BLOCK_W, 30.0 + CHAR_W * (longest_in + longest_out + 2)), h
    return max(110.0, 24.0 + 1.3 * CHAR_W * len(node.title)), h   # the title is bold 16 px


def _block_node(d: Diagram, name: str) -> Node:
    block = d.instantiate(name)
    ins, outs = block.port_specs()
    pairs = block.feedthrough_pairs()
    inputs, outputs = [p.name for p in ins], [p.name for p in outs]
    return Node(name, BLOCK, d.blocks[name].type, name, inputs, outputs,
                state_outputs={o for o in outputs if all(v != o for _, v in pairs)},
                delay_inputs={u for u in inputs if all(a != u for a, _ in pairs)})


def level_view(d: Diagram, level: str | None = None) -> tuple[dict[str, Node], list[Wire]]:
    """The nodes (by name, in diagram order) and wires the canvas draws at ``level``."""
    owner = owners(d)
    blocks = {name: _block_node(d, name) for name in d.blocks if owner.get(name) == level}
    nodes: dict[str, Node] = {}
    wires: dict[tuple[str, str], Wire] = {}

    def add(src: str, dst: str, signal: str, conn: tuple[str, str]) -> None:
        wires.setdefault((src, dst), Wire(src, dst, signal)).conns.append(conn)

    if level is None:
        subs = {s["name"]: boundary(d, s["name"]) for s in subsystems(d)}
        placed: set[str] = set()
        for name in d.blocks:   # subsystems where their first block stands, for a stable order
            sub = owner.get(name)
            if sub is None:
                nodes[name] = blocks[name]
            elif sub not in placed:
                placed.add(sub)
                members = [_block_node(d, b) for b in find(d, sub)["blocks"]]  # type: ignore[index]
                state = {f"{m.name}.{o}" for m in members for o in m.state_outputs}
                delay = {f"{m.name}.{u}" for m in members for u in m.delay_inputs}
                bnd = subs[sub]
                inner_dsts = {a: [b for x, b in d.connections if x == a and owner.get(b.split(".")[0]) == sub]
                              for a in bnd.inputs}
                nodes[sub] = Node(sub, SUBSYSTEM, "Subsystem", sub, list(bnd.inputs), list(bnd.outputs),
                                  state_outputs={o for o in bnd.outputs if o in state},
                                  delay_inputs={a for a in bnd.inputs if all(b in delay for b in inner_dsts[a])})
        for a, b in d.connections:
            sa, sb = owner.get(a.split(".")[0]), owner.get(b.split(".")[0])
            if sa is not None and sa == sb:
                continue
            add(a if sa is None else f"{sa}.{a}", b if sb is None else f"{sb}.{a}", a, (a, b))
        return nodes, list(wires.values())

    if find(d, level) is None:
        raise KeyError(level)
    bnd = boundary(d, level)
    for i, sig in enumerate(bnd.inputs, 1):
        nodes[f"in{i}>"] = Node(f"in{i}>", INPORT, INPORT, sig, [], ["out"], signal=sig)
    nodes.update(blocks)
    for i, sig in enumerate(bnd.outputs, 1):
        nodes[f"out{i}>"] = Node(f"out{i}>", OUTPORT, OUTPORT, sig, ["in"], [], signal=sig)
    in_node = {sig: f"in{i}>" for i, sig in enumerate(bnd.inputs, 1)}
    out_node = {sig: f"out{i}>" for i, sig in enumerate(bnd.outputs, 1)}
    for a, b in d.connections:
        a_in, b_in = owner.get(a.split(".")[0]) == level, owner.get(b.split(".")[0]) == level
        if a_in and b_in:
            add(a, b, a, (a, b))
        elif b_in:
            add(f"{in_node[a]}.out", b, a, (a, b))
        elif a_in:
            add(a, f"{out_node[a]}.in", a, (a, b))
    return nodes, list(wires.values())
