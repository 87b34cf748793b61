"""Dataset registry: the bundled synthetic footwear sets, user-registered files, and any path.

* Bundled datasets are package data of :mod:`grf_data` (``<name>.csv`` + ``<name>.json``),
  found with :mod:`importlib.resources`.
* Registered datasets map a name to a file path, optionally with a kinematics file and the
  subject's mass [kg] and height [m]; they persist in ``datasets.json`` in the user
  configuration folder: ``$GAITBLOCKS_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/gaitblocks``, else
  ``~/.config/gaitblocks``. An entry is either a path string or
  ``{"grf": path, "kinematics": path|null, "mass_kg": float|null, "height_m": float|null}`` (optionally
  with the window ``"start_s"``/``"end_s"`` to use, s).
* Any other spec is a file path, or a pair of files ``"GRF_FILE|KINEMATICS_FILE"`` (the form
  a block's ``dataset`` parameter takes for a recording with a separate angles file). A CSV
  with a ``gaitblocks-synthetic-gait`` JSON sidecar is read here; every other format goes to
  :func:`models.gaitdata.load_trial` (imported when needed).
"""

from __future__ import annotations

import io
import json
import math
import os
import re
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from models.dataset import KINEMATICS_FROM, DatasetMeta, GaitDataset
from models.errors import DataFormatError, UserError
from models.kept import Kept, digest
from models.userdirs import user_dir

DEFAULT_DATASET = "sneakers"
BUNDLED = ("barefoot", "sneakers", "high_heels")
SYNTHETIC_FORMAT = "gaitblocks-synthetic-gait"
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
PAIR_SEPARATOR = "|"  # "GRF_FILE|KINEMATICS_FILE"
_ENTRY_KEYS = {"grf", "kinematics", "mass_kg", "height_m", "start_s", "end_s"}
_TABLES: Kept[tuple[list[str], np.ndarray]] = Kept(8)   # read_synthetic's last parsed tables, by content

__all__ = ["DEFAULT_DATASET", "BUNDLED", "config_dir", "list_datasets", "load_dataset", "register_dataset",
           "unregister_dataset", "read_synthetic", "bundled_path", "check_dataset"]


def config_dir() -> Path:
    """The user configuration folder of gaitblocks (not created here; :func:`models.userdirs.user_dir`)."""
    return user_dir("config")


def _registry_file() -> Path:
    return config_dir() / "datasets.json"


def _valid_entry(value: Any) -> bool:
    if isinstance(value, str):
        return True
    return (isinstance(value, dict) and set(value) <= _ENTRY_KEYS and isinstance(value.get("grf"), str)
            and (value.get("kinematics") is None or isinstance(value["kinematics"], str))
            and all(value.get(k) is None or (isinstance(value[k], (int, float)) and not isinstance(value[k], bool))
                    for k in ("mass_kg", "height_m", "start_s", "end_s")))


def _registered() -> dict[str, dict[str, Any]]:
    """Registered entries, each as ``{"grf", "kinematics", "mass_kg", "height_m"}`` (module doc)."""
    path = _registry_file()
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"{path}: cannot read the dataset registry ({exc}); fix or delete the file") from exc
    if not isinstance(data, dict) or not all(isinstance(k, str) and _valid_entry(v) for k, v in data.items()):
        raise UserError(f"{path}: the dataset registry must be a JSON object of name -> path or "
                        f'{{"grf": path, "kinematics": path|null, "mass_kg": number|null, "height_m": number|null}}')
    return {k: ({"grf": v} if isinstance(v, str) else dict(v)) for k, v in data.items()}


def _write_registry(entries: dict[str, dict[str, Any]]) -> Path:
    reg = _registry_file()
    reg.parent.mkdir(parents=True, exist_ok=True)
    # an entry with nothing but its file is written as a plain path (the original format)
    plain = {k: v["grf"] if all(v.get(key) is None for key in _ENTRY_KEYS - {"grf"}) else v
             for k, v in entries.items()}
    reg.write_text(json.dumps(plain, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return reg


def bundled_path(name: str) -> Path:
    """Path of the bundled CSV ``name`` (package data of :mod:`grf_data`)."""
    return Path(str(resources.files("grf_data").joinpath(f"{name}.csv")))


def register_dataset(name: str, path: str | os.PathLike[str], kinematics: str | os.PathLike[str] | None = None,
                     mass: float | None = None, height: float | None = None, start: float | None = None,
                     end: float | None = None) -> Path:
    """Remember ``name`` -> ``path`` (made absolute) in the user registry, with an optional
    kinematics file, the subject's ``mass`` [kg] and ``height`` [m] and the window ``start``/``end``
    [s] to use; returns the registry file."""
    if not _NAME.match(name):
        raise UserError(f"dataset name {name!r} must start with a letter and hold only letters, digits, '_', '-', '.'")
    if name in BUNDLED:
        raise UserError(f"dataset name {name!r} is taken by a bundled dataset ({', '.join(BUNDLED)})")
    files = []
    for label, p in (("data", path), ("kinematics", kinematics)):
        target = None if p is None else Path(p).expanduser().resolve()
        if target is not None and not target.is_file():
            raise UserError(f"cannot register {name!r}: {label} file {target} is not a file")
        files.append(None if target is None else str(target))
    for label, value in (("mass", mass), ("height", height)):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise UserError(f"cannot register {name!r}: {label} must be a positive number, got {value}")
    for label, value in (("start", start), ("end", end)):
        if value is not None and not math.isfinite(value):
            raise UserError(f"cannot register {name!r}: window {label} must be a number of seconds, got {value}")
    if start is not None and end is not None and end <= start:
        raise UserError(f"cannot register {name!r}: window end {end} s is not after its start {start} s")
    entries = _registered()
    entries[name] = {"grf": files[0], "kinematics": files[1], "mass_kg": mass, "height_m": height}
    entries[name].update({k: v for k, v in (("start_s", start), ("end_s", end)) if v is not None})
    return _write_registry(entries)


def unregister_dataset(name: str) -> None:
    """Forget a registered dataset (bundled ones cannot be removed)."""
    entries = _registered()
    if name not in entries:
        raise UserError(f"no registered dataset named {name!r}; registered: {', '.join(sorted(entries)) or 'none'}")
    del entries[name]
    _write_registry(entries)


def _sidecar(csv_path: Path) -> dict[str, Any] | None:
    side = csv_path.with_suffix(".json")
    if csv_path.suffix.lower() != ".csv" or not side.is_file():
        return None
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DataFormatError(f"cannot read the JSON sidecar ({exc})", path=side) from exc
    return meta if isinstance(meta, dict) and meta.get("format") == SYNTHETIC_FORMAT else None


def list_datasets() -> list[dict[str, Any]]:
    """Bundled then registered datasets: name, path, footwear, synthetic, rate_hz, duration_s, description.

    Numbers unknown without reading a whole recording are ``None``.
    """
    rows = []
    entries = [(name, bundled_path(name), "bundled") for name in BUNDLED]
    entries += [(name, Path(e["grf"]), "registered") for name, e in sorted(_registered().items())]
    for name, path, kind in entries:
        meta = _sidecar(path) if path.is_file() else None
        rows.append({
            "name": name, "path": str(path), "kind": kind,
            "footwear": meta.get("footwear") if meta else None,
            "synthetic": bool(meta.get("synthetic")) if meta else False,
            "rate_hz": meta.get("rate_hz") if meta else None,
            "duration_s": meta.get("duration_s") if meta else None,
            "description": (meta.get("description", "") if meta else
                            ("" if path.is_file() else "missing file")),
        })
    return rows


def _table(csv_path: Path) -> tuple[list[str], np.ndarray]:
    """The column names and a new copy of the numbers of ``csv_path``; a text parsed before is copied from
    the last tables kept, by its BLAKE2 digest (every compile of a window reads its dataset: 17 ms to parse)."""
    def parse() -> tuple[list[str], np.ndarray]:
        text = data.decode("utf-8")
        return text.split("\n", 1)[0].strip().split(","), np.loadtxt(io.StringIO(text), delimiter=",", skiprows=1,
                                                                      ndmin=2)

    try:
        data = csv_path.read_bytes()
        header, table = _TABLES.get(digest(data), parse)
    except (OSError, ValueError) as exc:
        raise DataFormatError(f"cannot read the table ({exc})", path=csv_path) from exc
    return list(header), table.copy()


def read_synthetic(csv_path: Path, meta: dict[str, Any]) -> GaitDataset:
    """Read a CSV written by :mod:`models.gaitgen` (header of column names, see grf_data/README.md)."""
    header, table = _table(csv_path)
    col = {name: i for i, name in enumerate(header)}
    needed = ("time", "F_lx", "F_ly", "F_rx", "F_ry", "x0", "y0", "alpha", "beta_l", "beta_r", "gamma_l", "gamma_r")
    for name in needed:
        if name not in col:
            raise DataFormatError("missing column", path=csv_path, line=1, column=name)
    if table.shape[1] != len(header):
        raise DataFormatError(f"{table.shape[1]} values per row but {len(header)} column names", path=csv_path)
    q = table[:, [col[c] for c in needed[5:]]]
    cop = (table[:, [col["cop_lx"], col["cop_rx"]]] if "cop_lx" in col and "cop_rx" in col else None)
    keys = ("generator", "parameters", "rate_hz", "period_s", "cadence_spm", "stride_m", "n_cycles", "initial_q",
            "initial_qd", "derived", "citations")
    extra: dict[str, Any] = {k: meta[k] for k in keys if k in meta}
    extra["path"] = str(csv_path)
    info = DatasetMeta(
        name=str(meta.get("name", csv_path.stem)), body_mass_kg=meta.get("body_mass_kg"),
        height_m=meta.get("height_m"), speed_m_s=meta.get("speed_m_s"), footwear=meta.get("footwear"),
        source=str(meta.get("source", "")), licence=str(meta.get("licence", "")),
        synthetic=bool(meta.get("synthetic", False)), notes=str(meta.get("description", "")), extra=extra,
    )
    return GaitDataset(t=table[:, col["time"]], grf=table[:, [col[c] for c in needed[1:5]]], meta=info,
                       angles=q[:, 2:7].copy(), q=q, cop_x=cop)


def reference_torques(ds: GaitDataset) -> np.ndarray | None:
    """Inverse-dynamics joint torques ``(N, 4)`` [N m] stored with a synthetic dataset, else None."""
    path = ds.meta.extra.get("path")
    if not path:
        return None
    with open(path, encoding="utf-8") as fh:
        header = fh.readline().strip().split(",")
    names = ("tau_hip_l", "tau_hip_r", "tau_knee_l", "tau_knee_r")
    if not all(n in header for n in names):
        return None
    return np.loadtxt(path, delimiter=",", skiprows=1, usecols=[header.index(n) for n in names], ndmin=2)


def _scale(ds: GaitDataset, mass: float | None, height: float | None) -> GaitDataset:
    r"""Dynamically similar copy for another subject: lengths x ``lam``, time x ``sqrt(lam)``, forces x ``mu``.

    With every length scaled by ``lam = height / height_0`` and every mass by ``mu = mass / mass_0``
    under the same gravity, the equations of motion stay satisfied (Froude similarity): angles are
    unchanged, accelerations too, forces scale by ``mu`` and torques by ``mu lam``.
    """
    from dataclasses import replace

    m0, h0 = ds.meta.body_mass_kg, ds.meta.height_m
    for value, label in ((mass, "mass"), (height, "height")):
        if value is not None and not (math.isfinite(value) and value > 0):
            raise UserError(f"body {label} must be a positive number, got {value!r}")
    mu = 1.0 if mass is None or not m0 else mass / m0
    lam = 1.0 if height is None or not h0 else height / h0
    if mu == 1.0 and lam == 1.0:
        return ds
    q = None if ds.q is None else ds.q * np.array([lam, lam, 1, 1, 1, 1, 1])
    cop = None if ds.cop_x is None else ds.cop_x * lam
    meta = replace(ds.meta, body_mass_kg=mass if mass is not None else m0,
                   height_m=height if height is not None else h0,
                   speed_m_s=None if ds.meta.speed_m_s is None else ds.meta.speed_m_s * math.sqrt(lam),
                   extra={**ds.meta.extra, "scaled": {"mass_ratio": mu, "length_ratio": lam}})
    return replace(ds, t=ds.t * math.sqrt(lam), grf=ds.grf * mu, q=q, cop_x=cop, meta=meta)


def swap_kinematics(grf_ds: GaitDataset, kin_ds: GaitDataset) -> GaitDataset:
    """``grf_ds``'s GRF with ``kin_ds``'s reference motion, read at the same gait phase (:mod:`models.phase_warp`).

    The result keeps the GRF's clock; it is cropped to where the phase map stays inside the
    kinematics recording. Its name is ``GRF|KINEMATICS``.
    """
    from dataclasses import replace

    from models.phase_warp import gait_events, phase_map

    if kin_ds.reference_angles() is None:
        raise UserError(f"dataset {kin_ds.name!r} has no joint angles to use as kinematics")
    try:
        tau = phase_map(grf_ds.t, gait_events(grf_ds.t, grf_ds.grf), gait_events(kin_ds.t, kin_ds.grf))
    except ValueError as exc:
        raise UserError(f"cannot pair {grf_ds.name!r} with {kin_ds.name!r} by gait phase: {exc}") from None
    keep = (tau >= kin_ds.t[0]) & (tau <= kin_ds.t[-1])
    if keep.sum() < 2:
        raise UserError(f"{grf_ds.name!r} and {kin_ds.name!r} share no gait phase")

    def warp(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else np.column_stack([np.interp(tau[keep], kin_ds.t, c) for c in a.T])

    meta = replace(grf_ds.meta, name=f"{grf_ds.name}{PAIR_SEPARATOR}{kin_ds.name}",
                   notes=f"GRF of {grf_ds.name}, kinematics of {kin_ds.name} followed by gait phase",
                   extra={**grf_ds.meta.extra, KINEMATICS_FROM: kin_ds.name,
                          "phase_map": {"grf_events": len(gait_events(grf_ds.t, grf_ds.grf))}})
    return replace(grf_ds, t=grf_ds.t[keep], grf=grf_ds.grf[keep], meta=meta,
                   angles=warp(kin_ds.reference_angles()), q=warp(kin_ds.q),
                   cop_x=None if grf_ds.cop_x is None else grf_ds.cop_x[keep])


Located = tuple[Path, "str | os.PathLike[str] | None", "float | None", "float | None", "float | None", "float | None"]


def _locate(spec: str | os.PathLike[str], kinematics: str | os.PathLike[str] | None, mass: float | None,
            height: float | None, start: float | None = None, end: float | None = None) -> Located:
    """The GRF file of ``spec`` and its kinematics, mass, height and window (a registered entry's where
    the call gives none); :class:`UserError` naming the known datasets when there is no such name or file."""
    text = os.fspath(spec)
    registered = _registered()
    if text in BUNDLED:
        path = bundled_path(text)
    elif text in registered:
        entry = registered[text]
        path = Path(entry["grf"])
        kinematics = kinematics if kinematics is not None else entry.get("kinematics")
        mass = mass if mass is not None else entry.get("mass_kg")
        height = height if height is not None else entry.get("height_m")
        if start is None and end is None:
            start, end = entry.get("start_s"), entry.get("end_s")
    elif PAIR_SEPARATOR in text and not Path(text).expanduser().exists():
        grf_file, _, kin_file = text.partition(PAIR_SEPARATOR)
        if kinematics is not None:
            raise UserError(f"{text!r} already names a kinematics file; drop the separate one")
        return _locate(grf_file.strip(), kin_file.strip() or None, mass, height, start, end)
    else:
        path = Path(text).expanduser()
        if not path.exists():
            looks_like_name = os.sep not in text and "/" not in text and not Path(text).suffix
            known = ", ".join(list(BUNDLED) + sorted(registered))
            if looks_like_name:
                raise UserError(f"unknown dataset {text!r}; known datasets: {known} (or give a file path)")
            raise UserError(f"{text}: no such file (known datasets: {known})")
    if not path.is_file():
        raise UserError(f"{path}: not a file")
    return path, kinematics, mass, height, start, end


def check_dataset(spec: str | os.PathLike[str], kinematics: str | os.PathLike[str] | None = None) -> None:
    """Raise the :class:`UserError` :func:`load_dataset` would raise for an unknown name or a missing
    file, without reading any data (commands call it before simulating)."""
    _locate(spec, kinematics, None, None)


def load_dataset(spec: str | os.PathLike[str], kinematics: str | os.PathLike[str] | None = None,
                 mass: float | None = None, height: float | None = None, start: float | None = None,
                 end: float | None = None) -> GaitDataset:
    """A bundled name, a registered name, a file path or a ``GRF|KINEMATICS`` pair -> :class:`GaitDataset`.

    ``mass`` [kg] / ``height`` [m] scale a synthetic dataset to the subject (:func:`_scale`);
    for recordings they are passed to the importer. ``kinematics`` names a separate angles file
    (a recording), or another dataset whose reference motion a synthetic set's GRF then follows by
    gait phase (:func:`swap_kinematics`). A registered entry supplies its stored kinematics, mass,
    height and window where the call gives none. ``start``/``end`` [s] pick the window: recordings
    are cropped before their gaps are filled and checked (:mod:`models.gaitdata.window`); synthetic
    sets are cropped.
    """
    path, kinematics, mass, height, start, end = _locate(spec, kinematics, mass, height, start, end)
    meta = _sidecar(path)
    if meta is not None:
        own = _scale(read_synthetic(path, meta), mass, height)
        if kinematics is not None:
            own = swap_kinematics(own, load_dataset(kinematics, mass=mass, height=height))
        if start is None and end is None:
            return own
        try:
            return own.crop(start, end)
        except ValueError as exc:
            raise UserError(f"window: {exc}") from None
    from models import gaitdata

    kin = None if kinematics is None else Path(kinematics)
    loaded: GaitDataset = gaitdata.load_trial(path, kinematics=kin, mass=mass, height=height, start=start, end=end)
    return loaded
