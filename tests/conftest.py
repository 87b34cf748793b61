"""Shared fixtures: the licensed reference data folder, read in place (never copied).

Tests that need it take the ``shared_data`` fixture. Without the folder they are deselected and
the summary says so in one line that names the folder and the variable to set.
"""

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


MISSING = (f"shared gait data not found at {data_dir()}: "
           "set GAITBLOCKS_DATA to the shared/data folder to run the data-dependent tests")


_NOT_RUN: list[pytest.Item] = []


def pytest_report_header(config: pytest.Config) -> str:
    return f"gaitblocks shared data: {data_dir()}" if data_dir().is_dir() else MISSING


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if data_dir().is_dir():
        return
    _NOT_RUN[:] = [it for it in items if "shared_data" in getattr(it, "fixturenames", ())]
    if _NOT_RUN:
        items[:] = [it for it in items if it not in _NOT_RUN]
        config.hook.pytest_deselected(items=_NOT_RUN)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _NOT_RUN:
        terminalreporter.write_line(f"{len(_NOT_RUN)} data-dependent tests not run: {MISSING}", yellow=True)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    path = data_dir()
    if not path.is_dir():
        pytest.skip(MISSING)
    return path
