"""The breadcrumb bar over the diagram canvas while a subsystem is open: ``diagram ▸ name`` and *Back*."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

__all__ = ["SubsystemBar"]


class SubsystemBar(QtWidgets.QFrame):
    """Shown at the canvas's top left while a subsystem is open; *Back* (or Esc) returns to the top."""

    back = QtCore.Signal()

    def __init__(self, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("subsystemBar")
        self.setStyleSheet("#subsystemBar {background: #fff8d6; border: 1px solid #b8a44a; border-radius: 4px}")
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(6, 3, 6, 3)
        self.button = QtWidgets.QPushButton("◂ Back")
        self.button.setToolTip("Back to the whole diagram (Esc)")
        self.button.clicked.connect(self.back)
        self.path = QtWidgets.QLabel()
        row.addWidget(self.button)
        row.addWidget(self.path)
        self.move(8, 8)
        self.hide()

    def show_level(self, level: str | None) -> None:
        """``None``: hide; else show ``diagram ▸ level``."""
        if level is None:
            self.hide()
            return
        self.path.setText(f"diagram ▸ <b>{level}</b>  <i>(virtual subsystem: the run sees its blocks)</i>")
        self.adjustSize()
        self.show()
        self.raise_()
