"""``gaitblocks validate`` on the real reference data."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.cli import main


def test_validate_passes_and_writes_plots(shared_data: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--data", str(shared_data), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for stem in ("vdb_running", "gatk_leg2d", "opensim_subject01"):
        png = tmp_path / f"{stem}.png"
        assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert png.stat().st_size > 10_000
    rows = [line for line in out.splitlines()
            if line.endswith(("pass", "FAIL", "info")) and not re.match(r"\d+/\d+ rows pass", line)]
    assert len([r for r in rows if not r.startswith("mechanism ")]) == 27
    assert len([r for r in rows if r.startswith("mechanism ")]) == 21
    assert not any(line.endswith("FAIL") for line in rows)
    values = {}
    for line in rows:
        m = re.match(r"(.+?)\s{2,}(\S+)\s+(\S+)\s+(pass|info)$", line)
        assert m, line
        values[m.group(1).strip()] = float(m.group(2))
    assert values["OpenSim subject01 hip moment, stance: correlation"] >= 0.9
    assert 0 < values["OpenSim subject01 knee moment, stance: RMS diff [N m]"] < 20
    assert values["vdB running hip moment: RMS err / peak [%]"] < 1.0
    assert values["reactions: augmented (E^T) vs classical, max rel"] < 1e-9
    assert values["mechanism four-bar p acceleration, pre-model vs classical [sig. figs]"] >= 7
    assert values["mechanism squeezer 7 angles at 0.03 s, embedded exact solve: max rel err"] <= 1e-7
    assert "48/48 rows pass" in out


def test_validate_missing_data_is_a_user_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--data", str(tmp_path / "nope"), "--out", str(tmp_path)]) == 2
    assert "data folder not found" in capsys.readouterr().err


def test_validate_incomplete_data_names_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "demotu-BMC").mkdir()
    assert main(["validate", "--data", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    assert "all.frc" in capsys.readouterr().err
