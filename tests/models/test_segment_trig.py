"""The segment angles' sines and cosines computed once (:mod:`models.segment_trig`): the helpers that read
them give the numbers of those that compute their own, to the bit, compiled and as Python source."""

from __future__ import annotations

import math

import numpy as np
import pytest

from models import _eom_numba as nb
from models.biped import BipedParams
from models.segment_trig import TRIG_NAMES, segment_trig_into, trig_of
from models.validation import random_states

pytestmark = pytest.mark.skipif(not nb.AVAILABLE, reason="numba not installed")

PARAMS = [BipedParams.paper(), BipedParams.scaled(mass=72.6, height=1.80).with_foot_radius(0.12)]


def _by_hand(q: np.ndarray) -> np.ndarray:
    """The module docstring's vector, from ``math`` (thigh ``a - beta``, shank ``a - beta + gamma``)."""
    out = [math.sin(q[2]), math.cos(q[2])]
    for s in range(2):
        th1 = q[2] - q[3 + s]
        th2 = th1 + q[5 + s]
        out += [math.sin(th1), math.cos(th1), math.sin(th2), math.cos(th2)]
    return np.array(out)


@pytest.mark.parametrize("compiled", [True, False])
def test_segment_trig_is_the_segment_angles_sines_and_cosines(compiled: bool) -> None:
    fn = segment_trig_into if compiled else segment_trig_into.py_func
    Q, _, _, _ = random_states(50, seed=11)
    assert len(TRIG_NAMES) == 10
    for q in Q:
        assert np.array_equal(fn(q, np.empty(10)), _by_hand(q))


def test_trig_of_reads_a_connected_input_and_computes_an_unconnected_one() -> None:
    """An unconnected optional input reads zeros: then the sines and cosines come from ``q``; a connected one
    is read as it is (here a vector that is not the state's, to see which was used)."""
    q = random_states(1, seed=4)[0][0]
    for fn in (trig_of, trig_of.py_func):
        own, copied = np.full(10, np.nan), np.full(10, np.nan)
        fn(q, np.zeros(10), own)
        assert np.array_equal(own, _by_hand(q))
        given = np.linspace(0.1, 1.0, 10)
        fn(q, given, copied)
        assert np.array_equal(copied, given)


@pytest.mark.parametrize("params", PARAMS)
def test_helpers_reading_the_trig_give_the_same_bits(params: BipedParams) -> None:
    """Dynamics and foot states from a given ``sc`` are those computing their own, bit for bit (point and
    rolling foot), so a diagram that shares them walks the same run."""
    Q, QD, TAU, GRF = random_states(200, seed=21)
    MZ = np.random.default_rng(2).normal(0.0, 20.0, (200, 2))
    p = params.as_array()
    a, b = np.empty(7), np.empty(7)
    for i in range(200):
        sc = segment_trig_into(Q[i], np.empty(10))
        nb.forward_dynamics_into(p, Q[i], QD[i], TAU[i], GRF[i], MZ[i], a)
        nb.forward_dynamics_sc_into(p, Q[i], QD[i], TAU[i], GRF[i], MZ[i], sc, b)
        assert np.array_equal(a, b)
        for s in range(2):
            assert nb.foot_state_side(p, Q[i], QD[i], s) == nb.foot_state_of(p, Q[i], QD[i], sc, s)


def test_a_wrong_trig_vector_changes_the_dynamics() -> None:
    """The shared vector is what the dynamics read: the left thigh's sine off by 1e-9 moves the accelerations."""
    Q, QD, TAU, GRF = random_states(1, seed=9)
    p = BipedParams.paper().as_array()
    sc = segment_trig_into(Q[0], np.empty(10))
    a, b = np.empty(7), np.empty(7)
    nb.forward_dynamics_sc_into(p, Q[0], QD[0], TAU[0], GRF[0], np.zeros(2), sc, a)
    sc[2] += 1e-9
    nb.forward_dynamics_sc_into(p, Q[0], QD[0], TAU[0], GRF[0], np.zeros(2), sc, b)
    assert not np.array_equal(a, b)
