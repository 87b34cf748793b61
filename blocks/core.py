"""The block contract: ports, parameters, states and pure callbacks (the engine principles: docs/engine.md).

A block *class* declares, at class level:

* ``params``: ``{name: ParamSpec}`` -- default, range, unit, tunable or structural;
* ``inputs`` / ``outputs``: tuples of :class:`PortSpec` (size and unit; a size may name an
  integer parameter);
* ``feedthrough``: ``"all"``, ``"none"`` or a set of ``(input, output)`` pairs whose output
  depends on that input *at the same instant* (used to find algebraic loops);
* ``n_states`` (continuous) and ``n_discrete`` (discrete; its first ``len(modes)`` entries
  are modes, logged in the event table when they switch);
* ``discrete = True`` for sampled blocks (a ``ts`` parameter is added: the sample period,
  a whole number of solver ticks; 0 = every tick); ``time_varying = True`` for sources.

Parameter and port specs, run-time parameter values and the error types live in
:mod:`blocks.spec` and are re-exported here. Callbacks are pure: everything comes in as
arguments and results go into the given output arrays; a block instance is frozen after
construction::

    output(t, x, z, u, p, y)        # y: tuple of output arrays, filled in place
    derivative(t, x, z, u, p, dx)   # dx = f(t, x, z, u)          (if n_states > 0)
    update(t, x, z, u, p, znext)    # znext = g(t, x, z, u)       (if discrete)

``t`` s, ``x``/``z`` state vectors, ``u`` tuple of input arrays, ``p`` a :class:`Params`
namespace (parameter values plus constants computed by :meth:`Block.derive`). The
contract is checked when the class is defined (:mod:`blocks.contract`); unknown keyword arguments raise.
The class docstring gains its Parameters, Inputs and Outputs sections (:mod:`blocks.blockdoc`).

One law per block: a block that declares its kernels (``law = Kernels(output=..., ...)``, or a
:meth:`Block.kernels` of its own) and ``packed`` (its packed vector's entries) writes no callbacks;
the defaults above run its kernels as plain Python (:mod:`blocks.kernels`), as the Python engine
does, and the compiled engine runs them compiled.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from blocks.blockdoc import documented
from blocks.contract import CALLBACKS, contract_problems
from blocks.packing import Layout
from blocks.spec import (
    INHERIT,
    AlgebraicLoopError,
    BlockError,
    DiagramError,
    Kernels,
    ParameterValueError,
    Params,
    ParamSpec,
    PortSpec,
    SimulationError,
    UnknownParameterError,
    split_param,
    with_item,
)
from blocks.spec import NAME_RE as _NAME_RE

if TYPE_CHECKING:
    from blocks.kernels import PythonLaw

Vec = np.ndarray
Ports = tuple[np.ndarray, ...]

__all__ = [
    "AlgebraicLoopError", "Block", "BlockError", "BLOCK_TYPES", "LIBRARIES", "CompileContext", "DiagramError",
    "Kernels", "ParamSpec", "ParameterValueError", "Params", "Ports", "PortSpec", "Probe", "Vec", "SimulationError",
    "UnknownParameterError", "block_type", "load_libraries", "resolve_setting",
]

@dataclass
class CompileContext:
    """What blocks may know about the run when they compute constants (:meth:`Block.derive`).

    Parameters
    ----------
    dt : float
        Solver tick [s]. ``t0``/``t_end``: simulated interval [s].
    dataset : str
        The run's dataset (name or path); blocks whose ``dataset`` parameter is empty use it.
    resources : mapping
        Objects the run's builder hands to the blocks by name; the engine never reads them.
        :func:`blocks.compile.compile_diagram` fills it from the diagram's named sections
        (:meth:`blocks.diagram.Diagram.resources`; each section's library says what it hands
        over, :mod:`blocks.sections`) and the caller's ``resources=`` (a run's build hooks add
        theirs, :mod:`app.runs`). Library blocks read it through helpers of their own
        (e.g. :mod:`blocks.library.context`).
    cache : dict
        Scratch space for those helpers, one per compile (e.g. a dataset loaded once).
    """

    dt: float = 1e-3
    t0: float = 0.0
    t_end: float = 10.0
    dataset: str = ""
    resources: Mapping[str, Any] = field(default_factory=dict)
    cache: dict[str, Any] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class Probe:
    """One evaluation of a block alone: outputs by port name, state derivative, next discrete state."""

    y: dict[str, np.ndarray]
    dx: np.ndarray
    z_next: np.ndarray


BLOCK_TYPES: dict[str, type[Block]] = {}
"""Every block type by name: a :class:`Block` subclass registers itself when it is defined."""

LIBRARIES: list[str] = ["blocks.library.catalog"]
"""The modules that register block types and diagram sections (:mod:`blocks.sections`) when
imported, by module name: :func:`load_libraries` imports them at the first look-up, so the
engine names its libraries without importing them. An application appends its own."""


def load_libraries() -> None:
    """Import every module of :data:`LIBRARIES` not yet imported (each registers what it defines)."""
    for name in LIBRARIES:
        importlib.import_module(name)


def block_type(type_name: str, name: str = "") -> type[Block]:
    """The registered class of ``type_name`` (block ``name`` in the message), or a :class:`DiagramError`."""
    if type_name not in BLOCK_TYPES:
        load_libraries()
    if type_name not in BLOCK_TYPES:
        raise DiagramError(f"block '{name}': unknown block type '{type_name}'; known types: "
                           f"{', '.join(sorted(BLOCK_TYPES))}")
    return BLOCK_TYPES[type_name]

_TS_SPEC = ParamSpec(0.0, min=0.0, max=3600.0, unit="s", tunable=False,
                     description="sample period, a whole number of solver ticks; 0 = every tick")


class Block:
    """Base class of every block (see the module docstring for the contract)."""

    type_name: ClassVar[str] = "Block"
    params: ClassVar[Mapping[str, ParamSpec]] = {}
    inputs: ClassVar[tuple[PortSpec, ...]] = ()
    outputs: ClassVar[tuple[PortSpec, ...]] = ()
    feedthrough: ClassVar[str | frozenset[tuple[str, str]]] = "all"
    n_states: ClassVar[int | str] = 0
    n_discrete: ClassVar[int | str] = 0
    modes: ClassVar[tuple[str, ...]] = ()
    mode_labels: ClassVar[Mapping[str, Mapping[int, str]]] = {}
    discrete: ClassVar[bool] = False
    time_varying: ClassVar[bool] = False
    dynamic_ports: ClassVar[bool] = False
    vectorisable: ClassVar[bool] = False
    packed: ClassVar[tuple[str, ...]] = ()
    layout: ClassVar[Layout | None] = None
    law: ClassVar[Kernels | None] = None

    name: str
    values: Mapping[str, Any]
    explicit: tuple[str, ...]

    def __init_subclass__(cls, register: bool = True, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.type_name = cls.__dict__.get("type_name", cls.__name__)
        params = dict(cls.params)
        if cls.discrete and "ts" not in params:
            params["ts"] = _TS_SPEC
        cls.params = MappingProxyType(params)
        if "packed" in cls.__dict__:
            cls.layout = Layout(tuple(cls.packed), cls.params)
        problems = contract_problems(cls, Block)
        if problems:
            raise TypeError(f"block class {cls.type_name}: " + "; ".join(problems))
        cls.__doc__ = documented(cls.__dict__.get("__doc__"), cls)  # with its declared parameters and ports
        if register:
            BLOCK_TYPES[cls.type_name] = cls

    def __init__(self, name: str, **values: Any) -> None:
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise BlockError(f"block name {name!r} must be a letter or _ followed by letters, digits or _")
        where = f"block '{name}' ({self.type_name})"
        unknown = sorted(set(values) - set(self.params))
        if unknown:
            raise UnknownParameterError(
                f"{where}: unknown parameter(s) {', '.join(repr(u) for u in unknown)}; "
                f"known: {', '.join(self.params) or 'none'}")
        normal = {k: spec.validate(values.get(k, spec.default), f"{where} parameter '{k}'")
                  for k, spec in self.params.items()}
        for k, spec in self.params.items():  # a per-item list has one value per item (an inherited n, -1: at compile)
            if spec.size and isinstance(normal[k], tuple) and 0 < normal[spec.size] != len(normal[k]):
                raise ParameterValueError(f"{where} parameter '{k}': {len(normal[k])} values for "
                                          f"{spec.size} = {normal[spec.size]} items (or give one number for all)")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "values", MappingProxyType(normal))
        object.__setattr__(self, "explicit", tuple(values))
        self.check(normal)

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"block '{self.name}' is immutable: keep run-time data in states or Params")

    def __repr__(self) -> str:
        return f"{self.type_name}({self.name!r})"

    # ----------------------------------------------------------- overridable hooks
    def check(self, values: Mapping[str, Any]) -> None:
        """Cross-parameter checks; raise :class:`ParameterValueError`."""

    def derive(self, p: Params, ctx: CompileContext) -> None:
        """Compute constants from parameters into ``p`` (called at compile and after changes)."""

    def check_wiring(self, source: Mapping[str, str], blocks: Mapping[str, Block]) -> None:
        """Refuse how the block is wired beyond widths and connectedness (raise :class:`DiagramError`).
        ``source`` maps each connected input ``"block.port"`` of the diagram to the output ``"block.port"``
        that drives it; ``blocks`` holds every block by name. Called at compile, after the wiring check."""

    def kernels(self) -> Kernels | None:
        """The block's law (:class:`Kernels`): the class's ``law`` (override for one that depends on the
        instance), or None: the block then defines Python callbacks, and the compiled engine refuses the
        diagram and names this block."""
        return self.law

    @classmethod
    def has_kernels(cls) -> bool:
        """Whether the class declares its law as kernels (``law``, or its own :meth:`kernels`)."""
        return cls.law is not None or cls.kernels is not Block.kernels

    @classmethod
    def law_is_kernel(cls) -> bool:
        """Whether the kernels are the block's only law (it defines no Python callback of its own)."""
        return cls.has_kernels() and not any(getattr(cls, m) is not getattr(Block, m) for m in CALLBACKS)

    @classmethod
    def packed_at(cls, *names: str) -> Any:
        """Indices of ``packed`` entries in the packed vector (:meth:`blocks.packing.Layout.at`)."""
        if cls.layout is None:
            raise TypeError(f"block class {cls.type_name} declares no packed entries")
        return cls.layout.at(*names)

    def pack(self, p: Params) -> np.ndarray:
        """Every value the kernels read, as one float64 vector: by default the class's ``packed``
        entries laid out by :class:`blocks.packing.Layout` (choices as integer codes). Called at
        compile and after every live parameter change; every index keeps its place."""
        return self.layout.pack(p) if self.layout is not None else np.zeros(0)

    def max_step(self, p: Params) -> float | None:
        """Largest solver tick [s] at which this block's fastest mode stays stable under RK4 (None: no limit)."""
        return None

    def initial_state(self, p: Params, ctx: CompileContext) -> np.ndarray:
        return np.zeros(self.state_size())

    def initial_discrete(self, p: Params, ctx: CompileContext) -> np.ndarray:
        return np.zeros(self.discrete_size())

    def output(self, t: float, x: np.ndarray, z: np.ndarray, u: tuple[np.ndarray, ...], p: Params,
               y: tuple[np.ndarray, ...]) -> None:
        """Fill the output arrays ``y`` from ``t, x, z, u, p`` (default: the output kernel, as Python)."""
        if self.law_is_kernel():
            self.python_law(p).output(t, x, z, u, p, y)

    def derivative(self, t: float, x: np.ndarray, z: np.ndarray, u: tuple[np.ndarray, ...], p: Params,
                   dx: np.ndarray) -> None:
        """Fill ``dx`` with the continuous-state derivative (default: the derivative kernel, as Python)."""
        if not self.law_is_kernel():
            raise NotImplementedError
        self.python_law(p).derivative(t, x, z, u, p, dx)

    def update(self, t: float, x: np.ndarray, z: np.ndarray, u: tuple[np.ndarray, ...], p: Params,
               znext: np.ndarray) -> None:
        """Fill ``znext`` with the discrete state after a sample hit at ``t`` (default: the update kernel)."""
        if not self.law_is_kernel():
            raise NotImplementedError
        self.python_law(p).update(t, x, z, u, p, znext)

    def python_law(self, p: Params) -> PythonLaw:
        """The kernels as plain Python, bound to ``p``'s packed vector (the Python engine's calls)."""
        from blocks.kernels import PythonLaw

        k = self.kernels()
        if k is None:
            raise TypeError(f"block '{self.name}' ({self.type_name}) has no kernels")
        return PythonLaw(k, self.pack, p)

    # ------------------------------------------------------------------- queries
    def _size(self, size: int | str) -> int:
        return int(self.values[size]) if isinstance(size, str) else int(size)

    def port_specs(self) -> tuple[tuple[PortSpec, ...], tuple[PortSpec, ...]]:
        """Inputs and outputs with sizes resolved to ints (override with ``dynamic_ports``)."""
        return tuple(self._resolved(s) for s in self.inputs), tuple(self._resolved(s) for s in self.outputs)

    def _resolved(self, s: PortSpec) -> PortSpec:
        """``s`` with its size an int: ``s`` itself when it is one (a frozen spec; ``dataclasses.replace``
        for every port of every block made 7,000 copies, 19 ms, of each compile of the walking diagram)."""
        return s if type(s.size) is int else replace(s, size=self._size(s.size))

    def feedthrough_pairs(self) -> frozenset[tuple[str, str]]:
        ins, outs = self.port_specs()
        if self.feedthrough == "all":
            return frozenset((i.name, o.name) for i in ins for o in outs)
        if self.feedthrough == "none":
            return frozenset()
        return frozenset(self.feedthrough) if not isinstance(self.feedthrough, str) else frozenset()

    def state_size(self) -> int:
        return self._size(self.n_states)

    def discrete_size(self) -> int:
        return self._size(self.n_discrete)

    def make_params(self, ctx: CompileContext) -> Params:
        p = Params(self.values)
        self.derive(p, ctx)
        return p

    def probe(self, t: float = 0.0, u: Mapping[str, Any] | None = None, x: Any = None, z: Any = None,
              ctx: CompileContext | None = None, p: Params | None = None) -> Probe:
        """Evaluate this block alone (tests, docs): outputs, derivative and next discrete state.
        A width that inherits (:mod:`blocks.widths`) takes the first given input's sized by it; an optional
        input left out of ``u`` reads zeros, as when it is unconnected in a diagram."""
        width = next((k for k, s in self.params.items() if s.inherit and self.values[k] == INHERIT), None)
        if width is not None:
            sized = [s.name for s in self.port_specs()[0] if s.size == INHERIT and s.name in (u or {})]
            if not sized or u is None:
                raise BlockError(f"block '{self.name}': its width {width} is inherited; give its input(s) or set it")
            values = {**{k: self.values[k] for k in self.explicit}, width: int(np.size(u[sized[0]]))}
            return type(self)(self.name, **values).probe(t, u, x, z, ctx, p)
        ctx = ctx if ctx is not None else CompileContext()
        p = p if p is not None else self.make_params(ctx)
        ins, outs = self.port_specs()
        given = dict(u or {})
        missing = [s.name for s in ins if s.name not in given and not s.optional]
        if missing:
            raise BlockError(f"block '{self.name}': probe needs input(s) {', '.join(missing)}")
        ua = tuple(np.array(given[s.name] if s.name in given else np.zeros(int(s.size)), dtype=np.float64)
                   .reshape(int(s.size)) for s in ins)  # an optional input left out reads zeros, as unconnected
        xa = self.initial_state(p, ctx) if x is None else np.array(x, dtype=np.float64)
        za = self.initial_discrete(p, ctx) if z is None else np.array(z, dtype=np.float64)
        y = tuple(np.zeros(int(s.size)) for s in outs)
        self.output(t, xa, za, ua, p, y)
        dx = np.zeros(self.state_size())
        if dx.size:
            self.derivative(t, xa, za, ua, p, dx)
        zn = za.copy()
        if self.discrete and zn.size:  # blocks with n_discrete = 0 are sampled, stateless
            self.update(t, xa, za, ua, p, zn)
        return Probe({s.name: arr for s, arr in zip(outs, y)}, dx, zn)


_SAME = object()


def resolve_setting(block: Block, ref: str, value: Any, current: Any = _SAME) -> tuple[str, Any]:
    """``(param, whole value)`` of setting ``ref`` (``"block.param"`` or ``"block.param[i]"``) of
    ``block`` to ``value``: the one place a setting is checked, for a diagram
    (:meth:`blocks.diagram.Diagram.set_param`), a live change
    (:meth:`blocks.registry.ParameterRegistry.set`) and a batch copy (:mod:`blocks.batch`).

    ``value`` is checked against the parameter's :class:`ParamSpec` (one item's for ``[i]``: range,
    unit, kind); for ``[i]``, item ``i`` of ``current`` (default the block's own value; a number =
    every item) is replaced (:func:`blocks.spec.with_item`)."""
    _, param, index = split_param(ref)
    if param not in block.params:
        raise BlockError(f"block '{block.name}' ({block.type_name}) has no parameter '{param}'; "
                         f"known: {', '.join(block.params)}")
    spec = block.params[param]
    if index is None:
        return param, spec.validate(value, f"block '{block.name}' parameter '{param}'")
    if not spec.size:
        raise BlockError(f"'{ref}': parameter '{param}' of block '{block.name}' has no items; "
                         f"write '{block.name}.{param}'")
    item = spec.item().validate(value, f"'{ref}'")
    whole = with_item(block.values[param] if current is _SAME else current, index, item,
                      int(block.values[spec.size]), f"'{ref}'")
    return param, spec.validate(whole, f"'{ref}'")
