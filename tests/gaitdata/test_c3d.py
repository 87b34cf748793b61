"""C3D through ezc3d: a small synthetic file written in the test and read back."""

from __future__ import annotations

from pathlib import Path

import ezc3d
import numpy as np
import pytest

from models.errors import DataFormatError
from models.gaitdata import load_trial
from tests.gaitdata.c3d_writer import _param, stance

RATE, SUB, N = 100.0, 4, 200          # 2 s of markers at 100 Hz, analogs at 400 Hz
SPEED = 1.2                            # m/s along -Y of the lab (Z up)


def write_c3d(path: Path) -> None:
    """Walking along -Y; left heel lands on plate 1 (rotated 180 deg about Z), right on plate 2."""
    c = ezc3d.c3d()
    t = np.arange(N) / RATE
    y_pelvis = 1.0 - SPEED * t
    names, pts = [], []

    def marker(name: str, xyz: np.ndarray) -> None:
        names.append(name)
        pts.append(xyz * 1000.0)

    for side, x in (("L", -0.1), ("R", 0.1)):
        marker(f"{side}ASI", np.column_stack([x + 0 * t, y_pelvis - 0.1, 1.0 + 0 * t]))
        marker(f"{side}PSI", np.column_stack([x / 2 + 0 * t, y_pelvis + 0.1, 1.05 + 0 * t]))
        marker(f"{side}GTR", np.column_stack([x * 1.5 + 0 * t, y_pelvis, 0.9 + 0 * t]))
        marker(f"{side}KNE", np.column_stack([x + 0 * t, y_pelvis - 0.1, 0.5 + 0 * t]))
        marker(f"{side}ANK", np.column_stack([x + 0 * t, y_pelvis, 0.1 + 0 * t]))
        heel_y = np.full(N, 0.5 if side == "L" else -0.3)  # heel parked where its plate is
        marker(f"{side}HEE", np.column_stack([x + 0 * t, heel_y, 0.05 + 0 * t]))
        marker(f"{side}TOE", np.column_stack([x + 0 * t, heel_y - 0.2, 0.05 + 0 * t]))
    for side in "LR":
        for j, val in (("Hip", 20.0), ("Knee", 30.0), ("Pelvis", 5.0)):
            names.append(f"{side}{j}Angles")
            pts.append(np.column_stack([np.full(N, val), np.zeros(N), np.zeros(N)]))
    p = np.ones((4, len(names), N))
    p[:3] = np.stack(pts, axis=1).transpose(2, 1, 0)
    c["parameters"]["POINT"]["RATE"]["value"] = [RATE]
    c["parameters"]["POINT"]["LABELS"]["value"] = tuple(names)
    c["parameters"]["POINT"]["UNITS"]["value"] = ["mm"]
    c["data"]["points"] = p
    ta = np.arange(N * SUB) / (RATE * SUB)
    an = np.zeros((1, 12, N * SUB))
    # plate frames z down; plate 1 is plate 2 turned 180 deg about Z
    fl, fr = stance(ta, 0.2, 0.8), stance(ta, 0.7, 1.3)
    an[0, 1] = -0.1 * fl       # plate-1 +y = lab +Y = backward: a forward push is -y
    an[0, 2] = -fl             # plate z down: -Fz = upward on the foot
    an[0, 7] = -0.1 * fr       # plate-2 +y = lab -Y = forward: braking is -y
    an[0, 8] = -fr
    c["parameters"]["ANALOG"]["RATE"]["value"] = [RATE * SUB]
    c["parameters"]["ANALOG"]["LABELS"]["value"] = tuple(f"{q}{k}" for k in (1, 2) for q in
                                                         ("Fx", "Fy", "Fz", "Mx", "My", "Mz"))
    c["parameters"]["ANALOG"]["UNITS"]["value"] = ["N"] * 12
    c["data"]["analogs"] = an
    _param(c, "FORCE_PLATFORM", "USED", [2], True)
    _param(c, "FORCE_PLATFORM", "TYPE", [2, 2], True)
    _param(c, "FORCE_PLATFORM", "ZERO", [1, 0], True)
    # C3D plate axes: x = corner1 - corner2, y = corner1 - corner4, z = x × y (down)
    c1 = np.array([[-300, 700, 0], [300, 700, 0], [300, 300, 0], [-300, 300, 0]], float).T  # x=-X, y=+Y
    c2 = np.array([[300, -100, 0], [-300, -100, 0], [-300, -500, 0], [300, -500, 0]], float).T  # x=+X, y=-Y
    _param(c, "FORCE_PLATFORM", "CORNERS", np.stack([c1, c2], axis=2))
    _param(c, "FORCE_PLATFORM", "ORIGIN", np.array([[0.0, 0.0], [0.0, 0.0], [-40.0, -40.0]]))
    _param(c, "FORCE_PLATFORM", "CHANNEL", np.array([[1, 7], [2, 8], [3, 9], [4, 10], [5, 11], [6, 12]]), True)
    c.write(str(path))


def test_c3d_plates_feet_and_pig_angles(tmp_path: Path) -> None:
    f = tmp_path / "trial.c3d"
    write_c3d(f)
    ds = load_trial(f, mass=71.36)
    t = ds.t
    assert ds.rate_hz == pytest.approx(400.0)
    fl, fr = stance(t, 0.2, 0.8), stance(t, 0.7, 1.3)
    feet = ds.meta.extra["channels"]["footfalls"]
    assert "plate 1 L" in feet and "plate 2 R" in feet
    np.testing.assert_allclose(ds.grf[:, 1], fl, atol=1e-6)
    np.testing.assert_allclose(ds.grf[:, 3], fr, atol=1e-6)
    # forward is lab -Y (pelvis progression): plate 1 pushes forward, plate 2 brakes
    np.testing.assert_allclose(ds.grf[:, 0], 0.1 * fl, atol=1e-6)
    np.testing.assert_allclose(ds.grf[:, 2], -0.1 * fr, atol=1e-6)
    # Plug-in-Gait sign table: beta = hip - pelvis + alpha (alpha 0: no shoulder marker), gamma = knee
    assert ds.angles is not None
    np.testing.assert_allclose(np.degrees(ds.angles[:, 1:]), np.tile([15.0, 15.0, 30.0, 30.0], (len(t), 1)),
                               atol=1e-9)


def test_c3d_missing_ezc3d_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    monkeypatch.setitem(sys.modules, "ezc3d", None)
    with pytest.raises(DataFormatError, match=r"needs ezc3d, a dependency .*: pip install ezc3d \(or reinstall: "
                                               r"pip install -e \. in a clone\)"):
        load_trial(tmp_path / "x.c3d")
