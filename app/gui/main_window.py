"""The main window: diagram canvas, stick figure, gains and block parameters, scopes, compare view.

Layout (default 1600 x 1000)::

    [ toolbar: dataset | preset | Run/Pause Step Reset | speed                          ]
    [ diagram canvas                                   | Scopes / Compare tabs         ]
    [ stick figure              | Gains / Block tabs   |                               ]
    [ timeline                                                                         ]
    [ status: sim time | real-time factor | frames per second | state                  ]

The window assembles the widgets, menus and signal wiring, and binds them to the session
after every compile (:meth:`MainWindow.bind_session`). Its behaviour comes in two parts:
running, the frame timer and the timeline (:class:`~app.gui.run_control.RunControl`), and
opening, saving and exporting (:class:`~app.gui.file_actions.FileActions`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.canvas import DiagramCanvas
from app.gui.compare_view import CompareView
from app.gui.controls import ControlBar, Timeline
from app.gui.errors import ErrorReporter, install
from app.gui.file_actions import FileActions
from app.gui.gain_panel import GainPanel
from app.gui.param_panel import BlockDialog, ParamPanel
from app.gui.run_control import FRAME_MS, RunControl
from app.gui.scopes import ScopeStack
from app.gui.session import SimSession, available_datasets, available_presets
from app.gui.stick_figure import StickFigure
from app.gui.validity_panel import ValidityPanel

__all__ = ["MainWindow", "STYLE_FILE"]

STYLE_FILE = Path(__file__).resolve().parents[2] / "assets" / "styles" / "gaitblocks.qss"
ICON_FILE = Path(__file__).resolve().parents[2] / "assets" / "icons" / "gaitblocks.svg"


class MainWindow(RunControl, FileActions, QtWidgets.QMainWindow):
    """gaitblocks desktop window over one :class:`SimSession`."""

    def __init__(self, session: SimSession | None = None, settings: QtCore.QSettings | None = None,
                 hook_exceptions: bool = True) -> None:
        super().__init__()
        self.settings = settings or QtCore.QSettings("gaitblocks", "gaitblocks")
        self.session = session or SimSession()
        self.errors = ErrorReporter(self)
        self._unhook = install(self.errors) if hook_exceptions else None
        self.session_path: Path | None = None
        self._init_run_state()
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
        self.validity = ValidityPanel()
        self.side.addTab(self.validity, "Validity")
        self.scopes = ScopeStack()
        self.compare = CompareView(spec_source=lambda: self.session.spec)
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
        self._act(f, "&Import recording…", self._import_recording)
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

    def _import_recording(self) -> None:
        from app.gui.import_dialog import open_import_dialog

        self._import_dialog = open_import_dialog(self)

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

    # ----------------------------------------------------------------- panels
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

    # ----------------------------------------------------------------- drops and closing
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
