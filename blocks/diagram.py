"""Diagrams: a Python building API wired by ``"block.port"`` names, and the JSON file format.

Python::

    d = Diagram("demo", solver=SolverSettings(dt=1e-3, t_end=2.0))
    d.add("src", "Step", t_step=0.1)
    d.add("k", "Gain", k=2.0)
    d.connect("src.y", "k.u")          # fan-out: d.connect("src.y", "k.u", "scope.u")
    d.log("k.y")
    d.save("my.json")

File format (version 5; ``format`` is always ``"gaitblocks-diagram"``)::

    {"format": "gaitblocks-diagram", "version": 5, "name": str, "description": str,
     "dataset": str,                              # the run's dataset ("" = registry default)
     "sections": {name: {field: literal}},        # the libraries' named sections (blocks.sections)
     "solver": {"method": "rk4"|"solve_ivp", "dt": s, "t_start": s, "t_end": s},
     "blocks": [{"name": str, "type": str, "params": {name: literal}}],
     "connections": [{"from": "block.output", "to": "block.input"}],
     "logged": ["block.port", ...],               # [] = every output
     "ui": {"blocks": {name: {"x": px, "y": px}},         # GUI only, never read by the engine
            "subsystems": [{"name": str, "blocks": [name, ...], "x": px, "y": px}], ...}}

``sections`` holds the settings that the diagram's blocks read beside their own parameters
(the walking library's biped ``model`` and shared ``data``, say): each library registers its
sections with the block types that read them (:func:`blocks.sections.register_section`), and a
diagram carries, and saves, the sections its blocks read; ``"NAME.FIELD"`` sets a section's
parameter as ``"block.param"`` sets a block's.

``ui.subsystems`` groups blocks into virtual subsystems (:mod:`blocks.subsystems`): drawn as one
block, checked on load, invisible to the compiler.

Parameters are literals only (numbers, booleans, text, lists of numbers); nothing is
evaluated. Files of older versions are brought up to date by the format's migrations
(:mod:`blocks.migrations`), one version at a time.
Saving is deterministic, so save -> load -> save is byte-identical.
"""

from __future__ import annotations

import copy
import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from blocks.core import Block, BlockError, DiagramError, ParamSpec, block_type, resolve_setting
from blocks.migrations import FORMAT, MIGRATIONS, VERSION, migrate
from blocks.sections import is_section, section_type, sections_read_by
from blocks.settings import SolverSettings
from blocks.spec import split_param
from blocks.subsystems import check as check_subsystems
from blocks.subsystems import subsystems
from models.errors import DataFormatError
from models.kept import Kept

_LOADED: Kept[Diagram] = Kept(8)    # Diagram.load's last loads, by path and text

__all__ = ["Diagram", "BlockEntry", "SolverSettings", "FORMAT", "MIGRATIONS", "VERSION", "migrate", "split_port"]

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
    """A block diagram: blocks, connections, logged signals, solver settings
    (:mod:`blocks.settings`), the libraries' named sections (:mod:`blocks.sections`) and UI fields.

    ``sections`` gives values of sections by name; a section not given has its defaults."""

    def __init__(self, name: str = "untitled", *, description: str = "", dataset: str = "",
                 solver: SolverSettings | None = None, sections: dict[str, Any] | None = None) -> None:
        self.name = name
        self.description = description
        self.dataset = dataset
        self.solver = solver if solver is not None else SolverSettings()
        self._sections: dict[str, Any] = {}
        for key, value in (sections or {}).items():
            self.set_section(key, value)
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
        if is_section(name):
            raise DiagramError(f"'{name}' names a diagram section ({name}.FIELD); name the block otherwise")
        block = _block_class(type_name, name)(name, **params)
        self.blocks[name] = BlockEntry(name, type_name, {k: block.values[k] for k in params})
        return name

    def instantiate(self, name: str) -> Block:
        entry = self._entry(name)
        return _block_class(entry.type, name)(name, **entry.params)

    # ------------------------------------------------------------- sections
    def section(self, name: str) -> Any:
        """The value of section ``name``: as set, else the section's defaults."""
        kind = section_type(name)
        return self._sections[name] if name in self._sections else kind.cls()

    def set_section(self, name: str, value: Any) -> None:
        """Set section ``name`` to ``value`` (an instance of its registered class)."""
        kind = section_type(name)
        if not isinstance(value, kind.cls):
            raise DiagramError(f"section '{name}' must be a {kind.cls.__name__}, got {type(value).__name__}")
        self._sections[name] = value

    @property
    def sections(self) -> dict[str, Any]:
        """``{name: value}`` of the sections this diagram's blocks read (the ones it saves)."""
        return {name: self.section(name) for name in sections_read_by({e.type for e in self.blocks.values()})}

    def resources(self) -> dict[str, Any]:
        """What the diagram's sections hand to the blocks at compile time (``CompileContext.resources``)."""
        out: dict[str, Any] = {}
        for name, value in self.sections.items():
            out.update(section_type(name).resources(value))
        return out

    # ------------------------------------------------------------- parameters
    def param_spec(self, ref: str) -> ParamSpec:
        """The :class:`ParamSpec` of ``"block.param"``, of one item for ``"block.param[i]"``, or of
        ``"SECTION.FIELD"``: a field of a named section."""
        block, param, index = split_param(ref)
        if block not in self.blocks and is_section(block):
            params = section_type(block).params
            if param not in params or index is not None:
                raise DiagramError(f"the diagram's {block} section has no parameter '{ref[len(block) + 1:]}'; "
                                   f"known: {', '.join(params) or 'none'}")
            return params[param]
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
        if n < 1:   # inherited (blocks.widths): known at compile
            raise DiagramError(f"'{ref}': block '{block}' inherits its {spec.size} at compile; set '{block}.{param}' "
                               f"whole, or its {spec.size}")
        if index >= n:
            raise DiagramError(f"'{ref}': block '{block}' has {spec.size} = {n} item(s) [0..{n - 1}]")
        return spec.item()

    def value(self, ref: str) -> Any:
        """Current value of ``"block.param"`` (explicit, else the default), or of item ``[i]``."""
        block, param, index = split_param(ref)
        self.param_spec(ref)
        if block not in self.blocks:  # a section's field (param_spec checked it)
            return getattr(self.section(block), param)
        v = self.instantiate(block).values[param]
        if index is None:
            return v
        return float(v[index]) if isinstance(v, tuple) else float(v)

    def set_param(self, ref: str, value: Any) -> None:
        """Set ``"block.param"`` (or ``"SECTION.FIELD"``) before compiling (structural or tunable);
        ``"block.param[i]"`` sets one item of a per-item parameter (a number for all items becomes a list)."""
        block, param, _ = split_param(ref)
        spec = self.param_spec(ref)
        if block not in self.blocks:  # a section's field
            value = spec.validate(value, f"{block}.{param}")
            try:
                self.set_section(block, replace(self.section(block), **{param: value}))
            except ValueError as exc:
                raise DiagramError(f"{ref}: {exc}") from None
            return
        entry = self._entry(block)
        param, value = resolve_setting(self.instantiate(block), ref, value)
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
        """An independent copy: what saving and loading give (``Diagram.from_dict(self.to_dict())``), without
        checking again each block's parameters and each connection, which were checked when they were set (a
        copy of the walking diagram: 15 ms that way, under 1 ms this way). An in-memory function as a parameter
        raises, as saving does; only the sections the blocks read are kept, as in a file."""
        for e in self.blocks.values():
            _no_function(e)
        d = Diagram(self.name, description=self.description, dataset=self.dataset, solver=self.solver,
                    sections=self.sections)   # frozen dataclasses, shared
        # parameter values passed ParamSpec.validate when set: numbers, text, tuples, all immutable
        d.blocks = {name: BlockEntry(e.name, e.type, dict(e.params)) for name, e in self.blocks.items()}
        d.connections = list(self.connections)
        d.logged = list(self.logged)
        d.ui = copy.deepcopy(self.ui)
        check_subsystems(d)
        return d

    # ------------------------------------------------------------- files
    def to_dict(self) -> dict[str, Any]:
        blocks = []
        for e in self.blocks.values():
            _no_function(e)
            params = {k: list(v) if isinstance(v, tuple) else v for k, v in e.params.items()}
            blocks.append({"name": e.name, "type": e.type, "params": params})
        return {
            "format": FORMAT, "version": VERSION, "name": self.name, "description": self.description,
            "dataset": self.dataset,
            "sections": {name: section_type(name).to_dict(value) for name, value in self.sections.items()},
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
        """The diagram saved in ``path``. A text loaded before is copied from the last loads kept, by the
        file and its text (every session of the window loads its diagram: 24 ms to parse and check)."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise DataFormatError(f"cannot read diagram: {exc.strerror}", path=path) from None
        return _LOADED.get((str(path), text), lambda: cls._parse(text, path)).copy()

    @classmethod
    def _parse(cls, text: str, path: Path) -> Diagram:
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
                    optional={"description", "dataset", "sections", "logged", "ui"})
        solver = data["solver"]
        _check_keys(solver, "solver", required={"dt", "t_end"}, optional={"method", "t_start", "rtol", "atol"})
        sections = data.get("sections", {})
        if not isinstance(sections, dict):
            raise DiagramError("'sections' must be an object")
        d = cls(str(data["name"]), description=str(data.get("description", "")), dataset=str(data.get("dataset", "")),
                solver=SolverSettings(**solver),
                sections={name: section_type(name).from_dict(fields) for name, fields in sections.items()})
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
    return block_type(type_name, name)


def _no_function(entry: BlockEntry) -> None:
    """Raise if a parameter of ``entry`` is an in-memory function (a file cannot hold it)."""
    for k, v in entry.params.items():
        if callable(v):
            raise DiagramError(f"block '{entry.name}' parameter '{k}' is an in-memory function; register it "
                               "with blocks.library.generic.register_function to save the diagram")


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
