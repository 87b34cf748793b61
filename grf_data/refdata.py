"""Where the public reference recordings are: shipped in ``grf_data/reference``, or ``$GAITBLOCKS_DATA``.

The recordings the tests and ``gaitblocks validate`` read (Duarte's BMC data, OpenSim subject01,
the CSU GaitAnalysisToolKit) are package data of :mod:`grf_data` under ``reference/<source>/``,
each source with its README and licence text (``grf_data/reference/README.md``). The environment
variable ``GAITBLOCKS_DATA`` names another folder with the same sub-tree and then replaces it
(a relative path is taken from ``base``, the current directory unless given).

Files whose licence does not allow shipping them are listed in :data:`NOT_SHIPPED`; the code
that reads one skips its rows with :func:`not_shipped_note` when the folder lacks it.
"""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path

ENV = "GAITBLOCKS_DATA"

#: file (relative to the data folder) -> why it is not in the repository
NOT_SHIPPED: dict[str, str] = {
    "opensim-models/subject01_walk_ID.sto": "licence unclear: opensim-org/opensim-models has no licence file",
}


def shipped_dir() -> Path:
    """The reference folder inside the installed :mod:`grf_data` package."""
    return Path(str(resources.files("grf_data").joinpath("reference")))


def data_dir(base: Path | None = None) -> Path:
    """``$GAITBLOCKS_DATA`` (relative to ``base``, default the current directory) or :func:`shipped_dir`."""
    env = os.environ.get(ENV)
    if not env:
        return shipped_dir()
    path = Path(env)
    return path if path.is_absolute() or base is None else base / path


def not_shipped_note(relpath: str, what: str) -> str:
    """One line: ``what`` is not run, which file is missing, why, and how to supply it."""
    why = NOT_SHIPPED.get(relpath, "not in the data folder")
    return (f"{what} not run: {relpath} is not shipped ({why}); to run it set {ENV} to a folder "
            f"holding it beside the shipped ones (grf_data/reference/README.md)")
