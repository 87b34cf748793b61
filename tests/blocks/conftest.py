"""Helpers shared by the engine tests: small in-memory datasets."""

from __future__ import annotations

import numpy as np
import pytest

from models.dataset import DatasetMeta, GaitDataset


def sine_dataset(mass: float = 70.0, rate: float = 500.0, duration: float = 2.0) -> GaitDataset:
    """GRF and angles made of known sines (for interpolation, scaling and rate checks)."""
    t = np.arange(int(duration * rate) + 1) / rate
    w = 2 * np.pi * 1.5
    grf = np.column_stack([10 * np.sin(w * t), 600 + 100 * np.sin(w * t), -10 * np.cos(w * t), 300 + 0 * t])
    angles = np.column_stack([0.05 * np.sin(w * t), 0.3 * np.sin(w * t), -0.2 * np.cos(w * t),
                              0.4 + 0.1 * np.sin(w * t), 0.2 + 0 * t])
    return GaitDataset(t=t, grf=grf, meta=DatasetMeta("sines", body_mass_kg=mass, synthetic=True), angles=angles)


@pytest.fixture
def sines() -> GaitDataset:
    return sine_dataset()
