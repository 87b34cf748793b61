"""Setting a block parameter as an undoable edit: the one way the Block parameters panel, a block's
dialog and the model-explorer tree set a value.

:meth:`ParamSetter.set` validates the value against its ``ParamSpec`` (a bad value changes nothing
and returns the message), then pushes a :class:`SetParam` onto the diagram editor's undo stack,
whose ``redo`` and ``undo`` apply the new and the old value through :meth:`ParamSetter.apply`:

* tunable: :meth:`SimSession.set_param` queues it for the next step (the run goes on);
* structural: with :attr:`ParamSetter.background` set (the window) the change's plan is compiled in
  the background compiler's worker, else here, and the run restarts (:attr:`ParamSetter.rebuilt`).

Changes of one parameter less than :data:`MERGE_S` apart (a slider drag, the spin box's arrows)
merge into one undo step. :attr:`ParamSetter.changed` tells every view (the panel, the tree, the
gains) the value in force after a set, an undo or a redo.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

from PySide6 import QtCore, QtGui

from app.gui.session.session import Plan, SimSession
from models.errors import UserError

__all__ = ["MERGE_S", "ParamSetter", "SetParam"]

MERGE_S = 1.0   # changes of one parameter closer than this merge into one undo step [s]


class SetParam(QtGui.QUndoCommand):
    """``ref`` (``"block.param"``) from ``old`` to ``new``."""

    ID = 3201

    def __init__(self, setter: ParamSetter, ref: str, old: Any, new: Any) -> None:
        super().__init__(f"set {ref} = {new}")
        self.setter, self.ref, self.old, self.new = setter, ref, old, new
        self.at = time.monotonic()

    def id(self) -> int:
        return self.ID

    def mergeWith(self, other: QtGui.QUndoCommand) -> bool:
        if not isinstance(other, SetParam) or other.ref != self.ref or other.at - self.at > MERGE_S:
            return False
        self.new, self.at = other.new, other.at
        self.setText(f"set {self.ref} = {self.new}")
        return True

    def redo(self) -> None:
        self.setter.apply(self.ref, self.new)

    def undo(self) -> None:
        self.setter.apply(self.ref, self.old)


class ParamSetter(QtCore.QObject):
    """Sets parameters of the session it was last given; undoable once :attr:`undo_stack` is set."""

    changed = QtCore.Signal(str, object)    # "block.param", the value now in force
    rebuilt = QtCore.Signal()               # a structural change recompiled the session here
    refused = QtCore.Signal(str)            # an undo or redo could not apply (the message)

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.session: SimSession | None = None
        self.undo_stack: QtGui.QUndoStack | None = None   # None: set at once, not undoable
        # set by the window: compiles a structural change's plan off the GUI thread
        # (app.gui.session.background_compile); None: recompile here and emit ``rebuilt``
        self.background: Callable[[Plan, str], None] | None = None

    def set(self, s: SimSession, ref: str, value: Any) -> str | None:
        """Set ``ref`` of session ``s`` to ``value`` (undoable); returns the reason it was refused, else ``None``."""
        if ref.split(".")[0] not in s.diagram.blocks:   # a panel that outlived its block (undo)
            return f"{ref}: the block is no longer in the diagram"
        try:
            spec = s.diagram.param_spec(ref)
            value = spec.validate(value, ref)
            old = s.diagram.value(ref)
        except (ValueError, UserError) as exc:
            return str(exc)
        self.session = s
        if self.undo_stack is None or old == value:   # the same value: applied again, nothing to undo
            return self.apply(ref, value)
        self.undo_stack.push(SetParam(self, ref, old, value))
        return None

    @contextlib.contextmanager
    def macro(self, text: str) -> Iterator[None]:
        """The sets inside are one undo step ``text`` (a leg link, a recalled preset, an applied best point)."""
        stack = self.undo_stack
        if stack is not None:
            stack.beginMacro(text)
        try:
            yield
        finally:
            if stack is not None:
                stack.endMacro()

    def apply(self, ref: str, value: Any) -> str | None:
        """Apply ``ref = value`` to the session now (the body of a set, an undo and a redo)."""
        s = self.session
        if s is None:
            return "no session"
        try:
            later = self.background is not None and s.needs_compile(ref, value)
            if later:
                plan = s.plan_param(ref, value)   # validated here, compiled in the background
            structural = later or s.set_param(ref, value)
        except (ValueError, UserError) as exc:
            self.refused.emit(str(exc))
            return str(exc)
        self.changed.emit(ref, value)
        if later and self.background is not None:
            self.background(plan, ref)
        elif structural:
            self.rebuilt.emit()
        return None
