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
