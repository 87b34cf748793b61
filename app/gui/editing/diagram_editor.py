"""The diagram editor's state: the working diagram, the undo stack and the last compile error.

The canvas draws :attr:`DiagramEditor.diagram`, the diagram being edited. After every
structural edit the editor hands a copy to the session (:meth:`SimSession.apply_diagram`):

(the window has it compiled in its background worker: :attr:`DiagramEditor.background`)

* it compiles: the run restarts on it and :attr:`DiagramEditor.compiled` is emitted (the main
  window redraws its views);
* it does not (a missing input, an algebraic loop, a width mismatch): the session keeps running
  the last diagram that compiled, :attr:`error` holds the message and :attr:`error_sites` the
  blocks and ports it names, and :attr:`failed` is emitted (the canvas outlines them in red).

A refused edit (a second wire into one input, a port that does not exist) changes nothing and
emits :attr:`message`. Moves, grouping into virtual subsystems (:mod:`blocks.subsystems`) and
auto-layout change only the UI fields (``ui.blocks``, ``ui.subsystems``: scene px) and never
recompile. :attr:`level` is the subsystem open on the canvas (``None``: the top level).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from PySide6 import QtCore, QtGui

from app.gui.editing.auto_layout import auto_layout
from app.gui.editing.edit_commands import AddBlock, AddWire, DeleteItems, MoveBlocks, PasteBlocks, SetSubsystems
from app.gui.editing.edit_model import error_sites, unique_name
from app.gui.editing.fragment import apply_paste, plan_paste
from app.gui.session.session import Plan, SimSession
from blocks import Diagram
from blocks.subsystems import SUBSYSTEMS, find, group, subsystems, ungroup
from blocks.subsystems import check as check_subsystems
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
        self.level: str | None = None     # the subsystem open on the canvas (None: the top level)
        # set by the window: compiles an edit's plan off the GUI thread, ``background(plan, on_done,
        # on_error)`` (app.gui.session.background_compile); None: compile here
        self.background: Callable[[Plan, Callable[[Any], None], Callable[[Exception], None]], None] | None = None
        self.pending = False              # an edit is being compiled in the background
        self._copied_from: Diagram | None = None   # the session diagram ``diagram`` copies, unedited since

    def bind(self, session: SimSession) -> bool:
        """Edit ``session``'s diagram. A new session (or a diagram replaced by a file) clears the undo
        history; returns True then."""
        fresh = session is not self.session or not self._same_structure(session.diagram)
        if fresh:
            self.undo_stack.clear()
        if fresh or session.diagram is not self._copied_from:   # just copied after its compile: not again
            self.diagram = session.diagram.copy()
            self._copied_from = session.diagram
        self.session = session
        self.error, self.error_sites = None, {}
        if fresh or (self.level is not None and find(self.diagram, self.level) is None):
            self.level = None
        return fresh

    def _same_structure(self, d: Diagram) -> bool:
        return list(d.blocks) == list(self.diagram.blocks) and d.connections == self.diagram.connections

    # ----------------------------------------------------------- edits
    def add_block(self, type_name: str, x: float, y: float) -> str:
        """Add a block of ``type_name`` at scene ``(x, y)`` [px] with a unique name; returns the name."""
        name = unique_name(self.diagram, type_name)
        self.undo_stack.push(AddBlock(self, name, type_name, x, y))
        return name

    def paste(self, fragment: dict[str, Any], text: str = "paste") -> list[str]:
        """Paste a fragment (:mod:`app.gui.editing.fragment`) at the level shown as one undoable step;
        returns the pasted nodes drawn there. Refused (an unknown block type, a bad parameter): message, ``[]``."""
        try:
            pasted = plan_paste(self.diagram, fragment, self.level)
            apply_paste(self.diagram.copy(), pasted)          # a trial: raises before anything changes
        except (UserError, KeyError, TypeError, ValueError) as exc:
            self.message.emit(f"Cannot {text}: {exc}")
            return []
        if not pasted.blocks:
            return []
        self.undo_stack.push(PasteBlocks(self, pasted, text))
        return pasted.shown

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
        """Block or subsystem position [scene px], in the working diagram and the session's (saved with either)."""
        for d in (self.diagram, self.session.diagram if self.session is not None else None):
            sub = find(d, name) if d is not None else None
            if sub is not None:
                sub["x"], sub["y"] = float(x), float(y)
            elif d is self.diagram:
                d.set_position(name, x, y)
            elif d is not None and name in d.blocks:
                d.set_position(name, x, y)

    # ----------------------------------------------------------- subsystems (UI fields only)
    def open(self, level: str | None) -> None:
        """Show subsystem ``level``'s inside on the canvas (``None``: the top level)."""
        if level is not None and find(self.diagram, level) is None:
            raise KeyError(level)
        self.level = level
        self.redraw.emit()

    def group(self, blocks: list[str]) -> str | None:
        """Group ``blocks`` into a new subsystem ``subsystemN`` where the top-left one stood; undoable.
        Refused (message, ``None``) inside a subsystem, or with no block selected."""
        if self.level is not None:
            self.message.emit("Subsystems do not nest: go back to the whole diagram to group blocks")
            return None
        if not blocks:
            self.message.emit("Select the blocks to group first")
            return None
        trial = self.diagram.copy()
        name = unique_name(trial, "subsystem")
        ui = trial.ui.get("blocks", {})
        xs = [(float(ui[b]["x"]), float(ui[b]["y"])) for b in blocks if b in ui] or [(0.0, 0.0)]
        try:
            group(trial, name, blocks, min(x for x, _ in xs), min(y for _, y in xs))
        except UserError as exc:
            self.message.emit(f"Cannot group: {exc}")
            return None
        self.undo_stack.push(SetSubsystems(self, f"group {', '.join(blocks)} into '{name}'",
                                           copy.deepcopy(subsystems(self.diagram)), subsystems(trial)))
        return name

    def ungroup(self, name: str) -> None:
        """Dissolve subsystem ``name`` (its blocks stay where they are drawn inside it); undoable."""
        trial = self.diagram.copy()
        ungroup(trial, name)
        self.undo_stack.push(SetSubsystems(self, f"ungroup '{name}'", copy.deepcopy(subsystems(self.diagram)),
                                           subsystems(trial)))

    def rename(self, old: str, new: str) -> bool:
        """Rename subsystem ``old`` to ``new`` (an identifier naming no block or other subsystem); undoable."""
        trial = self.diagram.copy()
        sub = find(trial, old)
        if sub is None:
            return False
        sub["name"] = new
        try:
            check_subsystems(trial)
        except UserError as exc:
            self.message.emit(f"Cannot rename: {exc}")
            return False
        self.undo_stack.push(SetSubsystems(self, f"rename '{old}' to '{new}'", copy.deepcopy(subsystems(self.diagram)),
                                           subsystems(trial), {old: new}))
        return True

    def set_subsystems(self, subs: list[dict[str, Any]], renamed: dict[str, str] | None = None) -> None:
        """The subsystem list of the working diagram and the session's (no recompile); ``renamed``
        ``{old: new}`` keeps a renamed subsystem open."""
        for d in (self.diagram, self.session.diagram if self.session is not None else None):
            if d is None:
                continue
            if subs:
                d.ui[SUBSYSTEMS] = copy.deepcopy(subs)
            else:
                d.ui.pop(SUBSYSTEMS, None)
        if self.level is not None and renamed:
            self.level = renamed.get(self.level, self.level)
        if self.level is not None and find(self.diagram, self.level) is None:
            self.level = None
        self.redraw.emit()

    def auto_layout(self) -> None:
        """Lay out the level shown left to right by signal flow; undoable.

        The layout is :func:`app.gui.editing.auto_layout.auto_layout`.
        """
        after = auto_layout(self.diagram, self.level)
        ui = self.diagram.ui.get("blocks", {})
        before: dict[str, tuple[float, float]] = {}
        for name in after:
            sub = find(self.diagram, name)
            at = sub if sub is not None else ui.get(name)
            before[name] = (float(at["x"]), float(at["y"])) if at is not None and "x" in at else after[name]
        self.move(before, after)

    def current(self) -> Diagram:
        """The diagram as edited, to read (not to change): the session's while the last edit compiled
        (so parameters set since, from the panels, are in it), else the working one."""
        if self.error is None and not self.pending and self.session is not None:
            return self.session.diagram
        return self.diagram

    def working(self) -> Diagram:
        """The diagram the next edit changes: while the last edit compiled, the session's own (so
        parameters set since, from the panels or by rewinding, are kept), else the failed edit."""
        if self.error is None and not self.pending and self.session is not None:
            self.diagram = self.session.diagram.copy()
        self._copied_from = None          # the caller changes it: no longer the session's
        return self.diagram

    # ----------------------------------------------------------- compile
    def changed(self) -> None:
        """Called by the commands after a structural edit: redraw, then try the session on it, here
        or, with :attr:`background` set (the window), in the background compiler's worker thread
        (a new structure's first compile takes 10-25 s); :attr:`pending` until it arrives."""
        s = self.session
        if s is None:
            return
        if self.background is not None:
            plan = s.plan_edit(self.diagram)
            self.pending = True
            self.redraw.emit()

            def done(built: Any) -> None:
                self.pending = False
                if self.session is s:
                    s.adopt(plan, built)
                    self._compiled()

            def failed(exc: Exception) -> None:
                self.pending = False
                if not isinstance(exc, UserError):
                    raise exc
                if self.session is s:
                    self._failed(exc)

            self.background(plan, done, failed)
            return
        try:
            s.apply_diagram(self.diagram)
        except UserError as exc:
            self._failed(exc)
            return
        self._compiled()

    def _failed(self, exc: UserError) -> None:
        self.error = str(exc)
        self.error_sites = error_sites(self.error, self.diagram)
        self.redraw.emit()
        self.failed.emit(f"Not compiled: {self.error} (the previous diagram keeps running)")

    def _compiled(self) -> None:
        assert self.session is not None
        self.error, self.error_sites = None, {}
        self.diagram = self.session.diagram.copy()
        self._copied_from = self.session.diagram
        self.redraw.emit()
        self.compiled.emit()
