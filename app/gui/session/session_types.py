"""The GUI session's small value types (no Qt): a run's :class:`Failure`, a pending recompile's
:class:`Plan` and the last frame's :class:`FrameStats` (:class:`~app.gui.session.session.SimSession`
holds them)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.runs import RunSpec

__all__ = ["Failure", "FrameStats", "Plan"]


@dataclass(frozen=True)
class Failure:
    """What stopped a run: message, block, port, time [s], value."""

    message: str
    block: str | None = None
    port: str | None = None
    t: float | None = None
    value: Any = None

    def text(self) -> str:
        where = ", ".join(s for s in (f"block '{self.block}'" if self.block else "",
                                      f"port '{self.port}'" if self.port else "",
                                      f"t = {self.t:.3f} s" if self.t is not None else "",
                                      f"value = {self.value}" if self.value is not None else "") if s)
        return f"{self.message}\n({where})" if where else self.message


@dataclass(frozen=True)
class Plan:
    """A pending recompile: the :class:`~app.runs.RunSpec` to build, the session attributes it
    sets on adoption (``state``) and the diagram's UI fields (block positions) to keep."""

    spec: RunSpec
    state: dict[str, Any]
    ui: dict[str, Any]


@dataclass
class FrameStats:
    """Figures of the last frame: ticks stepped, wall time spent [s]."""

    ticks: int = 0
    wall_s: float = 0.0
    history: list[tuple[float, float]] = field(default_factory=list)  # (wall, sim time) pairs
