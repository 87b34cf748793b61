"""``gaitblocks validate`` on the real reference data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.cli import main
from grf_data.refdata import shipped_dir

ID_FILE = "opensim-models/subject01_walk_ID.sto"


def _rows(out: str) -> dict[str, float]:
    rows = [line for line in out.splitlines()
            if line.endswith(("pass", "FAIL", "info")) and not re.match(r"\d+/\d+ rows pass", line)]
    assert not any(line.endswith("FAIL") for line in rows)
    values = {}
    for line in rows:
        m = re.match(r"(.+?)\s{2,}(\S+)\s+(\S+)\s+(pass|info)$", line)
        assert m, line
        values[m.group(1).strip()] = float(m.group(2))
    return values


def test_validate_passes_and_writes_plots(shared_data: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Every comparison the folder holds the files of; the OpenSim one (4 rows) only beside its unshipped file."""
    assert main(["validate", "--data", str(shared_data), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    has_id = (shared_data / ID_FILE).is_file()
    for stem in ("vdb_running", "gatk_leg2d") + (("opensim_subject01",) if has_id else ()):
        png = tmp_path / f"{stem}.png"
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.stat().st_size > 10_000
    assert (tmp_path / "opensim_subject01.png").exists() == has_id
    values = _rows(out)
    assert len([r for r in values if not r.startswith("mechanism ")]) == 23 + 4 * has_id
    assert len([r for r in values if r.startswith("mechanism ")]) == 21
    assert values["vdB running hip moment: RMS err / peak [%]"] < 1.0
    assert values["reactions: augmented (E^T) vs classical, max rel"] < 1e-9
    assert values["mechanism four-bar p acceleration, pre-model vs classical [sig. figs]"] >= 7
    assert values["mechanism squeezer 7 angles at 0.03 s, embedded exact solve: max rel err"] <= 1e-7
    if has_id:
        assert "48/48 rows pass" in out and "note:" not in out
    else:
        assert "44/44 rows pass; 1 comparison(s) not run (note above)" in out


def test_validate_notes_the_unshipped_file_and_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On the shipped folder the OpenSim comparison is skipped: one line names the file and GAITBLOCKS_DATA."""
    assert main(["validate", "--data", str(shipped_dir()), "--only", "opensim_subject01",
                 "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    notes = [line for line in out.splitlines() if line.startswith("note:")]
    assert notes == [f"note: OpenSim comparison not run: {ID_FILE} is not shipped (licence unclear: "
                     "opensim-org/opensim-models has no licence file); to run it set GAITBLOCKS_DATA to a folder "
                     "holding it beside the shipped ones (grf_data/reference/README.md)"]
    assert "0/0 rows pass; 1 comparison(s) not run" in out and not (tmp_path / "opensim_subject01.png").exists()


def test_validate_opensim_subject01_rows(full_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Our sagittal leg against OpenSim's inverse dynamics of subject01 (needs the unshipped ID file)."""
    assert main(["validate", "--data", str(full_data), "--only", "opensim_subject01", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    values = _rows(out)
    assert len(values) == 4 and "4/4 rows pass" in out
    assert values["OpenSim subject01 hip moment, stance: correlation"] >= 0.9
    assert values["OpenSim subject01 knee moment, stance: correlation"] >= 0.9
    assert 0 < values["OpenSim subject01 knee moment, stance: RMS diff [N m]"] < 20
    assert (tmp_path / "opensim_subject01.png").stat().st_size > 10_000


def test_validate_missing_data_is_a_user_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--data", str(tmp_path / "nope"), "--out", str(tmp_path)]) == 2
    assert "data folder not found" in capsys.readouterr().err


def test_validate_incomplete_data_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "demotu-BMC").mkdir()
    assert main(["validate", "--data", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "all.frc" in capsys.readouterr().err
