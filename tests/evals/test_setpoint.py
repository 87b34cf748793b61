"""Issue 16 evals of the ``setpoint`` preset (named ``emergent`` until issue 30 section 7): its posture is not a
copy of the recording, though its trunk is held toward one shared set-point by an external couple.

Whole-system runs of the default diagram (``gaitblocks run --preset setpoint``) on the bundled
synthetic sets. What the preset meets is asserted; the targets it misses are strict xfails
carrying the measured figures (they fail the moment a change brings a figure inside its bound).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.cli import main
from blocks.recorder import Results
from models.force_account import speed_account
from tests.run_helpers import com_start_vy

BUNDLED = ("sneakers", "barefoot", "high_heels")


def setpoint(tmp: Path, grf: str, *extra: str, duration: float = 10.0) -> tuple[dict[str, Any], Results]:
    code = main(["run", "--grf", grf, "--preset", "setpoint", "--duration", str(duration), *extra, "--out", str(tmp)])
    summary = json.loads((tmp / "summary.json").read_text())
    assert code == {"ok": 0, "fell": 3, "failed": 1}[summary["status"]]  # the exit code tells the status
    return summary, Results.load_npz(tmp / "results.npz")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[dict[str, Any], Results]]:
    return {ds: setpoint(tmp_path_factory.mktemp(ds), ds) for ds in BUNDLED}


@pytest.mark.parametrize("ds", BUNDLED)
def test_setpoint_walks_10_s_with_its_trunk_in_range_and_feet_planted(runs: dict, ds: str) -> None:
    s, _ = runs[ds]
    assert s["status"] == "ok" and s["fell_at_s"] is None
    assert -5.0 <= s["trunk_deg"]["min"] and s["trunk_deg"]["max"] <= 12.0
    assert s["stance_slip_m_max"] <= 0.02
    assert s["cycles_completed"] >= 7


@pytest.mark.parametrize("ds", BUNDLED)
def test_setpoint_trunk_is_not_a_copy_of_the_recording(runs: dict, ds: str) -> None:
    """The set-point preset's trunk curve differs from the reference beyond tracking precision (issue: corr < 0.999
    or RMS difference > 0.3 deg); the tracking preset's trunk RMS error is 0.08 deg on these sets."""
    _, r = runs[ds]
    alpha, ref = np.degrees(r["body.q"][:, 2]), np.degrees(r["ref.angles"][:, 0])
    corr = float(np.corrcoef(alpha, ref)[0, 1])
    rms = float(np.sqrt(np.mean((alpha - ref) ** 2)))
    assert corr < 0.999 or rms > 0.3
    assert rms > 0.3


def test_setpoint_reads_no_stance_posture_of_the_recording(runs: dict) -> None:
    """Stance feedback is off: the whole stance-joint impulse comes from the estimator, the trunk
    balance and the GRF match (measured 40 / 57 / 3 % on sneakers), and the footprints are where the
    model landed."""
    for ds in BUNDLED:
        s, r = runs[ds]
        share = s["actuation"]["stance_joint_impulse_share"]
        assert share["joint_feedback"] < 0.01
        assert share["estimator"] > 0.3
        held = r["footprints.feet"][:, [0, 2]]
        ref = r["ref_motion.feet"][:, [0, 2]]
        assert np.abs(held - ref).max() > 0.02  # not the reference footprints


@pytest.mark.parametrize("ds, rec", [("sneakers", 0.75), ("barefoot", 0.73), ("high_heels", 0.72)])
def test_setpoint_stride_within_10_percent(runs: dict, ds: str, rec: float) -> None:
    s, _ = runs[ds]
    assert s["recording"]["stride_length_m"] == pytest.approx(rec, abs=0.01)  # the recording's own stride
    # measured 0.807 m sneakers (+7.6 %), 0.795 m barefoot (+8.8 %), 0.722 m high heels (+0.3 %)
    assert s["stride_length_m"] == pytest.approx(rec, rel=0.10)


@pytest.mark.parametrize("ds", BUNDLED)
def test_setpoint_residual_good(runs: dict, ds: str) -> None:
    """Measured RMS fore-aft / vertical: sneakers 2.9 / 1.7 %, barefoot 1.0 / 1.5 %, high heels 3.8 / 1.7 %
    of the peak GRF (before the GRF match: 15 / 51-55 %)."""
    assert runs[ds][0]["residual"]["verdict"] == "good"


def test_the_speed_is_the_recordings_not_the_floors(runs: dict) -> None:
    """The speed account: the floor adds under a tenth of the mean speed (measured +0.043 of 0.729 m/s
    on sneakers, +0.048 of 0.731 barefoot, -0.013 of 0.612 high heels), and the account closes on the
    CoM's own displacement."""
    for ds in BUNDLED:
        s, r = runs[ds]
        acc = s["speed_account"]
        assert abs(acc["residual_m_s"]) < 0.1 * acc["mean_m_s"]
        assert acc["mean_m_s"] == pytest.approx(_speed(s, r), abs=1e-9)
        assert acc["mean_m_s"] == pytest.approx(acc["initial_m_s"] + acc["recorded_grf_m_s"] + acc["residual_m_s"])


def test_without_the_grf_match_the_walker_falls(tmp_path: Path) -> None:
    """The GRF match carries 3 % of the stance joint impulse, and without it the floor makes up the rest
    until the walk fails: measured on sneakers, it falls at 2.66 s, the floor having taken 0.065 m/s off
    the mean speed by then (vertical residual 7.7 %)."""
    s, _ = setpoint(tmp_path, "sneakers", "--set", "grf_match.gain=0")
    assert s["status"] == "fell" and s["fell_at_s"] < 5.0
    assert s["speed_account"]["residual_m_s"] < -0.03


def test_status_and_force_account_are_reported(runs: dict) -> None:
    s, _ = runs["sneakers"]
    act = s["actuation"]
    assert act["recorded_grf"]["rms_bw"] == pytest.approx(1.0, abs=0.15)
    assert sum(act["stance_joint_impulse_share"].values()) == pytest.approx(1.0)
    assert 0.0 < act["stance_joint_impulse_share"]["grf_match"] < 0.2
    res = s["residual"]
    assert res["verdict"] in ("good", "acceptable", "poor")
    assert res["y"]["rms_fraction"] == pytest.approx(res["y"]["rms_n"] / res["peak_external_n"])
    assert s["recording"]["trunk_deg"]["min"] < s["recording"]["trunk_deg"]["max"]


def _speed(s: dict[str, Any], r: Results) -> float:
    """Mean forward speed of the whole-body CoM up to the end of the metrics window [m/s]."""
    n = int(np.searchsorted(r.t, s["metrics_until_s"], side="right"))
    com = r["kin.com"]
    return float((com[n - 1, 0] - com[0, 0]) / (r.t[n - 1] - r.t[0]))


@pytest.fixture(scope="module")
def propulsion(tmp_path_factory: pytest.TempPathFactory, runs: dict) -> dict[float, tuple[float, float]]:
    out = {1.0: (_speed(*runs["sneakers"]), runs["sneakers"][0]["stride_length_m"])}
    for g in (0.9, 1.1):
        s, r = setpoint(tmp_path_factory.mktemp(f"prop{g}"), "sneakers", "--set", f"grf.propulsion_gain={g}")
        assert s["status"] == "ok"
        out[g] = (_speed(s, r), s["stride_length_m"])
    return out


def test_perturbation_speed_and_stride_rise_with_propulsion(propulsion: dict[float, tuple[float, float]]) -> None:
    """Measured on sneakers: speed 0.554 / 0.729 / 0.799 m/s and stride 0.622 / 0.807 / 0.888 m for
    propulsion x0.9 / 1.0 / 1.1 (before the GRF match: 0.7013 / 0.7018 / 0.7022 m/s, the floor cancelling
    99.5 % of the change)."""
    speeds = [propulsion[g][0] for g in (0.9, 1.0, 1.1)]
    strides = [propulsion[g][1] for g in (0.9, 1.0, 1.1)]
    assert speeds[2] - speeds[0] > 0.01 and np.all(np.diff(speeds) > 0)
    assert np.all(np.diff(strides) > 0)


def test_perturbation_runs_are_finite_and_differ_from_the_unperturbed(propulsion: dict) -> None:
    """The perturbation reaches the model (the GRF source's propulsion gain acts)."""
    assert all(np.isfinite(v).all() for v in propulsion.values())
    assert propulsion[0.9][0] != propulsion[1.0][0]


@pytest.fixture(scope="module")
def swap(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Results]:
    """The high-heels GRF with the sneakers' joint angles (followed by gait phase)."""
    return setpoint(tmp_path_factory.mktemp("swap"), "high_heels", "--kinematics", "sneakers")


def _recorded_shift(runs: dict, *path: str) -> float:
    """High heels minus sneakers of the recordings' own ``summary["recording"][path...]``."""
    def get(ds: str) -> float:
        d: Any = runs[ds][0]["recording"]
        for k in path:
            d = d[k]
        return float(d)
    return get("high_heels") - get("sneakers")


def test_the_swap_falls_with_the_sneakers_vertical_velocity(tmp_path: Path) -> None:
    """Why ``body.init_vy = paired``: started with the sneakers' own vertical CoM velocity (+0.04 m/s at
    t0, where the high-heels GRF needs -0.088 m/s to keep the mean height) the high-heels GRF lifts the
    body 4.6 cm within 0.2 s, the stance knee is pushed straight and on to -30 deg of hyperextension, and
    the run says it fell (measured: at 0.35 s)."""
    s, r = setpoint(tmp_path, "high_heels", "--kinematics", "sneakers", "--set", "body.init_vy=reference")
    assert s["status"] == "fell" and s["fell_at_s"] < 1.0
    knee = np.degrees(r["body.q"][:, 5:7])
    assert knee[r.t <= s["fell_at_s"]].min() < -29.9


def test_the_swap_starts_with_the_vertical_velocity_of_its_grf(swap: tuple[dict[str, Any], Results]) -> None:
    """``init_vy = paired``: the swap's CoM starts with the vertical velocity under which the high-heels
    GRF keeps the mean height over its whole cycles (:mod:`models.initial_state`), computed here from
    the GRF alone (not the kinematics), and its stance foot at rest."""
    from models.initial_state import periodic_vertical_velocity
    from models.params import G_EARTH

    s, r = swap
    mass = s["subject"]["model_mass_kg"]
    grf = r["grf.F"]
    vy0 = periodic_vertical_velocity(r.t, grf, mass, G_EARTH, r.t[0], r.t[-1])
    assert vy0 is not None and vy0 < -0.05  # the sneakers kinematics start at +0.04 m/s
    assert com_start_vy(r) == pytest.approx(vy0, abs=1e-3)


def test_swap_high_heels_grf_leans_the_trunk_back(swap: tuple[dict[str, Any], Results], runs: dict) -> None:
    """Same (sneakers) swing reference, high-heels GRF, a whole run: the trunk's minimum moves back, the
    way the high-heels recording differs from the sneakers one, by at least a tenth of the recorded shift
    (the recordings' 2.79 deg; measured -0.44 deg)."""
    assert swap[0]["status"] == "ok"
    rec_shift = _recorded_shift(runs, "trunk_deg", "min")
    shift = swap[0]["trunk_deg"]["min"] - runs["sneakers"][0]["trunk_deg"]["min"]
    assert rec_shift < 0
    assert shift <= 0.1 * rec_shift


def test_swap_high_heels_grf_shortens_the_stride(swap: tuple[dict[str, Any], Results], runs: dict) -> None:
    """Same swing reference, high-heels GRF: the stride shortens by at least a tenth of the recordings'
    30 mm difference (measured 43 mm). How, from the speed accounts: the two inputs imply the same mean
    speed (next test) and the high-heels cycle is 6 % longer, so the shortening comes from the floor: to
    carry the sneakers' swing on the high-heels GRF the model needs a backward residual (-0.031 m/s of
    mean speed, against +0.043 on sneakers), still within the RRA guidance (good)."""
    s, sn = swap[0], runs["sneakers"][0]
    rec_shift = _recorded_shift(runs, "stride_length_m")
    shift = s["stride_length_m"] - sn["stride_length_m"]
    assert rec_shift < 0
    assert shift <= 0.1 * rec_shift
    assert s["speed_account"]["residual_m_s"] < sn["speed_account"]["residual_m_s"] - 0.02
    assert s["residual"]["verdict"] == "good"


def test_swap_the_recordings_imply_the_same_speed(swap: tuple[dict[str, Any], Results], runs: dict) -> None:
    """Why the swap cannot shorten the stride through the GRF: over the whole 10 s the mean speed the
    inputs imply (initial speed of the phase-warped sneakers kinematics plus what the high-heels GRF adds;
    measured 0.684 against 0.686 m/s for sneakers) is the same within 1 %, while the stride is that speed
    times the GRF's cycle time (1.176 against 1.112 s). Only a force beyond the recording could shorten
    it. Inputs only: the recorded term is the GRF's own integral, whatever the body did."""
    def implied(run: tuple[dict[str, Any], Results]) -> float:
        s, r = run
        mass = s["subject"]["model_mass_kg"]
        rec = speed_account(r.t, r["kin.com"][:, 0], 0.0, r["grf.F"], None, mass)["recorded_grf_m_s"]
        return s["speed_account"]["initial_m_s"] + rec
    assert implied(swap) == pytest.approx(implied(runs["sneakers"]), rel=0.01)


TRIALS = {  # GRF, kinematics, subject
    "subject01": ("opensim-core/subject01_walk1_grf.mot", "opensim-core/subject01_walk_IK.mot",
                  ("--mass", "72.6", "--height", "1.8")),
    "walk1": ("demotu-BMC/walk1.forces", "demotu-BMC/walk1.trc", ()),
    "walk2": ("demotu-BMC/walk2.forces", "demotu-BMC/walk2.trc", ()),
}


@pytest.fixture(scope="module")
def trials(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    out = {}
    for name, (grf, kin, subject) in TRIALS.items():
        tmp = tmp_path_factory.mktemp(name)
        code = main(["run", "--grf", str(shared_data / grf), "--kinematics", str(shared_data / kin), *subject,
                     "--preset", "setpoint", "--out", str(tmp)])
        out[name] = json.loads((tmp / "summary.json").read_text())
        assert code == {"ok": 0, "fell": 3, "failed": 1}[out[name]["status"]]
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TRIALS))
def test_setpoint_real_trial_falls_are_reported(trials: dict[str, dict[str, Any]], name: str) -> None:
    """Whatever the real trials do, the summary's status, fall time and metrics window agree."""
    s = trials[name]
    if s["status"] == "fell":
        assert s["fell_at_s"] is not None and s["metrics_scope"] == "up to the fall"
        assert s["metrics_until_s"] == pytest.approx(s["fell_at_s"], abs=0.01)
    else:
        assert s["fell_at_s"] is None and s["metrics_scope"] == "whole run"


#: issue 30 §7: the set-point preset's foot radius is the fixed roll-over one (0.3 leg lengths), no longer
#: fitted to the recorded trunk and stance angles; with the fitted radius (0.435-0.488 m) these two walked
_FIXED_FOOT = {"subject01": "with the fixed 0.286 m foot (the fit gave 0.435 m) it falls at 0.73 s",
               "walk1": "with the fixed 0.289 m foot (the fit gave 0.469 m) the right knee hyperextends at 2.27 s"}


@pytest.mark.slow
@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=_FIXED_FOOT[n]))
                                  if n in _FIXED_FOOT else n for n in sorted(TRIALS)])
def test_setpoint_walks_the_real_trials_whole(trials: dict[str, dict[str, Any]], name: str) -> None:
    """A real trial walks its whole length (measured with the fitted foot: trunk -1.9..5.6 deg, slip 0.1 cm
    at most; vertical residual 7.1 / 15.3 / 10.9 % of the peak GRF: subject01 / walk1 / walk2, which
    ``summary.json`` reports). With the foot no longer fitted to the recorded posture only walk2 still does."""
    s = trials[name]
    assert s["status"] == "ok" and s["fell_at_s"] is None
    assert -5.0 <= s["trunk_deg"]["min"] and s["trunk_deg"]["max"] <= 12.0
    assert s["stance_slip_m_max"] <= 0.02
    assert s["actuation"]["stance_joint_impulse_share"]["joint_feedback"] < 0.01


_FAST_GRF = ("walk1 strides 1.477 m against its recorded 1.190 m (+24 %): its recorded GRF adds more speed than "
             "the recording walked (next test: +0.206 m/s), and the floor no longer takes it")


@pytest.mark.slow
@pytest.mark.parametrize("name", [pytest.param("subject01", marks=pytest.mark.xfail(strict=True,
                                                                                    reason=_FIXED_FOOT["subject01"])),
                                  "walk2",
                                  pytest.param("walk1", marks=pytest.mark.xfail(strict=True, reason=_FIXED_FOOT["walk1"]
                                                                                + "; " + _FAST_GRF))])
def test_setpoint_real_trial_stride_within_10_percent(trials: dict[str, dict[str, Any]], name: str) -> None:
    """Measured with the fitted foot: subject01 1.517 m against its recorded 1.432 m (+5.9 %), walk2 1.196
    against 1.096 m (+9.1 %), walk1 +24 % (its GRF speeds the body up, see the next test). With the fixed
    foot subject01 and walk1 fall (xfail)."""
    s = trials[name]
    assert s["status"] == "ok"
    assert s["stride_length_m"] == pytest.approx(s["recording"]["stride_length_m"], rel=0.10)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["walk1", "walk2"])
def test_the_recorded_grf_of_walk1_and_walk2_is_faster_than_their_walk(shared_data: Path, tmp_path: Path,
                                                                       name: str) -> None:
    """Under ``tracking`` (the CoM follows the recording) the floor takes 0.18 (walk1) and 0.19 (walk2) m/s
    off the mean speed the recorded GRF alone would give: the GRF and the kinematics of these trials
    disagree as much as a constant fore-aft force of 11.6 N (walk1) or 16.7 N (walk2) would. A model that
    takes nothing from the floor walks faster, and strides longer, than the recording."""
    grf, kin, subject = TRIALS[name]
    main(["run", "--grf", str(shared_data / grf), "--kinematics", str(shared_data / kin), *subject,
          "--preset", "tracking", "--out", str(tmp_path)])
    acc = json.loads((tmp_path / "summary.json").read_text())["speed_account"]
    assert acc["residual_m_s"] < -0.1


def test_residual_moment_is_reported_and_tracking_is_good_where_setpoint_is_not(runs: dict, tmp_path: Path) -> None:
    """The residual moment about the CoM (contact corrections plus CoP shifts) completes the account:
    under ``tracking`` the model agrees with its recording (measured 3.8 N m RMS, 0.6 % of peak GRF x
    CoM height on sneakers); ``setpoint`` needs an order of magnitude more (measured 82-98 N m: the trunk
    balance's ground couple)."""
    main(["run", "--grf", "sneakers", "--preset", "tracking", "--out", str(tmp_path)])
    tracking = json.loads((tmp_path / "summary.json").read_text())["residual"]
    assert tracking["moment_verdict"] == "good" and tracking["moment"]["rms_fraction"] <= 0.01
    for ds in BUNDLED:
        em = runs[ds][0]["residual"]
        assert em["moment"]["rms_nm"] > 5 * tracking["moment"]["rms_nm"]
        assert em["moment_verdict"] == "poor"
