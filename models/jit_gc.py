"""Python's cyclic garbage collector run less often while numba compiles.

A numba compile builds and drops millions of small objects (IR nodes, types, LLVM values); every 700 new
container objects start a young-generation collection, every tenth of those a middle one, and the oldest
generation, which holds everything imported, is scanned whole every so often. In the first compile of
six walking kernels on an empty cache (``grf_output``, ``_contact_output``, ``_ankle_output``,
``_estimator_output``, ``_dynamics_derivative``, ``grf_match_output``) the collector took 2.3-2.8 s of
10.9-12.1 s of CPU: 1,555 young, about 150 middle and 9 whole collections.

While a compile runs (numba's ``numba:compile`` event, outermost start to outermost end), the
young-generation threshold is :data:`COMPILE_THRESHOLD` instead of its setting (700 by default): the
collector then took 0.75 s, for 27 MB more peak memory (193 -> 220 MB). The older generations' thresholds
are kept. Garbage is still collected, only in larger batches; the machine code and the results are the
same. After the compile the thresholds are back to what they were. Where automatic collection is off (the
GUI collects on its own thread, :mod:`app.gui.session.gui_gc`) nothing is changed.
"""

from __future__ import annotations

import gc
from typing import Any

__all__ = ["COMPILE_THRESHOLD", "install"]

#: the young generation's collection threshold [allocations less deallocations] while numba compiles
COMPILE_THRESHOLD = 20_000

_state: dict[str, Any] = {"depth": 0, "saved": None, "installed": False}


def _start(_event: Any = None) -> None:
    if _state["depth"] == 0:
        saved = gc.get_threshold()
        _state["saved"] = saved
        if gc.isenabled() and 0 < saved[0] < COMPILE_THRESHOLD:
            gc.set_threshold(COMPILE_THRESHOLD, *saved[1:])
        else:  # automatic collection off (the GUI collects on its own thread: app/gui/session/gui_gc.py): left so
            _state["saved"] = None
    _state["depth"] += 1


def _end(_event: Any = None) -> None:
    _state["depth"] = max(_state["depth"] - 1, 0)
    if _state["depth"] == 0 and _state["saved"] is not None:
        gc.set_threshold(*_state["saved"])
        _state["saved"] = None


def install() -> None:
    """Listen to numba's compile events (once per process); compiles run under numba's global compiler lock,
    one at a time, so one depth count serves every thread."""
    if _state["installed"]:
        return
    from numba.core import event

    class _Compiles(event.Listener):
        def on_start(self, ev: Any) -> None:
            _start(ev)

        def on_end(self, ev: Any) -> None:
            _end(ev)

    event.register("numba:compile", _Compiles())
    _state["installed"] = True
