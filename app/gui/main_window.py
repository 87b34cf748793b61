"""The main window: diagram canvas, stick figure, gains and block parameters, scopes, compare view.

Layout (default 1600 x 1000)::

    [ toolbar: dataset | preset | Run/Pause Step Reset | speed                          ]
    [ diagram canvas                                   | Scopes / Compare tabs         ]
    [ stick figure              | Gains / Block tabs   |                               ]
    [ timeline                                                                         ]
    [ status: sim time | real-time factor | frames per second | state                  ]

A ``QTimer`` (16 ms) steps the session within a frame budget at the chosen speed and then
updates the figure, the scopes (``setData``) and the status bar; the run is paused on a
blow-up (the message names block, port, time, value) and the recorded results are kept.

Frame cost (``benchmarks/gui_fps.py``): the stick figure is redrawn every frame; the scopes
are refreshed round-robin, one or two plots per frame at about 12 Hz each
(:meth:`ScopeStack.refresh_live`); the timeline and status bar at 10 Hz; pyqtgraph's
deferred range updates are run before Qt paints, so each view is painted once per frame.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui import export
from app.gui.canvas import DiagramCanvas
from app.gui.compare_view import CompareView
from app.gui.controls import SPEEDS, ControlBar, Timeline
from app.gui.errors import ErrorReporter, install
from app.gui.gain_panel import GainPanel
from app.gui.param_panel import BlockDialog, ParamPanel
from app.gui.scopes import ScopeStack
from app.gui.session import SimSession, available_datasets, available_presets
from app.gui.stick_figure import StickFigure
from models.errors import DataFormatError, UserError

__all__ = ["MainWindow", "STYLE_FILE"]

STYLE_FILE = Path(__file__).resolve().parents[2] / "assets" / "styles" / "gaitblocks.qss"
ICON_FILE = Path(__file__).resolve().parents[2] / "assets" / "icons" / "gaitblocks.svg"
FRAME_MS = 16
BUDGET_S = 0.010
STATUS_S = 0.1      # while running, the status bar and timeline are rewritten at most every STATUS_S
DATA_FILTER = "Gait data (*.csv *.mot *.trc *.c3d *.txt *.tsv);;Sessions (*.gbsession.json *.json);;All files (*)"


class MainWindow(QtWidgets.QMainWindow):
    """gaitblocks desktop window over one :class:`SimSession`."""

    def __init__(self, session: SimSession | None = None, settings: QtCore.QSettings | None = None,
                 hook_exceptions: bool = True) -> None:
        super().__init__()
        self.settings = settings or QtCore.QSettings("gaitblocks", "gaitblocks")
        self.session = session or SimSession()
        self.errors = ErrorReporter(self)
        self._unhook = install(self.errors) if hook_exceptions else None
        self.session_path: Path | None = None
        self.running = False
        self._last = time.perf_counter()
        self._fps_frames: list[float] = []
        self._rtf = (time.perf_counter(), 0.0)
        self._status_at = -1.0
        self.frames = 0
        self.setWindowTitle("gaitblocks — GRF-driven five-link biped")
        if ICON_FILE.is_file():
            self.setWindowIcon(QtGui.QIcon(str(ICON_FILE)))
        if STYLE_FILE.is_file():
            self.setStyleSheet(STYLE_FILE.read_text(encoding="utf-8"))
        self.resize(1600, 1000)
        self.setAcceptDrops(True)
        self._build_widgets()
        self._build_menus()
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(FRAME_MS)
        self.timer.timeout.connect(self.frame)
        self.bind_session()

    # ----------------------------------------------------------------- layout
    def _build_widgets(self) -> None:
        self.controls = ControlBar(self)
        self.addToolBar(self.controls)
        self.canvas = DiagramCanvas()
        self.figure = StickFigure()
        self.gains = GainPanel(self.settings)
        self.params = ParamPanel()
        self.side = QtWidgets.QTabWidget()
        self.side.addTab(self.gains, "PID gains")
        self.side.addTab(self.params, "Block parameters")
        self.scopes = ScopeStack()
        self.compare = CompareView()
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self.scopes, "Scopes")
        self.tabs.addTab(self.compare, "Compare")
        bottom = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        bottom.addWidget(self.figure)
        bottom.addWidget(self.side)
        bottom.setSizes([560, 440])
        left = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        left.addWidget(self.canvas)
        left.addWidget(bottom)
        left.setSizes([400, 500])
        self.main_split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        self.main_split.addWidget(left)
        self.main_split.addWidget(self.tabs)
        self.main_split.setSizes([1000, 600])
        self.timeline = Timeline()
        central = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(central)
        lay.setContentsMargins(4, 2, 4, 0)
        lay.addWidget(self.main_split, 1)
        lay.addWidget(self.timeline)
        self.setCentralWidget(central)
        self.status_time, self.status_rtf, self.status_fps = QtWidgets.QLabel(), QtWidgets.QLabel(), QtWidgets.QLabel()
        self.status_state = QtWidgets.QLabel()
        for w in (self.status_time, self.status_rtf, self.status_fps):
            w.setMinimumWidth(170)
            self.statusBar().addPermanentWidget(w)
        self.statusBar().addWidget(self.status_state, 1)
        c = self.controls
        c.run_action.toggled.connect(self.set_running)
        c.step_action.triggered.connect(self.step_frame)
        c.reset_action.triggered.connect(self.reset)
        c.dataset_chosen.connect(self.open_dataset)
        c.open_requested.connect(self.ask_open)
        c.preset_chosen.connect(self.set_preset)
        self.timeline.scrubbed.connect(self.scrub)
        self.scopes.cursor_moved.connect(self._cursor_moved)
        self.canvas.block_clicked.connect(self.show_block)
        self.canvas.block_activated.connect(self.block_dialog)
        self.params.rebuilt.connect(self.bind_session)
        self.params.changed.connect(lambda ref, v: self.gains.sync())
        self.compare.error.connect(lambda exc: self.errors.report("Comparison failed", exc))

    def _build_menus(self) -> None:
        mb = self.menuBar()
        f = mb.addMenu("&File")
        self._act(f, "&Open dataset, diagram or session…", self.ask_open, QtGui.QKeySequence.StandardKey.Open)
        self._act(f, "Open &diagram…", self.ask_open_diagram)
        self.recent_menu = f.addMenu("Recent files")
        f.addSeparator()
        self._act(f, "&Save session", self.save, QtGui.QKeySequence.StandardKey.Save)
        self._act(f, "Save session &as…", self.ask_save_session)
        self._act(f, "Save diagram as…", self.ask_save_diagram)
        f.addSeparator()
        ex = f.addMenu("&Export")
        self._act(ex, "Results as CSV…", lambda: self._ask_export("csv"))
        self._act(ex, "Scopes as PNG…", lambda: self._ask_export("png"))
        self._act(ex, "Animation as MP4…", lambda: self._ask_export("mp4"))
        self._act(ex, "Animation as GIF…", lambda: self._ask_export("gif"))
        f.addSeparator()
        self._act(f, "&Quit", self.close, QtGui.QKeySequence.StandardKey.Quit)
        sim = mb.addMenu("&Simulation")
        for a in (self.controls.run_action, self.controls.step_action, self.controls.reset_action):
            sim.addAction(a)
        view = mb.addMenu("&View")
        self._act(view, "Fit diagram", self.canvas.fit)
        self._act(view, "Show whole run in scopes", lambda: self._scopes_full(True))
        self._act(view, "Follow the run in scopes", lambda: self._scopes_full(False))
        self._refresh_recent()

    def _act(self, menu: QtWidgets.QMenu, text: str, slot: Any, key: Any = None) -> QtGui.QAction:
        act = menu.addAction(text)
        act.triggered.connect(slot)
        if key is not None:
            act.setShortcut(QtGui.QKeySequence(key))
        return act

    # ----------------------------------------------------------------- session
    def bind_session(self) -> None:
        """(Re)draw everything for the current session (after a compile, never per frame)."""
        s = self.session
        self.controls.set_datasets(available_datasets(), s.dataset)
        self.controls.set_presets(available_presets(), s.preset)
        self.canvas.bind(s)
        self.figure.set_model(s.biped_params())
        self.scopes.bind(s)
        self.gains.bind(s)
        if self.params.block in s.diagram.blocks:
            self.params.show_block(s, self.params.block)
        self.timeline.set_end(0.0, True)
        self.update_views()

    def _replace(self, action: Any, title: str) -> bool:
        """Run ``action`` (which may raise a user error and leave the session as it was)."""
        self.set_running(False)
        try:
            action()
        except UserError as exc:
            self.errors.report(title, exc)
            return False
        self.bind_session()
        return True

    def open_dataset(self, spec: str) -> bool:
        ok = self._replace(lambda: self.session.set_dataset(spec), "Cannot open dataset")
        if ok and Path(spec).is_file():
            self._add_recent(spec)
        if not ok:
            self.controls.set_datasets(available_datasets(), self.session.dataset)
        return ok

    def set_preset(self, name: str) -> bool:
        return self._replace(lambda: self.session.set_preset(name), "Cannot apply preset")

    def open_path(self, path: str | Path) -> bool:
        """Open a session, diagram or dataset file (judged by content); errors leave all as it was."""
        path = Path(path)
        try:
            kind = _json_format(path)
        except UserError as exc:
            self.errors.report("Cannot open file", exc)
            return False
        if kind == "gaitblocks-session":
            try:
                s, view = SimSession.load(path)
            except UserError as exc:
                self.errors.report("Cannot open session", exc)
                return False
            self.set_running(False)
            self.session, self.session_path = s, path
            self.bind_session()
            self.apply_view(view)
            self._add_recent(str(path))
            return True
        if kind == "gaitblocks-diagram":
            ok = self._replace(lambda: self.session.load_diagram(path), "Cannot open diagram")
            if ok:
                self._add_recent(str(path))
            return ok
        return self.open_dataset(str(path))

    def ask_open(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open", "", DATA_FILTER)
        if path:
            self.open_path(path)
        else:
            self.controls.set_datasets(available_datasets(), self.session.dataset)

    def ask_open_diagram(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Open diagram", "", "Diagrams (*.json)")
        if path:
            self.open_path(path)

    def view_state(self) -> dict[str, Any]:
        return {"speed": self.controls.speed.currentText(), "window_s": self.scopes.window_s,
                "tab": self.tabs.currentIndex(), "side_tab": self.side.currentIndex(),
                "selected_block": self.params.block, "splitter": self.main_split.sizes()}

    def apply_view(self, view: dict[str, Any]) -> None:
        labels = [lab for lab, _ in SPEEDS]
        if view.get("speed") in labels:
            self.controls.speed.setCurrentIndex(labels.index(view["speed"]))
        self.scopes.window_s = float(view.get("window_s", self.scopes.window_s))
        self.tabs.setCurrentIndex(int(view.get("tab", 0)))
        self.side.setCurrentIndex(int(view.get("side_tab", 0)))
        if view.get("selected_block") in self.session.diagram.blocks:
            self.show_block(str(view["selected_block"]))
            self.side.setCurrentIndex(int(view.get("side_tab", 0)))
        if isinstance(view.get("splitter"), list):
            self.main_split.setSizes([int(v) for v in view["splitter"]])

    def save_session(self, path: str | Path) -> None:
        self.session.save(path, self.view_state())
        self.session_path = Path(path)
        self._add_recent(str(path))
        self.status_state.setText(f"session saved to {path}")

    def save(self) -> None:
        if self.session_path is None:
            self.ask_save_session()
        else:
            self.save_session(self.session_path)

    def ask_save_session(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Save session", "session.gbsession.json",
                                                        "Sessions (*.gbsession.json)")
        if path:
            self.save_session(path)

    def ask_save_diagram(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Save diagram", "diagram.json", "Diagrams (*.json)")
        if path:
            self.session.save_diagram(path)

    def _add_recent(self, path: str) -> None:
        recent = [p for p in self.recent_files() if p != path]
        self.settings.setValue("recent", [path, *recent][:8])
        self._refresh_recent()

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            return [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        for p in self.recent_files():
            self.recent_menu.addAction(str(p)).triggered.connect(lambda _=False, pp=str(p): self.open_path(pp))

    # ----------------------------------------------------------------- running
    def set_running(self, on: bool) -> None:
        if on and not self.timeline.at_end():
            self.session.rewind(self.timeline.position())
            self.gains.sync()
        if on and (self.session.finished or self.session.failed):
            on = False
        self.running = on
        self.controls.run_action.blockSignals(True)
        self.controls.run_action.setChecked(on)
        self.controls.run_action.blockSignals(False)
        self.controls._run_toggled(on)
        self.scopes.follow = True
        self._last = time.perf_counter()
        self.scopes.set_live(on)
        if on:
            self.timer.start()
        else:
            self.timer.stop()
            self.scopes.refresh(full=True, stats=True)
            self._update_status(follow=self.timeline.at_end())   # catch up unless the user scrubbed

    def frame(self) -> None:
        """One GUI frame: step within the budget, then redraw."""
        now = time.perf_counter()
        wall_dt = min(now - self._last, 0.1)
        self._last = now
        s = self.session
        if self.running:
            # half of the measured frame interval goes to the solver (at least BUDGET_S), so a slow
            # display still keeps up with real time when the engine can
            s.advance_frame(max(BUDGET_S, 0.5 * wall_dt), self.controls.speed_value(), wall_dt)
        self.update_views(now=now)
        # let pyqtgraph's deferred range/matrix updates run now, not inside the paint event, where
        # they would dirty the views again and make Qt paint them twice per frame
        self.scopes.scene().prepareForPaint()
        self.figure.plot.scene().prepareForPaint()
        self._count_frame(now)
        if s.failed:
            self.set_running(False)
            assert s.error is not None
            self.errors.dialogs.append(_warn(self, "Simulation stopped", s.error.text()))
        elif s.finished and self.running:
            self.set_running(False)
            self.status_state.setText(f"finished at t = {s.time:.3f} s")

    def step_frame(self) -> None:
        """Advance one display frame of simulated time (20 ms) and redraw."""
        self.set_running(False)
        self.session.step(max(1, int(round(0.02 / self.session.dt))))
        self.update_views()

    def reset(self) -> None:
        self.set_running(False)
        self.session.reset()
        self.gains.sync()
        self.update_views()

    def update_views(self, tick: int | None = None, now: float | None = None) -> None:
        """Redraw the figure at ``tick`` (None: the newest sample, and then also the scopes,
        timeline and tooltips). While running, the scopes refresh round-robin
        (:meth:`ScopeStack.refresh_live`) and the timeline and status bar every ``STATUS_S``;
        ``now`` is the frame's ``time.perf_counter()``."""
        s = self.session
        now = time.perf_counter() if now is None else now
        n = s.runner.recorder.length
        follow = tick is None
        k = n - 1 if tick is None else min(max(tick, 0), n - 1)
        if k >= 0:
            self._draw_figure(k)
        if follow:
            if self.running:
                self.scopes.refresh_live(now)
            else:
                self.scopes.refresh(full=True)
            if self.frames % 15 == 0:
                self.canvas.refresh_tooltips()
        if not self.running or now - self._status_at >= STATUS_S:
            self._status_at = now
            self._update_status(follow)

    def _update_status(self, follow: bool = True) -> None:
        """Timeline range (when following the run) and the status-bar texts."""
        s = self.session
        if follow:
            self.timeline.set_end(s.time - s.runner.t0, True)
        self.status_time.setText(f"sim t = {s.time:.3f} s")
        state = "FAILED" if s.failed else ("running" if self.running else ("finished" if s.finished else "paused"))
        self.status_state.setText(f"{state} · dataset {s.dataset} · preset {s.preset}")

    def _draw_figure(self, k: int) -> None:
        s = self.session
        qn = s.find("FiveLinkDynamics", "q")
        if qn is None:
            return
        names = [s.find("GrfSource", "F"), s.find("PhaseDetector", "stance"), s.find("PhaseDetector", "phase")]
        grf, st, ph = (s.recorded(n)[k] if n else None for n in names)
        com = s.find("BipedKinematics", "com")
        trail = s.recorded(com)[max(0, k - int(2.0 / s.dt)): k + 1: 20] if com else None
        self.figure.show_state(float(s.runner.t0 + k * s.dt), s.recorded(qn)[k], grf, st,
                               None if ph is None else int(ph), trail)

    def _count_frame(self, now: float) -> None:
        self.frames += 1
        self._fps_frames = [t for t in self._fps_frames if now - t < 1.0] + [now]
        t0, sim0 = self._rtf
        if now - t0 >= 0.5:
            self.status_fps.setText(f"{self.fps():.0f} frames/s")
            rtf = (self.session.time - sim0) / (now - t0)
            self.status_rtf.setText(f"real-time factor {rtf:.2f}×")
            self._rtf = (now, self.session.time)

    def fps(self) -> float:
        f = self._fps_frames
        return (len(f) - 1) / (f[-1] - f[0]) if len(f) > 1 and f[-1] > f[0] else 0.0

    # ----------------------------------------------------------------- timeline and panels
    def scrub(self, t: float) -> None:
        """Show the recorded state at time ``t`` without changing the run (Run resumes from ``t``)."""
        if self.running:
            self.set_running(False)
        s = self.session
        k = int(round(t / s.dt))
        self.update_views(tick=k)
        self.scopes.set_cursor(s.runner.t0 + k * s.dt)

    def _cursor_moved(self, t: float) -> None:
        self.update_views(tick=int(round((t - self.session.runner.t0) / self.session.dt)))

    def _scopes_full(self, full: bool) -> None:
        self.scopes.follow = not full
        self.scopes.refresh(full=full, stats=True)
        if full:
            self.scopes.scopes[0].plot.enableAutoRange(axis="x")

    def show_block(self, name: str) -> None:
        self.params.show_block(self.session, name)
        self.side.setCurrentWidget(self.params)

    def block_dialog(self, name: str) -> BlockDialog:
        dlg = BlockDialog(self.session, name, self)
        dlg.panel.rebuilt.connect(self.bind_session)
        dlg.panel.changed.connect(lambda ref, v: self.gains.sync())
        dlg.open()
        return dlg

    # ----------------------------------------------------------------- export and drops
    def _ask_export(self, kind: str) -> None:
        filters = {"csv": "CSV (*.csv)", "png": "PNG image (*.png)", "mp4": "MP4 video (*.mp4)", "gif": "GIF (*.gif)"}
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export", f"gaitblocks.{kind}", filters[kind])
        if path:
            self.export(kind, path)

    def export(self, kind: str, path: str | Path) -> Path | None:
        """Export ``kind`` (csv, png, mp4, gif) to ``path``; animations show a cancellable progress dialog."""
        self.set_running(False)
        try:
            if kind == "csv":
                return export.export_csv(self.session, path)
            if kind == "png":
                return export.export_png(self.scopes, path)
            dlg = QtWidgets.QProgressDialog("Rendering animation…", "Cancel", 0, 100, self)
            dlg.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
            dlg.setMinimumDuration(300)

            def progress(i: int, n: int) -> None:
                dlg.setMaximum(n)
                dlg.setValue(i)
                QtWidgets.QApplication.processEvents()

            try:
                return export.export_animation(self.session, path, progress=progress, cancel=dlg.wasCanceled)
            finally:
                dlg.close()
        except UserError as exc:
            self.errors.report("Export failed", exc)
            return None

    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QtGui.QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.open_path(url.toLocalFile())
                break
        event.acceptProposedAction()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        self.timer.stop()
        self.compare.cancel()
        if self._unhook is not None:
            self._unhook()
        super().closeEvent(event)


def _json_format(path: Path) -> str:
    """The ``format`` field of a ``.json`` file ("" for other files); bad JSON raises ``DataFormatError``."""
    if path.suffix.lower() != ".json":
        return ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataFormatError(f"cannot read file: {exc.strerror}", path=path) from None
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno) from None
    return str(data.get("format", "")) if isinstance(data, dict) else ""


def _warn(parent: QtWidgets.QWidget, title: str, text: str) -> QtWidgets.QMessageBox:
    from app.gui.errors import show_error

    return show_error(parent, title, text, icon=QtWidgets.QMessageBox.Icon.Warning)
