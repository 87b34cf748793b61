"""OpenSim .mot/.sto on the real subject01 files (figures from shared/data/README.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.errors import DataFormatError
from models.gaitdata import load_trial, read_kinematics
from models.gaitdata.events import detect_contacts
from models.gaitdata.opensim import angles_from_table, grf_from_table, parse_sto
from models.gaitdata.trc import parse_trc

FRAME_600 = 1.0 / 600.0 + 0.0005  # one frame, plus the README's rounding to 1 ms


@pytest.fixture(scope="module")
def subject01(shared_data: Path):
    d = shared_data / "opensim-core"
    return load_trial(d / "subject01_walk1_grf.mot", kinematics=d / "subject01_walk_IK.mot")


def test_grf_sides_and_stance_windows(subject01) -> None:
    # README: un-prefixed = right, 1_ = left; R stance 0.618-1.410 s, L stance 1.247-2.018 s
    assert subject01.meta.extra["channels"]["F_ry"] == "ground_force_vy"
    assert subject01.meta.extra["channels"]["F_ly"] == "1_ground_force_vy"
    t = subject01.t
    right = [c for c in detect_contacts(t, subject01.grf[:, 3]) if c.complete]
    left = [c for c in detect_contacts(t, subject01.grf[:, 1]) if c.complete]
    assert len(right) == 1 and len(left) == 1
    assert right[0].on_s == pytest.approx(0.618, abs=FRAME_600)
    assert right[0].off_s == pytest.approx(1.410, abs=FRAME_600)
    assert left[0].on_s == pytest.approx(1.247, abs=FRAME_600)
    assert left[0].off_s == pytest.approx(2.018, abs=FRAME_600)


def test_rate_over_whole_file_and_bw(subject01) -> None:
    # times are rounded to 4 decimals (0.0017, 0.0033 ...): the rate comes from the whole span
    assert subject01.meta.extra["rate_hz_source"] == pytest.approx(600.0, rel=1e-9)
    assert subject01.t.shape[0] == 1501
    # model mass 72.6 kg => 712 N (README); our stride-mean estimate
    assert subject01.meta.extra["bw_estimate_n"] == pytest.approx(712.0, rel=0.01)
    assert subject01.meta.body_mass_kg == pytest.approx(72.6, rel=0.01)


def test_ik_sign_table(subject01, shared_data: Path) -> None:
    deg = np.degrees(subject01.angles)
    ik = np.loadtxt(shared_data / "opensim-core" / "subject01_walk_IK.mot", skiprows=11)
    # gamma = -knee_angle: knee flexion peaks at ~69 deg (IK knee_angle_r min -69.37)
    assert deg[:, 4].max() == pytest.approx(-ik[:, 5].min(), abs=0.2)
    # beta = pelvis_tilt + hip_flexion + alpha, checked at a sample time shared by both files
    i_ik, i_grf = 60, 600  # t = 1.0 s in both
    assert subject01.t[i_grf] == pytest.approx(ik[i_ik, 0], abs=1e-6)
    assert deg[i_grf, 2] == pytest.approx(ik[i_ik, 1] + ik[i_ik, 4] + deg[i_grf, 0], abs=1e-6)
    # alpha is the hip -> HAT-CoM line: the torso frame (-(pelvis_tilt + lumbar_extension)) leans
    # 13.1 deg on average, but the flexed lumbar joint sits behind the hip, so the HAT line is upright
    torso_frame = -(ik[:, 1] + ik[:, 10])
    assert torso_frame.mean() == pytest.approx(13.1, abs=0.2)
    assert deg[:, 0].mean() == pytest.approx(-1.08, abs=0.05)


def test_marker_trunk_line_of_the_same_trial(subject01, shared_data: Path) -> None:
    # hip centres (Bell estimate from ASIS + sacrum) -> acromion markers: about upright,
    # while the IK torso frame leans 13 deg: the two trunk definitions differ (opensim.py doc)
    from models.gaitdata.angles import _hip_from_pelvis, _index, _shoulder

    trc = parse_trc((shared_data / "opensim-core" / "subject01_walk1.trc").read_text(), "s01.trc")
    idx = _index(trc.xyz)
    hip = 0.5 * (_hip_from_pelvis(trc.xyz, idx, "l", "x")[0] + _hip_from_pelvis(trc.xyz, idx, "r", "x")[0])
    shoulder = _shoulder(trc.xyz, idx)
    assert shoulder is not None and "Acromium" in shoulder[1]
    v = shoulder[0] - hip
    lean = np.degrees(np.arctan2(v[:, 0], v[:, 1]))
    assert lean.mean() == pytest.approx(-0.96, abs=0.05)
    assert -3.0 < lean.min() and lean.max() < 1.0
    # the IK HAT line agrees with this independent marker line to a tenth of a degree on average
    assert np.degrees(subject01.angles[:, 0]).mean() - lean.mean() == pytest.approx(-0.11, abs=0.05)


def _rewrite(src: Path, dst: Path, header: str, rad: bool = False, paths: bool = False) -> Path:
    lines = src.read_text().splitlines()
    end = next(i for i, ln in enumerate(lines) if ln.strip() == "endheader")
    names = lines[end + 1].split("\t")
    if paths:
        names = [n if n in ("time",) or n.startswith("pelvis_t") else f"/jointset/j/{n}/value" for n in names]
    rows = [np.array(ln.split(), dtype=float) for ln in lines[end + 2:] if ln.strip()]
    if rad:
        rows = [np.r_[r[0], np.radians(r[1]), r[2:4], np.radians(r[4:])] for r in rows]
    body = "\n".join("\t".join(f"{v:.10g}" for v in r) for r in rows)
    dst.write_text(header + "\n" + "\t".join(names) + "\n" + body + "\n")
    return dst


def test_header_styles_radians_and_v4_paths(shared_data: Path, tmp_path: Path) -> None:
    src = shared_data / "opensim-core" / "subject01_walk_IK.mot"
    ref = read_kinematics(src).angles
    short = _rewrite(src, tmp_path / "short.mot", "Coordinates\nendheader")
    rad = _rewrite(src, tmp_path / "rad.sto", "ik\nversion=1\nnRows=151\nnColumns=11\ninDegrees=no\nendheader",
                   rad=True)
    v4 = _rewrite(src, tmp_path / "v4.sto", "version=1\nOpenSimVersion=4.4\nDataType=double\ninDegrees=yes\n"
                  "endheader", paths=True)
    for f in (short, rad, v4):
        got = read_kinematics(f)
        np.testing.assert_allclose(got.angles, ref, atol=1e-8)
    assert "taken as degrees" in " ".join(read_kinematics(short).warnings)
    tab = parse_sto(v4.read_text(), str(v4))
    assert "hip_flexion_r" in tab.names and tab.in_degrees is True


def test_named_sides_r_l(tmp_path: Path) -> None:
    t = np.arange(0, 2.0, 0.01)
    fr = 700 * np.clip(np.sin(2 * np.pi * t / 2.0), 0, None)
    fl = 700 * np.clip(-np.sin(2 * np.pi * t / 2.0), 0, None)
    f = tmp_path / "g.mot"
    rows = "\n".join(f"{a:.3f}\t{b * 0.1:.3f}\t{b:.3f}\t{c * 0.1:.3f}\t{c:.3f}" for a, b, c in zip(t, fl, fr))
    f.write_text("g\nendheader\ntime\tground_force_l_vx\tground_force_l_vy\tground_force_r_vx\t"
                 f"ground_force_r_vy\n{rows}\n")
    rec = grf_from_table(parse_sto(f.read_text(), str(f)))
    np.testing.assert_allclose(rec.grf[:, 1], fl, atol=1e-3)
    np.testing.assert_allclose(rec.grf[:, 3], fr, atol=1e-3)
    assert rec.warnings == []
    with pytest.raises(DataFormatError, match="channel hip_flexion_l: missing foot"):
        angles_from_table(parse_sto(f.read_text(), str(f)))
