"""Resolve a dataset name or file into a :class:`~models.dataset.GaitDataset`.

The bundled datasets and file importers live in ``grf_data.registry`` (``load_dataset``,
``DEFAULT_DATASET``, ``list_datasets``, ``check_dataset``), imported when first needed.
"""

from __future__ import annotations

from types import ModuleType

from models.dataset import GaitDataset

__all__ = ["check_dataset", "default_dataset_name", "dataset_registry", "resolve_dataset"]


def dataset_registry() -> ModuleType:
    """``grf_data.registry``."""
    from grf_data import registry

    return registry


def default_dataset_name() -> str:
    return str(dataset_registry().DEFAULT_DATASET)


def resolve_dataset(spec: str = "") -> GaitDataset:
    """Bundled or registered name, file path, ``GRF|KINEMATICS`` pair, or ``""`` for the default dataset."""
    data: GaitDataset = dataset_registry().load_dataset(spec or default_dataset_name())
    return data


def check_dataset(spec: str = "") -> None:
    """Raise the :class:`~models.errors.UserError` of an unknown dataset name or a missing file
    without reading data."""
    dataset_registry().check_dataset(spec or default_dataset_name())
