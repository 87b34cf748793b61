"""The model explorer: the diagram as a tree of subsystems, blocks and parameters, and its settings.

Columns *Name | Value | Unit*. Under *Diagram* stand the blocks of the top level and one node per
subsystem holding its blocks; a block's children are its parameters with value and unit (filled
when the block is first expanded). Under *Settings* stand the solver settings and the sections
the blocks read (``model``, ``data``: :attr:`blocks.Diagram.sections`), read only.

* Selecting a block here selects it on the canvas, opening its subsystem if needed (and names it
  to the Block parameters panel, :attr:`ModelTree.block_chosen`); selecting blocks on the canvas
  selects them here.
* Editing a value (double-click it) parses the text with the parameter's ``ParamSpec`` and sets it
  through the shared :class:`~app.gui.editing.param_edit.ParamSetter`: the same undoable edit as
  the Block parameters panel.
* :meth:`ModelTree.sync` brings the tree up to date item by item (a block added, deleted, regrouped
  or undone; values of the blocks shown expanded), called after each edit and compile; nothing
  here runs on a simulation tick.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.editing.canvas_items import BlockItem
from app.gui.editing.param_edit import ParamSetter
from blocks import ParamSpec
from blocks.sections import section_type
from blocks.spec import INHERIT
from blocks.subsystems import owners, subsystems

if TYPE_CHECKING:
    from app.gui.editing.canvas import DiagramCanvas

__all__ = ["ModelTree", "value_text"]

ROLE = QtCore.Qt.ItemDataRole.UserRole   # ("block" | "sub" | "param", name or "block.param")
GREY = QtGui.QColor("#666666")


def value_text(v: Any, spec: ParamSpec | None = None) -> str:
    """A parameter value as the tree shows it (and ``ParamSpec.parse`` reads it back): a width that
    inherits (``spec.inherit``, -1) as ``inherit``."""
    if spec is not None and spec.inherit and v == INHERIT:
        return "inherit"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.6g}"
    if isinstance(v, (tuple, list)):
        return ", ".join(value_text(x) for x in v)
    return str(v)


class ModelTree(QtWidgets.QWidget):
    """The model explorer of one canvas's diagram (:meth:`bind`)."""

    block_chosen = QtCore.Signal(str)   # a block selected in the tree

    def __init__(self, setter: ParamSetter, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setter = setter
        self.canvas: DiagramCanvas | None = None
        self.syncs = 0                                   # sync() calls so far (the tests count them)
        self.tree = QtWidgets.QTreeWidget()
        self.tree.setHeaderLabels(["Name", "Value", "Unit"])
        self.tree.setColumnWidth(0, 190)
        self.tree.setColumnWidth(1, 110)
        self.tree.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.ExtendedSelection)
        self.tree.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.DoubleClicked
                                  | QtWidgets.QAbstractItemView.EditTrigger.EditKeyPressed)
        self.status = QtWidgets.QLabel("Double-click a value to edit it (Ctrl+Z undoes).")
        self.status.setWordWrap(True)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(2, 2, 2, 2)
        lay.addWidget(self.tree, 1)
        lay.addWidget(self.status)
        self.root = QtWidgets.QTreeWidgetItem(["Diagram"])
        self.settings = QtWidgets.QTreeWidgetItem(["Settings"])
        self.tree.addTopLevelItems([self.root, self.settings])
        self.blocks: dict[str, QtWidgets.QTreeWidgetItem] = {}
        self.subs: dict[str, QtWidgets.QTreeWidgetItem] = {}
        self.params: dict[str, QtWidgets.QTreeWidgetItem] = {}
        self._settings_key: tuple[Any, ...] = ()
        self._quiet = False                              # filling items: not an edit, not a pick
        self.tree.itemExpanded.connect(self._expanded)
        self.tree.itemChanged.connect(self._edited)
        self.tree.itemSelectionChanged.connect(self._picked)
        setter.changed.connect(self.show_value)

    def bind(self, canvas: DiagramCanvas) -> None:
        """Follow ``canvas``: its edits (the editor's redraws) and its selection."""
        self.canvas = canvas
        canvas.editor.redraw.connect(self.sync)
        canvas.scene().selectionChanged.connect(self._follow_canvas)
        self.sync()

    # ----------------------------------------------------------- incremental update
    def sync(self) -> None:
        """Bring the tree up to date with the canvas's diagram, changing only what differs."""
        if self.canvas is None:
            return
        self.syncs += 1
        d = self.canvas.editor.diagram
        self._quiet = True
        self.root.setText(0, f"Diagram '{d.name}'")
        owner = owners(d)
        for name in [n for n, it in self.blocks.items() if n not in d.blocks or it.text(1) != d.blocks[n].type]:
            self._drop(self.blocks.pop(name))
            self.params = {r: it for r, it in self.params.items() if not r.startswith(name + ".")}
        for sub in subsystems(d):
            if sub["name"] not in self.subs:
                self.subs[sub["name"]] = self._item(self.root, [sub["name"], "Subsystem", ""], ("sub", sub["name"]))
        for name, entry in d.blocks.items():
            parent = self.subs[owner[name]] if name in owner else self.root
            item = self.blocks.get(name)
            if item is None:
                self.blocks[name] = item = self._item(parent, [name, entry.type, ""], ("block", name))
                item.setChildIndicatorPolicy(QtWidgets.QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)
            elif item.parent() is not parent:
                self._drop(item)
                parent.addChild(item)
        alive = {s["name"] for s in subsystems(d)}
        for name in [n for n in self.subs if n not in alive]:
            self._drop(self.subs.pop(name))
        for name, item in self.blocks.items():
            if item.childCount():
                self._fill_values(name)
        self._sync_settings()
        self._quiet = False

    def _item(self, parent: QtWidgets.QTreeWidgetItem, texts: list[str],
              role: tuple[str, str]) -> QtWidgets.QTreeWidgetItem:
        item = QtWidgets.QTreeWidgetItem(texts)
        item.setData(0, ROLE, role)
        item.setForeground(1, GREY)
        parent.addChild(item)
        return item

    @staticmethod
    def _drop(item: QtWidgets.QTreeWidgetItem) -> None:
        parent = item.parent()
        if parent is not None:
            parent.removeChild(item)

    def _value_source(self, block: str) -> Any:
        """The diagram whose values are in force for ``block``: the run's if it has the block."""
        assert self.canvas is not None
        s = self.canvas.session
        return s.diagram if s is not None and block in s.diagram.blocks else self.canvas.editor.diagram

    def _expanded(self, item: QtWidgets.QTreeWidgetItem) -> None:
        kind, name = item.data(0, ROLE) or ("", "")
        if kind == "block" and item.childCount() == 0:
            self._quiet = True
            d = self._value_source(name)
            editable = QtCore.Qt.ItemFlag.ItemIsEditable
            for pname, spec in d.instantiate(name).params.items():
                ref = f"{name}.{pname}"
                child = self._item(item, [pname + ("" if spec.tunable else " ⚙"), "", spec.unit.replace("*", "·")],
                                   ("param", ref))
                note = "" if spec.tunable else "\nstructural: changing it restarts the run"
                child.setToolTip(0, spec.description + note)
                child.setForeground(1, QtGui.QColor("#000000"))
                if spec.kind != "callable":
                    child.setFlags(child.flags() | editable)
                self.params[ref] = child
            self._fill_values(name)
            self._quiet = False

    def _fill_values(self, block: str) -> None:
        """The value column of ``block``'s parameter rows (only the texts that changed)."""
        instance = self._value_source(block).instantiate(block)
        item = self.blocks[block]
        for i in range(item.childCount()):
            row = item.child(i)
            if row is None:
                continue
            pname = row.data(0, ROLE)[1].split(".", 1)[1]
            text = value_text(instance.values[pname], instance.params[pname])
            if row.text(1) != text:
                row.setText(1, text)

    def _sync_settings(self) -> None:
        """Solver settings and sections, read only; rebuilt only when they change."""
        assert self.canvas is not None
        d = self.canvas.editor.diagram
        rows = [("solver", [(k, value_text(v), "s" if k in ("dt", "t_start", "t_end") else "")
                            for k, v in asdict(d.solver).items()])]
        for name, value in d.sections.items():
            kind = section_type(name)
            saved = kind.to_dict(value)
            rows.append((name, [(k, value_text(v), kind.params[k].unit if k in kind.params else "")
                                for k, v in (saved.items() if isinstance(saved, dict) else ())]))
        key = tuple((n, tuple(r)) for n, r in rows)
        if key == self._settings_key:
            return
        self._settings_key = key
        self.settings.takeChildren()
        for name, shown in rows:
            top = self._item(self.settings, [name, "section" if name != "solver" else "", ""], ("setting", name))
            for k, text, unit in shown:
                self._item(top, [k, text, unit], ("setting", f"{name}.{k}"))

    # ----------------------------------------------------------- edits and selection
    def show_value(self, ref: str, value: Any) -> None:
        """A parameter set (here, in the panel, by an undo): its row shows the value in force."""
        item = self.params.get(ref)
        if item is not None:
            self._quiet = True
            d = self.canvas.editor.diagram if self.canvas is not None else None
            spec = d.param_spec(ref) if d is not None and ref.split(".")[0] in d.blocks else None
            item.setText(1, value_text(value, spec))
            self._quiet = False

    def _edited(self, item: QtWidgets.QTreeWidgetItem, column: int) -> None:
        kind, ref = item.data(0, ROLE) or ("", "")
        if self._quiet or column != 1 or kind != "param" or self.canvas is None:
            return
        s, block = self.canvas.session, ref.split(".")[0]
        if s is None or block not in s.diagram.blocks:
            self.status.setText(f"{block} is not compiled yet: its parameters can be set once the diagram compiles")
            self._fill_values(block)
            return
        try:
            value = s.diagram.param_spec(ref).parse(item.text(1), f"parameter '{ref}'")
            error = self.setter.set(s, ref, value)
        except ValueError as exc:
            error = str(exc)
        self._quiet = True
        self._fill_values(block)                 # the value in force (the one set, or back after a refusal)
        self._quiet = False
        self.status.setText(f"<span style='color:#c00'>{error}</span>" if error else f"{ref} = {item.text(1)}")

    def _picked(self) -> None:
        if self._quiet or self.canvas is None:
            return
        c = self.canvas
        roles = [it.data(0, ROLE) or ("", "") for it in self.tree.selectedItems()]
        blocks = [n for k, n in roles if k == "block"]
        subs = [n for k, n in roles if k == "sub"]
        if not blocks and not subs:
            return
        owner = owners(c.editor.diagram)
        level = owner.get(blocks[0]) if blocks else None
        shown = [n for n in blocks if owner.get(n) == level] + (subs if level is None else [])
        self._quiet = True
        if c.editor.level != level:
            c.open_subsystem(level)
        c.clipboard.select(shown)
        if shown and shown[0] in c.items_by_name:
            c.ensureVisible(c.items_by_name[shown[0]])
        self._quiet = False
        if blocks:
            self.block_chosen.emit(blocks[0])

    def _follow_canvas(self) -> None:
        if self._quiet or self.canvas is None:
            return
        # the scene's own list: while a level is drawn again, ``items_by_name`` may hold deleted items
        chosen = {i.name for i in self.canvas.scene().selectedItems() if isinstance(i, BlockItem)}
        self._quiet = True
        for name, item in [*self.blocks.items(), *self.subs.items()]:
            if item.isSelected() != (name in chosen):
                item.setSelected(name in chosen)
        self._quiet = False

    def select(self, name: str) -> None:
        """Select block or subsystem ``name`` in the tree (as a click would)."""
        item = self.blocks.get(name) or self.subs.get(name)
        if item is not None:
            self.tree.setCurrentItem(item)
