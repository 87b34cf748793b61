"""The Solve posture progress and failure paths, with a stand-in for the background job (no solving)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.gui.main_window import MainWindow
from app.gui.solve import solve_control
from app.solve_job import JobEvent


class FakeJob:
    """Hands out the events it is given, one batch per poll, as :class:`app.solve_job.SolveJob` would."""

    batches: list[list[JobEvent]] = []

    def __init__(self, spec: object, out: Path, sensitivity: tuple[float, ...] = ()) -> None:
        self.spec, self.out, self.sensitivity = spec, out, sensitivity
        self.state, self.stages = "running", ()
        self.queue = list(self.batches)

    @property
    def running(self) -> bool:
        return self.state == "running"

    def poll(self) -> list[JobEvent]:
        events = self.queue.pop(0) if self.queue else []
        for e in events:
            if e.kind == "plan":
                self.stages = e.stages
            elif e.kind in ("done", "error"):
                self.state = e.kind
        return events

    def cancel(self) -> None:
        self.state = "cancelled"


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> type[FakeJob]:
    monkeypatch.setattr(solve_control, "SolveJob", FakeJob)
    return FakeJob


def test_the_bar_has_one_part_per_stage_filled_by_its_iterations(window: MainWindow, fake: type[FakeJob],
                                                                  tmp_path: Path) -> None:
    stages = ("kinematic", "anchored", "free", "trunk CoM -1 cm", "trunk CoM +1 cm")
    fake.batches = [[JobEvent("plan", stages=stages, iteration=150)],
                    [JobEvent("progress", stage="kinematic", iteration=3, objective=2.0)],
                    [JobEvent("progress", stage="anchored", iteration=15, objective=0.5)]]
    ctl = window.solve.control
    ctl.out_root = tmp_path
    ctl.start(window.session.spec)
    job = ctl.job
    assert isinstance(job, FakeJob) and job.sensitivity == (-0.01, 0.01)
    assert job.spec.solve is not None and job.spec.dataset == window.session.dataset
    ctl.poll()
    bar = ctl.progress.bar
    assert bar.maximum() == 5 * solve_control.BAR_STEPS
    ctl.poll()
    assert bar.value() == int(solve_control.BAR_STEPS * 3 / 18)            # 3 iterations: 3 / (3 + 15)
    ctl.poll()
    assert bar.value() == int(solve_control.BAR_STEPS * 1.5)              # 2nd part, half full at 15
    assert "anchored (2/5), iteration 15" in ctl.progress.label.text()
    ctl.cancel()


def test_a_failed_solve_is_reported_and_the_action_comes_back(window: MainWindow, fake: type[FakeJob],
                                                              tmp_path: Path) -> None:
    fake.batches = [[JobEvent("error", message="UserError: high_heels: no whole gait cycle")]]
    ctl = window.solve.control
    ctl.out_root = tmp_path
    ctl.start(window.session.spec)
    assert not ctl.action.isEnabled()
    ctl.poll()
    assert ctl.action.isEnabled() and not ctl.progress.isVisible() and window.solve.gait is None
    box = window.errors.dialogs[-1]
    assert box.windowTitle() == "Posture solve failed" and "no whole gait cycle" in box.text()
