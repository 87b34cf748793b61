"""Cortex .forces + .trc on the real demotu-BMC walk1/walk2 trials (figures: shared/data/README.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.gaitdata import load_trial, read_kinematics
from models.gaitdata.cortex import read_forces_text

# README: walk1 plates 6 (Left, samples 96-387), 5 (Right, 343-631), 3 (Left, 592-879), 4 (Right, 837-1091)
WALK1 = [(6, "l", 96, 387), (5, "r", 343, 631), (3, "l", 592, 879), (4, "r", 837, 1091)]


@pytest.fixture(scope="module")
def walk1(shared_data: Path):
    d = shared_data / "demotu-BMC"
    return load_trial(d / "walk1.forces", kinematics=d / "walk1.trc")


def test_walk1_plate_windows_and_feet(shared_data: Path) -> None:
    f = shared_data / "demotu-BMC" / "walk1.forces"
    kin = read_kinematics(shared_data / "demotu-BMC" / "walk1.trc")
    rec = read_forces_text(f.read_text(), str(f), kinematics=kin)
    got = [(x["plate"], x["foot"], x["first"], x["last"]) for x in rec.footfalls]
    assert len(got) == len(WALK1)
    for (p, s, a, b), (gp, gs, ga, gb) in zip(WALK1, got):
        assert (gp, gs) == (p, s)
        assert abs(ga - a) <= 1 and abs(gb - b) <= 1
    assert rec.rate_hz == 450.0


def test_walk1_sibling_trc_used_without_kinematics(shared_data: Path) -> None:
    ds = load_trial(shared_data / "demotu-BMC" / "walk1.forces")
    assert "plate 6 L" in ds.meta.extra["channels"]["footfalls"]
    assert any("walk1.trc" in w for w in ds.meta.extra["warnings"])


def test_walk1_grf_and_bw(walk1) -> None:
    # left foot carries plates 6 + 3, right 5 + 4; vertical peaks 851/836 N (L) and 802/816 N (R)
    assert walk1.grf[:, 1].max() == pytest.approx(851.0, abs=1.0)
    assert walk1.grf[:, 3].max() == pytest.approx(816.0, abs=1.0)
    # BW over the right stride 343-837, where both feet are on plates the whole time: 750 N.
    # (README's 721 N averages the left stride 96-592, which misses the right foot's push-off
    # on the unmeasured floor just after sample 96, so it runs ~30 N low.)
    assert walk1.meta.extra["bw_estimate_n"] == pytest.approx(750.4, abs=1.0)
    # walking along +X: braking (negative Fx) in the first fifth of the first left stance
    i0 = 96
    assert walk1.grf[i0 + 10:i0 + 50, 0].mean() < -30.0
    # COP moves forward, plate after plate
    assert np.nanmin(walk1.cop_x[:, 0]) < 0.5 < 1.6 < np.nanmax(walk1.cop_x[:, 0])


def test_walk1_marker_angles(walk1) -> None:
    deg = np.degrees(walk1.angles)
    # README: knee peak flexion about 55-58 deg (markers on the epicondyles/malleoli)
    assert deg[:, 3].max() == pytest.approx(57.1, abs=0.3)
    assert deg[:, 4].max() == pytest.approx(58.8, abs=0.3)
    assert 54.0 < deg[:, 3].max() < 60.0
    # no trunk markers in walk1.trc: alpha = 0 and beta is the thigh's forward swing
    assert np.all(deg[:, 0] == 0.0)
    assert -20.0 < deg[:, 1].min() < -10.0 and 18.0 < deg[:, 1].max() < 26.0
    assert "no shoulder" in " ".join(walk1.meta.extra["warnings"])


def test_walk2_sides(shared_data: Path) -> None:
    d = shared_data / "demotu-BMC"
    ds = load_trial(d / "walk2.forces", kinematics=d / "walk2.trc")
    # README: plates 6 (Right), 5 (Left), 3 (Right); plate 4 only 42 samples at the end
    feet = ds.meta.extra["channels"]["footfalls"]
    assert feet.startswith("plate 6 R") and "plate 5 L" in feet and "plate 3 R" in feet
    assert "plate 4 L samples 711-752" in feet
    assert "V_R.TT" in " ".join(ds.meta.extra["warnings"])  # duplicated marker name, renamed
