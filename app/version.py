"""The version of gaitblocks, as ``gaitblocks --version`` prints it.

The one place the version is written is ``[project] version`` in ``pyproject.toml`` (CHANGELOG.md
dates each version). Installed from a wheel, that file is not beside the code and the installed
package's metadata (``importlib.metadata.version("gaitblocks")``) carries it. From a checkout (an
editable install, or ``PYTHONPATH`` on the source) the checkout's ``pyproject.toml`` is read first:
an editable install's metadata keeps the version of the day it was installed, and would go stale
at the next release until ``pip install -e .`` is run again.
"""

from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

DIST_NAME = "gaitblocks"
_PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def pyproject_version(path: Path | None = None) -> str | None:
    """``[project] version`` of ``path`` (the checkout's) when it is gaitblocks' pyproject.toml, else None.

    Read with a regular expression, not ``tomllib`` (Python 3.11+; the project supports 3.10): the
    ``[project]`` table's ``name`` and ``version`` are one-line strings.
    """
    path = _PYPROJECT if path is None else path
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    table = re.search(r"^\[project\][ \t]*$(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
    if table is None:
        return None
    name = re.search(r"""^name\s*=\s*["']([^"']+)["']""", table.group(1), re.MULTILINE)
    version = re.search(r"""^version\s*=\s*["']([^"']+)["']""", table.group(1), re.MULTILINE)
    if name is None or version is None or name.group(1) != DIST_NAME:
        return None
    return version.group(1)


def version() -> str:
    """The checkout's ``pyproject.toml`` version, else the installed package's, else ``"unknown"``."""
    found = pyproject_version()
    if found is not None:
        return found
    try:
        return metadata.version(DIST_NAME)
    except metadata.PackageNotFoundError:
        return "unknown"
