"""Error reporting for the GUI: an exception hook that logs and shows a dialog, and keeps the app running.

PySide6 hands exceptions raised in slots and virtual methods to ``sys.excepthook``;
:func:`install` replaces it so the traceback goes to the log (``logging``, logger
``gaitblocks.gui``) and the message to a non-blocking dialog. User errors
(:class:`models.errors.UserError`, e.g. a ``DataFormatError`` naming file, line and column)
show their text only. An exception handed over from a worker thread carries its formatted
traceback as ``worker_traceback`` (:func:`app.gui.session.handover.without_frames`).
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable
from types import TracebackType

from PySide6 import QtCore, QtWidgets

from models.errors import UserError

__all__ = ["ErrorReporter", "install", "show_error"]

log = logging.getLogger("gaitblocks.gui")


def show_error(parent: QtWidgets.QWidget | None, title: str, text: str, detail: str = "",
               icon: QtWidgets.QMessageBox.Icon = QtWidgets.QMessageBox.Icon.Critical) -> QtWidgets.QMessageBox:
    """Open a message box without blocking the event loop (the simulation keeps its state)."""
    box = QtWidgets.QMessageBox(icon, title, text, QtWidgets.QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("errorDialog")
    if detail:
        box.setDetailedText(detail)
    box.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose, False)
    box.setWindowModality(QtCore.Qt.WindowModality.WindowModal)
    box.open()
    return box


class ErrorReporter(QtCore.QObject):
    """Remembers the dialogs it opened (``dialogs``), so tests and the window can inspect them."""

    def __init__(self, parent_widget: QtWidgets.QWidget | None = None) -> None:
        super().__init__()
        self.parent_widget = parent_widget
        self.dialogs: list[QtWidgets.QMessageBox] = []
        self._previous: Callable[..., object] | None = None

    def report(self, title: str, exc: BaseException) -> QtWidgets.QMessageBox:
        """Show ``exc``: a user error as its message, anything else with its traceback."""
        if isinstance(exc, UserError):
            log.warning("%s: %s", title, exc)
            box = show_error(self.parent_widget, title, str(exc))
        else:
            detail = getattr(exc, "worker_traceback", None) or "".join(
                traceback.format_exception(type(exc), exc, exc.__traceback__))
            log.error("%s\n%s", title, detail)
            box = show_error(self.parent_widget, title, f"{type(exc).__name__}: {exc}\n\n"
                             "The application keeps running; details below and in the log.", detail)
        self.dialogs.append(box)
        return box

    def hook(self, etype: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        if issubclass(etype, KeyboardInterrupt):
            QtWidgets.QApplication.quit()
            return
        value.__traceback__ = tb
        self.report("Unexpected error", value)

    def last_text(self) -> str:
        return self.dialogs[-1].text() if self.dialogs else ""

    def close_all(self) -> None:
        for d in self.dialogs:
            d.close()


def install(reporter: ErrorReporter) -> Callable[[], None]:
    """Route uncaught exceptions (including those in Qt slots) to ``reporter``; returns an uninstaller."""
    previous = sys.excepthook
    sys.excepthook = reporter.hook

    def uninstall() -> None:
        sys.excepthook = previous

    return uninstall
