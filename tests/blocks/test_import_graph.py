"""The engine's import graph (issue 33 §2): no circle among the modules of ``blocks/`` and no arrow from
the engine core to the library. Every import counts, at module level, inside a function or under
``TYPE_CHECKING``, as an import-graph reader draws them."""

from __future__ import annotations

import ast
from pathlib import Path

BLOCKS = Path(__file__).resolve().parents[2] / "blocks"


def _module(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph(root: Path) -> dict[str, set[str]]:
    """``{module: modules of root it imports}`` for every ``*.py`` under ``root``."""
    mods = {_module(p, root): p for p in sorted(root.rglob("*.py"))}
    out: dict[str, set[str]] = {}
    for name, path in mods.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                targets |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        out[name] = {t for t in targets if t in mods and t != name}
    return out


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_engine_and_its_library_import_in_no_circle() -> None:
    assert _circles(_graph(BLOCKS)) == []


def test_the_core_imports_nothing_of_the_library() -> None:
    graph = _graph(BLOCKS)
    core = {m for m in graph if not m.startswith("blocks.library")}
    assert {(m, t) for m in core for t in graph[m] if t.startswith("blocks.library")} == set()


def test_a_circle_is_seen(tmp_path: Path) -> None:
    """The check can fail: two modules that import each other (one inside a function) are a circle."""
    pkg = tmp_path / "blocks"
    pkg.mkdir()
    (pkg / "a.py").write_text("from blocks import b\n", encoding="utf-8")
    (pkg / "b.py").write_text("def f():\n    from blocks.a import x\n", encoding="utf-8")
    (pkg / "c.py").write_text("import blocks.a\n", encoding="utf-8")
    assert _circles(_graph(pkg)) == [["blocks.a", "blocks.b"]]
