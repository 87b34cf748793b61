"""Diagrams: a Python building API wired by ``"block.port"`` names, and the JSON file format.

Python::

    d = Diagram("demo", solver=SolverSettings(dt=1e-3, t_end=2.0))
    d.add("src", "Step", t_step=0.1)
    d.add("k", "Gain", k=2.0)
    d.connect("src.y", "k.u")          # fan-out: d.connect("src.y", "k.u", "scope.u")
    d.log("k.y")
    d.save("my.json")

File format (version 3; ``format`` is always ``"gaitblocks-diagram"``)::

    {"format": "gaitblocks-diagram", "version": 3, "name": str, "description": str,
     "dataset": str,                              # the run's dataset ("" = registry default)
     "model": {"mass_kg": float|null, "height_m": float|null,    # null, null = paper Table 1
               "foot_radius_m": float|null},              # rolling foot; null = auto (ModelSettings)
     "data": {"t_offset_s": s, "ref_filter_hz": Hz},      # shared by every reader (DataSettings)
     "solver": {"method": "rk4"|"solve_ivp", "dt": s, "t_start": s, "t_end": s},
     "blocks": [{"name": str, "type": str, "params": {name: literal}}],
     "connections": [{"from": "block.output", "to": "block.input"}],
     "logged": ["block.port", ...],               # [] = every output
     "ui": {"blocks": {name: {"x": px, "y": px}},         # GUI only, never read by the engine
            "subsystems": [{"name": str, "blocks": [name, ...], "x": px, "y": px}], ...}}

``ui.subsystems`` groups blocks into virtual subsystems (:mod:`blocks.subsystems`): drawn as one
block, checked on load, invisible to the compiler.

Parameters are literals only (numbers, booleans, text, lists of numbers); nothing is
evaluated. Version 1 (first drafts) kept block positions inside each block, wires as
``[[from, to], ...]`` and the solver tick as ``"step"``; :func:`_migrate_1_to_2` converts it.
Version 2 declared the data offset and the reference filter on each block that reads the
recording; :func:`_migrate_2_to_3` moves them to the ``data`` section.
Saving is deterministic, so save -> load -> save is byte-identical.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from blocks.core import BLOCK_TYPES, Block, BlockError, DiagramError, ParamSpec
from blocks.settings import BIPED, DATA, DATA_PARAMS, DataSettings, ModelSettings, SolverSettings
from blocks.spec import split_param, with_item
from blocks.subsystems import check as check_subsystems
from blocks.subsystems import subsystems
from models.errors import DataFormatError

__all__ = ["BIPED", "DATA", "DataSettings", "Diagram", "BlockEntry", "ModelSettings", "SolverSettings", "FORMAT",
           "VERSION", "split_port"]

FORMAT = "gaitblocks-diagram"
VERSION = 3


def split_port(ref: str, what: str = "port") -> tuple[str, str]:
    """``"block.port"`` -> ``("block", "port")``, or a clear :class:`DiagramError`."""
    if not isinstance(ref, str) or ref.count(".") != 1 or not all(ref.split(".")):
        raise DiagramError(f"{what} {ref!r} must be written 'block.port'")
    block, port = ref.split(".")
    return block, port


@dataclass
class BlockEntry:
    """One block of a diagram: stable ``name``, ``type`` and explicitly set ``params``."""

    name: str
    type: str
    params: dict[str, Any] = field(default_factory=dict)


class Diagram:
    """A block diagram: blocks, connections, logged signals, solver, model and data settings
    (:mod:`blocks.settings`) and UI fields."""

    def __init__(self, name: str = "untitled", *, description: str = "", dataset: str = "",
                 solver: SolverSettings | None = None, model: ModelSettings | None = None,
                 data: DataSettings | None = None) -> None:
        self.name = name
        self.description = description
        self.dataset = dataset
        self.solver = solver if solver is not None else SolverSettings()
        self.model = model if model is not None else ModelSettings()
        self.data = data if data is not None else DataSettings()
        self.blocks: dict[str, BlockEntry] = {}
        self.connections: list[tuple[str, str]] = []
        self.logged: list[str] = []
        self.ui: dict[str, Any] = {}

    # ------------------------------------------------------------- building
    def add(self, name: str, type_name: str, /, **params: Any) -> str:
        """Add a block of type ``type_name``; parameters are checked at once. Returns ``name``."""
        if name in self.blocks:
            raise DiagramError(f"diagram '{self.name}': a block named '{name}' already exists")
        if any(sub.get("name") == name for sub in subsystems(self)):
            raise DiagramError(f"diagram '{self.name}': '{name}' names a subsystem; name the block otherwise")
        if name == DATA:
            raise DiagramError(f"'{DATA}' names the diagram's data section (data.t_offset_s ...); "
                               "name the block otherwise")
        block = _block_class(type_name, name)(name, **params)
        self.blocks[name] = BlockEntry(name, type_name, {k: block.values[k] for k in params})
        return name

    def instantiate(self, name: str) -> Block:
        entry = self._entry(name)
        return _block_class(entry.type, name)(name, **entry.params)

    def param_spec(self, ref: str) -> ParamSpec:
        """The :class:`ParamSpec` of ``"block.param"``, of one item for ``"block.param[i]"``, or of
        ``"data.FIELD"``: the diagram's data section."""
        block, param, index = split_param(ref)
        if block == DATA:
            if param not in DATA_PARAMS or index is not None:
                raise DiagramError(f"the diagram's data section has no field '{ref[len(DATA) + 1:]}'; "
                                   f"known: {', '.join(DATA_PARAMS)}")
            return DATA_PARAMS[param]
        cls = _block_class(self._entry(block).type, block)
        if param not in cls.params:
            raise DiagramError(f"block '{block}' ({cls.type_name}) has no parameter '{param}'; "
                               f"known: {', '.join(cls.params)}")
        spec = cls.params[param]
        if index is None:
            return spec
        if not spec.size:
            raise DiagramError(f"'{ref}': parameter '{param}' of block '{block}' has no items; write '{block}.{param}'")
        n = int(self.instantiate(block).values[spec.size])
        if index >= n:
            raise DiagramError(f"'{ref}': block '{block}' has {spec.size} = {n} item(s) [0..{n - 1}]")
        return spec.item()

    def value(self, ref: str) -> Any:
        """Current value of ``"block.param"`` (explicit, else the default), or of item ``[i]``."""
        block, param, index = split_param(ref)
        self.param_spec(ref)
        if block == DATA:
            return getattr(self.data, param)
        v = self.instantiate(block).values[param]
        if index is None:
            return v
        return float(v[index]) if isinstance(v, tuple) else float(v)

    def set_param(self, ref: str, value: Any) -> None:
        """Set ``"block.param"`` (or ``"data.FIELD"``) before compiling (structural or tunable);
        ``"block.param[i]"`` sets one item of a per-item parameter (a number for all items becomes a list)."""
        block, param, index = split_param(ref)
        spec = self.param_spec(ref)
        if block == DATA:
            self.data = replace(self.data, **{param: spec.validate(value, f"data.{param}")})
            return
        value = spec.validate(value, f"block '{block}' parameter '{param}'")
        entry = self._entry(block)
        if index is not None:
            current = self.instantiate(block)
            n = int(current.values[_block_class(entry.type, block).params[param].size])
            value = with_item(current.values[param], index, value, n, f"'{ref}'")
        trial = {**entry.params, param: value}
        _block_class(entry.type, block)(block, **trial)
        entry.params[param] = value

    def connect(self, src: str, *dsts: str) -> None:
        """Wire output ``src`` to each input in ``dsts`` (fan-out). Fan-in raises."""
        sb, sp = split_port(src, "source")
        _, souts = self.instantiate(sb).port_specs()
        if sp not in {s.name for s in souts}:
            raise DiagramError(f"block '{sb}' has no output '{sp}'; outputs: {', '.join(s.name for s in souts)}")
        for dst in dsts:
            db, dp = split_port(dst, "destination")
            dins, _ = self.instantiate(db).port_specs()
            if dp not in {s.name for s in dins}:
                raise DiagramError(f"block '{db}' has no input '{dp}'; inputs: "
                                   f"{', '.join(s.name for s in dins) or 'none'}")
            for a, b in self.connections:
                if b == dst:
                    raise DiagramError(f"fan-in: input '{dst}' is already driven by '{a}'; "
                                       f"use a Sum or Mux block to combine signals")
            self.connections.append((src, dst))

    def log(self, *signals: str) -> None:
        for s in signals:
            split_port(s, "logged signal")
            if s not in self.logged:
                self.logged.append(s)

    def set_position(self, name: str, x: float, y: float) -> None:
        self._entry(name)
        self.ui.setdefault("blocks", {})[name] = {"x": float(x), "y": float(y)}

    def _entry(self, name: str) -> BlockEntry:
        if name not in self.blocks:
            raise DiagramError(f"diagram '{self.name}' has no block '{name}'; blocks: {', '.join(self.blocks)}")
        return self.blocks[name]

    def copy(self) -> Diagram:
        return Diagram.from_dict(self.to_dict())

    def resources(self) -> dict[str, Any]:
        """What the diagram's model and data sections hand to the blocks at compile time
        (``CompileContext.resources``): ``{BIPED: BipedParams, DATA: DataSettings}``."""
        return {**self.model.resources(), **self.data.resources()}

    # ------------------------------------------------------------- files
    def to_dict(self) -> dict[str, Any]:
        blocks = []
        for e in self.blocks.values():
            params = {}
            for k, v in e.params.items():
                if callable(v):
                    raise DiagramError(f"block '{e.name}' parameter '{k}' is an in-memory function; register it "
                                       "with blocks.library.generic.register_function to save the diagram")
                params[k] = list(v) if isinstance(v, tuple) else v
            blocks.append({"name": e.name, "type": e.type, "params": params})
        return {
            "format": FORMAT, "version": VERSION, "name": self.name, "description": self.description,
            "dataset": self.dataset, "model": asdict(self.model), "data": asdict(self.data),
            "solver": asdict(self.solver),
            "blocks": blocks, "connections": [{"from": a, "to": b} for a, b in self.connections],
            "logged": list(self.logged), "ui": copy.deepcopy(self.ui),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Diagram:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise DataFormatError(f"cannot read diagram: {exc.strerror}", path=path) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataFormatError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno) from None
        try:
            return cls.from_dict(data)
        except (DiagramError, BlockError) as exc:
            raise DiagramError(f"{path}: {exc}") from None

    @classmethod
    def from_dict(cls, data: Any) -> Diagram:
        data = migrate(data)
        _check_keys(data, "diagram", required={"format", "version", "name", "solver", "blocks", "connections"},
                    optional={"description", "dataset", "model", "data", "logged", "ui"})
        solver = data["solver"]
        _check_keys(solver, "solver", required={"dt", "t_end"}, optional={"method", "t_start", "rtol", "atol"})
        model = data.get("model", {})
        _check_keys(model, "model", required=set(), optional={"mass_kg", "height_m", "foot_radius_m"})
        shared = data.get("data", {})
        _check_keys(shared, "data", required=set(), optional={"t_offset_s", "ref_filter_hz"})
        d = cls(str(data["name"]), description=str(data.get("description", "")), dataset=str(data.get("dataset", "")),
                solver=SolverSettings(**solver), model=ModelSettings(**model), data=DataSettings(**shared))
        if not isinstance(data["blocks"], list):
            raise DiagramError("'blocks' must be a list")
        for i, b in enumerate(data["blocks"]):
            _check_keys(b, f"blocks[{i}]", required={"name", "type"}, optional={"params"})
            params = b.get("params", {})
            if not isinstance(params, dict):
                raise DiagramError(f"blocks[{i}].params must be an object")
            d.add(b["name"], b["type"], **params)
        if not isinstance(data["connections"], list):
            raise DiagramError("'connections' must be a list")
        for i, c in enumerate(data["connections"]):
            _check_keys(c, f"connections[{i}]", required={"from", "to"}, optional=set())
            d.connect(c["from"], c["to"])
        d.log(*data.get("logged", []))
        ui = data.get("ui", {})
        if not isinstance(ui, dict):
            raise DiagramError("'ui' must be an object")
        d.ui = copy.deepcopy(ui)
        check_subsystems(d)
        return d


def _block_class(type_name: str, name: str) -> type[Block]:
    import blocks.library  # noqa: F401  (registers the library's block types)

    if type_name not in BLOCK_TYPES:
        raise DiagramError(f"block '{name}': unknown block type '{type_name}'; known types: "
                           f"{', '.join(sorted(BLOCK_TYPES))}")
    return BLOCK_TYPES[type_name]


def _check_keys(obj: Any, where: str, required: set[str], optional: set[str]) -> None:
    if not isinstance(obj, dict):
        raise DiagramError(f"{where} must be a JSON object")
    missing = sorted(required - set(obj))
    if missing:
        raise DiagramError(f"{where}: missing field(s) {', '.join(missing)}")
    unknown = sorted(set(obj) - required - optional)
    if unknown:
        raise DiagramError(f"{where}: unknown field(s) {', '.join(unknown)}; allowed: "
                           f"{', '.join(sorted(required | optional))}")


# ------------------------------------------------------------------ migrations
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
    the v3 default (:class:`DataSettings`)."""
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


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _migrate_1_to_2, 2: _migrate_2_to_3}


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
