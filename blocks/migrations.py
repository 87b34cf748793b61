"""The diagram file format's versions and its migrations: an old file is brought up to
:data:`VERSION` one version at a time (:data:`MIGRATIONS`), before :mod:`blocks.diagram` reads it.

* 1 -> 2: first drafts kept block positions in each block, wires as ``[[from, to], ...]`` and the
  solver tick as ``"step"``;
* 2 -> 3: the data offset and the reference filter, declared on each block that reads the
  recording, move to the ``data`` section (set once per diagram);
* 3 -> 4: the top-level ``model`` and ``data`` sections move under ``sections``, where the block
  libraries register theirs (:mod:`blocks.sections`);
* 4 -> 5: the generic blocks' width ``n`` now inherits its input's by default (:mod:`blocks.widths`);
  a version 4 block that left ``n`` out meant 1, so it gets ``n = 1`` written (an explicit ``n`` stays).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from blocks.spec import DiagramError

__all__ = ["FORMAT", "MIGRATIONS", "VERSION", "migrate"]

FORMAT = "gaitblocks-diagram"
VERSION = 5


def _migrate_1_to_2(d: dict[str, Any]) -> dict[str, Any]:
    """v1 -> v2: ``solver.step`` -> ``solver.dt``; ``wires`` [[a, b]] -> ``connections``;
    block ``position`` [x, y] moved to ``ui.blocks`` (UI fields separated from simulation)."""
    out = {k: v for k, v in d.items() if k not in ("wires", "version")}
    out["version"] = 2
    solver = dict(d.get("solver", {}))
    if "step" in solver:
        solver["dt"] = solver.pop("step")
    out["solver"] = solver
    out["connections"] = [{"from": w[0], "to": w[1]} for w in d.get("wires", [])]
    blocks, positions = [], {}
    for b in d.get("blocks", []):
        b = dict(b)
        if "position" in b:
            x, y = b.pop("position")
            positions[b.get("name")] = {"x": float(x), "y": float(y)}
        blocks.append(b)
    out["blocks"] = blocks
    out["ui"] = {"blocks": positions} if positions else {}
    return out


# v2 block parameters now set once per diagram: {block type: {parameter: data field}}
_V2_SHARED = {"GrfSource": {"t_offset": "t_offset_s"},
              "ReferenceSource": {"t_offset": "t_offset_s", "filter_hz": "ref_filter_hz"},
              "FiveLinkDynamics": {"t_offset": "t_offset_s", "ref_filter_hz": "ref_filter_hz"},
              "ReferenceMotion": {"t_offset": "t_offset_s", "filter_hz": "ref_filter_hz"}}


def _migrate_2_to_3(d: dict[str, Any]) -> dict[str, Any]:
    """v2 -> v3: the data offset and reference filter set on blocks move to the ``data`` section.
    Blocks that set different values raise (the diagram must choose one); values left unset take
    the v3 default (the walking library's ``DataSettings``)."""
    out = {k: v for k, v in d.items() if k != "version"}
    out["version"] = 3
    shared: dict[str, tuple[Any, str]] = {}
    blocks = []
    for b in d.get("blocks", []):
        moved = _V2_SHARED.get(b.get("type", "")) if isinstance(b, dict) else None
        if moved and isinstance(b.get("params"), dict):
            b = {**b, "params": dict(b["params"])}
            for param, key in moved.items():
                if param in b["params"]:
                    value, where = b["params"].pop(param), f"{b.get('name')}.{param}"
                    if key in shared and shared[key][0] != value:
                        raise DiagramError(f"{shared[key][1]} = {shared[key][0]!r} and {where} = {value!r} differ; "
                                           f"version 3 sets them once per diagram: put one value in 'data.{key}'")
                    shared[key] = (value, where)
        blocks.append(b)
    out["blocks"] = blocks
    out["data"] = {key: value for key, (value, _) in shared.items()}
    return out


def _migrate_3_to_4(d: dict[str, Any]) -> dict[str, Any]:
    """v3 -> v4: the top-level ``model`` and ``data`` sections move under ``sections``, where the
    block libraries register theirs (:mod:`blocks.sections`); the fields are unchanged."""
    out = {k: v for k, v in d.items() if k not in ("version", "model", "data")}
    out["version"] = 4
    out["sections"] = {key: d[key] for key in ("model", "data") if key in d}
    return out


# block types whose width parameter defaults to inherit since version 5: {type: parameter}
_V5_INHERITED = {"Gain": "n", "Sum": "n", "Selector": "n", "UnitDelay": "n", "Integrator": "n", "Scope": "n"}


def _migrate_4_to_5(d: dict[str, Any]) -> dict[str, Any]:
    """v4 -> v5: a generic block's width left out meant 1; since v5 it means "inherit the input's", so
    the 1 is written out (the diagram compiles exactly as before; an explicit width is kept)."""
    out = {k: v for k, v in d.items() if k != "version"}
    out["version"] = 5
    blocks = []
    for b in d.get("blocks", []):
        param = _V5_INHERITED.get(b.get("type", "")) if isinstance(b, dict) else None
        if param and isinstance(b.get("params", {}), dict) and param not in b.get("params", {}):
            b = {**b, "params": {**b.get("params", {}), param: 1}}
        blocks.append(b)
    out["blocks"] = blocks
    return out


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _migrate_1_to_2, 2: _migrate_2_to_3,
                                                                     3: _migrate_3_to_4, 4: _migrate_4_to_5}


def migrate(data: Any) -> dict[str, Any]:
    """Bring a parsed diagram file up to :data:`VERSION`, one migration at a time."""
    if not isinstance(data, dict):
        raise DiagramError("a diagram file must hold a JSON object")
    if data.get("format") != FORMAT:
        raise DiagramError(f"not a gaitblocks diagram: 'format' is {data.get('format')!r}, expected {FORMAT!r}")
    version = data.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise DiagramError(f"'version' must be an integer, got {version!r}")
    if version > VERSION:
        raise DiagramError(f"diagram version {version} was written by a newer gaitblocks (this one reads <= {VERSION})")
    while version < VERSION:
        if version not in MIGRATIONS:
            raise DiagramError(f"no migration from diagram version {version}")
        data = MIGRATIONS[version](data)
        version = data["version"]
    return data
