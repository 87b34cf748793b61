"""The GUI's Compare tab runs the simulation tab's diagram, preset and parameter changes when asked to."""

from __future__ import annotations

from typing import Any

from app.gui.runs.compare_view import SIM_TAB


def test_gui_compare_view_uses_main_window_state(qtbot: Any, window: Any) -> None:
    window.session.set_param("pid_hip.kp", 5.0)
    window.compare.preset.setCurrentText(SIM_TAB)
    window.compare.duration.setValue(1.0)
    with qtbot.waitSignal(window.compare.done, timeout=120000):
        window.compare.start(["sneakers"])
    [cond] = window.compare.results
    assert cond.summary["params"]["pid_hip.kp"] == 5.0
