"""One file per quirk, written at test time: each loads with its named warning, or fails with one
DataFormatError naming file + channel/line. ``-W error``: no numpy warning may escape."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from models.errors import DataFormatError
from models.gaitdata import load_trial

pytestmark = pytest.mark.filterwarnings("error")


def _mot(shared: Path) -> str:
    return (shared / "opensim-core" / "subject01_walk1_grf.mot").read_text()


def _ik(shared: Path) -> str:
    return (shared / "opensim-core" / "subject01_walk_IK.mot").read_text()


def _reference(shared: Path) -> np.ndarray:
    return load_trial(shared / "opensim-core" / "subject01_walk1_grf.mot").grf


def _split(text: str) -> tuple[str, str]:
    """(header through the 'endheader' line, the rest) of an OpenSim file."""
    i = text.index("endheader")
    j = text.index("\n", i) + 1
    return text[:j], text[j:]


def _write(tmp: Path, name: str, text: str, newline: str = "\n") -> Path:
    p = tmp / name
    p.write_bytes(text.replace("\n", newline).encode())
    return p


def _has(ds, name: str) -> list[str]:
    hits = [w for w in ds.meta.extra["warnings"] if w.startswith(f"[{name}]")]
    assert hits, ds.meta.extra["warnings"]
    return hits


def test_opensim_ncolumns_disagreeing_is_a_named_warning(shared_data: Path, tmp_path: Path) -> None:
    text = _mot(shared_data).replace("nColumns=19", "nColumns=40")
    assert "nColumns=40" in text
    ds = load_trial(_write(tmp_path, "ncol.mot", text))
    assert "nColumns=40" in _has(ds, "header-count")[0]
    np.testing.assert_allclose(ds.grf, _reference(shared_data))


def test_opensim_nrows_disagreeing_is_a_named_warning(tmp_path: Path, shared_data: Path) -> None:
    text = _mot(shared_data).replace("nRows=1501", "nRows=1600")
    ds = load_trial(_write(tmp_path, "nrows.mot", text))
    assert "truncated" in _has(ds, "header-count")[0]


def test_units_row_blank_lines_trailing_tabs_crlf(shared_data: Path, tmp_path: Path) -> None:
    head, body = _split(_mot(shared_data))
    names, rest = body.split("\n", 1)
    units = "\t".join(["s"] + ["N", "N", "N", "m", "m", "m"] * 2 + ["Nm"] * 6)
    rows = "\n\n".join(line + "\t\t" for line in rest.splitlines())  # blank lines and trailing tabs
    text = head + "\n" + names + "\t\n" + units + "\n" + rows + "\n"
    ds = load_trial(_write(tmp_path, "quirky.mot", text, newline="\r\n"))
    _has(ds, "units-row")
    np.testing.assert_allclose(ds.grf, _reference(shared_data))


def test_columns_in_any_order_and_cop_in_mm(shared_data: Path, tmp_path: Path) -> None:
    head, body = _split(_mot(shared_data))
    lines = body.splitlines()
    names = [n for n in lines[0].split("\t") if n]
    order = [0] + list(range(len(names) - 1, 0, -1))  # time first, the rest reversed
    rows = []
    for line in lines[1:]:
        vals = [v for v in line.split("\t") if v]
        vals = [vals[i] for i in order]
        rows.append("\t".join(f"{float(v) * 1000:.6f}" if "force_p" in names[i] else v
                              for v, i in zip(vals, order)))
    text = head + "\t".join(names[i] for i in order) + "\n" + "\n".join(rows) + "\n"
    ds = load_trial(_write(tmp_path, "reordered.mot", text))
    ref = load_trial(shared_data / "opensim-core" / "subject01_walk1_grf.mot")
    np.testing.assert_allclose(ds.grf, ref.grf)
    assert ds.cop_x is not None and ref.cop_x is not None
    np.testing.assert_allclose(ds.cop_x, ref.cop_x, atol=1e-6)


def test_trc_header_rate_and_counts_disagreeing(shared_data: Path, tmp_path: Path) -> None:
    lines = (shared_data / "demotu-BMC" / "walk1.trc").read_text().splitlines()
    vals = lines[2].split("\t")
    vals[0] = "120"        # DataRate: the time column says 150 Hz
    vals[2] = "999"        # NumFrames
    lines[2] = "\t".join(vals)
    trc = _write(tmp_path, "walk1.trc", "\n".join(lines) + "\n")
    ds = load_trial(shared_data / "demotu-BMC" / "walk1.forces", kinematics=trc)
    assert "120 Hz" in _has(ds, "header-rate")[0]
    assert any("NumFrames=999" in w for w in _has(ds, "header-count"))


def test_cortex_sample_count_disagreeing(shared_data: Path, tmp_path: Path) -> None:
    text = (shared_data / "demotu-BMC" / "walk1.forces").read_text().replace("NumberOfSamples=1092",
                                                                             "NumberOfSamples=2000")
    frc = _write(tmp_path, "walk1.forces", text)
    ds = load_trial(frc, kinematics=shared_data / "demotu-BMC" / "walk1.trc")
    assert "NumberOfSamples=2000" in _has(ds, "header-count")[0]


def _trc_with_gap(shared: Path, tmp: Path, marker: str, t0: float, t1: float) -> Path:
    lines = (shared / "demotu-BMC" / "walk1.trc").read_text().splitlines()
    names = lines[3].split("\t")
    col = names.index(marker)
    out = lines[:5]
    for line in lines[5:]:
        vals = line.split("\t")
        if line.strip() and t0 <= float(vals[1]) <= t1:
            vals[col:col + 3] = ["", "", ""]
        out.append("\t".join(vals))
    return _write(tmp, "gap.trc", "\n".join(out) + "\n")


def test_long_gap_at_start_gives_an_automatic_window(shared_data: Path, tmp_path: Path) -> None:
    """Issue 17 trial 4: a 0.27 s marker gap at the very start no longer rejects the file."""
    trc = _trc_with_gap(shared_data, tmp_path, "L.Knee", 0.0, 0.27)
    ds = load_trial(shared_data / "demotu-BMC" / "walk1.forces", kinematics=trc)
    lo, hi = ds.meta.extra["window_s"]
    assert 0.27 < lo < 0.30 and hi == pytest.approx(2.42)
    assert ds.t[0] == pytest.approx(lo, abs=1e-3) and np.isfinite(ds.angles).all()
    _has(ds, "window")
    gap = _has(ds, "long-gap-outside")[0]
    assert "0.000-0.267 s" in gap and "L.Knee" in gap
    # a window given by the user is cropped first: the gap outside it is ignored too
    ds2 = load_trial(shared_data / "demotu-BMC" / "walk1.forces", kinematics=trc, start=0.4)
    assert ds2.t[0] == pytest.approx(0.4, abs=3e-3)


def test_long_gap_inside_the_window_is_one_error(shared_data: Path, tmp_path: Path) -> None:
    trc = _trc_with_gap(shared_data, tmp_path, "L.Knee", 1.0, 1.3)
    with pytest.raises(DataFormatError, match=r"gap\.trc, channel (beta_l|gamma_l) \(markers .*L\.Knee.*\): NaN run "
                                              r".*\(1\.0\d\d-1\.3\d\d s\)"):
        load_trial(shared_data / "demotu-BMC" / "walk1.forces", kinematics=trc, start=0.5, end=2.0)


def test_cli_window_printed_and_gap_error_exits_2(shared_data: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    trc = _trc_with_gap(shared_data, tmp_path, "L.Knee", 1.0, 1.3)
    code = main(["run", "--grf", str(shared_data / "demotu-BMC" / "walk1.forces"), "--kinematics", str(trc),
                 "--start", "0.5", "--end", "2.0", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and "NaN run" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_ezc3d_pelvis_all_nan_is_one_error_not_a_traceback(tmp_path: Path) -> None:
    """The All-NaN slice traceback of issue 17 trial 2: pelvis markers present but never seen."""
    from models.gaitdata.angles import sagittal_angles

    t = np.arange(50) / 50.0
    xyz = {n: np.column_stack([0 * t, 0.5 * t + k, 0.1 + 0 * t + 0.2 * k]) for k, n in enumerate(
        ("LKNE", "RKNE", "LANK", "RANK", "LHEE", "RHEE", "LTOE", "RTOE"))}
    xyz.update({n: np.full((50, 3), np.nan) for n in ("LASI", "RASI", "LPSI", "RPSI")})
    with pytest.raises(DataFormatError, match=r"channel L.GTR: no left hip marker \(looked for FEP/HJC/GTR.*\) "
                                              r"\(present but holding no sample: LASI, RASI, LPSI, RPSI\)"):
        sagittal_angles(xyz, "x.c3d")


def test_marker_file_beside_the_grf_file_gives_the_angles(shared_data: Path) -> None:
    d = shared_data / "demotu-BMC"
    alone = load_trial(d / "walk1.forces")
    paired = load_trial(d / "walk1.forces", kinematics=d / "walk1.trc")
    assert "walk1.trc" in _has(alone, "sibling-kinematics")[0]
    assert alone.angles is not None and paired.angles is not None
    np.testing.assert_allclose(alone.angles, paired.angles)
    np.testing.assert_allclose(alone.grf, paired.grf)
