"""The main window: diagram canvas, stick figure, gains and block parameters, scopes, compare view.

Layout (1600 x 1000, or what the screen's available geometry holds: :mod:`app.gui.fit_screen`)::

    [ toolbar: dataset | preset | Run/Pause Step Reset | speed                          ]
    [ diagram canvas                                   | Scopes / Compare tabs         ]
    [ stick figure              | Gains / Block / Model |                              ]
    [ timeline                                                                         ]
    [ status: state | busy (compiling…) | sim time | real-time factor | frames per second ]

Changing the dataset or the preset from the toolbar, opening a file and a structural parameter
compile in a worker thread (:mod:`app.gui.session.background_compile`); the previous session stays on
screen until it is done, and a first-ever compile of the diagram's step says so in the busy
indicator. ``gaitblocks gui`` shows the window before such a compile (:mod:`app.gui.session.startup`).

The window assembles the widgets and signal wiring (its menu bar: :mod:`app.gui.window_menus`), and
binds them to the session after every compile (:meth:`MainWindow.bind_session`). It holds two objects
that it composes from those widgets: ``run_control``
(:class:`~app.gui.session.run_control.RunController`: running, the frame timer, the timeline) and
``files`` (:class:`~app.gui.session.file_actions.FileActions`: opening, saving, exporting). Each is
given the widgets it drives; the window alone replaces the session (:meth:`MainWindow.set_session`) and
owns the layout state saved in session files (:meth:`MainWindow.view_state`,
:meth:`MainWindow.apply_view`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.editing.canvas import DiagramCanvas
from app.gui.editing.diagram_pane import DiagramPane
from app.gui.editing.gain_panel import GainPanel
from app.gui.editing.model_tree import ModelTree
from app.gui.editing.param_edit import ParamSetter
from app.gui.editing.param_panel import BlockDialog, ParamPanel
from app.gui.figure.stick_figure import StickFigure
from app.gui.fit_screen import ElidedLabel, fit_geometry
from app.gui.lazy_tabs import LazyTabs
from app.gui.runs.compare_view import CompareView
from app.gui.runs.run_inspector import RunInspector
from app.gui.runs.tuning_panel import TuningPanel
from app.gui.scopes.scope_panel import ScopePanel
from app.gui.scopes.scopes import ScopeStack
from app.gui.session.background_compile import BackgroundCompile, BusyIndicator
from app.gui.session.controls import SPEEDS, ControlBar, Timeline
from app.gui.session.errors import ErrorReporter, install
from app.gui.session.file_actions import FileActions
from app.gui.session.gui_gc import gui_thread_gc
from app.gui.session.run_control import RunController, RunViews
from app.gui.session.session import Plan, SimSession
from app.gui.solve.solve_flow import SolveFlow, solution_plan
from app.gui.solve.validity_panel import ValidityPanel
from app.gui.window_menus import build_menus

__all__ = ["MainWindow", "STYLE_FILE"]

STYLE_FILE = Path(__file__).resolve().parents[2] / "assets" / "styles" / "gaitblocks.qss"
ICON_FILE = Path(__file__).resolve().parents[2] / "assets" / "icons" / "gaitblocks.svg"


class MainWindow(QtWidgets.QMainWindow):
    """gaitblocks desktop window over one :class:`SimSession`."""

    stop_at_fall: QtGui.QAction     # Simulation > Stop at fall, and View > Signal widths (:mod:`app.gui.window_menus`)
    signal_widths: QtGui.QAction

    def __init__(self, session: SimSession | None = None, settings: QtCore.QSettings | None = None,
                 hook_exceptions: bool = True) -> None:
        super().__init__()
        self.settings = settings or QtCore.QSettings("gaitblocks", "gaitblocks")
        self.session = session or SimSession()
        self.errors = ErrorReporter(self)
        self._unhook = install(self.errors) if hook_exceptions else None
        self._release_gc = gui_thread_gc()  # no cyclic collection on a worker thread (a Qt deadlock)
        self.setWindowTitle("gaitblocks — GRF-driven five-link biped")
        if ICON_FILE.is_file():
            self.setWindowIcon(QtGui.QIcon(str(ICON_FILE)))
        if STYLE_FILE.is_file():
            self.setStyleSheet(STYLE_FILE.read_text(encoding="utf-8"))
        self.setAcceptDrops(True)
        self._build_widgets()
        fit_geometry(self)
        self.run_control = RunController(self.session, RunViews(
            controls=self.controls, timeline=self.timeline, canvas=self.canvas, figure=self.figure,
            gains=self.gains, scopes=self.scopes, validity=self.validity, status_time=self.status_time,
            status_rtf=self.status_rtf, status_fps=self.status_fps, status_state=self.status_state),
            self.errors, self)
        self.files = FileActions(
            self.session, settings=self.settings, errors=self.errors, controls=self.controls,
            scopes=self.scopes, recent_menu=QtWidgets.QMenu("Recent files", self), status=self.status_state,
            pause=lambda: self.run_control.set_running(False), view_state=self.view_state, dialog_parent=self,
            compiler=self.compiler)
        self.scope_panel.announce = self.files.announce = lambda text: self.statusBar().showMessage(text, 20000)
        self.solve = SolveFlow(
            self, spec=lambda: self.session.spec, figure=self.figure, validity=self.validity,
            status=lambda text: self.statusBar().showMessage(text, 20000), report=self.errors.report,
            before_play=lambda: self.run_control.set_running(False), run_on=self._run_on_solution)
        self.controls.addSeparator()
        self.controls.addAction(self.solve.control.action)
        self.statusBar().addPermanentWidget(self.solve.control.progress)
        self.lazy_tabs.add("Solved gait", lambda: self.solve.view)
        self.solve.shown.connect(lambda _folder: self.lazy_tabs.page("Solved gait"))   # a solution shown: in its tab
        self._connect()
        build_menus(self)
        self.bind_session()

    # ----------------------------------------------------------------- layout
    def _build_widgets(self) -> None:
        self.controls = ControlBar(self)
        self.addToolBar(self.controls)
        self.canvas = DiagramCanvas()
        self.diagram_pane = DiagramPane(self.canvas)
        self.figure = StickFigure()
        self.param_setter = ParamSetter(self)      # the panels', the dialogs' and the tree's edits (undoable)
        self.gains = GainPanel(self.settings, setter=self.param_setter)
        self.params = ParamPanel(setter=self.param_setter)
        self.tree = ModelTree(self.param_setter)
        self.tree.bind(self.canvas)
        self.side = QtWidgets.QTabWidget()
        self.side.addTab(self.gains, "Gains")
        self.side.addTab(self.params, "Block parameters")
        self.side.addTab(self.tree, "Model")
        self.validity = ValidityPanel()
        self.side.addTab(self.validity, "Validity")
        self.scopes = ScopeStack()
        self.scope_panel = ScopePanel(self.scopes)
        self.inspector = RunInspector(self.scopes)
        self.scope_panel.kept_runs = lambda: list(self.inspector.store.runs)
        self.side.addTab(self.inspector, "Runs")
        self.tabs = QtWidgets.QTabWidget()
        self.tabs.addTab(self.scope_panel, "Scopes")
        self.lazy_tabs = LazyTabs(self.tabs)      # pages made when first shown (or asked for: compare, tuning)
        self.lazy_tabs.add("Compare", self._make_compare)
        self.lazy_tabs.add("Tuning", self._make_tuning)
        bottom = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        bottom.addWidget(self.figure)
        bottom.addWidget(self.side)
        bottom.setSizes([560, 440])
        left = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        left.addWidget(self.diagram_pane)
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
        self.status_state = ElidedLabel()     # a long FELL line elides ("…"), never squeezing the rest
        for w in (self.status_time, self.status_rtf, self.status_fps):
            w.setMinimumWidth(170)
            self.statusBar().addPermanentWidget(w)
        self.statusBar().addWidget(self.status_state, 1)
        c = self.controls
        self.busy = BusyIndicator([c, self.gains, self.params, self.tree, self.canvas],
                                  [c.run_action, c.step_action, c.reset_action])
        self.figure.plot.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)   # a click gives it the keys
        c.bind_keys(self.canvas, self.figure.plot)
        self.statusBar().addPermanentWidget(self.busy)
        self.compiler = BackgroundCompile(self.busy, self)

    def _connect(self) -> None:
        c, run, files = self.controls, self.run_control, self.files
        c.run_action.toggled.connect(run.set_running)
        c.run_action.toggled.connect(lambda on: self.solve.player.stop() if on else None)
        self.timeline.scrubbed.connect(lambda _t: self.solve.player.stop())   # the run's figure back
        run.run_changed.connect(self._run_changed)
        c.step_action.triggered.connect(run.step_frame)
        c.reset_action.triggered.connect(run.reset)
        c.dataset_chosen.connect(lambda spec: files.open_dataset(spec, background=True))
        c.open_requested.connect(files.ask_open)
        c.preset_chosen.connect(lambda name: files.set_preset(name, background=True))
        files.changed.connect(self.bind_session)
        files.session_opened.connect(self._session_opened)
        self.timeline.scrubbed.connect(run.scrub)
        self.scopes.cursor_moved.connect(run.follow_cursor)
        self.canvas.block_clicked.connect(self.show_block)
        self.canvas.block_activated.connect(self.block_dialog)
        editor = self.canvas.editor
        editor.compiled.connect(self.bind_session)
        editor.compiled.connect(self._edit_compiled)
        editor.failed.connect(lambda text: self.statusBar().showMessage(text, 20000))
        editor.message.connect(lambda text: self.statusBar().showMessage(text, 10000))
        setter = self.param_setter
        setter.rebuilt.connect(self.bind_session)
        setter.background, setter.undo_stack = self._compile_param, editor.undo_stack
        setter.refused.connect(lambda text: self.statusBar().showMessage(text, 10000))
        editor.background = self._compile_edit
        run.background = self._compile_reset
        setter.changed.connect(lambda ref, v: self.gains.sync())
        self.tree.block_chosen.connect(lambda name: self.params.show_block(self.session, name))
        # a first-ever compile outside the worker (Compare, Tuning): say so in the status bar
        self.compiler.noticed.connect(lambda text: None if self.compiler.busy else
                                      self.statusBar().showMessage(text, 30000))

    @property
    def compare(self) -> CompareView:
        """The Compare tab's view (made on first use: :mod:`app.gui.lazy_tabs`)."""
        return cast(CompareView, self.lazy_tabs.page("Compare"))

    @property
    def tuning(self) -> TuningPanel:
        """The Tuning tab's panel (made on first use, bound to the session)."""
        return cast(TuningPanel, self.lazy_tabs.page("Tuning"))

    def _make_compare(self) -> CompareView:
        view = CompareView(spec_source=lambda: self.session.spec)
        view.error.connect(lambda exc: self.errors.report("Comparison failed", exc))
        return view

    def _make_tuning(self) -> TuningPanel:
        panel = TuningPanel(lambda: self.session)
        panel.setter = self.param_setter
        panel.applied.connect(lambda values: self.gains.sync())
        panel.bind()
        return panel

    def import_recording(self) -> None:
        from app.gui.session.import_dialog import open_import_dialog

        self._import_dialog = open_import_dialog(self)

    # ----------------------------------------------------------------- session
    def set_session(self, session: SimSession) -> None:
        """Replace the session everywhere it is held, then redraw."""
        self.run_control.set_running(False)
        session.stop_at_fall = self.stop_at_fall.isChecked()   # the window's choice, not the file's
        self.session = self.run_control.session = self.files.session = session
        self.bind_session()

    def _compile_param(self, plan: Plan, ref: str) -> None:
        """A structural parameter change, compiled in the background (the run restarts)."""
        self.run_control.set_running(False)
        session = self.session

        def done(built: Any) -> None:
            if self.session is session:
                session.adopt(plan, built)
                self.bind_session()

        def failed(exc: Exception) -> None:
            self.errors.report(f"Cannot set {ref}", exc)
            if self.params.block in session.diagram.blocks:
                self.params.show_block(session, self.params.block)   # back to the values in force

        self.compiler.submit(plan, f"{ref}: compiling…", done, failed)

    def _compile_edit(self, plan: Plan, done: Any, failed: Any) -> None:
        """A structural diagram edit, compiled in the background (the run restarts on it)."""
        self.run_control.set_running(False)
        self.compiler.submit(plan, "Diagram edited: compiling…", done, failed)

    def _compile_reset(self, plan: Plan, done: Any) -> None:
        """Reset (a recompile of the same run), in the background."""
        def failed(exc: Exception) -> None:
            self.errors.report("Cannot reset", exc)

        self.compiler.submit(plan, "Reset: compiling…", done, failed)

    def _run_on_solution(self, folder: str) -> None:
        """The diagram runs on the solution in ``folder`` (``RunSpec.solution``), recompiled in the background."""
        self._compile_param(solution_plan(self.session, folder), "the solved gait")

    def _session_opened(self, session: SimSession, view: dict[str, Any]) -> None:
        self.set_session(session)
        self.apply_view(view)

    def view_state(self) -> dict[str, Any]:
        """The layout saved in session files: speed, scope window [s], tabs, selected block, splitter,
        scopes (:meth:`ScopePanel.layout_state`), the posture solution shown (its folder, or None) and
        whether the diagram shows signal widths."""
        return {"speed": self.controls.speed.currentText(), "window_s": self.scopes.window_s,
                "tab": self.tabs.currentIndex(), "side_tab": self.side.currentIndex(),
                "selected_block": self.params.block, "splitter": self.main_split.sizes(),
                "scopes": self.scope_panel.layout_state(), "solution": self.solve.folder,
                "signal_widths": self.canvas.show_widths}

    def apply_view(self, view: dict[str, Any]) -> None:
        """Restore a :meth:`view_state` (unknown or missing entries keep the current layout)."""
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
        self.scope_panel.apply_layout(view.get("scopes"))
        if isinstance(view.get("signal_widths"), bool):
            self.signal_widths.setChecked(view["signal_widths"])
        if isinstance(view.get("solution"), str):
            self.solve.open(view["solution"])
            self.tabs.setCurrentIndex(int(view.get("tab", 0)))

    def bind_session(self) -> None:
        """(Re)draw everything for the current session (after a compile, never per frame)."""
        s = self.session
        self.solve.player.stop()
        self.controls.show_session(s)
        self.canvas.bind(s)
        self.figure.set_model(s.biped_params())
        self.inspector.track(s)      # keeps the run a compile replaced, with the scopes it showed
        self.scopes.rebind(s)        # reused plots redrawn one per turn (scope_redraw), built ones now
        self.gains.bind(s)
        self.tree.sync()
        if self.lazy_tabs.made("Tuning"):
            self.tuning.bind()
        if self.params.block in s.diagram.blocks:
            self.params.show_block(s, self.params.block)
        elif self.params.block:
            self.params.clear()
        self.timeline.set_end(0.0, True)
        self.stop_at_fall.setChecked(s.stop_at_fall)
        self.run_control.update_views(scopes=False)     # the rebind pushed the scopes' data itself

    def set_stop_at_fall(self, on: bool) -> None:
        """Stop at a fall, or simulate on past it (the current run too: Run goes on from where it stopped)."""
        self.session.stop_at_fall = on
        self.run_control.update_views()

    def _run_changed(self, why: str) -> None:
        """A run ended (keep it) or Reset replaced it (keep the old one, watch the new one)."""
        if why == "ended":
            self.inspector.keep(self.run_control.summary)     # evaluated just before: not summarised again
        else:
            self.inspector.track(self.session)

    # ----------------------------------------------------------------- panels
    def scopes_full(self, full: bool) -> None:
        self.scopes.follow = not full
        self.scopes.refresh(full=full, stats=True)
        if full:
            self.scopes.fit_x()

    def show_block(self, name: str) -> None:
        self.params.show_block(self.session, name)
        self.side.setCurrentWidget(self.params)

    def _edit_compiled(self) -> None:
        """An edit compiled: a "Not compiled: ..." message of an earlier edit no longer holds."""
        if self.statusBar().currentMessage().startswith("Not compiled"):
            self.statusBar().clearMessage()

    def block_dialog(self, name: str) -> BlockDialog | None:
        """The dialog of a compiled block; a block not compiled yet is named in the Block parameters tab."""
        if name not in self.session.diagram.blocks:
            self.show_block(name)
            return None
        dlg = BlockDialog(self.session, name, self, self.param_setter)
        dlg.open()
        return dlg

    # ----------------------------------------------------------------- drops and closing
    def dragEnterEvent(self, event: QtGui.QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QtGui.QDropEvent) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.files.open_path(url.toLocalFile(), background=True)
                break
        event.acceptProposedAction()

    def closeEvent(self, event: QtGui.QCloseEvent) -> None:
        self.run_control.timer.stop()
        if self.lazy_tabs.made("Compare"):   # every worker stops before the window can be deleted
            self.compare.shutdown()
        if self.lazy_tabs.made("Tuning"):
            self.tuning.shutdown()
        for job in (self.scope_panel.export_job, self.files.export_job):
            if job is not None:
                job.cancel()
        self.scope_panel.figure_helper.stop()
        self.solve.close()
        self.compiler.wait()
        self.compiler.detach()
        if self._unhook is not None:
            self._unhook()
        self._release_gc()
        super().closeEvent(event)
