"""Where a GUI run stops at a fall (part of the GUI's engine adapter; no Qt in this module).

:class:`FallStop` watches the rows a session's runner records (:class:`app.walking.FallWatch`, the
criteria of :func:`app.walking.first_fall`) and keeps the first fall. With ``enabled`` (the
Simulation menu's *Stop at fall*, :attr:`app.runs.RunSpec.stop_at_fall`) the run ends
:data:`app.walking.FALL_MARGIN_S` after it, as ``gaitblocks run`` does; the fall is kept either way,
for the stick figure's label and the scopes' marker.
"""

from __future__ import annotations

from typing import Any

from app.walking import FALL_MARGIN_S, Fall, FallWatch

__all__ = ["CHECK_S", "FallStop"]

CHECK_S = 0.05   # the session looks for a fall at least this often [s of simulated time]: under the margin,
                 # so a run stopped at a fall ends exactly FALL_MARGIN_S after it


class FallStop:
    """The first fall of a session's run and the end time it sets (module docstring)."""

    def __init__(self) -> None:
        self.watch: FallWatch | None = None
        self.enabled = True
        self.fall: Fall | None = None
        self.check_ticks = 1   # the session steps at most this many ticks between two checks

    def watch_run(self, built: Any) -> None:
        """A new compiled run (:class:`app.runs.Built`): no fall yet; its spec says whether to stop."""
        self.watch = FallWatch.of(built)
        self.check_ticks = max(1, int(round(CHECK_S / built.model.dt)))
        self.enabled = bool(built.spec.stop_at_fall)
        self.fall = None

    def check(self, recorder: Any, since_tick: int) -> bool:
        """Look for the first fall in the rows recorded from ``since_tick`` on; True if found now."""
        if self.watch is None or self.fall is not None:
            return False
        self.fall = self.watch.fall_since(recorder, since_tick)
        return self.fall is not None

    def rescan(self, recorder: Any) -> None:
        """After a rewind: the first fall among the rows still recorded."""
        self.fall = None
        self.check(recorder, 0)

    def end_time(self, t_end: float) -> float:
        """The run's end [s]: ``t_end``, or just past the fall when stopping at it."""
        if self.enabled and self.fall is not None:
            return min(t_end, self.fall.at_s + FALL_MARGIN_S)
        return t_end
