"""Declarations shared by blocks, diagrams and the GUI: parameter and port specs, run-time
parameter values, a block's law (:class:`Kernels`) and the engine's error types.

:class:`ParamSpec` is the single source of truth for a parameter (default, range, unit,
tunable or structural, description): the engine checks values with it, the GUI builds its
spin boxes and sliders from it, diagram files are validated against it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from models.errors import UserError

__all__ = [
    "AlgebraicLoopError", "BlockError", "DiagramError", "INHERIT", "KINDS", "Kernels", "NAME_RE", "ParamSpec",
    "ParameterValueError", "Params", "PortSpec", "SimulationError", "UnknownParameterError", "split_param", "with_item",
]

NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
KINDS = ("float", "int", "bool", "str", "vector", "callable")
#: the value of a width parameter that takes its input's width at compile (Simulink's -1 port dimension)
INHERIT = -1


class BlockError(UserError):
    """A block is declared or configured wrongly (bad parameter, bad name)."""


class UnknownParameterError(BlockError, TypeError):
    """A block was given a keyword argument it does not declare."""


class ParameterValueError(BlockError, ValueError):
    """A parameter value has the wrong type or lies outside its ``ParamSpec`` range."""


class DiagramError(UserError):
    """A diagram is malformed: unknown block type, bad wiring, unconnected input, ..."""


class AlgebraicLoopError(DiagramError):
    """The direct-feedthrough graph has a cycle; the message names it port by port."""


class SimulationError(RuntimeError):
    """A run stopped: non-finite value or a block raised. Names block, port and time."""

    def __init__(self, message: str, *, block: str | None = None, port: str | None = None,
                 t: float | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.block, self.port, self.t, self.value = block, port, t, value


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a block: the single source of truth for engine, files and GUI.

    Parameters
    ----------
    default : Any
        Default value; its type fixes ``kind`` unless given.
    min, max : float, optional
        Inclusive range (element-wise for vectors).
    unit : str
        Unit shown in the GUI and docs, e.g. ``"N*m/rad"``.
    tunable : bool
        True: may change while running (registry, sliders). False: structural, needs a
        recompile (sizes, datasets, modes).
    description : str
        One line for tooltips and docs.
    kind : {"float", "int", "bool", "str", "vector", "callable"}
        Inferred from ``default`` when empty.
    choices : tuple of str
        Allowed values of a ``str`` parameter (empty = free text).
    size : str
        Per-item ``float`` parameter (e.g. one PID gain per joint): the name of the ``int``
        parameter giving the number of items. A number applies to every item (scalar expansion,
        as in Simulink); a list gives one value per item, its length checked by the block.
        ``"block.param[i]"`` addresses item ``i`` (:func:`split_param`). Empty = a plain parameter.
    inherit : bool
        An ``int`` width that may also be :data:`INHERIT` (-1, written ``inherit`` on the command line):
        the compiler then sets it to the width of the signal driving the ports it sizes
        (:mod:`blocks.widths`). Other values keep ``min``/``max``.
    """

    default: Any
    min: float | None = None
    max: float | None = None
    unit: str = ""
    tunable: bool = True
    description: str = ""
    kind: str = ""
    choices: tuple[str, ...] = ()
    size: str = ""
    inherit: bool = False

    def __post_init__(self) -> None:
        kind = self.kind or _infer_kind(self.default)
        if kind not in KINDS:
            raise TypeError(f"ParamSpec kind must be one of {KINDS}, got {kind!r}")
        object.__setattr__(self, "kind", kind)
        if self.inherit and kind != "int":
            raise TypeError(f"only an int width may inherit (ParamSpec kind {kind!r})")
        if kind == "vector":
            object.__setattr__(self, "default", tuple(float(v) for v in self.default))
        self.validate(self.default, "ParamSpec default")

    def validate(self, value: Any, where: str) -> Any:
        """Return ``value`` normalised to this kind, or raise :class:`ParameterValueError`."""
        kind = self.kind
        if kind == "callable":
            if callable(value) or isinstance(value, str):
                return value
            raise ParameterValueError(f"{where}: expected a function or a registered function name, got {value!r}")
        if kind == "bool":
            if isinstance(value, (bool, np.bool_)):
                return bool(value)
            raise ParameterValueError(f"{where}: expected true or false, got {value!r}")
        if kind == "str":
            if not isinstance(value, str):
                raise ParameterValueError(f"{where}: expected text, got {value!r}")
            if self.choices and value not in self.choices:
                raise ParameterValueError(f"{where}: {value!r} is not one of {', '.join(self.choices)}")
            return value
        if self.inherit and _is_inherit(value):
            return INHERIT
        if self.size and isinstance(value, (list, tuple, np.ndarray)):
            return tuple(self._number(v, where, float) for v in value)
        if kind == "vector":
            if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                raise ParameterValueError(f"{where}: expected a list of numbers, got {value!r}")
            items = tuple(self._number(v, where, float) for v in value)
            return items
        return self._number(value, where, int if kind == "int" else float)

    def _number(self, value: Any, where: str, typ: type) -> Any:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise ParameterValueError(f"{where}: expected a number, got {value!r}")
        v = float(value)
        if not math.isfinite(v):
            raise ParameterValueError(f"{where}: must be finite, got {value!r}")
        if typ is int:
            if v != int(v):
                raise ParameterValueError(f"{where}: expected a whole number, got {value!r}")
        if self.min is not None and v < self.min:
            raise ParameterValueError(f"{where}: {value!r} is below the minimum {self.min!r} {self.unit}".rstrip())
        if self.max is not None and v > self.max:
            raise ParameterValueError(f"{where}: {value!r} is above the maximum {self.max!r} {self.unit}".rstrip())
        return int(v) if typ is int else v

    def parse(self, text: str, where: str) -> Any:
        """Parse command-line text (``--set b.p=TEXT``) into a value of this kind (no eval)."""
        text = text.strip()
        try:
            if self.kind == "bool":
                low = text.lower()
                if low not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                    raise ValueError(text)
                return self.validate(low in ("true", "1", "yes", "on"), where)
            if self.kind in ("str", "callable"):
                return self.validate(text, where)
            if self.inherit and text.lower() == "inherit":
                return INHERIT
            if self.kind == "vector" or (self.size and any(c in text for c in "[](), ")):
                parts = [s for s in text.strip("[]()").replace(",", " ").split() if s]
                return self.validate([float(s) for s in parts], where)
            return self.validate(float(text), where)
        except ValueError as exc:
            if isinstance(exc, ParameterValueError):
                raise
            raise ParameterValueError(f"{where}: cannot read {text!r} as {self.kind}") from None

    def item(self) -> ParamSpec:
        """The spec of one item of a per-item parameter (a plain number with the same range)."""
        return replace(self, size="", default=self.default if not isinstance(self.default, tuple)
                       else self.default[0])

    def to_dict(self) -> dict[str, Any]:
        default = list(self.default) if self.kind == "vector" else self.default
        return {"default": default, "min": self.min, "max": self.max, "unit": self.unit, "tunable": self.tunable,
                "description": self.description, "kind": self.kind, "choices": list(self.choices),
                "size": self.size, "inherit": self.inherit}


_PARAM_REF = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?$")


def split_param(ref: str, what: str = "parameter") -> tuple[str, str, int | None]:
    """``"block.param"`` -> ``(block, param, None)``; ``"block.param[i]"`` -> ``(block, param, i)``
    (item ``i``, from 0, of a per-item parameter: for the biped's two-leg PIDs 0 = left, 1 = right).
    Raises :class:`DiagramError` for anything else."""
    m = _PARAM_REF.match(ref) if isinstance(ref, str) else None
    if m is None:
        raise DiagramError(f"{what} {ref!r} must be written 'block.param' or 'block.param[i]'")
    return m.group(1), m.group(2), None if m.group(3) is None else int(m.group(3))


def with_item(current: Any, index: int, value: float, n: int, where: str) -> Any:
    """``current`` (a number = every item, or a list of ``n``) with item ``index`` set to ``value``.

    Returns a tuple of ``n`` floats, or a number when every item ends up equal (so linking two
    legs back to one value writes the scalar form, as in the bundled presets)."""
    if not 0 <= index < n:
        raise ParameterValueError(f"{where}: item [{index}] is out of range; this block has {n} item(s) [0..{n - 1}]")
    items = [float(v) for v in current] if isinstance(current, (tuple, list, np.ndarray)) else [float(current)] * n
    if len(items) != n:
        raise ParameterValueError(f"{where}: holds {len(items)} values for {n} items")
    items[index] = float(value)
    return items[0] if all(v == items[0] for v in items) else tuple(items)


def _is_inherit(value: Any) -> bool:
    return (not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))
            and value == INHERIT)


def _infer_kind(default: Any) -> str:
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    if isinstance(default, str):
        return "str"
    if isinstance(default, (tuple, list)):
        return "vector"
    if callable(default):
        return "callable"
    raise TypeError(f"cannot infer a ParamSpec kind from default {default!r}")


@dataclass(frozen=True)
class PortSpec:
    """An input or output port: ``size`` elements (int, or the name of an int parameter).

    An ``optional`` input may stay unconnected; it then reads zeros. An output with ``record = False``
    (an intermediate other blocks read, not a result) is left out of a run's default log
    (:class:`blocks.recorder.Recorder`); a run that names it still records it.
    """

    name: str
    size: int | str = 1
    unit: str = ""
    description: str = ""
    labels: tuple[str, ...] = ()
    optional: bool = False
    record: bool = True


class Params:
    """Run-time values of one block's parameters (attribute access), plus derived constants.

    Vector parameters are read-only float arrays. :meth:`Block.derive` may add constants
    (names starting with ``_`` by convention); they are recomputed after every change.
    """

    def __init__(self, values: Mapping[str, Any]) -> None:
        for key, value in values.items():
            self.set(key, value)

    def set(self, key: str, value: Any) -> None:
        if isinstance(value, tuple):
            arr = np.array(value, dtype=np.float64)
            arr.setflags(write=False)
            value = arr
        self.__dict__[key] = value

    def has(self, key: str) -> bool:
        """Whether ``key`` is set."""
        return key in self.__dict__

    def copy(self) -> Params:
        new = Params({})
        new.__dict__.update(self.__dict__)
        return new

    def __getattr__(self, name: str) -> Any:  # only called for missing attributes
        raise AttributeError(f"no parameter or derived constant {name!r}")


class Kernels(NamedTuple):
    """A block's law: ``@kernel`` functions (:mod:`blocks.kernels`), compiled by the compiled engine
    and run as plain Python (their ``py_func``) by the Python engine and :meth:`blocks.core.Block.probe`.

    Each takes the block's ports as separate 1-D float64 arrays, in declaration order, and its
    packed parameters ``p`` (:meth:`blocks.core.Block.pack`, laid out by :class:`blocks.packing.Layout`)::

        output(t, x, z, u_0, ..., u_{m-1}, p, y_0, ..., y_{k-1})
        derivative(t, x, z, u_0, ..., u_{m-1}, p, dx)
        update(t, x, z, u_0, ..., u_{m-1}, p, znext)

    A kernel the block does not need is ``None``. The compiled engine emits one step function
    that calls them in the compiled schedule; a copy of the diagram is one row of its arrays,
    so one run and a batch of N runs are the same code.
    """

    output: Any = None
    derivative: Any = None
    update: Any = None
