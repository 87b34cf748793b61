"""``gaitblocks data fetch`` offline: a file:// copy of the source stands in for the network."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main
from models.errors import DataFormatError, UserError
from models.gaitdata.fetch import TRIALS, fetch


def test_fetch_checks_sha256_and_caches(shared_data: Path, tmp_path: Path) -> None:
    src = (shared_data / "demotu-BMC").resolve().as_uri()
    paths = fetch("walk1", cache=tmp_path, base_url=src)
    assert [p.name for p in paths] == ["walk1.forces", "walk1.trc"]
    assert paths[0].read_bytes() == (shared_data / "demotu-BMC" / "walk1.forces").read_bytes()
    # a second call uses the cache: it works even with a source that does not exist
    assert fetch("walk1", cache=tmp_path, base_url="file:///nonexistent") == paths


def test_fetch_rejects_wrong_bytes(tmp_path: Path) -> None:
    fake = tmp_path / "src"
    fake.mkdir()
    (fake / "example_vertical_grf.csv").write_text("0,1\n")
    with pytest.raises(DataFormatError, match="checksum mismatch"):
        fetch("csu_vertical_grf", cache=tmp_path / "cache", base_url=fake.as_uri())
    assert not any((tmp_path / "cache" / "csu_vertical_grf").iterdir())


def test_fetch_errors_are_clear(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="unknown trial 'nope'"):
        fetch("nope", cache=tmp_path)
    with pytest.raises(UserError, match="cannot download"):
        fetch("walk1", cache=tmp_path, base_url=(tmp_path / "missing").as_uri())


def test_fetch_cli_prints_paths_and_run_hint(shared_data: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    src = (shared_data / "opensim-core").resolve().as_uri()
    assert main(["data", "fetch", "subject01", "--cache", str(tmp_path), "--from", src]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("subject01_walk1_grf.mot") and out[1].endswith("subject01_walk_IK.mot")
    assert out[2].startswith("run it: gaitblocks run --grf ") and "--mass 72.6" in out[2]
    assert main(["data", "fetch", "--list"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(TRIALS)
