"""``gaitblocks --version`` prints the version in pyproject.toml, the newest release in CHANGELOG.md."""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest

from app import version as version_module
from app.cli import main

REPO = Path(__file__).resolve().parents[2]


def _newest_release() -> str:
    """The first ``## X.Y.Z - YYYY-MM-DD`` heading of CHANGELOG.md (the one above is ``## Unreleased``)."""
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    found = re.search(r"^## (\d+\.\d+\.\d+) - \d{4}-\d{2}-\d{2}$", text, re.MULTILINE)
    assert found, "CHANGELOG.md has no dated release heading"
    return found.group(1)


def test_version_prints_the_pyproject_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    expected = version_module.pyproject_version(REPO / "pyproject.toml")
    assert expected == _newest_release()
    assert capsys.readouterr().out.strip() == f"gaitblocks {expected}"


def test_without_a_checkout_the_installed_metadata_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(version_module, "_PYPROJECT", tmp_path / "pyproject.toml")  # no such file
    monkeypatch.setattr(version_module.metadata, "version", lambda name: "7.8.9")
    assert version_module.version() == "7.8.9"

    def not_installed(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(version_module.metadata, "version", not_installed)
    assert version_module.version() == "unknown"


def test_another_projects_pyproject_is_not_read(tmp_path: Path) -> None:
    other = tmp_path / "pyproject.toml"
    other.write_text('[project]\nname = "other"\nversion = "3.0.0"\n', encoding="utf-8")
    assert version_module.pyproject_version(other) is None
    other.write_text('[tool.x]\nversion = "1"\n\n[project]\nname = "gaitblocks"\nversion = "2.1.0"\n\n[x]\n',
                     encoding="utf-8")
    assert version_module.pyproject_version(other) == "2.1.0"
