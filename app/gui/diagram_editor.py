"""The diagram editor's state: the working diagram, the undo stack and the last compile error.

The canvas draws :attr:`DiagramEditor.diagram`, the diagram being edited. After every
structural edit the editor hands a copy to the session (:meth:`SimSession.apply_diagram`):

* it compiles: the run restarts on it and :attr:`DiagramEditor.compiled` is emitted (the main
  window redraws its views);
* it does not (a missing input, an algebraic loop, a size mismatch): the session keeps running
  the last diagram that compiled, :attr:`error` holds the message and :attr:`error_sites` the
  blocks and ports it names, and :attr:`failed` is emitted (the canvas outlines them in red).

A refused edit (a second wire into one input, a port that does not exist) changes nothing and
emits :attr:`message`. Moves change only the UI fields (``ui.blocks``: scene px) and never recompile.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui

from app.gui.edit_commands import AddBlock, AddWire, DeleteItems, MoveBlocks
from app.gui.edit_model import error_sites, unique_name
from app.gui.session import SimSession
from blocks import Diagram
from models.errors import UserError

__all__ = ["DiagramEditor"]


class DiagramEditor(QtCore.QObject):
    """Edits of one session's diagram, each one undoable (``undo_stack``)."""

    compiled = QtCore.Signal()          # the session now runs the edited diagram
    failed = QtCore.Signal(str)         # the edited diagram does not compile (message)
    redraw = QtCore.Signal()            # the working diagram changed (blocks, wires)
    moved = QtCore.Signal()             # positions changed only
    message = QtCore.Signal(str)        # a refused edit, for the status bar

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.undo_stack = QtGui.QUndoStack(self)
        self.session: SimSession | None = None
        self.diagram = Diagram()
        self.error: str | None = None
        self.error_sites: dict[str, set[str]] = {}

    def bind(self, session: SimSession) -> bool:
        """Edit ``session``'s diagram. A new session (or a diagram replaced by a file) clears the undo
        history; returns True then."""
        fresh = session is not self.session or not self._same_structure(session.diagram)
        if fresh:
            self.undo_stack.clear()
        self.session = session
        self.diagram = session.diagram.copy()
        self.error, self.error_sites = None, {}
        return fresh

    def _same_structure(self, d: Diagram) -> bool:
        return list(d.blocks) == list(self.diagram.blocks) and d.connections == self.diagram.connections

    # ----------------------------------------------------------- edits
    def add_block(self, type_name: str, x: float, y: float) -> str:
        """Add a block of ``type_name`` at scene ``(x, y)`` [px] with a unique name; returns the name."""
        name = unique_name(self.diagram, type_name)
        self.undo_stack.push(AddBlock(self, name, type_name, x, y))
        return name

    def delete(self, blocks: list[str], wires: list[tuple[str, str]]) -> None:
        """Delete ``blocks`` (and every wire touching them) and ``wires``."""
        if blocks or wires:
            self.undo_stack.push(DeleteItems(self, blocks, wires))

    def wire(self, src: str, dst: str) -> bool:
        """Wire output ``src`` to input ``dst``. Refused (fan-in, unknown port): message, nothing changes."""
        trial = self.diagram.copy()
        try:
            trial.connect(src, dst)
        except UserError as exc:
            self.message.emit(f"Connection refused: {exc}")
            return False
        self.undo_stack.push(AddWire(self, src, dst))
        return True

    def move(self, before: dict[str, tuple[float, float]], after: dict[str, tuple[float, float]]) -> None:
        """Record a move already shown on the canvas (undoable)."""
        if before != after:
            self.undo_stack.push(MoveBlocks(self, before, after))

    def set_position(self, name: str, x: float, y: float) -> None:
        """Block position [scene px], in the working diagram and the session's (saved with either)."""
        self.diagram.set_position(name, x, y)
        if self.session is not None and name in self.session.diagram.blocks:
            self.session.set_block_position(name, x, y)

    def working(self) -> Diagram:
        """The diagram the next edit changes: while the last edit compiled, the session's own (so
        parameters set since, from the panels or by rewinding, are kept), else the failed edit."""
        if self.error is None and self.session is not None:
            self.diagram = self.session.diagram.copy()
        return self.diagram

    # ----------------------------------------------------------- compile
    def changed(self) -> None:
        """Called by the commands after a structural edit: redraw, then try the session on it."""
        s = self.session
        if s is None:
            return
        try:
            s.apply_diagram(self.diagram)
        except UserError as exc:
            self.error = str(exc)
            self.error_sites = error_sites(self.error, self.diagram)
            self.redraw.emit()
            self.failed.emit(f"Not compiled: {self.error} (the previous diagram keeps running)")
            return
        self.error, self.error_sites = None, {}
        self.diagram = s.diagram.copy()
        self.redraw.emit()
        self.compiled.emit()
