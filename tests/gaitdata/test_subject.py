"""Body height from the leg markers, checked against a subject of known height."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.gaitdata.subject import stature_from_legs


def test_height_of_winters_subject(shared_data: Path) -> None:
    """Winter's Table A.1 subject is 1.56 m tall (data README); hip, knee, ankle markers in cm."""
    d = np.loadtxt(shared_data / "demotu-BMC" / "WinterTableA1.txt", skiprows=2)

    def pt(col: int) -> dict[str, np.ndarray]:
        p = np.column_stack([d[:, col:col + 2] / 100.0, np.zeros(len(d))])
        return {"l": p, "r": p}

    h = stature_from_legs(pt(4), pt(6), pt(10))
    assert h == pytest.approx(1.56, rel=0.06)   # measured 1.49 m (-4.4 %): markers sit off the joint centres


def test_no_markers_or_implausible_gives_none() -> None:
    nan = {"l": np.full((5, 3), np.nan), "r": np.full((5, 3), np.nan)}
    assert stature_from_legs(nan, nan, nan) is None
    z = {"l": np.zeros((5, 3)), "r": np.zeros((5, 3))}
    assert stature_from_legs(z, z, z) is None
