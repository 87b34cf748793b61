"""Live parameter changes, keyed ``"block.param"``.

:meth:`ParameterRegistry.set` checks the name, that the parameter is tunable and its range
(the :class:`~blocks.core.ParamSpec`), and queues the change. The runner applies queued
changes at the start of its next step (:meth:`ParameterRegistry.apply`), recomputes the
block's derived constants and logs each change as ``(t, name, old, new)``. ``set`` may be
called from another thread (a GUI slider): the queue is a ``collections.deque``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from blocks.core import BlockError, Params, ParamSpec, resolve_setting
from blocks.spec import split_param
from blocks.widths import width_change

if TYPE_CHECKING:
    from blocks.compile import CompiledModel

__all__ = ["ParamChange", "ParameterRegistry"]


@dataclass(frozen=True)
class ParamChange:
    """One applied change: at simulation time ``t`` [s], ``name`` went from ``old`` to ``new``."""

    t: float
    name: str
    old: Any
    new: Any

    def to_dict(self) -> dict[str, Any]:
        return {"t": self.t, "name": self.name, "old": _plain(self.old), "new": _plain(self.new)}


def _plain(v: Any) -> Any:
    return list(v) if isinstance(v, tuple) else v


class ParameterRegistry:
    """All parameters of a compiled model, by ``"block.param"``; tunable ones can change live."""

    def __init__(self, model: CompiledModel, params: dict[str, Params]) -> None:
        self._model = model
        self._params = params
        self._blocks = {b.name: b for b in model.blocks}
        self._values: dict[str, Any] = {f"{b.name}.{k}": v for b in model.blocks for k, v in b.values.items()}
        self._queue: deque[tuple[str, Any]] = deque()
        self.log: list[ParamChange] = []
        #: called after every queued change (the compiled engine raises its stop flag)
        self.listeners: list[Callable[[], None]] = []

    def names(self, tunable_only: bool = False) -> list[str]:
        return [n for n in self._values if not tunable_only or self.spec(n).tunable]

    def spec(self, name: str) -> ParamSpec:
        """The spec of ``"block.param"``, or of one item for ``"block.param[i]"``."""
        block, param, index = split_param(name)
        if block not in self._blocks:
            raise BlockError(f"no block '{block}'; blocks: {', '.join(self._blocks)}")
        specs = self._blocks[block].params
        if param not in specs:
            raise BlockError(f"block '{block}' has no parameter '{param}'; known: {', '.join(specs)}")
        spec = specs[param]
        if index is None:
            return spec
        if not spec.size:
            raise BlockError(f"'{name}': parameter '{param}' of block '{block}' has no items")
        return spec.item()

    def get(self, name: str) -> Any:
        """Current value of ``"block.param"`` (a number or a list for per-item ones) or of item ``[i]``."""
        self.spec(name)
        block, param, index = split_param(name)
        value = self._values[f"{block}.{param}"]
        if index is None:
            return value
        return float(value[index]) if isinstance(value, tuple) else float(value)

    def values(self) -> dict[str, Any]:
        """Current value of every parameter (pending changes not yet applied)."""
        return dict(self._values)

    @property
    def pending(self) -> bool:
        return bool(self._queue)

    def set(self, name: str, value: Any) -> None:
        """Queue ``name = value``; applied at the start of the next step. ``"block.param[i]"`` queues
        the whole parameter with item ``i`` replaced (after any change already queued)."""
        if not self.spec(name).tunable:
            raise BlockError(f"'{name}' is structural (it changes sizes, data or modes); set it in the diagram "
                             "and compile again")
        block, param, _ = split_param(name)
        whole = f"{block}.{param}"
        queued = [v for n, v in self._queue if n == whole]
        param, value = resolve_setting(self._blocks[block], name, value,
                                       queued[-1] if queued else self._values[whole])
        change = width_change(self._blocks[block], param, value)
        if change is not None:
            raise BlockError(f"'{name}': {change}; a running model keeps its widths: set it in the diagram "
                             "and compile again")
        self._queue.append((whole, value))
        for cb in self.listeners:
            cb()

    def apply(self, t: float) -> list[ParamChange]:
        """Apply every queued change (called by the runner at the start of a step)."""
        changes = []
        touched = set()
        while self._queue:
            name, value = self._queue.popleft()
            block, param = name.split(".")
            old = self._values[name]
            self._values[name] = value
            self._params[block].set(param, value)
            touched.add(block)
            changes.append(ParamChange(t, name, old, value))
        for block in touched:
            self._blocks[block].derive(self._params[block], self._model.ctx)
        self.log.extend(changes)
        return changes

    def clear_pending(self) -> None:
        self._queue.clear()

    def restore(self, values: dict[str, Any], n_log: int) -> None:
        """Return to saved values (snapshot restore); the change log is truncated to ``n_log``."""
        self._queue.clear()
        self._values = dict(values)
        del self.log[n_log:]
