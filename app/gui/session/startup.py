"""Opening the window: ``gaitblocks gui`` shows it before a first-ever compile, never after.

The compiled engine (:mod:`blocks.compiled`) loads a diagram's step from its cache in about
0.1 s, but compiles it the first time it ever meets the diagram's structure (10-25 s). Building
the first session before the window exists would leave the user in front of nothing for that
long. :func:`open_window` therefore builds the first session with the Python engine (the
reference: the same run, about 0.1 s to build) when the compiled step is not cached yet
(:func:`needs_first_compile`), shows the window, and compiles the compiled engine in the window's
background worker (:mod:`app.gui.session.background_compile`): the busy indicator says "compiling the
diagram for the first time (about N s; cached afterwards)…" and Run is disabled until the
compiled session replaces the first one. When the step is cached the session is built
compiled at once, as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6 import QtCore

from app.defaults import DEFAULT_PRESET
from app.gui.main_window import MainWindow
from app.gui.session.session import DEFAULT_DIAGRAM, SimSession
from app.runs import RunSpec
from blocks import Diagram
from blocks.codegen import generate
from blocks.compile import CompiledModel
from blocks.compiled import choose_engine
from blocks.kernels import cache_dir

__all__ = ["compile_in_background", "needs_first_compile", "open_window"]


def needs_first_compile(model: CompiledModel) -> bool:
    """True when running ``model`` compiled would compile its step for the first time on this
    machine (it can run compiled and no ``step_<hash>.serial.ok`` marker is in the cache)."""
    if choose_engine(model, None) != "compiled":
        return False
    _, key = generate(model)
    return not (cache_dir() / f"step_{key}.serial.ok").exists()


def first_session(diagram: str | Path | None = None, dataset: str = "", preset: str = DEFAULT_PRESET,
                  t_end: float | None = None) -> tuple[SimSession, bool]:
    """The window's first session and whether its compiled engine is still to be compiled: built
    with the Python engine when the compiled step is not cached (module doc), else compiled."""
    source = Diagram.load(diagram or DEFAULT_DIAGRAM)
    duration = None if t_end is None else float(t_end) - source.solver.t_start
    spec = RunSpec(dataset=dataset, preset=preset, diagram=source, duration=duration, engine="python")
    session = SimSession(spec=spec)
    if not needs_first_compile(session.model):
        session.apply(session.plan_engine(None))
        return session, False
    return session, session.runner.engine == "python"


def compile_in_background(win: MainWindow) -> None:
    """Recompile the window's session with the compiled engine in its background worker."""
    session = win.session
    plan = session.plan_engine(None)

    def done(built: Any) -> None:
        if win.session is session:    # not replaced meanwhile (a file opened)
            running = win.run_control.running
            session.adopt(plan, built)
            win.bind_session()
            win.run_control.set_running(running)

    def failed(exc: Exception) -> None:   # the Python engine keeps running the session
        win.errors.report("Cannot compile the diagram (the Python engine runs it)", exc)

    win.compiler.submit(plan, "preparing the compiled engine…", done, failed)


def open_window(diagram: str | Path | None = None, dataset: str = "", preset: str = DEFAULT_PRESET,
                settings: QtCore.QSettings | None = None) -> MainWindow:
    """Build the first session, show the window, then compile in the background if needed (module doc)."""
    session, pending = first_session(diagram, dataset, preset)
    win = MainWindow(session, settings=settings)
    win.show()
    if pending:
        compile_in_background(win)
    return win
