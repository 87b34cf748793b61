"""Download known public walking trials into a local cache, checked against a sha256.

Each trial is fetched from its source repository at a fixed commit (the same snapshots as
the reference data the tests use), so the bytes never change and a checksum can prove it.
Files are cached in ``$GAITBLOCKS_CACHE_DIR``, else ``$XDG_CACHE_HOME/gaitblocks``, else
``~/.cache/gaitblocks``. ``urllib`` handles ``https://`` and ``file://`` alike; a mirror or a
local copy can stand in for the source with ``base_url`` (the file name is appended).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from models.errors import DataFormatError, UserError
from models.userdirs import user_dir

_OPENSIM = "https://raw.githubusercontent.com/opensim-org/opensim-core/0435b081dc383498e217f92ca63bb97616145c14/" \
           "Bindings/Python/tutorials/resources/"
_BMC = "https://raw.githubusercontent.com/demotu/BMC/1f1c1ab4e37c84bb3bd6de4ca352db6e0a057dc8/data/"
_CSU = "https://raw.githubusercontent.com/csu-hmc/GaitAnalysisToolKit/3f1c0a2bb69fff5775b71b1ed809515a6937d16c/" \
       "gaitanalysis/tests/data/"


@dataclass(frozen=True)
class RemoteFile:
    url: str
    sha256: str

    @property
    def filename(self) -> str:
        return self.url.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Trial:
    description: str
    licence: str
    files: tuple[RemoteFile, ...]
    run_hint: str


TRIALS: dict[str, Trial] = {
    "subject01": Trial(
        "OpenSim subject01, treadmill walking: both-foot GRF (600 Hz) + planar IK angles (60 Hz), 72.6 kg",
        "Apache-2.0 (opensim-org/opensim-core)",
        (RemoteFile(_OPENSIM + "Tutorial%205/subject01_walk1_grf.mot",
                    "c3b5b46c64e958832f402687c328ca0f6fe132ebd8ccdf613600c5422d4a2a81"),
         RemoteFile(_OPENSIM + "Tutorial%206/subject01_walk_IK.mot",
                    "10a3877abacf8c35049532d018b2bdfac7623234c8f1ce9f7a68f007f2c7c976")),
        "--grf {0} --kinematics {1} --mass 72.6"),
    "walk1": Trial(
        "Duarte BMC walk1: overground walking, 7 force plates (450 Hz) + 28 markers (150 Hz)",
        "CC BY 4.0 (Marcos Duarte, github.com/demotu/BMC)",
        (RemoteFile(_BMC + "walk1.forces", "43167df612825006041a8890b8f1d7c370554b3b48685800a4790d6c58537d38"),
         RemoteFile(_BMC + "walk1.trc", "95380674f5136cc0f0b07eb987776e6b96852742ee88ecb8550f6f340d33e46f")),
        "--grf {0} --kinematics {1}"),
    "csu_vertical_grf": Trial(
        "CSU GaitAnalysisToolKit: 55 s of one foot's vertical GRF on a treadmill (100 Hz), 46 strides",
        "Apache-2.0 (csu-hmc/GaitAnalysisToolKit)",
        (RemoteFile(_CSU + "example_vertical_grf.csv",
                    "3bbd4796f4f2bb794b79479f6e8cff25ab2b5e04329efba23f34e315e25920ea"),),
        "(one foot only: use `gaitblocks data info {0}`)"),
}


def cache_dir() -> Path:
    return user_dir("cache")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def fetch(name: str, cache: Path | None = None, base_url: str | None = None) -> list[Path]:
    """Paths of the trial's files in the cache, downloading and checking what is missing."""
    if name not in TRIALS:
        raise UserError(f"unknown trial {name!r}; known: {', '.join(TRIALS)}")
    folder = (cache or cache_dir()) / name
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for remote in TRIALS[name].files:
        target = folder / urllib.request.url2pathname(remote.filename)
        if target.is_file() and _sha256(target) == remote.sha256:
            paths.append(target)
            continue
        url = base_url.rstrip("/") + "/" + remote.filename if base_url else remote.url
        with tempfile.NamedTemporaryFile(dir=folder, delete=False) as tmp:
            try:
                with urllib.request.urlopen(url, timeout=60) as response:
                    shutil.copyfileobj(response, tmp)
            except (urllib.error.URLError, OSError, ValueError) as exc:
                Path(tmp.name).unlink(missing_ok=True)
                raise UserError(f"cannot download {url}: {getattr(exc, 'reason', exc)}") from None
        got = _sha256(Path(tmp.name))
        if got != remote.sha256:
            Path(tmp.name).unlink(missing_ok=True)
            raise DataFormatError(f"checksum mismatch: sha256 {got}, expected {remote.sha256}; not cached", path=url)
        os.replace(tmp.name, target)
        paths.append(target)
    return paths
