"""The desktop GUI (PySide6 + pyqtgraph), one subpackage per room: session, editing, scopes, runs, figure, solve."""
