"""File actions of the main window: open (dataset, diagram or session, judged by content),
save, recent files and export (CSV, PNG, MP4, GIF).

:class:`FileActions` is an object the window holds (``window.files``). It is given what it uses
explicitly: the session, the settings (recent files), the error reporter, the toolbar (dataset
list), the scopes (PNG export), the recent-files menu, a status label, the background compiler
(:mod:`app.gui.session.background_compile`: the toolbar's dataset and preset choices compile there; the
methods compile synchronously by default, for scripts and tests) and two callables of the
window's: ``pause`` (stop the run before changing anything) and ``view_state`` (saved in
session files). It tells the window what changed through two signals: ``changed`` (the session
was modified in place: redraw) and ``session_opened`` (a session file replaced the session).

Every action that can fail on the user's input reports the error in a dialog (a bad file is
named with its line and column) and leaves the session as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtWidgets

from app.gui.figure import export
from app.gui.figure.export import DEFAULT_FPS, DEFAULT_VIDEO_SIZE
from app.gui.figure.video_options import ask_video_options
from app.gui.scopes.scopes import ScopeStack
from app.gui.session.background_compile import BackgroundCompile
from app.gui.session.controls import ControlBar
from app.gui.session.errors import ErrorReporter
from app.gui.session.export_job import ExportJob, announce, start_animation_export
from app.gui.session.session import Plan, SimSession
from app.gui.session.session_files import read_json
from models.errors import UserError

__all__ = ["DATA_FILTER", "FileActions"]

DATA_FILTER = "Gait data (*.csv *.mot *.trc *.c3d *.txt *.tsv);;Sessions (*.gbsession.json *.json);;All files (*)"


class FileActions(QtCore.QObject):
    """Open, save and export for the main window (module doc)."""

    changed = QtCore.Signal()                       # the session was changed in place
    session_opened = QtCore.Signal(object, dict)    # (new SimSession, its saved view state)

    def __init__(self, session: SimSession, *, settings: QtCore.QSettings, errors: ErrorReporter,
                 controls: ControlBar, scopes: ScopeStack, recent_menu: QtWidgets.QMenu,
                 status: QtWidgets.QLabel, pause: Callable[[], None],
                 view_state: Callable[[], dict[str, Any]], dialog_parent: QtWidgets.QWidget,
                 compiler: BackgroundCompile | None = None) -> None:
        super().__init__(dialog_parent)
        self.session = session
        self.session_path: Path | None = None
        self.settings = settings
        self.errors = errors
        self.controls = controls
        self.scopes = scopes
        self.recent_menu = recent_menu
        self.status = status
        self.announce: Callable[[str], object] = status.setText   # an export's result (the window: its status bar)
        self.export_job: ExportJob | None = None                  # the last export started in the background
        self.pause = pause
        self.view_state = view_state
        self._parent = dialog_parent
        self.compiler = compiler
        self._refresh_recent()

    def _replace(self, plan: Callable[[], Plan], title: str, background: bool = False,
                 on_fail: Callable[[], None] = lambda: None) -> bool:
        """Plan a recompile and compile it here (a user error is reported, the session left as it
        was), or, with ``background`` and a compiler, plan and compile it in its worker thread
        (returns True once submitted; the window redraws when it arrives, an error is reported then)."""
        self.pause()
        session = self.session
        if background and self.compiler is not None:
            def done(result: tuple[Plan, Any]) -> None:
                if self.session is session:   # not replaced by a session file meanwhile
                    session.adopt(*result)
                    self.changed.emit()

            def failed(exc: Exception) -> None:
                self.errors.report(title, exc)
                on_fail()

            self.compiler.submit(plan, f"{title.replace('Cannot ', '').capitalize()}: loading and compiling…",
                                 done, failed)
            return True
        try:
            session.apply(plan())
        except UserError as exc:
            self.errors.report(title, exc)
            on_fail()
            return False
        self.changed.emit()
        return True

    def open_dataset(self, spec: str, background: bool = False) -> bool:
        def reset_list() -> None:
            self.controls.show_session(self.session)

        ok = self._replace(lambda: self.session.plan_dataset(spec), "Cannot open dataset", background, reset_list)
        if ok and Path(spec).is_file():
            self._add_recent(spec)
        return ok

    def set_preset(self, name: str, background: bool = False) -> bool:
        def reset_list() -> None:
            self.controls.show_session(self.session)

        return self._replace(lambda: self.session.plan_preset(name), "Cannot apply preset", background, reset_list)

    def open_path(self, path: str | Path, background: bool = False) -> bool:
        """Open a session, diagram or dataset file (judged by content); errors leave all as it was.
        ``background``: diagrams and data files compile in the worker thread (what *Open*, recent
        files and drops do; a session file is read and compiled there too)."""
        path = Path(path)
        try:
            kind = _json_format(path)
        except UserError as exc:
            self.errors.report("Cannot open file", exc)
            return False
        if kind == "gaitblocks-session":
            return self._open_session(path, background)
        if kind == "gaitblocks-diagram":
            ok = self._replace(lambda: self.session.plan_diagram(path), "Cannot open diagram", background)
            if ok:
                self._add_recent(str(path))
            return ok
        return self.open_dataset(str(path), background)

    def _open_session(self, path: Path, background: bool) -> bool:
        """Read and compile a session file (:meth:`SimSession.load`: a new session, so the one on
        screen is untouched until it arrives), here or in the compiler's worker thread."""
        def opened(result: tuple[SimSession, dict[str, Any]]) -> None:
            self.pause()
            self.session_path = path
            self.session_opened.emit(*result)
            self._add_recent(str(path))

        def failed(exc: Exception) -> None:
            self.errors.report("Cannot open session", exc)

        if background and self.compiler is not None:
            self.pause()
            self.compiler.call(lambda: SimSession.load(path), f"Opening session {path.name}: loading and compiling…",
                               opened, failed)
            return True
        try:
            result = SimSession.load(path)
        except UserError as exc:
            failed(exc)
            return False
        opened(result)
        return True

    def ask_open(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self._parent, "Open", "", DATA_FILTER)
        if path:
            self.open_path(path, background=True)
        else:
            self.controls.show_session(self.session)

    def ask_open_diagram(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self._parent, "Open diagram", "", "Diagrams (*.json)")
        if path:
            self.open_path(path, background=True)

    def save_session(self, path: str | Path) -> None:
        self.session.save(path, self.view_state())
        self.session_path = Path(path)
        self._add_recent(str(path))
        self.status.setText(f"session saved to {path}")

    def save(self) -> None:
        if self.session_path is None:
            self.ask_save_session()
        else:
            self.save_session(self.session_path)

    def ask_save_session(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self._parent, "Save session", "session.gbsession.json",
                                                        "Sessions (*.gbsession.json)")
        if path:
            self.save_session(path)

    def ask_save_diagram(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self._parent, "Save diagram", "diagram.json",
                                                        "Diagrams (*.json)")
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
            self.recent_menu.addAction(str(p)).triggered.connect(lambda _=False, pp=str(p): self.open_path(pp, True))

    def ask_export(self, kind: str) -> None:
        """Ask for a file name, then :meth:`export` ``kind`` to it."""
        filters = {"csv": "CSV (*.csv)", "png": "PNG image (*.png)", "mp4": "MP4 video (*.mp4)", "gif": "GIF (*.gif)"}
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self._parent, "Export", f"gaitblocks.{kind}", filters[kind])
        if not path:
            return
        if kind in ("mp4", "gif"):
            options = ask_video_options(self._parent, kind)
            if options is not None:
                self.start_export(path, *options)
        else:
            self.export(kind, path)

    def export(self, kind: str, path: str | Path, size: tuple[int, int] = export.DEFAULT_VIDEO_SIZE,
               fps: float = export.DEFAULT_FPS) -> Path | None:
        """Export ``kind`` (csv, png, mp4, gif) to ``path``; animations (``size`` [px], ``fps``) show a
        cancellable progress dialog."""
        self.pause()
        try:
            if kind == "csv":
                return export.export_csv(self.session, path)
            if kind == "png":
                return export.export_png(self.scopes, path)
            dlg = QtWidgets.QProgressDialog("Rendering animation…", "Cancel", 0, 100, self._parent)
            dlg.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
            dlg.setMinimumDuration(300)

            def progress(i: int, n: int) -> None:
                dlg.setMaximum(n)
                dlg.setValue(i)
                QtWidgets.QApplication.processEvents()

            try:
                return export.export_animation(self.session, path, fps=fps, size=size, progress=progress,
                                               cancel=dlg.wasCanceled)
            finally:
                dlg.close()
        except UserError as exc:
            self.errors.report("Export failed", exc)
            return None


    def start_export(self, path: str | Path, size: tuple[int, int] = DEFAULT_VIDEO_SIZE,
                     fps: float = DEFAULT_FPS) -> ExportJob | None:
        """Export the animation (MP4 or GIF by the suffix of ``path``) without blocking the window:
        frames drawn a turn each, encoded in a worker, a Cancel dialog meanwhile, the result in
        the status bar (:mod:`app.gui.session.export_job`); the job, or None if it could not start."""
        self.pause()
        try:
            job = start_animation_export(self.session, path, fps, size, self._parent)
        except UserError as exc:
            self.errors.report("Export failed", exc)
            return None
        self.export_job = announce(job, self.announce, self.errors.report)
        return job

def _json_format(path: Path) -> str:
    """The ``format`` field of a ``.json`` file ("" for other files); bad JSON raises ``DataFormatError``."""
    if path.suffix.lower() != ".json":
        return ""
    data = read_json(path)
    return str(data.get("format", "")) if isinstance(data, dict) else ""
