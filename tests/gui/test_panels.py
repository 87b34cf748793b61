"""Canvas, parameter panel, gain presets, compare view, exports, error hook and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtWidgets

from app.defaults import COMPARE_PRESET
from app.gui.editing.gain_panel import GainPanel
from app.gui.figure import export
from app.gui.main_window import MainWindow
from app.gui.runs.compare_view import CompareView, load_compare
from app.gui.session.session import SimSession
from blocks import Diagram, SolverSettings
from blocks.library.control import PID
from tests.gui.conftest import drawn, run_until

pytestmark = pytest.mark.gui


def test_canvas_blocks_ports_wires_and_positions(qtbot, window: MainWindow) -> None:
    s, canvas = window.session, window.canvas
    grouped = {b for sub in s.diagram.ui["subsystems"] for b in sub["blocks"]}   # the stabilisers, collapsed
    assert set(canvas.items_by_name) == set(s.diagram.blocks) - grouped | {"stabilisers"}
    inner = [(a, b) for a, b in s.diagram.connections if {a.split(".")[0], b.split(".")[0]} <= grouped]
    assert sorted(c for w in canvas.wires for c in w.conns) == sorted(set(s.diagram.connections) - set(inner))
    pid = canvas.items_by_name["pid_hip"]
    assert pid.inputs == [p.name for p in PID.inputs] and pid.outputs == ["u"]
    # a wire starts at its output port stub and ends at its input port stub
    w = canvas.wire("grf.F", "phase.F")
    path = w.path()
    a, b = path.elementAt(0), path.elementAt(path.elementCount() - 1)
    pa = canvas.items_by_name["grf"].port_pos("F", False)
    pb = canvas.items_by_name["phase"].port_pos("F", True)
    assert (a.x, a.y, b.x, b.y) == (pa.x(), pa.y(), pb.x(), pb.y())
    # live tooltip: the current value of the signal
    run_until(qtbot, window, 0.3)
    canvas.refresh_tooltips()
    f = s.latest("grf.F")
    assert f"F_ly = {f[1]:.5g}" in w.toolTip() and "t = 0.300 s" in w.toolTip()
    # moving a block writes its position into the diagram's UI fields, and the wires follow
    canvas.items_by_name["grf"].setPos(12.0, 34.0)
    assert s.diagram.to_dict()["ui"]["blocks"]["grf"] == {"x": 12.0, "y": 34.0}
    assert w.path().elementAt(0).y == canvas.items_by_name["grf"].port_pos("F", False).y()


def test_param_panel_generated_from_paramspec(qtbot, window: MainWindow) -> None:
    s = window.session
    window.canvas.block_clicked.emit("phase")
    panel = window.params
    assert window.side.currentWidget() is panel
    box = panel.editors["phase.threshold_n"]
    assert isinstance(box, QtWidgets.QDoubleSpinBox)
    spec = s.diagram.param_spec("phase.threshold_n")
    assert (box.minimum(), box.maximum(), box.suffix()) == (spec.min, spec.max, " N")
    assert "phase.threshold_n" in panel.sliders
    box.setValue(55.0)                                   # tunable: queued in the registry
    s.step(1)
    assert s.param_value("phase.threshold_n") == 55.0 and s.param_log()[-1]["name"] == "phase.threshold_n"
    box.setValue(1e9)                                    # out of range: the spin box clamps to the max
    assert box.value() == spec.max
    window.show_block("body")
    init = panel.editors["body.init"]
    from blocks.library.biped import FiveLinkDynamics

    choices = FiveLinkDynamics.params["init"].choices  # reference, params, solution
    assert isinstance(init, QtWidgets.QComboBox) and init.count() == len(choices) == 3
    assert [init.itemText(i) for i in range(init.count())] == list(choices)
    dlg = window.block_dialog("pid_knee")
    kp_box = dlg.panel.editors["pid_knee.kp"]
    assert isinstance(kp_box, QtWidgets.QDoubleSpinBox) and kp_box.value() == s.param_value("pid_knee.kp")
    dlg.close()


def test_gain_presets_store_and_recall(qtbot, settings: QtCore.QSettings) -> None:
    g = GainPanel(settings)                     # the panel alone, bound as the window binds it
    qtbot.addWidget(g)
    session = SimSession(t_end=0.1)
    g.bind(session)
    pids = session.blocks_of_type("PID")
    assert set(g.rows) == {f"{b}.{k}" for b in pids for k in ("kp", "ki", "kd")}
    g.set_gain("pid_hip", "kp", 321.0)
    g.store("soft")
    assert json.loads(settings.value("gains/soft"))["pid_hip.kp"] == 321.0
    g.set_gain("pid_hip", "kp", 800.0)
    assert g.recall("soft") == 3 * len(pids)
    assert g.rows["pid_hip.kp"].box.value() == 321.0
    session.step(1)
    assert session.param_value("pid_hip.kp") == 321.0


def _fake_results(names: list[str]) -> list[SimpleNamespace]:
    pct = np.linspace(0, 100, 101)
    out = []
    for i, n in enumerate(names):
        cyc = {"pct": pct, "trunk_deg": 3 + i + np.sin(pct / 100 * 2 * np.pi), "knee_l_deg": 30 + 0 * pct,
               "knee_r_deg": 31 + 0 * pct, "grf_ly_bw": 1.0 + 0.1 * i + 0 * pct, "grf_ry_bw": 0 * pct}
        out.append(SimpleNamespace(name=n, summary={"stride_length_m": 1.2 + i}, cycle=cyc))
    return out


def test_compare_view_two_datasets_in_worker(qtbot) -> None:
    calls = []

    def fake_compare(specs, preset="default", duration=None, progress=None, cancel=None):
        for i, name in enumerate(specs):
            progress(i + 1, len(specs), f"ran {name}")
            calls.append((name, preset, duration))
        return _fake_results(specs)

    def table(results):
        return [["condition", "stride [m]"]] + [[r.name, f"{r.summary['stride_length_m']:.2f}"] for r in results]

    view = CompareView(compare_fn=fake_compare, table_fn=table)
    qtbot.addWidget(view)
    view.duration.setValue(4.0)
    with qtbot.waitSignal(view.done, timeout=10000):
        view.start(["barefoot", "high_heels"])
    assert calls == [("barefoot", COMPARE_PRESET, 4.0), ("high_heels", COMPARE_PRESET, 4.0)]   # the solved gait
    assert view.table_rows() == [["condition", "stride [m]"], ["barefoot", "1.20"], ["high_heels", "2.20"]]
    curves = view.plot_items["grf_ly_bw"].listDataItems()
    assert [float(c.getData()[1][50]) for c in curves] == [pytest.approx(1.0), pytest.approx(1.1)]
    assert view.progress.value() == 2


def test_compare_view_real_engine_two_datasets(qtbot) -> None:
    compare, table = load_compare()
    assert compare is not None and table is not None
    view = CompareView()
    qtbot.addWidget(view)
    view.duration.setValue(2.0)
    with qtbot.waitSignal(view.done, timeout=60000):
        view.start(["barefoot", "sneakers"])
    rows = view.table_rows()
    assert rows == table(view.results)
    assert [r.name for r in view.results] == ["barefoot", "sneakers"]
    assert view.plot_items["trunk_deg"].listDataItems()[0].getData()[0].size == 101


def test_exports_csv_png_gif_and_mp4_message(qtbot, window: MainWindow, tmp_path: Path, monkeypatch) -> None:
    s = window.session
    run_until(qtbot, window, 0.2)
    csv = window.files.export("csv", tmp_path / "r.csv")
    assert csv is not None
    lines = csv.read_text().splitlines()
    assert len(lines) == 1 + s.runner.recorder.length and lines[0].startswith("t [s],")
    png = window.files.export("png", tmp_path / "scopes.png")
    assert png is not None and png.stat().st_size > 1000
    gif = export.export_animation(s, tmp_path / "a.gif", fps=25.0, size=(200, 150))
    from PIL import Image

    with Image.open(gif) as im:
        assert getattr(im, "n_frames", 1) == 6 and im.size == (200, 150)       # 0.0, 0.04, ..., 0.2 s
    real = export.importlib.util.find_spec
    monkeypatch.setattr(export.importlib.util, "find_spec", lambda n: None if n == "imageio_ffmpeg" else real(n))
    assert window.files.export("mp4", tmp_path / "a.mp4") is None
    assert "imageio-ffmpeg" in window.errors.last_text()


@pytest.mark.qt_no_exception_capture
def test_exception_in_slot_shows_dialog_and_app_survives(qtbot, window: MainWindow) -> None:
    def broken() -> None:
        raise RuntimeError("boom in a slot")

    QtCore.QTimer.singleShot(0, broken)
    qtbot.waitUntil(lambda: len(window.errors.dialogs) == 1, timeout=5000)
    assert "boom in a slot" in window.errors.last_text()
    window.run_control.step_frame()
    assert window.session.tick == 20


def test_blow_up_stops_and_keeps_results(qtbot, settings) -> None:
    """A signal that becomes infinite at t = 0.25 s: the run stops there, names block, port and
    time in a message, and keeps the 250 finite rows recorded before it."""
    d = Diagram("blows_up", solver=SolverSettings(dt=1e-3, t_end=1.0))
    d.add("src", "Step", t_step=0.25, before=1.0, after=1e300)
    d.add("k", "Gain", k=1e9)
    d.connect("src.y", "k.u")
    win = MainWindow(SimSession(d, dataset="sneakers", preset=""), settings=settings)
    qtbot.addWidget(win)
    win.show()
    win.controls.speed.setCurrentIndex(win.controls.speed.count() - 1)
    win.run_control.set_running(True)
    qtbot.waitUntil(lambda: not win.run_control.running, timeout=10000)
    s = win.session
    assert s.error is not None
    assert (s.error.block, s.error.port, s.error.t, s.error.value) == ("k", "y", pytest.approx(0.25), np.inf)
    text = win.errors.last_text()
    assert "block 'k'" in text and "port 'y'" in text and "t = 0.250 s" in text
    y = s.recorded("k.y")
    assert y.size == 250 and np.all(y == 1e9)
    assert "FAILED" in win.status_state.full_text()
    win.run_control.step_frame()  # stepping a failed run does nothing and raises nothing
    assert s.tick == 250
    win.errors.close_all()


def test_cli_screenshot(tmp_path: Path, qapp) -> None:
    from app.cli import main

    out = tmp_path / "shot.png"
    assert main(["gui", "--screenshot", str(out), "--run-for", "0.3"]) == 0
    from PIL import Image

    with Image.open(out) as im:
        assert im.size == (1600, 1000)
        px = np.asarray(im.convert("L"))
    assert px.std() > 20                      # a drawn window, not a blank image


def test_grf_scopes_mark_the_force_no_plate_measured(qtbot, window: MainWindow, shared_data: Path) -> None:
    """walk1's first 0.30 s of right-foot force is a copy (no plate saw that foot): both GRF
    scopes show it as one grey band, and a measured dataset shows none."""
    assert window.session.filled_spans() == []
    d = shared_data / "demotu-BMC"
    assert window.files.open_dataset(f"{d / 'walk1.forces'}|{d / 'walk1.trc'}")
    drawn(qtbot, window)                        # the reused scopes redraw one per turn
    (span,) = window.session.filled_spans()
    assert span[2] == "r" and span[0] == pytest.approx(0.0) and span[1] == pytest.approx(0.30, abs=0.02)
    grf_scopes = [sc for sc in window.scopes.scopes if sc.spec.mark_filled]
    assert len(grf_scopes) == 2
    for sc in grf_scopes:
        bands = [it for it in sc.plot.items if isinstance(it, pg.LinearRegionItem)]
        assert [tuple(b.getRegion()) for b in bands] == [pytest.approx(span[:2])]
