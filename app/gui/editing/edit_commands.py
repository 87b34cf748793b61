"""Undo commands of the diagram editor: one ``QUndoCommand`` per kind of edit.

Each command changes the editor's working diagram through :mod:`app.gui.editing.edit_model` and then
asks the editor to recompile (:meth:`DiagramEditor.changed`); a move only redraws. ``undo``
restores the block, wire and logged lists exactly, in their order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6 import QtGui

from app.gui.editing.edit_model import RemovedBlock, insert_block, insert_wire, remove_block, remove_wire
from app.gui.editing.fragment import Pasted, apply_paste
from blocks.subsystems import find

if TYPE_CHECKING:
    from app.gui.editing.diagram_editor import DiagramEditor

__all__ = ["AddBlock", "AddWire", "DeleteItems", "MoveBlocks", "PasteBlocks", "SetSubsystems"]


class AddBlock(QtGui.QUndoCommand):
    """Add block ``name`` of type ``type_name`` at scene position ``(x, y)`` [px]."""

    def __init__(self, editor: DiagramEditor, name: str, type_name: str, x: float, y: float) -> None:
        super().__init__(f"add {type_name} '{name}'")
        self.editor, self.name, self.type_name, self.xy = editor, name, type_name, (x, y)
        self.level = editor.level

    def redo(self) -> None:
        d = self.editor.working()
        d.add(self.name, self.type_name)
        d.set_position(self.name, *self.xy)
        if self.level is not None and find(d, self.level) is not None:   # added inside an open subsystem
            find(d, self.level)["blocks"].append(self.name)  # type: ignore[index]
        self.editor.changed()

    def undo(self) -> None:
        remove_block(self.editor.working(), self.name)
        self.editor.changed()


class PasteBlocks(QtGui.QUndoCommand):
    """Paste (or duplicate) a fragment already renamed for the diagram (:class:`~app.gui.editing.fragment.Pasted`):
    its blocks, the wires between them, positions and subsystems, as one step."""

    def __init__(self, editor: DiagramEditor, pasted: Pasted, text: str = "paste") -> None:
        super().__init__(f"{text} {', '.join(b['name'] for b in pasted.blocks)}")
        self.editor, self.pasted = editor, pasted

    def redo(self) -> None:
        apply_paste(self.editor.working(), self.pasted)
        self.editor.changed()

    def undo(self) -> None:
        d = self.editor.working()
        for b in reversed(self.pasted.blocks):   # each with its wires, position and membership
            remove_block(d, b["name"])
        self.editor.changed()


class DeleteItems(QtGui.QUndoCommand):
    """Delete blocks (with their wires) and wires ``(src, dst)``."""

    def __init__(self, editor: DiagramEditor, blocks: list[str], wires: list[tuple[str, str]]) -> None:
        what = ", ".join([f"'{b}'" for b in blocks] + [f"{a} → {b}" for a, b in wires])
        super().__init__(f"delete {what}")
        self.editor, self.blocks = editor, list(blocks)
        self.wires = [w for w in wires if w[0].split(".")[0] not in blocks and w[1].split(".")[0] not in blocks]
        self._removed: list[RemovedBlock] = []
        self._wire_at: list[tuple[int, str, str]] = []

    def redo(self) -> None:
        d = self.editor.working()
        self._wire_at = [(remove_wire(d, a, b), a, b) for a, b in self.wires]
        self._removed = [remove_block(d, name) for name in self.blocks]
        self.editor.changed()

    def undo(self) -> None:
        d = self.editor.working()
        for removed in reversed(self._removed):
            insert_block(d, removed)
        for i, a, b in reversed(self._wire_at):
            insert_wire(d, i, a, b)
        self.editor.changed()


class AddWire(QtGui.QUndoCommand):
    """Wire output ``src`` to input ``dst`` (checked first by :meth:`DiagramEditor.connect`)."""

    def __init__(self, editor: DiagramEditor, src: str, dst: str) -> None:
        super().__init__(f"connect {src} → {dst}")
        self.editor, self.src, self.dst = editor, src, dst

    def redo(self) -> None:
        self.editor.working().connect(self.src, self.dst)
        self.editor.changed()

    def undo(self) -> None:
        remove_wire(self.editor.working(), self.src, self.dst)
        self.editor.changed()


class MoveBlocks(QtGui.QUndoCommand):
    """Blocks moved from ``before`` to ``after``: ``{name: (x, y)}`` scene positions [px]."""

    def __init__(self, editor: DiagramEditor, before: dict[str, tuple[float, float]],
                 after: dict[str, tuple[float, float]]) -> None:
        super().__init__(f"move {', '.join(after)}")
        self.editor, self.before, self.after = editor, before, after

    def _place(self, where: dict[str, Any]) -> None:
        for name, (x, y) in where.items():
            self.editor.set_position(name, x, y)
        self.editor.moved.emit()

    def redo(self) -> None:
        self._place(self.after)

    def undo(self) -> None:
        self._place(self.before)


class SetSubsystems(QtGui.QUndoCommand):
    """Group, ungroup or rename: the subsystem list from ``before`` to ``after`` (UI fields only:
    no recompile); ``renamed`` ``{old: new}``."""

    def __init__(self, editor: DiagramEditor, text: str, before: list[dict[str, Any]],
                 after: list[dict[str, Any]], renamed: dict[str, str] | None = None) -> None:
        super().__init__(text)
        self.editor, self.before, self.after = editor, before, after
        self.renamed = renamed or {}

    def redo(self) -> None:
        self.editor.set_subsystems(self.after, self.renamed)

    def undo(self) -> None:
        self.editor.set_subsystems(self.before, {b: a for a, b in self.renamed.items()})
