"""Regenerating a bundled dataset reproduces the committed file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from grf_data.registry import bundled_path
from models.gaitgen.generate import main


@pytest.mark.slow
def test_regeneration_reproduces_committed_sneakers(tmp_path: Path) -> None:
    assert main(["--out", str(tmp_path), "--only", "sneakers"]) == 0
    new = np.genfromtxt(tmp_path / "sneakers.csv", delimiter=",", skip_header=1)
    old = np.genfromtxt(bundled_path("sneakers"), delimiter=",", skip_header=1)
    assert new.shape == old.shape
    assert np.allclose(new, old, rtol=1e-5, atol=1e-6, equal_nan=True)
    meta_new = json.loads((tmp_path / "sneakers.json").read_text())
    meta_old = json.loads(bundled_path("sneakers").with_suffix(".json").read_text())
    assert meta_new["parameters"] == meta_old["parameters"]
