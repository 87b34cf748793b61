"""Import dialog: preview a real recording, errors shown in the dialog, register into the dataset list."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.gui.session.import_dialog import ImportDialog


def test_preview_estimates_window_and_register(qtbot, shared_data: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAITBLOCKS_CONFIG_DIR", str(tmp_path / "cfg"))
    dlg = ImportDialog()
    qtbot.addWidget(dlg)
    dlg.show()
    d = shared_data / "demotu-BMC"
    dlg.grf.edit.setText(str(d / "walk1.forces"))
    dlg.kin.edit.setText(str(d / "walk1.trc"))
    dlg.load()
    assert dlg.subject.mass.value() == pytest.approx(76.5, abs=0.1)      # from the GRF
    assert dlg.subject.stature.value() == pytest.approx(1.82, abs=0.01)   # from the markers
    assert dlg.preview.window() == pytest.approx((0.0, 2.42), abs=1e-3)
    assert dlg.register_button.isEnabled() and "usable windows: 0.00-2.42 s" in dlg.status.text()
    dlg.preview.region.setRegion((0.5, 2.0))                               # the user drags the window
    dlg.grab().save(str(tmp_path / "import_dialog.png"))
    names = []
    dlg.registered.connect(names.append)
    assert dlg.register() == "walk1" and names == ["walk1"]
    from grf_data.registry import list_datasets, load_dataset

    assert "walk1" in [r["name"] for r in list_datasets()]
    ds = load_dataset("walk1")
    assert ds.t[0] == pytest.approx(0.5, abs=3e-3) and ds.t[-1] == pytest.approx(2.0, abs=3e-3)


def test_errors_stay_in_the_dialog(qtbot, tmp_path: Path) -> None:
    dlg = ImportDialog()
    qtbot.addWidget(dlg)
    bad = tmp_path / "bad.mot"
    bad.write_text("junk\n")
    dlg.grf.edit.setText(str(bad))
    dlg.load()
    assert "bad.mot" in dlg.status.text() and "endheader" in dlg.status.text()
    assert not dlg.register_button.isEnabled() and dlg.dataset is None
