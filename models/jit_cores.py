"""How many processes a first compile may use: one per core left idle now (:mod:`models.jit_parallel`'s
workers), or ``$GAITBLOCKS_COMPILE_WORKERS``."""

from __future__ import annotations

import math
import os
import time

__all__ = ["ENV", "IDLE_SAMPLE_S", "MAX_WORKERS", "idle_cores", "worker_count"]

#: the environment variable that sets the number of compile workers (0: compile in this process only)
ENV = "GAITBLOCKS_COMPILE_WORKERS"
#: the default's ceiling: one worker per idle core beyond this process's (:func:`worker_count`), at most this many
MAX_WORKERS = 3
#: how long [s] :func:`idle_cores` watches the machine (a first compile only)
IDLE_SAMPLE_S = 0.2


def idle_cores(sample_s: float = IDLE_SAMPLE_S) -> float:
    """How many cores [-] the machine left idle over the next ``sample_s`` seconds (``/proc/stat``, this
    process asleep meanwhile); elsewhere ``cores - load``, the 1-minute load average. ::

        idle = cores * (idle + iowait ticks) / (all ticks)"""
    cores = os.cpu_count() or 1

    def ticks() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as f:
            values = [int(v) for v in f.readline().split()[1:]]
        return values[3] + values[4], sum(values)

    try:
        idle0, all0 = ticks()
        time.sleep(sample_s)
        idle1, all1 = ticks()
    except (OSError, ValueError, IndexError):
        return cores - os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return cores * (idle1 - idle0) / max(all1 - all0, 1)


def worker_count(n_groups: int) -> int:
    """Compile workers for ``n_groups`` groups: ``$GAITBLOCKS_COMPILE_WORKERS`` if set, else one per core
    left idle beyond this process's own (:func:`idle_cores`, half a core or more counts)::

        workers = min(usable cores - 1, floor(idle - 1 + 1/2), MAX_WORKERS)

    A busy core gives a worker no time of its own (Linux shares a busy machine among sessions, not
    processes), and the worker's start and the machine code it hands back cost about 1 s of CPU; never more
    than ``n_groups - 1`` (this process takes a share)."""
    env = os.environ.get(ENV, "").strip()
    if env:
        if not env.isdigit():
            from models.errors import UserError

            raise UserError(f"${ENV}={env!r}: give a number of compile workers (0: compile in this process only)")
        wanted = int(env)
    elif n_groups < 2:
        return 0
    else:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        wanted = min(cores - 1, math.floor(idle_cores() - 0.5), MAX_WORKERS)
    return max(min(wanted, n_groups - 1), 0)
