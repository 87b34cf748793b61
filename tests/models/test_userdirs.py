from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from models.userdirs import user_dir


@pytest.mark.parametrize(("kind", "own", "xdg", "fallback"), [
    ("config", "GAITBLOCKS_CONFIG_DIR", "XDG_CONFIG_HOME", ".config"),
    ("cache", "GAITBLOCKS_CACHE_DIR", "XDG_CACHE_HOME", ".cache"),
])
def test_override_then_xdg_then_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: Any, own: str,
                                     xdg: str, fallback: str) -> None:
    monkeypatch.setenv(own, str(tmp_path / "own"))
    monkeypatch.setenv(xdg, str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_dir(kind) == tmp_path / "own"
    monkeypatch.delenv(own)
    assert user_dir(kind) == tmp_path / "xdg" / "gaitblocks"
    monkeypatch.delenv(xdg)
    assert user_dir(kind) == tmp_path / "home" / fallback / "gaitblocks"
