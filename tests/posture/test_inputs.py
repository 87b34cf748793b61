"""What the posture solver reads of a recording (models.posture.inputs)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from grf_data.registry import load_dataset
from models.gaitdata.events import detect_contacts
from models.posture.inputs import cycle_inputs, whole_cycles


@pytest.fixture(scope="module")
def sneakers():
    return load_dataset("sneakers")


def test_a_cycle_runs_between_two_heel_strikes_of_one_foot(sneakers) -> None:
    cycles = whole_cycles(sneakers)
    period = sneakers.meta.extra["period_s"]
    assert cycles and all(abs((t1 - t0) - period) < 1e-6 for t0, t1 in cycles)
    right = [c.on_s for c in detect_contacts(sneakers.t, sneakers.grf[:, 3]) if c.heel_strike]
    assert cycles[0][0] == right[0]  # the right foot's cycles come first
    ci = cycle_inputs(sneakers, n=80)
    assert ci.n == 80 and ci.t[0] == cycles[0][0]
    # every node is in stance on at least one foot or tracked in swing on the other
    assert np.all(ci.stance.any(axis=1))
    assert np.all((ci.swing_weight > 0) | ci.stance)


def test_the_swing_reference_of_another_recording_is_read_by_swing_phase(sneakers) -> None:
    hh = load_dataset("high_heels")
    ci = cycle_inputs(hh, sneakers, n=100)
    assert ci.kinematics_name == "sneakers"
    # the sneakers' middle complete left swing, read at the swing phase of each high-heels node
    contacts = detect_contacts(sneakers.t, sneakers.grf[:, 1])
    windows = [(a.off_s, b.on_s) for a, b in zip(contacts[:-1], contacts[1:], strict=False)]
    off, on = windows[len(windows) // 2]
    swing = ci.swing_weight[:, 0] > 0
    tb = off + ci.swing_phase[swing, 0] * (on - off)
    expected = np.interp(tb, sneakers.t, sneakers.angles[:, 1])  # beta_l
    np.testing.assert_allclose(ci.swing_ref[swing, 0, 0], expected, atol=1e-12)
    # and it is not the high heels' own swing
    own = cycle_inputs(hh, n=100)
    assert np.abs(own.swing_ref[swing, 0, 0] - ci.swing_ref[swing, 0, 0]).max() > np.deg2rad(0.5)


def test_a_cop_that_does_not_progress_with_the_walk_is_not_used(sneakers) -> None:
    speed = sneakers.meta.extra["stride_m"] / sneakers.meta.extra["period_s"]
    belt = replace(sneakers, cop_x=sneakers.cop_x - speed * sneakers.t[:, None])  # a treadmill belt's frame
    ci = cycle_inputs(belt)
    assert not ci.has_cop and np.all(ci.cop_d == 0.0)
    assert any("not in a floor-fixed frame" in note for note in ci.notes)
    assert cycle_inputs(sneakers).has_cop


def test_a_recording_without_a_whole_cycle_is_a_clear_error(sneakers) -> None:
    from models.errors import UserError

    with pytest.raises(UserError, match="no whole gait cycle"):
        cycle_inputs(sneakers.crop(0.0, 0.9))
    with pytest.raises(UserError, match="cycle 99"):
        cycle_inputs(sneakers, cycle=99)


def test_the_force_plates_give_the_walking_speed(sneakers, shared_data) -> None:
    """``--speed trial`` without a stated speed: the CoP's progression over time. On a bundled set it is
    the generator's stride over its period; on a floor-fixed real recording a walking speed; on a
    treadmill (the CoP in the belt's frame) there is none, and the error says to give ``--speed``."""
    from app.posture import trial_speed
    from models.errors import UserError
    from models.posture.inputs import cop_speed

    expected = sneakers.meta.extra["stride_m"] / sneakers.meta.extra["period_s"]
    assert cop_speed(sneakers) == pytest.approx(expected, rel=2e-3)
    demotu = shared_data / "demotu-BMC"
    walk1 = load_dataset(str(demotu / "walk1.forces"), kinematics=str(demotu / "walk1.trc"))
    assert 0.9 < trial_speed(walk1) < 1.5                       # measured 1.17 m/s
    treadmill = load_dataset(str(shared_data / "opensim-core/subject01_walk1_grf.mot"))
    with pytest.raises(UserError, match="give --speed"):
        trial_speed(treadmill)
    assert cop_speed(replace(sneakers, cop_x=None)) is None


def test_a_solution_resamples_onto_other_nodes_of_its_cycle() -> None:
    """Mesh refinement's warm start: a periodic motion with x advancing one stride per cycle is
    reproduced on the new nodes (linear parts exactly, a sine to the interpolation error)."""
    from models.posture.guess import resample

    n, stride = 50, 0.8
    s = np.arange(n) / n
    q = np.zeros((n, 7))
    q[:, 0] = stride * s + 0.01 * np.sin(2 * np.pi * s)
    q[:, 2] = 0.05 * np.sin(2 * np.pi * s)
    qd = np.tile(np.cos(2 * np.pi * s)[:, None], (1, 7))
    q2, qd2, qdd2 = resample(q, qd, np.zeros((n, 7)), stride, 120)
    s2 = np.arange(120) / 120
    assert q2.shape == (120, 7) and qdd2.shape == (120, 7)
    np.testing.assert_allclose(q2[:, 0], stride * s2 + 0.01 * np.sin(2 * np.pi * s2), atol=2e-4)
    np.testing.assert_allclose(q2[:, 2], 0.05 * np.sin(2 * np.pi * s2), atol=1e-3)
    np.testing.assert_allclose(qd2[:, 3], np.cos(2 * np.pi * s2), atol=3e-3)
    assert q2[-1, 0] > q2[-2, 0] and q2[-1, 0] < stride     # the last interval wraps to x0 + stride
