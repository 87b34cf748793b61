"""``models.jit_gc``: the collector's young-generation threshold is raised while numba compiles (nested
compiles included) and is back to its setting after."""

from __future__ import annotations

import gc

import pytest

numba = pytest.importorskip("numba")

import models.jit  # noqa: E402,F401  (installs the listener)
from models.jit_gc import COMPILE_THRESHOLD  # noqa: E402


def test_the_threshold_is_raised_during_a_compile_and_restored_after() -> None:
    from numba import njit
    from numba.core import event

    seen: list[tuple[str, str, int]] = []

    class Probe(event.Listener):  # registered after models.jit's listener: notified after it
        def on_start(self, ev: event.Event) -> None:
            seen.append(("start", ev.data["dispatcher"].py_func.__name__, gc.get_threshold()[0]))

        def on_end(self, ev: event.Event) -> None:
            seen.append(("end", ev.data["dispatcher"].py_func.__name__, gc.get_threshold()[0]))

    def inner(x):
        return x * 2.0 + 1.0

    inner_jit = njit(inner)

    def outer(x):
        return inner_jit(x) - 3.0

    before = gc.get_threshold()
    gc.set_threshold(500, *before[1:])
    probe = Probe()
    event.register("numba:compile", probe)
    try:
        assert njit(outer)(2.0) == 2.0
        after = gc.get_threshold()
    finally:
        event.unregister("numba:compile", probe)
        gc.set_threshold(*before)
    assert after[0] == 500
    assert ("start", "outer", COMPILE_THRESHOLD) in seen and ("start", "inner", COMPILE_THRESHOLD) in seen
    assert ("end", "inner", COMPILE_THRESHOLD) in seen  # a nested compile's end keeps the outer one's setting
    assert seen[-1] == ("end", "outer", 500)


def test_nothing_changes_while_automatic_collection_is_off() -> None:
    from numba import njit
    from numba.core import event

    seen: list[int] = []

    class Probe(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            seen.append(gc.get_threshold()[0])

        def on_end(self, ev: event.Event) -> None:
            pass

    before = gc.get_threshold()
    probe = Probe()
    gc.disable()
    event.register("numba:compile", probe)
    try:
        gc.set_threshold(600, *before[1:])
        assert njit(lambda x: x + 1.0)(1.0) == 2.0
        assert gc.get_threshold()[0] == 600 and not gc.isenabled()
    finally:
        event.unregister("numba:compile", probe)
        gc.enable()
        gc.set_threshold(*before)
    assert seen == [600]
