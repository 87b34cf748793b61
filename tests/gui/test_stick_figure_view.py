"""Stick figure: the recording's ghost, camera follow, zoom and the feet."""

from __future__ import annotations

import numpy as np
import pytest

from app.gui.figure.stick_figure import FOOT_M
from app.gui.main_window import MainWindow
from models.biped import FiveLinkBiped
from tests.gui.conftest import run_until


def _hip_and_ref(win: MainWindow) -> tuple[np.ndarray, np.ndarray, FiveLinkBiped]:
    s = win.session
    biped = FiveLinkBiped(s.biped_params())
    q = s.recorded("body.q")[-1]
    return biped.points(q)["hip"], s.recorded(s.find("ReferenceSource", "angles"))[-1], biped


def test_ghost_draws_the_reference_pose_at_the_simulated_hip(qtbot, window: MainWindow) -> None:
    run_until(qtbot, window, 0.8)
    fig = window.figure
    hip, angles, biped = _hip_and_ref(window)
    # the reference pose from models.biped: base anywhere, then moved so that its hip is the model's
    pts = biped.points(np.concatenate([[0.0, 0.0], angles]))
    shift = hip - pts["hip"]
    drawn = fig.ghost.drawn()
    assert all(item.isVisible() for item in fig.ghost.items)
    for name in ("hip", "head", "knee_l", "foot_l", "knee_r", "foot_r"):
        np.testing.assert_allclose(drawn[name], pts[name] + shift, atol=1e-9, err_msg=name)
    # not the simulated pose: the recording differs from the model somewhere by more than 1 mm
    sim = biped.points(window.session.recorded("body.q")[-1])
    assert max(np.linalg.norm(drawn[n] - sim[n]) for n in ("head", "knee_l", "foot_l", "knee_r", "foot_r")) > 1e-3
    fig.controls.ghost.setChecked(False)
    assert not any(item.isVisible() for item in fig.ghost.items)
    fig.controls.ghost.setChecked(True)
    assert all(item.isVisible() for item in fig.ghost.items)


def test_camera_follows_the_hip_and_zooms(qtbot, window: MainWindow) -> None:
    run_until(qtbot, window, 2.0)
    fig = window.figure
    hip, _, _ = _hip_and_ref(window)
    assert hip[0] > 1.0                                                  # it walked
    (x0, x1), (y0, y1) = fig.plot.getPlotItem().getViewBox().viewRange()
    assert abs(hip[0] - 0.5 * (x0 + x1)) < 0.1 * (x1 - x0)              # within the central 20 %
    fig.controls.zoom.setValue(2.0)
    (z0, z1), (w0, w1) = fig.plot.getPlotItem().getViewBox().viewRange()
    assert (z1 - z0) == pytest.approx(0.5 * (x1 - x0), rel=0.05)
    assert (w1 - w0) == pytest.approx(0.5 * (y1 - y0), rel=0.05)
    assert abs(hip[0] - 0.5 * (z0 + z1)) < 0.1 * (z1 - z0)
    fig.controls.follow.setChecked(False)                                # camera stays put while walking on
    run_until(qtbot, window, 2.4)
    assert fig.plot.getPlotItem().getViewBox().viewRange()[0] == pytest.approx([z0, z1], abs=1e-9)


def test_feet_are_short_segments_flat_in_stance(qtbot, window: MainWindow) -> None:
    run_until(qtbot, window, 0.5)
    s, fig = window.session, window.figure
    stance = s.recorded(s.find("PhaseDetector", "stance"))[-1]
    pts = FiveLinkBiped(s.biped_params()).points(s.recorded("body.q")[-1])
    for i, side in enumerate(("l", "r")):
        x, y = fig.feet[side].getData()
        assert np.hypot(x[1] - x[0], y[1] - y[0]) == pytest.approx(sum(FOOT_M))
        on_line = np.array([x[0], y[0]]) + FOOT_M[0] / sum(FOOT_M) * np.array([x[1] - x[0], y[1] - y[0]])
        np.testing.assert_allclose(on_line, pts[f"foot_{side}"], atol=1e-12)
        if stance[i] > 0.5:
            assert y[0] == pytest.approx(y[1])
