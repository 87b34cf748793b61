"""C3D quirks, one file each written with ezc3d at test time, and hypothesis mutations of C3D contents.

``-W error``: a numpy warning anywhere in the import fails the test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.errors import DataFormatError
from models.gaitdata import load_trial
from tests.gaitdata.c3d_writer import CONTACTS, stance, write_trial

pytestmark = pytest.mark.filterwarnings("error")


def _warn(ds, name: str) -> list[str]:
    hits = [w for w in ds.meta.extra["warnings"] if w.startswith(f"[{name}]")]
    assert hits, ds.meta.extra["warnings"]
    return hits


@pytest.mark.parametrize("plate_type", [1, 2, 3, 4])
def test_plate_types_give_the_same_vertical_force(tmp_path: Path, plate_type: int) -> None:
    ds = load_trial(write_trial(tmp_path / f"type{plate_type}.c3d", plate_type=plate_type))
    np.testing.assert_allclose(ds.grf[:, 1], stance(ds.t, *CONTACTS[0]), atol=1e-6)
    np.testing.assert_allclose(ds.grf[:, 3], stance(ds.t, *CONTACTS[1]), atol=1e-6)
    assert "plate 1 L" in ds.meta.extra["channels"]["footfalls"]
    assert "plate 2 R" in ds.meta.extra["channels"]["footfalls"]


def test_three_plates_assigned_by_heel_and_toe(tmp_path: Path) -> None:
    ds = load_trial(write_trial(tmp_path / "three.c3d", n_plates=3))
    assert ds.meta.extra["channels"]["footfalls"].endswith("plate 3 L samples 483-717")
    np.testing.assert_allclose(ds.grf[:, 1], stance(ds.t, *CONTACTS[0]) + stance(ds.t, *CONTACTS[2]), atol=1e-6)


@pytest.mark.parametrize("factor", [1, 3, 10])
def test_analog_rate_differs_from_point_rate(tmp_path: Path, factor: int) -> None:
    ds = load_trial(write_trial(tmp_path / "rate.c3d", analog_factor=factor))
    assert ds.rate_hz == pytest.approx(100.0 * factor)
    if factor != 1:
        assert f"{100 * factor} Hz" in _warn(ds, "analog-rate")[0]
    assert ds.angles is not None and np.isfinite(ds.angles).all()


def test_plug_in_gait_outputs_and_subject_prefix(tmp_path: Path) -> None:
    ds = load_trial(write_trial(tmp_path / "pig.c3d", pig_angles=True, pig_centres=True, prefix="Bob:"))
    _warn(ds, "subject-prefix")
    assert "LFEO" in _warn(ds, "pig-joint-centres")[0]
    assert ds.angles is not None
    np.testing.assert_allclose(np.degrees(ds.angles[:, 3:]), 30.0, atol=1e-9)   # gamma = PiG knee angle


def test_no_psis_fallback_and_no_trunk_marker(tmp_path: Path) -> None:
    ds = load_trial(write_trial(tmp_path / "nopsis.c3d", drop=("LPSI", "RPSI", "LSHO", "RSHO")))
    _warn(ds, "no-psis")
    assert "looked for" in _warn(ds, "no-trunk-marker")[0]
    ref = load_trial(write_trial(tmp_path / "ref.c3d", drop=("LSHO", "RSHO")))
    assert ds.angles is not None and ref.angles is not None
    # the same static pelvis: with and without PSIS the thigh angles agree within 3 deg
    assert np.max(np.abs(np.degrees(ds.angles - ref.angles))) < 3.0


def test_no_leg_markers_names_what_was_looked_for(tmp_path: Path) -> None:
    p = write_trial(tmp_path / "noknee.c3d", drop=("LKNE",))
    ds = load_trial(p, fill_offplate=False)
    assert ds.angles is None and "looked for L.FEO/KJC/KNEE" in ds.meta.extra["kinematics_error"]


def test_one_foot_on_plates_is_filled_and_said(tmp_path: Path) -> None:
    ds = load_trial(write_trial(tmp_path / "onefoot.c3d", zero_plates=(1,)))
    assert "left foot" in _warn(ds, "one-foot-plates")[0]
    assert ds.grf[:, 3].max() > 300.0        # the right foot carries weight again (filled)


def test_marker_gap_at_start_window_and_metres(tmp_path: Path) -> None:
    ds = load_trial(write_trial(tmp_path / "gap.c3d", nan_runs={"LKNE": (0.0, 0.27)}, point_unit="m"))
    assert ds.meta.extra["window_s"][0] == pytest.approx(0.28)
    _warn(ds, "window")
    _warn(ds, "long-gap-outside")
    with pytest.raises(DataFormatError, match=r"gap\.c3d, channel (beta_l|gamma_l) \(markers .*LKNE.*\): NaN run"):
        load_trial(tmp_path / "gap.c3d", start=0.1)


_MARKERS = ("LASI", "RASI", "LPSI", "RPSI", "LKNE", "RKNE", "LANK", "RANK", "LHEE", "RHEE", "LTOE", "RTOE",
            "LSHO", "RSHO")


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(drop=st.sets(st.sampled_from(_MARKERS), max_size=4),
       nan_marker=st.sampled_from(_MARKERS), nan_span=st.tuples(st.floats(0, 2), st.floats(0, 1.5)),
       zero=st.sets(st.integers(0, 2), max_size=3), n_plates=st.integers(1, 3),
       plate_type=st.sampled_from([1, 2, 3, 4]), factor=st.sampled_from([1, 2, 5]),
       rate=st.sampled_from([50.0, 100.0, 120.0]), pig=st.booleans())
def test_mutated_c3d_gives_error_or_finite_dataset(tmp_path: Path, drop, nan_marker, nan_span, zero, n_plates,
                                                    plate_type, factor, rate, pig) -> None:
    a = nan_span[0]
    p = write_trial(tmp_path / "m.c3d", drop=tuple(drop), nan_runs={nan_marker: (a, a + nan_span[1])},
                    zero_plates=tuple(zero), n_plates=n_plates, plate_type=plate_type, analog_factor=factor,
                    rate=rate, n=int(2 * rate), pig_angles=pig)
    try:
        ds = load_trial(p)
    except DataFormatError as exc:
        assert "m.c3d" in str(exc)
        return
    assert np.isfinite(ds.grf).all() and np.isfinite(ds.t).all()
    assert ds.angles is None or np.isfinite(ds.angles).all()
