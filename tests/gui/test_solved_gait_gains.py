"""The gain sliders act on the solved gait's PD (issue 31 §1): under ``emergent`` the gain panel and the
Tuning tab offer the ``SolvedGait`` block's PD gains, and moving a slider while the run plays changes
the parameter the running engine reads."""

from __future__ import annotations

import pytest
from PySide6 import QtCore

from app.gui.editing.gain_panel import GainPanel
from app.gui.main_window import MainWindow
from app.gui.session.session import SimSession
from app.gui.session.session_catalog import SOLVED_GAINS, gain_refs, solved_gait_blocks
from app.runs import RunSpec, default_diagram_path
from blocks import Diagram
from blocks.library.presets import apply_preset
from blocks.library.solved_gait import SolvedGait


def test_the_solved_gait_gains_are_offered_only_where_the_block_acts() -> None:
    default = Diagram.load(default_diagram_path())
    tracking, emergent = apply_preset(default, "tracking"), apply_preset(default, "emergent")
    assert solved_gait_blocks(tracking) == [] and solved_gait_blocks(emergent) == ["solved"]
    assert not any(r.startswith("solved.") for r in gain_refs(tracking))
    refs = gain_refs(emergent)
    assert [r for r in refs if r.startswith("solved.")] == [f"solved.{g}" for g in SOLVED_GAINS]
    assert "pid_hip.kp" in refs and "pid_knee.kd[1]" in refs       # the PIDs' stay


def test_the_gain_panel_of_a_tracking_run_has_no_solved_gait_rows(qtbot, settings: QtCore.QSettings) -> None:
    panel = GainPanel(settings)                 # the panel alone, bound as the window binds it
    qtbot.addWidget(panel)
    panel.bind(SimSession(t_end=0.1))
    assert panel.rows and not [r for r in panel.rows if r.startswith("solved.")]


@pytest.mark.slow
def test_a_solved_gait_slider_changes_the_running_engine(qtbot, settings: QtCore.QSettings) -> None:
    """Emergent preset (the sneakers solution, solved once and cached), Python engine: drag the hip
    stiffness while the run plays; the next step's packed vector, which the SolvedGait law reads,
    holds the new value, and the change is logged at a time inside the run."""
    session = SimSession(spec=RunSpec(dataset="sneakers", preset="emergent", duration=1.0, engine="python"))
    win = MainWindow(session, settings=settings)
    qtbot.addWidget(win)
    win.show()
    try:
        rows = win.gains.rows
        assert [r for r in rows if r.startswith("solved.")] == [f"solved.{g}" for g in SOLVED_GAINS]
        row = rows["solved.kp_hip"]
        assert row.box.value() == pytest.approx(600.0)                  # the emergent preset's value
        refs = [win.tuning.axes[0].ref.itemText(i) for i in range(win.tuning.axes[0].ref.count())]
        assert "solved.kp_trunk" in refs                                 # the Tuning tab offers them too
        k = SolvedGait.packed_at("kp_hip")

        def packed(at: int = k) -> float:  # the running engine's own packed vector (either engine)
            return float(win.session.runner.packed("solved")[at])

        assert packed() == pytest.approx(600.0)
        win.controls.speed.setCurrentIndex(win.controls.speed.count() - 1)
        win.run_control.set_running(True)
        qtbot.waitUntil(lambda: win.session.time > 0.05, timeout=60000)
        row.slider.setValue(row.slider.value() + 150)                    # a drag to the right
        new = row.box.value()
        assert new > 1.5 * 600.0
        t_set = win.session.time
        qtbot.waitUntil(lambda: win.session.time > t_set + 0.02 or not win.run_control.running, timeout=60000)
        win.run_control.set_running(False)
        assert win.session.runner.registry.get("solved.kp_hip") == pytest.approx(new)
        assert packed() == pytest.approx(new, rel=1e-4)
        log = [c for c in win.session.param_log() if c["name"] == "solved.kp_hip"]
        assert log and log[-1]["old"] == pytest.approx(600.0) and 0.0 < log[-1]["t"] < 1.0
        assert packed(SolvedGait.packed_at("kp_knee")) == pytest.approx(600.0)
    finally:
        win.errors.close_all()
        win.close()
