"""The runs a GUI session keeps for the run inspector (no Qt in this module).

A :class:`KeptRun` is a finished, reset or replaced run: its name (editable), its status line
(:func:`app.walking.status_text` of its summary), the parameter changes applied while
it ran, and a copy of its **scoped** signals only: every logged signal a scope showed when it
was kept (all columns, at full resolution, not decimated), plus the stance flags for the
% gait-cycle view. Memory is ``8 * ticks * (columns + 1)`` bytes per run: with the default
scopes 28 of the 135 logged columns, 2.3 MB for a 10 s run at dt = 1 ms
(``benchmarks/run_inspector.py``).

:class:`RunStore` keeps at most ``MAX_RUNS`` runs; adding one more drops the oldest and says so
in :attr:`RunStore.note`. Each run gets a serial ``key`` when kept; its overlay colour and line
style follow from that key (:func:`run_style`), so they stay the same while other runs come and go.

The overlay colours (:data:`RUN_COLOURS`) are a qualitative palette picked, farthest point first,
from the common qualitative sets (Tableau, ColorBrewer, Paul Tol) for distance in CIELAB:
every pair differs by ``Delta E*ab >= 38`` and each differs from the live run's leg colours (blue
``#1f77b4``, orange ``#e8710a``) by ``>= 40``, with lightness ``L* <= 61`` so that a thin line shows
on the white plots (``tests/gui/test_runs_view.py`` measures it). Runs 1, 2, 3 ... take them in order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["MAX_RUNS", "RUN_COLOURS", "KeptRun", "RunStore", "keep_runner", "run_style"]

MAX_RUNS = 10
# overlay colours (module doc): green, magenta, indigo, black, teal, brown, lilac, olive, dark red, violet
RUN_COLOURS = ("#2ca02c", "#e7298a", "#490092", "#000000", "#009988", "#8c564b", "#bc80bd", "#999933", "#920000",
               "#b66dff")


def run_style(key: int) -> str:
    """The overlay colour of the run with serial ``key`` (1, 2, ...; stable for the run's lifetime)."""
    return RUN_COLOURS[(key - 1) % len(RUN_COLOURS)]


@dataclass
class KeptRun:
    """One kept run: ``t`` (n,) [s], ``signals`` name -> (n,) or (n, k) copies in the signal's SI
    unit, ``units`` name -> unit, ``changes`` the applied parameter changes ``{"t", "name", "old",
    "new"}``, ``status`` a one-line summary, ``key`` its serial number."""

    key: int
    name: str
    status: str
    t: np.ndarray
    signals: dict[str, np.ndarray]
    units: dict[str, str] = field(default_factory=dict)
    changes: list[dict[str, Any]] = field(default_factory=list)
    stance: str | None = None      # the signal holding the stance flags [l, r], if kept
    detail: str = ""               # dataset, preset, parameter changes (the inspector's tooltip)
    dataset: str = ""              # the dataset it ran on (bundled name or file)
    preset: str = ""               # the preset, "" for a diagram run as it is
    # derived curves of this run (a kept run never changes): the % cycle view's mean cycles
    cache: dict[tuple[Any, ...], Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def colour(self) -> str:
        return run_style(self.key)

    @property
    def nbytes(self) -> int:
        return int(self.t.nbytes + sum(a.nbytes for a in self.signals.values()))

    def duration(self) -> float:
        """Recorded span [s]."""
        return float(self.t[-1] - self.t[0]) if self.t.size else 0.0


def keep_runner(runner: Any, names: Iterable[str], key: int, name: str, status: str,
                stance: str | None = None) -> KeptRun:
    """Copy the recorded ``names`` (the scoped signals) and the change log out of ``runner``
    (a :class:`blocks.runner.Runner`), so the run survives its runner being replaced."""
    rec = runner.recorder
    wanted = [n for n in dict.fromkeys([*names, *([stance] if stance else [])]) if n in rec.names]
    return KeptRun(key=key, name=name, status=status, t=np.array(rec.time(), copy=True),
                   signals={n: np.array(rec.view(n), copy=True) for n in wanted},
                   units={n: rec.units[n] for n in wanted},
                   changes=[c.to_dict() for c in runner.registry.log],
                   stance=stance if stance in wanted else None)


class RunStore:
    """At most ``cap`` kept runs, oldest first; ``note`` says which runs were dropped."""

    def __init__(self, cap: int = MAX_RUNS) -> None:
        self.cap = cap
        self.runs: list[KeptRun] = []
        self.dropped: list[str] = []     # names of the runs dropped so far, oldest first
        self._next = 1

    def next_key(self) -> int:
        """Serial number for the next run (also its default name, ``run N``)."""
        key, self._next = self._next, self._next + 1
        return key

    def add(self, run: KeptRun) -> list[KeptRun]:
        """Keep ``run``; returns the runs dropped to stay within ``cap`` (oldest first)."""
        self.runs.append(run)
        dropped = self.runs[: max(0, len(self.runs) - self.cap)]
        if dropped:
            self.runs = self.runs[len(dropped):]
            self.dropped += [r.name for r in dropped]
        return dropped

    @property
    def note(self) -> str:
        """Which runs were dropped to stay within ``cap`` ("" if none)."""
        if not self.dropped:
            return ""
        names = ", ".join(f"'{n}'" for n in self.dropped[-5:])
        more = f" and {len(self.dropped) - 5} older" if len(self.dropped) > 5 else ""
        return f"kept the last {self.cap} runs: dropped {names}{more}"

    def get(self, key: int) -> KeptRun:
        for r in self.runs:
            if r.key == key:
                return r
        raise KeyError(key)

    def rename(self, key: int, name: str) -> None:
        self.get(key).name = name.strip() or self.get(key).name

    def delete(self, key: int) -> None:
        self.runs = [r for r in self.runs if r.key != key]

    @property
    def nbytes(self) -> int:
        return sum(r.nbytes for r in self.runs)
