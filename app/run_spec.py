"""What a run is: :class:`RunSpec`, one frozen, picklable value that the CLI, the GUI and Python fill.

The run service (:mod:`app.runs`) builds, simulates and summarises it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.defaults import DEFAULT_PRESET
from models.errors import UserError

if TYPE_CHECKING:
    from app.posture import SolveSpec
    from blocks import Diagram

__all__ = ["RunSpec"]


@dataclass(frozen=True)
class RunSpec:
    """One run, complete. Every field has a default: ``RunSpec()`` runs the default diagram with the
    default preset on the default dataset.

    Parameters
    ----------
    dataset : str
        Bundled or registered name, file, or ``"GRF_FILE|KINEMATICS_FILE"``; ``""`` = the
        diagram's dataset, else the registry default.
    settings : tuple of (str, value)
        ``("block.param", value)`` pairs with typed values, applied after the preset, in order.
    preset : str or None
        Preset name (``assets/presets``); ``None`` runs the diagram as it is.
    diagram : Diagram, path or None
        A :class:`~blocks.Diagram` (copied, never changed), a diagram file, or ``None`` for
        ``assets/diagrams/grf_walk.json``.
    duration : float or None
        Simulated seconds [s]; default the diagram's ``t_end - t_start``. Longer than the data:
        cut to the data's length with a warning (``Built.warnings``), or, with ``repeat``, reached.
    repeat : bool
        Lengthen the data by repeating its whole gait cycles when the run is longer than the
        recording (:func:`models.gaitdata.repeat.repeat_dataset`; ``--repeat-cycles``).
    dt : float or None
        Solver tick [s]; default the diagram's.
    kinematics : str or None
        Joint-angle file paired with a GRF file.
    mass, height : float or None
        Subject mass [kg] and height [m]: scale the model (the other defaults to the paper's
        subject) and tell the importer the body weight.
    start, end : float or None
        Window of the trial used [s of data time].
    foot_radius : float or None
        Rolling-foot radius [m] (0 = point foot); default fitted to the data.
    logged : tuple of str or None
        Signals ``block.port`` to record; ``None`` records every output.
    record_every : int
        Record every k-th solver tick (1 = every tick; :class:`blocks.recorder.Recorder`).
        The summary's metrics are computed from what is recorded (``docs/long-runs.md``).
    engine : {"compiled", "python"} or None
        Stepping engine (:class:`blocks.runner.Runner`; ``--engine``): ``None`` = compiled when every
        block of the diagram has kernels and the solver is RK4, else python (``docs/engine.md``).
    solve : SolveSpec or None
        The posture-solver mode (:func:`solve`, ``gaitblocks solve``): the periodic gait the
        dataset's GRF and CoP produce (:mod:`app.posture`); the diagram fields are then unused.
    stop_at_fall : bool
        End the run :data:`app.walking.FALL_MARGIN_S` after a walker's first fall (:func:`simulate`;
        ``--continue-after-fall`` turns it off): the summary is ``fell`` with the results up to there.
    solution : str, Path or None
        The posture solution a diagram on the solved gait walks (``emergent``; :mod:`app.solved`):
        a solve output folder or its ``results.npz``; ``None`` = the dataset solved with default
        settings, cached per dataset content. Unused by diagrams that read no solution.
    """

    dataset: str = ""
    settings: tuple[tuple[str, Any], ...] = ()
    preset: str | None = DEFAULT_PRESET
    diagram: Diagram | str | Path | None = None
    duration: float | None = None
    dt: float | None = None
    kinematics: str | None = None
    mass: float | None = None
    height: float | None = None
    start: float | None = None
    end: float | None = None
    foot_radius: float | None = None
    logged: tuple[str, ...] | None = None
    repeat: bool = False
    record_every: int = 1
    engine: str | None = None
    solve: SolveSpec | None = None
    stop_at_fall: bool = True
    solution: str | Path | None = None

    def with_settings(self, *pairs: tuple[str, Any]) -> RunSpec:
        """A copy with ``pairs`` applied after this spec's settings (an earlier value of the same
        parameter is dropped: the last one wins either way)."""
        refs = {ref for ref, _ in pairs}
        return replace(self, settings=tuple(p for p in self.settings if p[0] not in refs) + tuple(pairs))

    def check(self) -> None:
        """Raise :class:`UserError` for a bad number or an unknown dataset, without loading data."""
        for name in ("dt", "duration"):
            v = getattr(self, name)
            if v is not None and not (math.isfinite(v) and v > 0):
                raise UserError(f"--{name} must be a positive number of seconds, got {v}")
        if self.foot_radius is not None and not (math.isfinite(self.foot_radius) and 0.0 <= self.foot_radius < 1.0):
            raise UserError(f"--foot-radius must be a number of metres in [0, 1), got {self.foot_radius}")
        if self.dataset:
            from blocks.library.datasets import check_dataset

            check_dataset(self.dataset)
        if isinstance(self.record_every, bool) or not isinstance(self.record_every, int) or self.record_every < 1:
            raise UserError(f"--record-every must be a whole number of ticks >= 1, got {self.record_every}")
        if self.engine not in (None, "compiled", "python"):
            raise UserError(f"--engine must be 'compiled' or 'python', got {self.engine!r}")
