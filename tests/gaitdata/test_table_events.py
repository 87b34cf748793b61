"""Tables (documented header, headerless, '%' header) and gait events on real files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from models.gaitdata import load_trial
from models.gaitdata.events import detect_contacts, heel_strikes, stride_summary
from models.gaitdata.table import parse_table


def test_csu_vertical_grf_46_heel_strikes(shared_data: Path) -> None:
    f = shared_data / "csu-hmc-GaitAnalysisToolKit" / "example_vertical_grf.csv"
    tab = parse_table(f.read_text(), str(f))
    assert not tab.has_header and tab.rate_hz == pytest.approx(100.0, rel=1e-3)
    contacts = detect_contacts(tab.data[:, 0], tab.data[:, 1])
    assert heel_strikes(contacts).size == 46
    s = stride_summary(contacts)
    # README: mean stride 1.20 s, mean stance 0.75 s
    assert s["stride_s"] == pytest.approx(1.20, abs=0.01)
    assert s["stance_s"] == pytest.approx(0.75, abs=0.03)
    # a bare 20 N threshold without hysteresis or durations splits noisy contacts
    assert heel_strikes(detect_contacts(tab.data[:, 0], tab.data[:, 1], on_n=20.0, off_n=20.0,
                                        min_contact_s=0.0, min_swing_s=0.0)).size != 46


def test_van_den_bogert_all_files(shared_data: Path) -> None:
    d = shared_data / "demotu-BMC"
    frc = parse_table((d / "all.frc").read_text(), "all.frc")
    kin = parse_table((d / "all.kin").read_text(), "all.kin")
    assert frc.data.shape == (6001, 3) and kin.data.shape == (6001, 8)
    assert frc.rate_hz is None  # no time column; README: 10 kHz
    # README: contact about samples 3022-5166, vertical peak 1688 N
    t = np.arange(6001) / 10000.0
    c = detect_contacts(t, frc.data[:, 1], on_n=5.0, off_n=1.0)  # noise-free simulation
    assert len(c) == 1 and abs(c[0].first - 3022) <= 1 and abs(c[0].last - 5166) <= 1
    assert frc.data[:, 1].max() == pytest.approx(1688.0, abs=1.0)


def test_csu_rawdata_percent_header(shared_data: Path) -> None:
    f = shared_data / "csu-hmc-GaitAnalysisToolKit" / "rawdata.txt"
    tab = parse_table(f.read_text(), str(f))
    assert tab.names[0] == "TimeStamp" and tab.names[-1] == "FP2.MomZ" and len(tab.names) == 16
    assert tab.data.shape == (301, 16) and tab.rate_hz == pytest.approx(100.0)
    assert int(np.isnan(tab.data).sum()) == 22  # README: 22 NaNs (missing markers)
    # trunk line shoulder-trochanter: README lean -2..+4 deg, mean 0.6
    i = {n: j for j, n in enumerate(tab.names)}
    lean = np.degrees(np.arctan2(tab.data[:, i["RSHO.PosX"]] - tab.data[:, i["RGTRO.PosX"]],
                                 tab.data[:, i["RSHO.PosY"]] - tab.data[:, i["RGTRO.PosY"]]))
    assert np.nanmean(lean) == pytest.approx(0.6, abs=0.3)


def test_documented_table_roundtrip(shared_data: Path, tmp_path: Path) -> None:
    d = shared_data / "opensim-core"
    ref = load_trial(d / "subject01_walk1_grf.mot", kinematics=d / "subject01_walk_IK.mot")
    assert ref.angles is not None and ref.cop_x is not None
    deg = np.degrees(ref.angles)
    bw = ref.meta.extra["bw_estimate_n"]
    rows = np.column_stack([ref.t, ref.grf / bw, ref.cop_x * 1000.0, deg])
    f = tmp_path / "trial.csv"
    header = "time,F_lx,F_ly,F_rx,F_ry,cop_lx,cop_rx,alpha,beta_l,beta_r,gamma_l,gamma_r\n"
    units = "s,BW,BW,BW,BW,mm,mm,deg,deg,deg,deg,deg\n"
    body = "\n".join(",".join("" if np.isnan(v) else f"{v:.9g}" for v in r) for r in rows)
    f.write_text(header + units + body + "\n")
    got = load_trial(f, mass=bw / 9.81)
    assert got.angles is not None and got.cop_x is not None
    np.testing.assert_allclose(got.grf, ref.grf, rtol=1e-6, atol=1e-4)
    np.testing.assert_allclose(got.angles, ref.angles, atol=1e-6)
    np.testing.assert_allclose(got.cop_x, ref.cop_x, atol=1e-6, equal_nan=True)
    assert got.meta.extra["force_units_found"] == "BW"
    # the same with a '# units:' comment and whitespace separation
    g = tmp_path / "trial.txt"
    g.write_text("# units: s BW BW BW BW mm mm deg deg deg deg deg\n" + header.replace(",", " ")
                 + "\n".join(" ".join("nan" if np.isnan(v) else f"{v:.9g}" for v in r) for r in rows) + "\n")
    np.testing.assert_allclose(load_trial(g, mass=bw / 9.81).grf, ref.grf, rtol=1e-6, atol=1e-4)
