"""Auto-layout of a diagram level: left to right by signal flow (no Qt in this module).

A layered (Sugiyama-style) layout of the nodes and wires of :func:`app.gui.editing.diagram_view.level_view`:

1. **Feedback wires.** Wires on a cycle are cut, in this order of preference, until no cycle is
   left: wires leaving a *state* output (an output that depends on no input directly, e.g. the
   dynamics' ``q``: Simulink's convention of the plant's outputs fed back), then wires entering
   a *delay* input (one that feeds no output directly, e.g. a PID's ``track``), then the back
   edges of a depth-first search. Every cycle has such a wire, as the compiler rejects algebraic
   loops; the third kind is a fallback.
2. **Layers.** Each node's layer is its longest path from a source along the other wires
   (topological depth), so every other wire runs from a lower layer to a higher one; a source
   then moves right, next to the first layer that reads it.
3. **Order within layers.** Wires that span several layers get a virtual node in each layer they
   cross; the order starts from the diagram's and is improved by barycentre sweeps (down by the
   predecessors' positions, up by the successors'), keeping the order with fewest crossings.
4. **Coordinates.** Layer ``k`` stands at ``x = sum of the widths of the layers before + GAP_X * k``;
   within a layer the nodes keep their order, ``GAP_Y`` apart, each moved towards the height
   that makes its incoming wires straight (ports aligned).

:func:`auto_layout` returns the top-left corner [scene px] of every node; the layout's top-left
is the diagram's previous top-left, so the view does not jump.
"""

from __future__ import annotations

from collections import defaultdict

from app.gui.editing.diagram_view import Node, Wire, level_view, node_size, split_ref
from blocks import Diagram
from blocks.subsystems import find

__all__ = ["GAP_X", "GAP_Y", "auto_layout", "feedback_wires", "layout_level"]

GAP_X = 130.0   # between layers: room for the wires' vertical runs and labels [scene px]
GAP_Y = 46.0    # between nodes of a layer [scene px]
SWEEPS = 12


def _edges(wires: list[Wire]) -> list[tuple[str, str, str, str]]:
    out = []
    for w in wires:
        (a, ap), (b, bp) = split_ref(w.src), split_ref(w.dst)
        out.append((a, b, ap, bp))
    return out


def _sccs(names: list[str], succ: dict[str, list[str]]) -> dict[str, int]:
    """Strongly connected components (Tarjan, iterative): ``{node: component id}``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    comp: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    counter = 0
    for root in names:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter
                counter += 1
                stack.append(v)
                on.add(v)
            children = succ.get(v, [])
            if i < len(children):
                work.append((v, i + 1))
                w = children[i]
                if w not in index:
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp[w] = index[v]
                    if w == v:
                        break
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
    return comp


def feedback_wires(nodes: dict[str, Node], wires: list[Wire]) -> set[int]:
    """Indices (into ``wires``) of the wires drawn as feedback (see the module doc, step 1)."""
    edges = _edges(wires)
    names = list(nodes)
    cut: set[int] = set()

    def cyclic(candidates: list[int]) -> list[int]:
        succ: dict[str, list[str]] = defaultdict(list)
        for i, (a, b, _, _) in enumerate(edges):
            if i not in cut:
                succ[a].append(b)
        comp = _sccs(names, succ)
        return [i for i in candidates if i not in cut and comp[edges[i][0]] == comp[edges[i][1]]]

    state = [i for i, (a, _, ap, _) in enumerate(edges) if ap in nodes[a].state_outputs]
    cut.update(cyclic(state))
    delay = [i for i, (_, b, _, bp) in enumerate(edges) if bp in nodes[b].delay_inputs]
    cut.update(cyclic(delay))
    while True:   # fallback: back edges of a depth-first search from the sources, in diagram order
        rest = cyclic(list(range(len(edges))))
        if not rest:
            return cut
        succ2: dict[str, list[int]] = defaultdict(list)
        for i, (a, _, _, _) in enumerate(edges):
            if i not in cut:
                succ2[a].append(i)
        colour: dict[str, int] = {}
        for root in names:
            if root in colour:
                continue
            colour[root] = 1
            work = [(root, iter(succ2[root]))]
            while work:
                v, it = work[-1]
                k = next(it, None)
                if k is None:
                    colour[v] = 2
                    work.pop()
                    continue
                w = edges[k][1]
                if colour.get(w) == 1:
                    cut.add(k)
                elif w not in colour:
                    colour[w] = 1
                    work.append((w, iter(succ2[w])))


def _port_dy(node: Node, port: str, is_input: bool, h: float) -> float:
    ports = node.inputs if is_input else node.outputs
    i = ports.index(port) if port in ports else 0
    return 42.0 + (h - 42.0) * (i + 0.5) / max(len(ports), 1)


def _crossings(layers: list[list[str]], down: dict[str, list[str]]) -> int:
    total = 0
    for upper, lower in zip(layers, layers[1:]):
        pos = {v: i for i, v in enumerate(lower)}
        segs = [(i, pos[w]) for i, v in enumerate(upper) for w in down.get(v, []) if w in pos]
        total += sum(1 for k, (a, b) in enumerate(segs) for c, e in segs[k + 1:] if (a - c) * (b - e) < 0)
    return total


def layout_level(nodes: dict[str, Node], wires: list[Wire]) -> tuple[dict[str, tuple[float, float]], set[int]]:
    """Top-left corners [scene px] from (0, 0) of ``nodes``, and the feedback wires' indices."""
    edges = _edges(wires)
    fb = feedback_wires(nodes, wires)
    fwd = [e for i, e in enumerate(edges) if i not in fb and e[0] != e[1]]
    preds: dict[str, set[str]] = defaultdict(set)
    for a, b, _, _ in fwd:
        preds[b].add(a)
    layer: dict[str, int] = {}
    pending = list(nodes)
    while pending:   # longest path from the sources (the forward graph is acyclic)
        rest = []
        for v in pending:
            if all(p in layer for p in preds[v]):
                layer[v] = max((layer[p] + 1 for p in preds[v]), default=0)
            else:
                rest.append(v)
        if len(rest) == len(pending):
            raise RuntimeError("auto-layout: cycle left after cutting the feedback wires")
        pending = rest
    succs: dict[str, set[str]] = defaultdict(set)
    for a, b, _, _ in fwd:
        succs[a].add(b)
    for v in sorted(nodes, key=lambda v: -layer[v]):   # sources next to their first reader
        if not preds[v] and succs[v]:
            layer[v] = min(layer[w] for w in succs[v]) - 1
    # virtual nodes along wires that span layers
    down: dict[str, list[str]] = defaultdict(list)
    up: dict[str, list[str]] = defaultdict(list)
    n_layers = max(layer.values(), default=0) + 1
    layers: list[list[str]] = [[] for _ in range(n_layers)]
    for v in nodes:
        layers[layer[v]].append(v)
    for k, (a, b, _, _) in enumerate(fwd):
        prev = a
        for lv in range(layer[a] + 1, layer[b]):
            dummy = f"\0{k}:{lv}"
            layers[lv].append(dummy)
            down[prev].append(dummy)
            up[dummy].append(prev)
            prev = dummy
        down[prev].append(b)
        up[b].append(prev)
    best, best_x = [list(lay) for lay in layers], _crossings(layers, down)
    for sweep in range(SWEEPS):
        order = range(1, n_layers) if sweep % 2 == 0 else range(n_layers - 2, -1, -1)
        for lv in order:
            ref = layers[lv - 1] if sweep % 2 == 0 else layers[lv + 1]
            nbrs = up if sweep % 2 == 0 else down
            pos = {v: i for i, v in enumerate(ref)}
            cur = {v: i for i, v in enumerate(layers[lv])}

            def bary(v: str, nbrs: dict[str, list[str]] = nbrs, pos: dict[str, int] = pos,
                     cur: dict[str, int] = cur) -> float:
                ps = [pos[w] for w in nbrs.get(v, []) if w in pos]
                return sum(ps) / len(ps) if ps else float(cur[v])

            layers[lv].sort(key=lambda v: (bary(v), cur[v]))
        n_cross = _crossings(layers, down)
        if n_cross < best_x:
            best, best_x = [list(lay) for lay in layers], n_cross
    layers = [[v for v in lay if v in nodes] for lay in best]
    size = {v: node_size(nodes[v]) for v in nodes}
    xs, x = [], 0.0
    for lay in layers:
        xs.append(x)
        x += max((size[v][0] for v in lay), default=0.0) + GAP_X
    top: dict[str, float] = {}
    for lay in layers:   # left to right: straighten the incoming wires, keep order and gaps
        want = []
        for v in lay:
            h = size[v][1]
            ys = [top[a] + _port_dy(nodes[a], ap, False, size[a][1]) - _port_dy(nodes[v], bp, True, h)
                  for a, b, ap, bp in fwd if b == v and a in top]
            want.append(sum(ys) / len(ys) if ys else None)
        placed, y = [], 0.0
        for v, w in zip(lay, want):
            y = max(w if w is not None else y, y)
            placed.append(y)
            y += size[v][1] + GAP_Y
        shifts = [w - p for w, p in zip(want, placed) if w is not None]
        lift = sum(shifts) / len(shifts) if shifts else 0.0
        for v, p in zip(lay, placed):
            top[v] = p + lift
    xy = {v: (xs[layer[v]], top[v]) for v in nodes}
    y0 = min((y for _, y in xy.values()), default=0.0)
    return {v: (round(x, 1), round(y - y0, 1)) for v, (x, y) in xy.items()}, fb


def auto_layout(d: Diagram, level: str | None = None) -> dict[str, tuple[float, float]]:
    """New top-left corners [scene px] of the blocks and subsystems shown at ``level`` (``None``:
    the top; else an open subsystem, whose inport and outport nodes the canvas places itself),
    at the old layout's top-left corner."""
    nodes, wires = level_view(d, level)
    rel, _ = layout_level(nodes, wires)
    ui = d.ui.get("blocks", {})
    old = []
    for v, n in nodes.items():
        if n.kind == "block" and v in ui:
            old.append((float(ui[v]["x"]), float(ui[v]["y"])))
        elif n.kind == "Subsystem":
            s = find(d, v) or {}
            if "x" in s:
                old.append((float(s["x"]), float(s["y"])))
    x0 = min((x for x, _ in old), default=0.0)
    y0 = min((y for _, y in old), default=0.0)
    real = {v: rel[v] for v, n in nodes.items() if n.kind in ("block", "Subsystem")}
    rx = min((x for x, _ in real.values()), default=0.0)
    return {v: (round(x - rx + x0, 1), round(y + y0, 1)) for v, (x, y) in real.items()}
