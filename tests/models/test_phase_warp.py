"""Following a reference by gait phase: the event map and the swapped GRF|KINEMATICS pair."""

from __future__ import annotations

import numpy as np
import pytest

from grf_data.registry import load_dataset
from models.errors import UserError
from models.phase_warp import gait_events, phase_map


def test_phase_map_is_the_identity_on_one_recording_and_matches_events_across_two() -> None:
    sn, hh = load_dataset("sneakers"), load_dataset("high_heels")
    ev_sn, ev_hh = gait_events(sn.t, sn.grf), gait_events(hh.t, hh.grf)
    assert len(ev_sn) >= 30 and {k for _, k in ev_sn} == {"L_on", "R_on", "L_off", "R_off"}
    np.testing.assert_allclose(phase_map(sn.t, ev_sn, ev_sn), sn.t, atol=1e-12)
    tau = phase_map(hh.t, ev_hh, ev_sn)
    assert np.all(np.diff(tau) > 0)  # monotone
    # every left heel strike of high heels maps onto a left heel strike of sneakers
    strikes_hh = [t for t, k in ev_hh if k == "L_on"]
    strikes_sn = [t for t, k in ev_sn if k == "L_on"]
    mapped = np.interp(strikes_hh, hh.t, tau)
    assert np.abs(mapped[:5] - np.array(strikes_sn[:5])).max() < 2e-3
    # high heels walk slower (102 vs 108 steps/min): the map runs faster than real time
    assert (tau[-1] - tau[0]) / (hh.t[-1] - hh.t[0]) == pytest.approx(102.0 / 108.0, rel=0.02)


def test_swapped_pair_keeps_the_grf_and_reads_the_other_kinematics_by_phase() -> None:
    pair = load_dataset("high_heels", kinematics="sneakers")
    same = load_dataset("high_heels|sneakers")
    hh, sn = load_dataset("high_heels"), load_dataset("sneakers")
    assert pair.name == same.name == "high_heels|sneakers"
    first = int(np.searchsorted(hh.t, pair.t[0]))  # cropped where the phase map leaves the sneakers' clock
    np.testing.assert_array_equal(pair.t, hh.t[first: first + pair.t.size])
    np.testing.assert_array_equal(pair.grf, hh.grf[first: first + pair.t.size])
    assert pair.duration > 9.0
    assert pair.reference_angles() is not None
    # the sneakers' knee range, not the high heels'
    assert np.ptp(pair.reference_angles()[:, 3]) == pytest.approx(np.ptp(sn.q[:, 5]), abs=np.radians(0.5))
    ident = load_dataset("sneakers|sneakers")
    np.testing.assert_allclose(ident.reference_angles(), sn.q[: ident.t.size, 2:], atol=1e-12)


def test_a_pair_without_matching_events_is_a_user_error() -> None:
    sn = load_dataset("sneakers")
    with pytest.raises(ValueError, match="matching gait events|left heel strike"):
        phase_map(sn.t, [(0.1, "R_on")], gait_events(sn.t, sn.grf))
    with pytest.raises(UserError):
        load_dataset("sneakers|no_such_dataset")
