"""Probe suite of unseen lab files (issue 34 §2): each class of file is generated here, small, in
``tmp_path`` (never copied from the shared data, whose header layouts it follows), and run through
``gaitblocks data info`` and ``gaitblocks run`` by :func:`app.cli.main`. A file that cannot be used is a
user error: exit 2 and one line on stderr naming the file and the problem, never a traceback. Every
``run`` probe here stops at the data (exit 2 before any compile), so the suite stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from tests.gaitdata.c3d_writer import write_trial, write_walk

pytest.importorskip("ezc3d")

RATE_GRF, RATE_IK = 600.0, 60.0
STRIDE, STANCE = 1.0, 0.6      # s
LEFT_ON, RIGHT_ON = 0.2, 0.7   # first heel strikes, s


def _stance(t: np.ndarray, first: float) -> np.ndarray:
    """0..1 phase of stance (NaN in swing) for heel strikes at ``first + k * STRIDE``."""
    ph = ((t - first) % STRIDE) / STANCE
    return np.where(ph < 1.0, ph, np.nan)


def grf_mot(path: Path, duration: float = 3.0, rows: int | None = None, time_scale: float = 1.0,
            header: str = "", t0: float = 0.0, named: bool = False) -> Path:
    """An OpenSim GRF ``.mot`` as ``subject01_walk1_grf.mot`` lays it out (version-1 header, tab
    separated, ground_force_v*/p* per foot, ``1_`` = left): two feet of a 72.6 kg walker, strides 1.0 s.
    ``rows`` cuts it, ``time_scale`` 1000 writes the time in ms, ``header`` adds header lines, ``t0`` [s]
    starts it later, ``named`` names the sides (``ground_force_r_vx``, ``ground_force_l_vx``)."""
    t = t0 + np.arange(int(round(duration * RATE_GRF)) + 1) / RATE_GRF
    cols = [t * time_scale]
    for first in (RIGHT_ON, LEFT_ON):  # un-prefixed = right, 1_ = left
        ph = _stance(t, first)
        fy = np.nan_to_num(72.6 * 9.81 * 1.15 * np.sin(np.pi * ph))
        fx = np.nan_to_num(0.15 * fy * np.cos(np.pi * ph))
        cop = np.where(np.isfinite(ph), 0.25 * np.nan_to_num(ph), 0.0)
        cols += [fx, fy, 0 * t, cop, 0 * t, (0.1 if first == RIGHT_ON else -0.1) + 0 * t]
    data = np.column_stack(cols)[:rows]
    sides = ("ground_force_r_", "ground_force_l_") if named else ("ground_force_", "1_ground_force_")
    names = ["time"] + [f"{p}{k}" for p in sides for k in ("vx", "vy", "vz", "px", "py", "pz")]
    lines = [path.stem, "version=1", f"nRows={data.shape[0]}", f"nColumns={len(names)}", "inDegrees=yes"]
    lines += [ln for ln in header.splitlines() if ln] + ["endheader", "\t".join(names)]
    lines += ["\t".join(f"{v:.8g}" for v in row) for row in data]
    path.write_text("\n".join(lines) + "\n")
    return path


def knee_flexion(t: np.ndarray, first: float) -> np.ndarray:
    """Knee flexion [deg] in our convention: 1.8 at heel strike, 14.8 in loading, 72.6 peak in swing
    (at 80 % of the stride, on the 60 Hz grid)."""
    ph = ((t - first) % STRIDE) / STRIDE
    stance = 1.8 + 13.0 * np.sin(np.pi * np.clip(ph / 0.4, 0, 1)) ** 2
    swing = 1.8 + 70.8 * np.sin(np.pi * np.clip((ph - 0.6) / 0.4, 0, 1)) ** 2
    return np.where(ph < 0.6, stance, swing)


def ik_sto(path: Path, knee_positive: bool, duration: float = 3.0, rows: int | None = None) -> Path:
    """An OpenSim 4 IK ``.sto`` (``OpenSimVersion``/``DataType`` header, ``/jointset/...`` column
    paths). ``knee_positive`` writes the knee positive in flexion (Rajagopal 2015), else negative (gait2392)."""
    t = np.arange(int(round(duration * RATE_IK)) + 1) / RATE_IK
    sign = 1.0 if knee_positive else -1.0
    coords = {
        "/jointset/ground_pelvis/pelvis_tilt/value": 5.0 + 2.0 * np.sin(4 * np.pi * t),
        "/jointset/hip_r/hip_flexion_r/value": 25.0 * np.cos(2 * np.pi * (t - RIGHT_ON)),
        "/jointset/walker_knee_r/knee_angle_r/value": sign * knee_flexion(t, RIGHT_ON),
        "/jointset/hip_l/hip_flexion_l/value": 25.0 * np.cos(2 * np.pi * (t - LEFT_ON)),
        "/jointset/walker_knee_l/knee_angle_l/value": sign * knee_flexion(t, LEFT_ON),
        "/jointset/back/lumbar_extension/value": -10.0 + 0 * t,
    }
    data = np.column_stack([t, *coords.values()])[:rows]
    head = ["version=1", "OpenSimVersion=4.1", "DataType=double", "inDegrees=yes", "endheader"]
    body = ["\t".join(["time", *coords])] + ["\t".join(f"{v:.8f}" for v in row) for row in data]
    path.write_text("\n".join(head + body) + "\n")
    return path


def trc_with_empty_header_fields(path: Path) -> Path:
    """A TRC as OpenSim's ``subject01_walk1.trc`` lays it out, but line 3 holds two empty tab fields
    after CameraRate (the values no longer sit under their names when paired by position)."""
    from tests.gaitdata.c3d_writer import markers

    t = np.arange(181) / 60.0
    xyz = markers(t, 3)
    names = list(xyz)
    lines = [f"PathFileType\t4\t(X/Y/Z)\t{path.name}",
             "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames",
             f"60.00\t60.00\t\t\t{t.size}\t{len(names)}\tmm\t60.00\t1\t{t.size}",
             "Frame#\tTime\t" + "\t\t\t".join(names),
             "\t\t" + "\t".join(f"{a}{k + 1}" for k in range(len(names)) for a in "XYZ"), ""]
    for i, ti in enumerate(t):
        cells = [str(i + 1), f"{ti:.6f}"] + [f"{1000 * v:.5f}" for n in names for v in xyz[n][i]]
        lines.append("\t".join(cells))
    path.write_text("\n".join(lines) + "\n")
    return path


def info(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["data", "info", *argv, "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def user_error(capsys: pytest.CaptureFixture[str], argv: list[str], *needles: str) -> str:
    """Run ``argv``: exit 2, one stderr line holding every needle, no traceback; the line."""
    code = main(argv)
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2, err
    assert "Traceback" not in err and len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def run_argv(tmp_path: Path, *argv: str) -> list[str]:
    return ["run", *argv, "--duration", "1", "--out", str(tmp_path / "out")]


# ------------------------------------------------------------------------------------ sign conventions
def test_knee_positive_in_flexion_sto_is_read_flexion_positive(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Issue: knee range -72.6..-1.8 deg and a fall at 0.00 s. Now +1.8..+72.6 deg, the convention printed."""
    grf = grf_mot(tmp_path / "walk_grf.mot")
    ik = ik_sto(tmp_path / "walk_ik_rajagopal.sto", knee_positive=True)
    s = info(capsys, str(grf), "--kinematics", str(ik))
    for side in ("gamma_l", "gamma_r"):
        lo, hi = s["kinematics"]["range_deg"][side]
        assert lo == pytest.approx(1.8, abs=0.5) and hi == pytest.approx(72.6, abs=0.5)
    assert s["kinematics"]["channels"]["gamma_r"] == "+knee_angle_r"
    assert "flexion-positive (auto" in s["kinematics"]["channels"]["knee_sign"]
    assert any(w.startswith("[knee-sign]") for w in s["warnings"])
    assert main(["data", "info", str(grf), "--kinematics", str(ik)]) == 0
    assert "knee sign: l knee flexion-positive (auto: knee_angle_l +" in capsys.readouterr().out
    # gait2392's convention is still read as before: the same walk written negative in flexion
    neg = info(capsys, str(grf), "--kinematics", str(ik_sto(tmp_path / "walk_ik_2392.sto", knee_positive=False)))
    assert neg["kinematics"]["range_deg"]["gamma_l"] == pytest.approx(s["kinematics"]["range_deg"]["gamma_l"])
    assert "flexion-negative (auto" in neg["kinematics"]["channels"]["knee_sign"]


def test_knee_sign_override_and_a_knee_hyperextended_throughout(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """``--knee-sign`` forces the reading; read the wrong way, the knee is hyperextended through the whole
    recording: an import error (exit 2) in data info and in run, not a fall at 0.00 s."""
    grf = grf_mot(tmp_path / "walk_grf.mot")
    ik = ik_sto(tmp_path / "walk_ik.sto", knee_positive=True)
    s = info(capsys, str(grf), "--kinematics", str(ik), "--knee-sign", "flexion-positive")
    assert "flexion-positive (given" in s["kinematics"]["channels"]["knee_sign"]
    for argv in (["data", "info", str(grf), "--kinematics", str(ik), "--knee-sign", "flexion-negative"],
                 run_argv(tmp_path, "--grf", str(grf), "--kinematics", str(ik), "--knee-sign", "flexion-negative")):
        line = user_error(capsys, argv, str(ik), "knee is hyperextended through the whole recording",
                          "-72.6..-1.8 deg", "--knee-sign")
        assert line.startswith("gaitblocks ")


def test_a_real_gait2392_knee_read_positive_is_an_import_error(shared_data: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """subject01's IK knee (gait2392: -69..+4 deg) forced flexion-positive bends 69 deg backwards: an
    import error naming the override, not a fall at 0.00 s; auto reads it as before (flexion up to 69 deg)."""
    d = shared_data / "opensim-core"
    grf, ik = str(d / "subject01_walk1_grf.mot"), str(d / "subject01_walk_IK.mot")
    user_error(capsys, ["data", "info", grf, "--kinematics", ik, "--knee-sign", "flexion-positive"], ik,
               "channel knee_angle_l: the left knee hyperextends to -6", "wrong knee sign?")
    s = info(capsys, grf, "--kinematics", ik)
    assert s["kinematics"]["range_deg"]["gamma_r"][1] == pytest.approx(69.4, abs=0.3)


# ------------------------------------------------------------------------- markers without samples
@pytest.mark.parametrize("value", [np.nan, 0.0], ids=["all-nan", "all-zero"])
def test_trunk_markers_without_samples_are_absent(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  value: float) -> None:
    """A Plug-in-Gait C3D lists C7/T10/CLAV/STRN/LSHO/RSHO but they hold only NaN (or Vicon's zeros):
    was exit 2 ("channel alpha: no usable window"); now alpha = 0 with the no-trunk-marker warning."""
    path = write_trial(tmp_path / "pig_empty_trunk.c3d", n_plates=3, drop=("LSHO", "RSHO"),
                       empty={n: value for n in ("C7", "T10", "CLAV", "STRN", "LSHO", "RSHO")})
    s = info(capsys, str(path))
    assert s["kinematics"]["range_deg"]["alpha"] == [0.0, 0.0]
    empty = next(w for w in s["warnings"] if w.startswith("[empty-marker]"))
    assert all(n in empty for n in ("C7", "T10", "CLAV", "STRN", "LSHO", "RSHO"))
    assert any(w.startswith("[no-trunk-marker]") for w in s["warnings"])


def test_empty_plug_in_gait_angles_fall_back_to_the_markers(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Hip/Knee/PelvisAngles listed but all NaN: the angles come from the markers, not NaN throughout."""
    outputs = {f"{s}{j}Angles": np.nan for s in "LR" for j in ("Hip", "Knee", "Pelvis")}
    s = info(capsys, str(write_trial(tmp_path / "pig_empty_angles.c3d", n_plates=3, empty=outputs)))
    assert s["kinematics"]["channels"]["knee_l"] == "LKNE"  # the marker, not LKneeAngles[0]
    assert all(np.isfinite(v).all() for v in s["kinematics"]["range_deg"].values())
    assert any(w.startswith("[empty-marker] Plug-in-Gait output(s) LHipAngles") for w in s["warnings"])


def test_other_trunk_marker_is_used_when_the_shoulders_are_empty(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Empty shoulder markers fall back to the next trunk marker that holds samples (C7 here)."""
    from tests.gaitdata.c3d_writer import markers

    t = np.arange(200) / 100.0
    c7 = markers(t)["LSHO"].copy()
    c7[:, 0] = 0.0
    path = write_trial(tmp_path / "pig_c7.c3d", n_plates=3, drop=("LSHO", "RSHO"),
                       empty={"LSHO": np.nan, "RSHO": np.nan})
    import ezc3d

    c = ezc3d.c3d(str(path))
    labels = list(c["parameters"]["POINT"]["LABELS"]["value"])
    pts = np.asarray(c["data"]["points"])
    pts[:3, labels.index("LSHO"), :] = (c7 * 1000.0).T  # LSHO's slot now carries a C7 trajectory
    labels[labels.index("LSHO")] = "C7"
    c["parameters"]["POINT"]["LABELS"]["value"] = tuple(labels)
    c["data"]["points"] = pts
    c.write(str(path))
    s = info(capsys, str(path))
    assert "C7" in s["kinematics"]["channels"]["alpha"]
    assert not any(w.startswith("[no-trunk-marker]") for w in s["warnings"])


# --------------------------------------------------------------------------------- subject data
def test_c3d_body_mass_and_height_are_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """PROCESSING:Bodymass 72.6 kg and Height 1803 mm (Vicon) are used unless --mass overrides."""
    path = write_trial(tmp_path / "vicon_subject.c3d", n_plates=3,
                       params={("PROCESSING", "Bodymass"): [72.6], ("PROCESSING", "Height"): [1803.0]})
    s = info(capsys, str(path))
    assert s["body_mass_kg"] == 72.6 and "PROCESSING:Bodymass" in s["mass_source"]
    assert s["height_m"] == pytest.approx(1.803) and "1803 mm" in s["height_source"]
    given = info(capsys, str(path), "--mass", "70")
    assert given["body_mass_kg"] == 70.0 and given["mass_source"] == "given"


def test_subject_group_and_opensim_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_trial(tmp_path / "subjects.c3d", n_plates=3, params={("SUBJECTS", "MASS"): [64.0]})
    assert info(capsys, str(path))["body_mass_kg"] == 64.0
    grf = grf_mot(tmp_path / "grf_mass.mot", header="mass=72.6\nheight=1.80")
    s = info(capsys, str(grf))
    assert s["body_mass_kg"] == 72.6 and "mass=72.6" in s["mass_source"] and s["height_m"] == 1.8


def test_opensim_scale_setup_beside_the_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """OpenSim's examples ship ``subject01_Setup_Scale.xml`` (``<mass>72.6</mass><height>1803</height>``)
    beside the trial: its mass and height are used unless --mass/--height override."""
    (tmp_path / "subject01_Setup_Scale.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8" ?>\n<OpenSimDocument Version="30000">\n'
        '\t<ScaleTool name="subject01">\n\t\t<mass>72.6</mass>\n\t\t<height>1803</height>\n'
        '\t\t<age>-1</age>\n\t</ScaleTool>\n</OpenSimDocument>\n')
    grf = grf_mot(tmp_path / "subject01_walk_grf.mot")
    ik = ik_sto(tmp_path / "subject01_walk_ik.sto", knee_positive=False)
    s = info(capsys, str(grf), "--kinematics", str(ik))
    assert s["body_mass_kg"] == 72.6 and "subject01_Setup_Scale.xml (<mass>)" in s["mass_source"]
    assert s["height_m"] == pytest.approx(1.803) and "1803 mm" in s["height_source"]
    assert info(capsys, str(grf), "--mass", "80")["body_mass_kg"] == 80.0


def test_no_mass_anywhere_says_the_model_mass_is_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two plates, one contact each: no whole stride, no stored mass. data info and the run's subject
    line say the model's mass is used and how to give one."""
    from models.gaitdata import load_trial
    from models.gaitdata.subject import subject_lines, subject_summary

    path = write_trial(tmp_path / "two_plates.c3d", n_plates=2)
    assert main(["data", "info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "body mass: n/a (not in the file, and no whole stride to estimate it from the GRF: a run uses the " \
           "model's mass; give --mass KG)" in out
    data = load_trial(path)
    summary = subject_summary(None, data, 55.33, None, 0.0, "given", (55.33, 1.66))
    assert "give --mass KG" in subject_lines(summary)[0] and "55.3 kg (the model's" in subject_lines(summary)[0]


# ------------------------------------------------------------------------------ truncated and odd
def test_truncated_c3d_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Cut to 47 % of its bytes: was loaded partially with status ok; now exit 2 naming both counts."""
    whole = write_trial(tmp_path / "whole.c3d", n_plates=3)
    cut = tmp_path / "cut.c3d"
    data = whole.read_bytes()
    cut.write_bytes(data[:int(0.47 * len(data))])
    assert info(capsys, str(whole))["duration_s"] == pytest.approx(1.99, abs=0.01)
    for argv in (["data", "info", str(cut)], run_argv(tmp_path, "--grf", str(cut))):
        user_error(capsys, argv, str(cut), "truncated file: the header declares 200 frames, only 92 were read")


def test_trc_with_empty_header_fields_is_read_by_field_name(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Was ``line 3: unknown Units '238'``; now mm, 60 Hz, all frames."""
    from models.gaitdata import read_kinematics

    trc = trc_with_empty_header_fields(tmp_path / "odd_header.trc")
    kin = read_kinematics(trc)
    assert kin.rate_hz == pytest.approx(60.0) and kin.t.shape[0] == 181
    assert not any("header-rate" in w or "header-count" in w for w in kin.warnings)
    assert kin.heels is not None and kin.heels["l"][0, 2] == pytest.approx(0.05)  # mm -> m
    grf = grf_mot(tmp_path / "odd_grf.mot", duration=3.0)
    s = info(capsys, str(grf), "--kinematics", str(trc))
    assert s["kinematics"]["format"] == "trc-markers" and s["duration_s"] == pytest.approx(3.0)


@pytest.mark.parametrize("which", ["grf", "ik"])
def test_five_rows_are_too_short(tmp_path: Path, capsys: pytest.CaptureFixture[str], which: str) -> None:
    """A .mot (GRF) or IK file cut to 5 rows: was a warning then ``ValueError: filtfilt needs more than 9
    samples`` (exit 1), or a 65 ms run reported ok; now a user error at load time in info and run."""
    grf = grf_mot(tmp_path / "grf.mot", rows=5, t0=0.72, named=True) if which == "grf" else \
        grf_mot(tmp_path / "grf.mot")  # 5 rows in double support: both feet loaded
    ik = ik_sto(tmp_path / "ik.sto", knee_positive=False, rows=5 if which == "ik" else None)
    short = grf if which == "grf" else ik
    what = "the force recording" if which == "grf" else "the kinematics recording"
    span = f"{4 / (RATE_GRF if which == 'grf' else RATE_IK):.3f} s"
    alone = [["data", "info", str(grf)]] if which == "grf" else []
    for argv in alone + [["data", "info", str(grf), "--kinematics", str(ik)],
                         run_argv(tmp_path, "--grf", str(grf), "--kinematics", str(ik))]:
        user_error(capsys, argv, str(short), f"too short: {what} holds 5 samples over {span}",
                   "at least 10 samples and 0.5 s")


@pytest.mark.parametrize("kind", ["mot", "csv"])
def test_time_in_milliseconds_is_converted(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    """Was "filter cut-off 20.0 Hz must be below half the data rate (0.5 Hz)" naming neither file nor
    column; now converted to s with a time-ms warning naming both."""
    if kind == "mot":
        path = grf_mot(tmp_path / "grf_ms.mot", time_scale=1000.0)
    else:
        t = np.arange(1801) / RATE_GRF
        rows = [t * 1000.0]
        for first in (LEFT_ON, RIGHT_ON):
            fy = np.nan_to_num(800.0 * np.sin(np.pi * _stance(t, first)))
            rows += [0.1 * fy, fy]
        path = tmp_path / "grf_ms.csv"
        path.write_text("time,F_lx,F_ly,F_rx,F_ry\n" + "\n".join(",".join(f"{v:.6f}" for v in r)
                                                                 for r in np.column_stack(rows)) + "\n")
    s = info(capsys, str(path))
    assert s["rate_hz_source"] == pytest.approx(RATE_GRF) and s["duration_s"] == pytest.approx(3.0)
    note = next(w for w in s["warnings"] if w.startswith("[time-ms]"))
    assert str(path) in note and "'time'" in note and "600 Hz" in note


# ------------------------------------------------------------------------------------------ windows
def test_window_keeps_the_part_where_every_contact_is_on_a_plate(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Floor steps at 0.2 L, 0.7 R and 3.2 L, plates under 1.2 L, 1.7 R, 2.2 L, 2.7 R: the window was the
    whole 0-4 s; now it spans 1.3-3.2 s, from the end of the last floor step to the next, and says why."""
    s = info(capsys, str(write_walk(tmp_path / "offplate_walk.c3d")))
    lo, hi = s["window_s"]
    assert lo == pytest.approx(1.3, abs=0.03) and hi == pytest.approx(3.2, abs=0.03)
    assert s["window_source"] == "automatic: every foot contact on a force plate"
    note = next(w for w in s["warnings"] if w.startswith("[window-plates]"))
    assert "right 0.69-1.31 s" in note and "left 3.19-3.81 s" in note and "1 whole plate stride" in note
    assert main(["data", "info", str(tmp_path / "offplate_walk.c3d")]) == 0
    assert "window a run uses: 1.310-3.190 s (automatic: every foot contact on a force plate)" in \
        capsys.readouterr().out
    every = info(capsys, str(write_walk(tmp_path / "all_plates.c3d", on_plates=tuple(range(8)))))
    assert every["window_s"] == [0.0, 3.99] and every["window_source"] == "whole recording"


# -------------------------------------------------------------------------------------- plausibility
def test_status_text_says_when_an_ok_run_is_a_poor_fit() -> None:
    from app.walking import status_text

    good = {"status": "ok", "cycles_completed": 2, "residual": {"fraction": 0.05, "verdict": "good"},
            "speed_account": {"mean_m_s": 0.95}, "recording": {"speed_m_s": 0.99}}
    assert status_text(good) == "ok"
    poor = {**good, "residual": {"fraction": 0.38, "verdict": "poor"}, "speed_account": {"mean_m_s": 0.25}}
    assert status_text(poor) == "ok (poor fit: residual 38 % of peak GRF, speed 0.25 m/s against 0.99 m/s recorded)"
    assert status_text({**good, "speed_account": {"mean_m_s": 0.78}}) == \
        "ok (poor fit: speed 0.78 m/s against 0.99 m/s recorded)"  # 21 % off
    assert status_text({**good, "speed_account": {"mean_m_s": 0.80}}) == "ok"  # 19 % off
    assert status_text({**good, "cycles_completed": 0}) == "ok (no whole gait cycle)"
    assert status_text({**poor, "status": "fell", "fell_at_s": 0.5, "fell_because": "x"}) == "FELL at 0.50 s: x"


def test_run_on_a_knee_positive_sto_starts_upright_and_says_it_fits_poorly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """End to end (one short simulation): on main this run printed "FELL at 0.00 s: the left knee
    hyperextended to -72.74 deg". Now the knee is read positive, the run is ok for its 0.6 s, and its
    first line says what is wrong with it: these synthetic angles do not match their GRF (residual
    poor, speed off the recording's) and 0.6 s holds no whole gait cycle."""
    grf = grf_mot(tmp_path / "walk_grf.mot")
    ik = ik_sto(tmp_path / "walk_ik.sto", knee_positive=True)
    out = tmp_path / "out"
    assert main(["run", "--grf", str(grf), "--kinematics", str(ik), "--duration", "0.6", "--no-csv",
                 "--out", str(out)]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("ok (poor fit: residual ") and "m/s recorded" in first
    assert "; no whole gait cycle): " in first
    s = json.loads((out / "summary.json").read_text())
    assert s["fell_at_s"] is None and s["residual"]["verdict"] == "poor"
    assert s["recording"]["knee_deg"]["l"]["max"] == pytest.approx(72.6, abs=0.5)
    assert abs(s["speed_account"]["mean_m_s"] / s["recording"]["speed_m_s"] - 1) > 0.2
