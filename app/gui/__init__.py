"""The desktop GUI (PySide6 + pyqtgraph). Every engine call goes through :mod:`app.gui.session`."""
