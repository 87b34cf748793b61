"""Long runs: ``--repeat-cycles`` (whole gait cycles repeated, continuous at the seams), the clamp
warning without it, and summary metrics of a repeated and of a decimated (``--record-every``) run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from app.runs import RunSpec, build, load_data, run
from blocks.library.context import dataset_of
from models.dataset import GaitDataset
from models.errors import UserError
from models.gaitdata.repeat import EDGE_S, REPEAT_TAG, cycle_span, repeat_dataset


def _trial(shared: Path, which: str) -> tuple[str, str]:
    if which == "overground":
        return str(shared / "demotu-BMC" / "walk1.forces"), str(shared / "demotu-BMC" / "walk1.trc")
    return (str(shared / "opensim-core" / "subject01_walk1_grf.mot"),
            str(shared / "opensim-core" / "subject01_walk_IK.mot"))


def _check_continuous(data: GaitDataset, rep: GaitDataset, duration: float) -> None:
    """Clock uniform and unbroken, the recording kept up to the cut, and no seam jump above twice
    the recording's own largest sample-to-sample change (per GRF column and per angle)."""
    assert rep.t[-1] - rep.t[0] >= duration + EDGE_S - 1e-9
    np.testing.assert_allclose(np.diff(rep.t), data.dt, rtol=1e-9)
    assert rep.t[0] == data.t[0]
    span = cycle_span(data)
    np.testing.assert_array_equal(rep.grf[: span.last], data.grf[: span.last])
    own, new = np.abs(np.diff(data.grf, axis=0)).max(axis=0), np.abs(np.diff(rep.grf, axis=0)).max(axis=0)
    assert np.all(new <= 2.0 * own + 1e-9), (new, own)
    a, ra = data.reference_angles(), rep.reference_angles()
    assert a is not None and ra is not None
    own_a, new_a = np.abs(np.diff(a, axis=0)).max(axis=0), np.abs(np.diff(ra, axis=0)).max(axis=0)
    assert np.all(new_a <= 2.0 * own_a + 1e-12), (np.degrees(new_a), np.degrees(own_a))
    if data.cop_x is not None:  # positions walk on: no jump back at a seam
        step = np.nanmax(np.abs(np.diff(data.cop_x, axis=0)))
        assert np.nanmax(np.abs(np.diff(rep.cop_x, axis=0))) <= 2.0 * step + 1e-12
    assert data.name in rep.name and REPEAT_TAG in rep.name
    assert rep.meta.extra["repeated_cycles"]["strides"] == span.strides


@pytest.mark.parametrize("name", ["sneakers", "barefoot", "high_heels"])
def test_bundled_sets_repeat_continuously(name: str) -> None:
    data = load_data(RunSpec(), name)
    rep = repeat_dataset(data, 60.0, compact=False)  # every repetition written out (the fold: test_folded_sources)
    _check_continuous(data, rep, 60.0)
    if rep.q is not None:  # the trunk walks on: its x keeps its own largest step
        step = np.abs(np.diff(data.q[:, 0])).max()
        assert np.abs(np.diff(rep.q[:, 0])).max() <= 2.0 * step
        assert rep.q[-1, 0] > 5.0 * data.q[-1, 0]


@pytest.mark.parametrize("which", ["overground", "treadmill"])
def test_real_trials_repeat_continuously(shared_data: Path, which: str) -> None:
    grf, kin = _trial(shared_data, which)
    data = load_data(RunSpec(dataset=grf, kinematics=kin), grf)
    rep = repeat_dataset(data, 30.0, compact=False)
    _check_continuous(data, rep, 30.0)


def test_a_trial_without_two_heel_strikes_of_one_foot_cannot_repeat(shared_data: Path) -> None:
    grf, kin = _trial(shared_data, "overground")
    data = load_data(RunSpec(dataset=grf, kinematics=kin, end=1.0), grf)  # one strike per foot
    with pytest.raises(UserError, match="no foot has two heel strikes"):
        repeat_dataset(data, 5.0)


def test_cli_short_trial_with_repeat_is_a_user_error(shared_data: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    grf, kin = _trial(shared_data, "overground")
    code = main(["run", "--grf", grf, "--kinematics", kin, "--end", "1.0", "--duration", "5", "--repeat-cycles",
                 "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2
    assert "no foot has two heel strikes" in err and "Traceback" not in err
    assert not (tmp_path / "o" / "summary.json").exists()


def test_clamp_is_reported_in_warnings_without_repeat() -> None:
    built = build(RunSpec(duration=12.0))
    assert built.t_end == pytest.approx(10.008)
    (warning,) = built.warnings
    assert "--duration 12 s" in warning and "10.008 s" in warning and "--repeat-cycles" in warning
    # within the data: no warning; with --repeat-cycles: the duration asked, on the repeated set
    assert build(RunSpec(duration=5.0)).warnings == ()
    rep = build(RunSpec(duration=12.0, repeat=True))
    assert rep.t_end == pytest.approx(12.0) and rep.warnings == ()
    assert REPEAT_TAG in dataset_of(rep.model.ctx, rep.dataset).name


def test_cli_clamp_warning_on_console_and_in_summary(shared_data: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    grf, kin = _trial(shared_data, "overground")
    out = tmp_path / "o"
    code = main(["run", "--grf", grf, "--kinematics", kin, "--duration", "5", "--no-csv", "--out", str(out)])
    err = capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert code in (0, 3)  # walks or falls: the clamp is what is tested
    assert "warning: --duration 5 s is longer than the data" in err and "cut to 2.42 s" in err
    assert any("cut to 2.42 s" in w for w in summary["warnings"])
    assert summary["t_end_requested"] == pytest.approx(2.42)


# ------------------------------------------------------------------ metrics of long and decimated runs
@pytest.fixture(scope="module")
def runs() -> dict[str, dict]:  # type: ignore[type-arg]
    out = {}
    for key, spec in (("10s", RunSpec()), ("30s", RunSpec(duration=30.0, repeat=True)),
                      ("every10", RunSpec(record_every=10))):
        res = run(spec)
        out[key] = {**res.summary, "rows": res.results.t.size}
    return out


#: (key path, absolute tolerance) of the walking metrics compared between runs
WALKING_TOL = [
    (("rms_deg", "hip_l"), 0.02), (("rms_deg", "hip_r"), 0.02), (("rms_deg", "knee_l"), 0.02),
    (("rms_deg", "knee_r"), 0.02), (("rms_deg", "trunk"), 0.02),
    (("trunk_deg", "min"), 0.05), (("trunk_deg", "max"), 0.05),
    (("knee_range_deg", "l"), 0.1), (("knee_range_deg", "r"), 0.1),
    (("stride_length_m",), 0.002), (("cadence_steps_per_min",), 0.5), (("com_height_m",), 5e-4),
    (("peak_torque_nm_per_kg", "hip"), 0.02), (("peak_torque_nm_per_kg", "knee"), 0.02),
    (("actuation", "stance_joint_impulse_share", "estimator"), 0.005),
    (("actuation", "stance_joint_impulse_share", "trunk_balance"), 0.005),
    (("residual", "y", "rms_fraction"), 0.003), (("residual", "x", "rms_fraction"), 0.003),
]


def _get(summary: dict, path: tuple[str, ...]) -> float:  # type: ignore[type-arg]
    for key in path:
        summary = summary[key]
    return float(summary)  # type: ignore[arg-type]


@pytest.mark.slow
def test_thirty_seconds_of_repeated_cycles_walk_like_the_ten_second_run(runs: dict) -> None:  # type: ignore[type-arg]
    short, long = runs["10s"], runs["30s"]
    assert long["status"] == "ok" and long["t_end_reached"] == pytest.approx(30.0)
    assert long["cycles_completed"] >= 25 and short["cycles_completed"] == 8
    for path, tol in WALKING_TOL:
        assert _get(long, path) == pytest.approx(_get(short, path), abs=tol), path


@pytest.mark.slow
def test_summary_of_a_decimated_log_matches_full_rate(runs: dict) -> None:  # type: ignore[type-arg]
    full, dec = runs["10s"], runs["every10"]
    assert dec["status"] == full["status"] == "ok"
    assert (full["rows"], dec["rows"]) == (10001, 1001)  # ticks 0, 10, ..., 10000
    assert dec["t_end_reached"] == full["t_end_reached"]  # the last tick is always kept
    assert dec["cycles_completed"] == full["cycles_completed"]
    for path, tol in WALKING_TOL:
        assert _get(dec, path) == pytest.approx(_get(full, path), abs=tol), path
