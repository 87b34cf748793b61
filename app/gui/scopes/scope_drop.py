"""Dropping a signal from the signal browser onto the scopes.

The browser's tree (:class:`~app.gui.scopes.scope_browser.SignalTree`) drags one column as
:data:`SIGNAL_MIME` data, ``block.port<TAB>column``. The stack (:class:`~app.gui.scopes.scopes.ScopeStack`)
accepts it: dropped on a plot the column joins that plot (:meth:`ScopeStack.add_signal`; on an XY
plot it is another y against its x), dropped below the last plot it gets a new scope.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6 import QtCore, QtGui

if TYPE_CHECKING:
    from app.gui.scopes.scope_specs import Trace
    from app.gui.scopes.scopes import ScopeStack

__all__ = ["SIGNAL_MIME", "decode_ref", "drop_signal", "encode_ref", "scope_index_at"]

SIGNAL_MIME = "application/x-gaitblocks-signal"


def encode_ref(name: str, col: int) -> QtCore.QByteArray:
    return QtCore.QByteArray(f"{name}\t{col}".encode())


def decode_ref(mime: QtCore.QMimeData) -> tuple[str, int] | None:
    """``(signal, column)`` of dragged :data:`SIGNAL_MIME` data, or None."""
    if not mime.hasFormat(SIGNAL_MIME):
        return None
    name, _, col = bytes(mime.data(SIGNAL_MIME).data()).decode().partition("\t")
    return (name, int(col)) if name and col.isdigit() else None


def scope_index_at(stack: ScopeStack, pos: QtCore.QPoint) -> int:
    """Index of the scope under viewport point ``pos``, or -1 (below the plots: a new scope)."""
    scene = stack.mapToScene(pos)
    for i, sc in enumerate(stack.scopes):
        if sc.plot.sceneBoundingRect().contains(scene):
            return i
    return -1


def drop_signal(stack: ScopeStack, event: QtGui.QDropEvent) -> Trace | None:
    """Add the dropped column to the scope under the drop point (module doc); None if not a signal."""
    ref = decode_ref(event.mimeData())
    if ref is None or stack.session is None or ref[0] not in stack.session.signal_names():
        event.ignore()
        return None
    event.acceptProposedAction()
    return stack.add_signal(scope_index_at(stack, event.position().toPoint()), *ref)
