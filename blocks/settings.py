"""The diagram's solver settings: the one section of a diagram file the engine reads itself.

Every other section is a library's (:mod:`blocks.sections`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from blocks.spec import DiagramError

__all__ = ["SOLVER_METHODS", "SolverSettings"]

SOLVER_METHODS = ("rk4", "solve_ivp")


@dataclass(frozen=True)
class SolverSettings:
    """Fixed-step solver settings: ``dt`` [s] tick, interval ``[t_start, t_end]`` [s].

    ``method``: ``"rk4"`` (default, deterministic) or ``"solve_ivp"`` (scipy RK45 between
    ticks with ``rtol``/``atol``; an accuracy check).
    """

    method: str = "rk4"
    dt: float = 1e-3
    t_start: float = 0.0
    t_end: float = 10.0
    rtol: float = 1e-6
    atol: float = 1e-9

    def __post_init__(self) -> None:
        if self.method not in SOLVER_METHODS:
            raise DiagramError(f"solver method {self.method!r} is not one of {', '.join(SOLVER_METHODS)}")
        for key in ("dt", "t_start", "t_end", "rtol", "atol"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise DiagramError(f"solver.{key} must be a finite number, got {value!r}")
            object.__setattr__(self, key, float(value))
        if not 1e-7 <= self.dt <= 1.0:
            raise DiagramError(f"solver.dt = {self.dt} s must lie in [1e-7, 1] s")
        if self.t_end <= self.t_start:
            raise DiagramError(f"solver.t_end ({self.t_end} s) must be after t_start ({self.t_start} s)")
