"""Shared fixtures and the settings the suite needs, so a bare ``pytest -q`` works on a fresh clone.

* Qt runs offscreen and matplotlib on Agg: ``QT_QPA_PLATFORM`` and ``MPLBACKEND`` are set here,
  before any test module imports Qt or matplotlib (an explicit value in the environment wins);
  ``NUMBA_NUM_THREADS`` is 1 (below), so batches step serially unless a test asks otherwise.
* The reference recordings: tests that need them take the ``shared_data`` fixture, the folder of
  :func:`grf_data.refdata.data_dir` (``$GAITBLOCKS_DATA``, relative to the repository, else the
  data shipped in ``grf_data/reference``). If ``GAITBLOCKS_DATA`` names a folder that does not
  exist, those tests are deselected and the summary says so in one line.
* Tests that need a file not shipped for its licence (``grf_data.refdata.NOT_SHIPPED``) take the
  ``full_data`` fixture: they carry the ``unshipped_data`` marker and are skipped, with the file
  and how to supply it, when the folder lacks it. ``.ci/run`` runs them again with
  ``GAITBLOCKS_DATA=../shared/data -m unshipped_data``.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("MPLBACKEND", "Agg")
# One numba thread per test process (the README's command runs two pytest-xdist workers on two cores):
# batches then step serially, and the parallel step variant, whose first compile costs about twice
# the serial one's, compiles only where a test asks for it (tests/blocks/test_compiled_batch.py).
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from pathlib import Path

import pytest

from grf_data import refdata

REPO = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    """``$GAITBLOCKS_DATA`` (relative to the repository) or the shipped ``grf_data/reference``."""
    return refdata.data_dir(base=REPO).resolve()


MISSING = (f"reference data not found at {data_dir()}: "
           f"GAITBLOCKS_DATA names a folder that does not exist (unset it to use grf_data/reference)")


_NOT_RUN: list[pytest.Item] = []


def pytest_report_header(config: pytest.Config) -> str:
    return f"gaitblocks reference data: {data_dir()}" if data_dir().is_dir() else MISSING


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for it in items:
        if "full_data" in getattr(it, "fixturenames", ()):
            it.add_marker(pytest.mark.unshipped_data)
    if data_dir().is_dir():
        return
    _NOT_RUN[:] = [it for it in items if {"shared_data", "full_data"} & set(getattr(it, "fixturenames", ()))]
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


@pytest.fixture(scope="session")
def full_data(shared_data: Path) -> Path:
    """The data folder, holding every file of ``NOT_SHIPPED`` too (else the test is skipped with a note)."""
    for rel in refdata.NOT_SHIPPED:
        if not (shared_data / rel).is_file():
            pytest.skip(refdata.not_shipped_note(rel, "this test"))
    return shared_data


@pytest.fixture
def default_sigint() -> Iterator[None]:
    """SIGINT to Python's default handler for one test, then back: an in-process command installs its
    Ctrl+C handler only over that default, and a pytest started in the background by a shell, or a
    pytest-xdist worker, may ignore SIGINT."""
    original = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, original)
