"""Shared fixtures: the licensed reference data folder, read in place (never copied)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """``$GAITBLOCKS_DATA`` or ``../shared/data`` beside the repository."""
    env = os.environ.get("GAITBLOCKS_DATA")
    path = Path(env) if env else REPO.parent / "shared" / "data"
    if not path.is_absolute():
        path = (REPO / path).resolve()
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = data_dir()
    if not path.is_dir():
        pytest.fail(f"reference data not found at {path}; set GAITBLOCKS_DATA to the shared/data folder")
    return path
