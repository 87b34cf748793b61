"""Resolve a dataset name or file into a :class:`~models.dataset.GaitDataset`.

The bundled datasets and file importers live in ``grf_data.registry`` (``load_dataset``,
``DEFAULT_DATASET``, ``list_datasets``). It is imported lazily; where it is not installed,
only the built-in ``"demo"`` stand-in (:mod:`blocks.library.demo_input`) is available and
it is the default.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from models.dataset import GaitDataset
from models.errors import UserError

__all__ = ["check_dataset", "default_dataset_name", "dataset_registry", "resolve_dataset"]


def dataset_registry() -> ModuleType | None:
    """``grf_data.registry`` if it exists, else None."""
    try:
        return importlib.import_module("grf_data.registry")
    except ModuleNotFoundError as exc:
        if exc.name in ("grf_data.registry", "grf_data"):
            return None
        raise


def default_dataset_name() -> str:
    reg = dataset_registry()
    return str(reg.DEFAULT_DATASET) if reg is not None else "demo"


def resolve_dataset(spec: str = "") -> GaitDataset:
    """Bundled name, file path, ``"demo"``, or ``""`` for the default dataset."""
    from blocks.library.demo_input import DEMO_NAME, demo_dataset

    spec = spec or default_dataset_name()
    if spec == DEMO_NAME:
        return demo_dataset()
    reg = dataset_registry()
    if reg is None:
        raise UserError(f"dataset {spec!r}: the dataset registry (grf_data.registry) is not available yet; "
                        f"only the built-in '{DEMO_NAME}' dataset can be used")
    ds = reg.load_dataset(spec)
    if not isinstance(ds, GaitDataset):
        raise UserError(f"dataset {spec!r}: the registry returned {type(ds).__name__}, not a GaitDataset")
    return ds


def check_dataset(spec: str = "") -> None:
    """Raise the :class:`UserError` of an unknown dataset name or a missing file without reading data."""
    spec = spec or default_dataset_name()
    reg = dataset_registry()
    if spec != "demo" and reg is not None:
        reg.check_dataset(spec)
