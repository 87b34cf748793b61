"""Import dialog: pick a recording, check its subject and window on a GRF preview, register it.

The dialog reads the files with :func:`models.gaitdata.load_trial` (the same importer as
``gaitblocks run``), pre-fills the mass (from the GRF) and the height (from the markers, else
the documented default), draws the vertical GRF of both feet in body weights with the
detected stance windows (grey) and the usable windows (green), and a draggable window (blue)
starting on the automatic one. *Register* stores the trial in the user dataset registry
(:func:`grf_data.registry.register_dataset`) with its mass, height and window; it then appears
in the dataset list. Errors are shown in the dialog; the open session is not touched.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from models.dataset import GaitDataset
from models.errors import UserError

__all__ = ["FileField", "GrfPreview", "ImportDialog", "SubjectForm", "open_import_dialog"]

_FILTER = "Gait data (*.c3d *.mot *.sto *.forces *.trc *.csv *.txt);;All files (*)"


class FileField(QtWidgets.QWidget):
    """A path line edit with a Browse… button."""

    def __init__(self, placeholder: str, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        lay = QtWidgets.QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.edit = QtWidgets.QLineEdit()
        self.edit.setPlaceholderText(placeholder)
        browse = QtWidgets.QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        lay.addWidget(self.edit, 1)
        lay.addWidget(browse)

    def _browse(self) -> None:
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, "Choose a file", self.edit.text(), _FILTER)
        if path:
            self.edit.setText(path)

    def path(self) -> str | None:
        return self.edit.text().strip() or None


class SubjectForm(QtWidgets.QWidget):
    """Dataset name, body mass [kg] and height [m], pre-filled from the estimates."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        form = QtWidgets.QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.name = QtWidgets.QLineEdit()
        self.name.setPlaceholderText("name in the dataset list")
        self.mass = QtWidgets.QDoubleSpinBox(decimals=1, minimum=10.0, maximum=400.0, suffix=" kg", value=70.0)
        self.stature = QtWidgets.QDoubleSpinBox(decimals=2, minimum=0.5, maximum=2.6, suffix=" m", value=1.66)
        self.mass_note, self.stature_note = QtWidgets.QLabel(), QtWidgets.QLabel()
        for note in (self.mass_note, self.stature_note):
            note.setStyleSheet("color: gray")
        form.addRow("Name", self.name)
        form.addRow("Mass", self._row(self.mass, self.mass_note))
        form.addRow("Height", self._row(self.stature, self.stature_note))

    @staticmethod
    def _row(spin: QtWidgets.QWidget, note: QtWidgets.QLabel) -> QtWidgets.QWidget:
        w = QtWidgets.QWidget()
        lay = QtWidgets.QHBoxLayout(w)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(spin)
        lay.addWidget(note, 1)
        return w

    def fill(self, ds: GaitDataset) -> None:
        from models.gaitdata.subject import DEFAULT_HEIGHT_M

        if not self.name.text():
            self.name.setText("".join(c if c.isalnum() or c in "_-." else "_" for c in ds.name) or "trial")
        if ds.meta.body_mass_kg is not None:
            self.mass.setValue(ds.meta.body_mass_kg)
            self.mass_note.setText("from the GRF")
        else:
            self.mass_note.setText("not estimated: enter it")
        if ds.meta.height_m is not None:
            self.stature.setValue(ds.meta.height_m)
            self.stature_note.setText("from the markers")
        else:
            self.stature.setValue(DEFAULT_HEIGHT_M)
            self.stature_note.setText("default (no markers)")


class GrfPreview(pg.PlotWidget):
    """Vertical GRF of both feet [BW], stance windows, usable windows and a draggable window."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent, background="w")
        self.setMinimumHeight(220)
        self.setLabel("bottom", "time", units="s")
        self.setLabel("left", "vertical GRF [BW]")
        self.addLegend(offset=(10, 5), labelTextColor="k")
        self.region = pg.LinearRegionItem(brush=pg.mkBrush(60, 120, 255, 40), pen=pg.mkPen(40, 90, 230, width=2))
        self.region.setZValue(10)

    def show_dataset(self, ds: GaitDataset) -> None:
        from models.gaitdata.units import contacts_both

        self.clear()
        weight = 9.81 * (ds.meta.body_mass_kg or float(np.nanmax(ds.grf[:, 1::2])) / 1.1 / 9.81)
        for (a, b) in ds.meta.extra.get("usable_windows") or []:
            self.addItem(pg.LinearRegionItem((a, b), movable=False, brush=pg.mkBrush(80, 200, 80, 35),
                                             pen=pg.mkPen(None)))
        colours = {"l": "#d62728", "r": "#1f77b4"}
        self.plot(ds.t, ds.grf[:, 1] / weight, pen=pg.mkPen(colours["l"], width=2), name="left")
        self.plot(ds.t, ds.grf[:, 3] / weight, pen=pg.mkPen(colours["r"], width=2), name="right")
        for k, (side, contacts) in enumerate(contacts_both(ds.t, ds.grf).items()):
            y = -0.06 * (k + 1)    # stance windows as bars under the curves
            xs = np.array([v for c in contacts for v in (c.on_s, c.off_s, np.nan)], dtype=float)
            ys = np.where(np.isnan(xs), np.nan, y)
            if xs.size:
                self.plot(xs, ys, pen=pg.mkPen(colours[side], width=6), connect="finite")
        lo, hi = ds.meta.extra.get("window_s") or (float(ds.t[0]), float(ds.t[-1]))
        self.region.setBounds((float(ds.t[0]), float(ds.t[-1])))
        self.region.setRegion((lo, hi))
        self.addItem(self.region)

    def window(self) -> tuple[float, float]:
        lo, hi = self.region.getRegion()
        return float(lo), float(hi)


class ImportDialog(QtWidgets.QDialog):
    """Pick files, preview, check the subject and window, register (module doc)."""

    registered = QtCore.Signal(str)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import recording")
        self.resize(760, 620)
        self.grf = FileField("GRF file (.c3d, .mot/.sto, .forces, .csv) or a single C3D")
        self.kin = FileField("kinematics (IK .mot, .trc, .c3d), optional")
        self.subject = SubjectForm()
        self.preview = GrfPreview()
        self.status = QtWidgets.QLabel("Choose a GRF file, then Preview.")
        self.status.setWordWrap(True)
        self.status.setMinimumHeight(3 * self.status.fontMetrics().height())
        self.status.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.preview_button = QtWidgets.QPushButton("Preview")
        self.preview_button.clicked.connect(self.load)
        self.register_button = QtWidgets.QPushButton("Register")
        self.register_button.setEnabled(False)
        self.register_button.clicked.connect(self.register)
        cancel = QtWidgets.QPushButton("Cancel")
        cancel.clicked.connect(self.reject)
        files = QtWidgets.QFormLayout()
        files.addRow("GRF", self.grf)
        files.addRow("Kinematics", self.kin)
        buttons = QtWidgets.QHBoxLayout()
        buttons.addWidget(self.preview_button)
        buttons.addStretch(1)
        buttons.addWidget(self.register_button)
        buttons.addWidget(cancel)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addLayout(files)
        lay.addWidget(self.subject)
        lay.addWidget(self.preview, 1)
        lay.addWidget(self.status)
        lay.addLayout(buttons)
        self.dataset: GaitDataset | None = None

    def _error(self, text: str) -> None:
        self.status.setStyleSheet("color: #b00020")
        self.status.setText(text)

    def load(self) -> None:
        """Read the files; show the preview and estimates, or the error (nothing else changes)."""
        from models.gaitdata import load_trial

        self.register_button.setEnabled(False)
        path = self.grf.path()
        if path is None:
            self._error("Choose a GRF file first.")
            return
        try:
            ds = load_trial(path, kinematics=self.kin.path())
        except UserError as exc:
            self.dataset = None
            self._error(str(exc))
            return
        self.dataset = ds
        self.subject.fill(ds)
        self.preview.show_dataset(ds)
        wins = ds.meta.extra.get("usable_windows") or []
        warn = list(dict.fromkeys(w[1:w.index("]")] for w in ds.meta.extra.get("warnings", []) if w.startswith("[")))
        self.status.setStyleSheet("")
        self.status.setText(f"{ds.t.shape[0]} samples, {ds.duration:.2f} s; usable windows: "
                            + (", ".join(f"{a:.2f}-{b:.2f} s" for a, b in wins) or "none")
                            + ("" if ds.angles is not None else " - no joint angles: add a kinematics file")
                            + (f"\nwarnings: {', '.join(warn)} (see docs/data-import.md)" if warn else ""))
        self.register_button.setEnabled(ds.angles is not None)

    def register(self) -> str | None:
        """Store the trial in the user registry; returns its name (None on an error, shown)."""
        from grf_data.registry import register_dataset

        path = self.grf.path()
        if self.dataset is None or path is None:
            return None
        name = self.subject.name.text().strip()
        lo, hi = self.preview.window()
        try:
            register_dataset(name, path, kinematics=self.kin.path(), mass=self.subject.mass.value(),
                             height=self.subject.stature.value(), start=round(lo, 4), end=round(hi, 4))
        except UserError as exc:
            self._error(str(exc))
            return None
        self.registered.emit(name)
        self.accept()
        return name


def open_import_dialog(window: Any) -> ImportDialog:
    """Show the dialog over ``window``; a registered trial refreshes its dataset list."""

    dlg = ImportDialog(window)
    dlg.registered.connect(lambda _name: window.controls.show_session(window.session))
    dlg.open()
    return dlg
