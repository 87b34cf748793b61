"""Ctrl+C that keeps what was computed: :class:`SigintFlag`.

The commands that compute for a long time (``run``, ``sweep``) install it while they step: the
first SIGINT only sets a flag (and a ``threading.Event``, which the executors read between runs,
:mod:`blocks.executors`), so the work in hand ends at its next boundary (a slice of ticks, a
batch of copies, the runs in flight) and is written; a second SIGINT raises ``KeyboardInterrupt``
at once, as Python's default handler does.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

__all__ = ["SigintFlag"]


class SigintFlag:
    """Within ``with``: the first SIGINT sets :attr:`raised` and :attr:`event` instead of raising
    ``KeyboardInterrupt``; a second one raises it. The previous handler comes back on exit. It acts
    in the main thread only, and only where SIGINT has Python's default handler (elsewhere, e.g.
    where SIGINT is ignored, it changes nothing)."""

    def __init__(self, event: threading.Event | None = None) -> None:
        self.event = event if event is not None else threading.Event()
        self._old: Any = None

    @property
    def raised(self) -> bool:
        return self.event.is_set()

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.event.is_set():
            raise KeyboardInterrupt
        self.event.set()

    def __enter__(self) -> SigintFlag:
        if threading.current_thread() is threading.main_thread() \
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            self._old = signal.signal(signal.SIGINT, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._old is not None:
            signal.signal(signal.SIGINT, self._old)
            self._old = None
