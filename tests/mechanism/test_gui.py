"""The stick-figure view draws a planar mechanism and returns to the biped."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PySide6")

from app.gui.figure.stick_figure import StickFigure, draw_mechanism
from blocks import Diagram
from blocks.library.mechanism import PlanarMechanism

DIAGRAM = "assets/diagrams/andrews_squeezer.json"


@pytest.mark.gui
def test_squeezer_is_drawn_and_biped_restored(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    fig = StickFigure()
    qtbot.addWidget(fig)
    fig.resize(600, 450)
    diagram = Diagram.load(repo / DIAGRAM)
    points = PlanarMechanism("mech", mechanism="andrews_squeezer").probe(u={"tau": [0.0]}).y["points"]
    draw_mechanism(fig, diagram, "mech.points", 0.0, points)
    assert fig.mechanism is not None and "E" in fig.mechanism
    x, y = fig.mech_links.getData()
    assert x is not None and len(x) == 2 * 10  # 10 link segments
    assert np.min(x) == pytest.approx(-0.06934) and np.max(y) == pytest.approx(0.072)
    assert not fig.trunk.isVisible() and fig.mech_links.isVisible()
    png = tmp_path / "sq.png"
    fig.show()
    assert fig.grab().save(str(png)) and png.stat().st_size > 5000
    fig.set_mechanism(None)
    fig.show_state(0.0, np.array([0.0, 0.87, 0.0, 0.0, 0.0, 0.0, 0.0]))
    assert fig.trunk.isVisible() and not fig.mech_links.isVisible()


@pytest.mark.gui
def test_main_window_opens_and_animates_the_squeezer_diagram(qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from pathlib import Path

    from PySide6 import QtCore

    from app.gui.main_window import MainWindow
    from app.gui.session.session import SimSession

    repo = Path(__file__).resolve().parents[2]
    settings = QtCore.QSettings(str(tmp_path / "settings.ini"), QtCore.QSettings.Format.IniFormat)
    win = MainWindow(SimSession(t_end=2.5), settings=settings)
    qtbot.addWidget(win)
    win.show()
    try:
        assert win.files.open_path(repo / DIAGRAM)
        win.session.t_end = 0.002
        win.run_control.set_running(True)
        qtbot.waitUntil(lambda: win.session.time >= 0.002 - 1e-9 or not win.run_control.running, timeout=30000)
        win.run_control.set_running(False)
        assert not win.session.failed
        assert win.figure.mechanism is not None and "E" in win.figure.mechanism
        x, _ = win.figure.mech_links.getData()
        assert x is not None and len(x) == 20
    finally:
        win.errors.close_all()
        win.close()
