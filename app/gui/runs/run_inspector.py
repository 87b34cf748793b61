"""Run inspector: the runs of a GUI session, kept, named and overlaid on the scopes.

In the spirit of Simulink's Simulation Data Inspector. The inspector watches the session's
runner (:meth:`RunInspector.track`): when a run finishes or fails, when Reset starts it again
and when a compile replaces it (dataset, preset or a structural parameter changed, a session
file opened), the run is kept in a :class:`~app.gui.runs.run_store.RunStore` (at most
:data:`~app.gui.runs.run_store.MAX_RUNS`, oldest dropped with a note): its name (``run N``,
editable in place), its status (:func:`~app.walking.status_text` and the recorded
span [s]) and a full-resolution copy of the signals the scopes showed. A run is kept once
(not again when it is reset after finishing).

The list's columns: the name (with its tick box and colour swatch; never narrower than
:data:`NAME_MIN_CHARS` characters), the dataset, the preset, the span and the status (the last
column takes what is left and elides; its tooltip has it whole).

Tick two or more runs to overlay them on every scope, each in its own colour (the swatch in the
list; a qualitative palette, :data:`~app.gui.runs.run_store.RUN_COLOURS`) and named in each scope's
legend; the live run stays drawn as before. Delete removes the selected runs.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from app.gui.runs.run_store import KeptRun, RunStore, keep_runner
from app.gui.scopes.scopes import ScopeStack
from app.gui.session.session import SimSession
from app.run_summary import summarise
from app.walking import status_text

__all__ = ["COLUMNS", "NAME_MIN_CHARS", "RunInspector"]

_KEY = QtCore.Qt.ItemDataRole.UserRole
COLUMNS = ("run", "dataset", "preset", "span", "status")
NAME_MIN_CHARS = 12     # the name column shows at least this many characters beside its box and swatch


class _Live:
    """The run being watched: its runner and build (kept alive here so a compile that replaces
    them in the session does not lose the run), the stance signal and a label of its settings."""

    def __init__(self, s: SimSession) -> None:
        self.runner, self.built = s.runner, s.built
        self.stance = s.find("PhaseDetector", "stance")
        self.dataset, self.preset = s.dataset, s.preset or ""
        self.label = s.label()
        self.kept_at = -1           # recorder length when last kept (-1: never)


class RunInspector(QtWidgets.QWidget):
    """List of kept runs (tick to overlay, double-click to rename, Delete) over :class:`ScopeStack`."""

    overlays_changed = QtCore.Signal(list)      # the ticked KeptRun objects

    def __init__(self, scopes: ScopeStack, store: RunStore | None = None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.scopes = scopes
        self.store = store or RunStore()
        self._live: _Live | None = None
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        hint = QtWidgets.QLabel("Tick runs to overlay them on every scope; double-click a name to rename it.")
        hint.setWordWrap(True)
        self.table = QtWidgets.QTreeWidget()
        self.table.setHeaderLabels(list(COLUMNS))
        self.table.setRootIsDecorated(False)
        self.table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.DoubleClicked
                                   | QtWidgets.QAbstractItemView.EditTrigger.EditKeyPressed)
        self.table.setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        header = self.table.header()
        header.setStretchLastSection(False)    # (stretching the last section keeps it >= 100 px)
        header.setMinimumSectionSize(30)
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Interactive)
        for col in range(1, len(COLUMNS) - 1):
            header.setSectionResizeMode(col, QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        # the status takes what is left, down to the minimum section: no scroll bar for a long status
        header.setSectionResizeMode(len(COLUMNS) - 1, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(0, self.name_width())
        row = QtWidgets.QHBoxLayout()
        self.keep_button = QtWidgets.QPushButton("Keep current run")
        self.delete_button = QtWidgets.QPushButton("Delete")
        self.none_button = QtWidgets.QPushButton("Overlay none")
        for b in (self.keep_button, self.delete_button, self.none_button):
            row.addWidget(b)
        row.addStretch(1)
        self.note = QtWidgets.QLabel("")
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color:#666")
        lay.addWidget(hint)
        lay.addWidget(self.table, 1)
        lay.addLayout(row)
        lay.addWidget(self.note)
        self.keep_button.clicked.connect(lambda: self.keep())
        self.delete_button.clicked.connect(self.delete_selected)
        self.none_button.clicked.connect(self.untick_all)
        self.table.itemChanged.connect(self._item_changed)
        self._ticked: set[int] = set()

    # ----------------------------------------------------------------- keeping
    def track(self, s: SimSession) -> KeptRun | None:
        """Watch ``s``'s current runner; a different runner than the one watched means the old run
        was replaced (reset, compile): it is kept first. Returns the run kept, if any."""
        kept = None
        if self._live is not None and self._live.runner is not s.runner:
            kept = self._keep_live(self._live)
        if self._live is None or self._live.runner is not s.runner:
            self._live = _Live(s)
        return kept

    def keep(self, summary: dict[str, Any] | None = None) -> KeptRun | None:
        """Keep the watched run now (finished, failed, or on request); not twice at one length.
        ``summary``: the run's summary if the caller has it (the window's end-of-run evaluation),
        so that it is not computed a second time."""
        return None if self._live is None else self._keep_live(self._live, summary)

    def _keep_live(self, live: _Live, summary: dict[str, Any] | None = None) -> KeptRun | None:
        n = live.runner.recorder.length
        if n < 2 or n == live.kept_at:
            return None
        live.kept_at = n
        key = self.store.next_key()
        names = [tr.signal for sc in self.scopes.scopes for tr in sc.spec.all_traces()]
        status = self._status(live) if summary is None else status_text(summary)
        run = keep_runner(live.runner, names, key, f"run {key}", status, live.stance)
        changes = "".join(f"\n  t = {c['t']:.3f} s: {c['name']} = {c['new']}" for c in run.changes)
        run.detail = live.label + (f"\nchanged while running:{changes}" if changes else "")
        run.dataset, run.preset = live.dataset, live.preset
        self.store.add(run)
        self.note.setText(self._memory_note())
        self._ticked &= {r.key for r in self.store.runs}
        self._fill()
        return run

    def _status(self, live: _Live) -> str:
        try:
            summary: dict[str, Any] = summarise(live.runner.results(copy=False), live.built)
        except Exception as exc:  # a run that cannot be summarised is still kept
            return f"no summary ({type(exc).__name__})"
        return status_text(summary)

    def _memory_note(self) -> str:
        mb = self.store.nbytes / 1e6
        note = f"{len(self.store.runs)} of at most {self.store.cap} runs kept, {mb:.1f} MB"
        return f"{note}; {self.store.note}" if self.store.note else note

    # ----------------------------------------------------------------- list
    def name_width(self) -> int:
        """Width [px] of the name column: :data:`NAME_MIN_CHARS` characters, the tick box, the swatch."""
        box = self.style().pixelMetric(QtWidgets.QStyle.PixelMetric.PM_IndicatorWidth)
        return self.table.fontMetrics().averageCharWidth() * NAME_MIN_CHARS + box + 14 + 16

    def _fill(self) -> None:
        self.table.blockSignals(True)
        self.table.clear()
        for r in self.store.runs:
            it = QtWidgets.QTreeWidgetItem([r.name, _short(r.dataset), r.preset or "(diagram)",
                                            f"{r.duration():.2f} s", r.status])
            it.setData(0, _KEY, r.key)
            it.setFlags(it.flags() | QtCore.Qt.ItemFlag.ItemIsUserCheckable | QtCore.Qt.ItemFlag.ItemIsEditable)
            it.setCheckState(0, QtCore.Qt.CheckState.Checked if r.key in self._ticked
                             else QtCore.Qt.CheckState.Unchecked)
            pix = QtGui.QPixmap(14, 4)
            pix.fill(QtGui.QColor(r.colour))
            it.setIcon(0, QtGui.QIcon(pix))
            it.setToolTip(0, r.detail)
            it.setToolTip(1, r.dataset)
            it.setToolTip(4, r.status)
            self.table.addTopLevelItem(it)
        self.table.blockSignals(False)
        self.table.setColumnWidth(0, max(self.table.columnWidth(0), self.name_width()))
        self._apply()

    def _item(self, key: int) -> QtWidgets.QTreeWidgetItem:
        for i in range(self.table.topLevelItemCount()):
            it = self.table.topLevelItem(i)
            if it is not None and it.data(0, _KEY) == key:
                return it
        raise KeyError(key)

    def _item_changed(self, it: QtWidgets.QTreeWidgetItem, col: int) -> None:
        key = int(it.data(0, _KEY))
        if col == 0:
            if it.text(0) != self.store.get(key).name:
                self.store.rename(key, it.text(0))
                if it.text(0) != self.store.get(key).name:      # an empty name keeps the old one
                    self.table.blockSignals(True)
                    it.setText(0, self.store.get(key).name)
                    self.table.blockSignals(False)
                if key in self._ticked:                          # the scope legends name it anew
                    self._apply()
            on = it.checkState(0) == QtCore.Qt.CheckState.Checked
            if on != (key in self._ticked):
                self._ticked ^= {key}
                self._apply()

    def _apply(self) -> None:
        runs = self.ticked()
        self.scopes.set_overlays(runs)
        self.overlays_changed.emit(runs)

    # ----------------------------------------------------------------- user actions
    def ticked(self) -> list[KeptRun]:
        """The runs overlaid on the scopes, oldest first."""
        return [r for r in self.store.runs if r.key in self._ticked]

    def set_ticked(self, key: int, on: bool) -> None:
        self._item(key).setCheckState(0, QtCore.Qt.CheckState.Checked if on else QtCore.Qt.CheckState.Unchecked)

    def untick_all(self) -> None:
        for r in self.store.runs:
            self.set_ticked(r.key, False)

    def rename(self, key: int, name: str) -> None:
        """Rename run ``key`` (as editing its name in the list does)."""
        self._item(key).setText(0, name)

    def delete(self, keys: list[int]) -> None:
        for k in keys:
            self.store.delete(k)
        self._ticked -= set(keys)
        self.note.setText(self._memory_note())
        self._fill()

    def delete_selected(self) -> None:
        self.delete([int(it.data(0, _KEY)) for it in self.table.selectedItems()])


def _short(dataset: str) -> str:
    """A dataset as the list shows it: a bundled name as it is, a file by its name."""
    first = dataset.split("|")[0].strip()
    return first.replace("\\", "/").rsplit("/", 1)[-1] or dataset
