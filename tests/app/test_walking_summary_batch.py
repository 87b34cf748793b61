"""The walking summary of many copies at once equals each copy summarised alone (a batch of one),
including a copy that falls (its window cut at the fall), a copy that failed early (fewer valid rows)
and a copy whose solved-gait torques are zero (no such account entry)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from app.walking import ROLES
from app.walking_summary import walking_summary_batch
from tests.models.test_gait_metrics import synthetic_walk

MASS, LEG, G = 55.0, 0.9, 9.81


def _copies(n_copies: int = 4) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Synthetic walks with every walking role, each copy perturbed differently (canonical names)."""
    t, q, stance, feet, com, tau = synthetic_walk(cycles=3)
    rng = np.random.default_rng(7)
    n = t.size
    per: dict[str, list[np.ndarray]] = {key: [] for key in ROLES.values()}
    per["kin.hip"] = []
    for c in range(n_copies):
        qc = q.copy()
        qc[:, 1] = 0.95
        qc[:, 3:5] = 0.2 * np.sin(2 * np.pi * t)[:, None] * (1 + 0.1 * c)
        sig = {"body.q": qc, "body.qd": np.gradient(qc, t, axis=0), "phase.stance": stance.astype(float),
               "kin.feet": feet + 0.001 * c, "kin.contact": feet + 0.002 * c,
               "kin.com": com + 0.01 * c, "kin.hip": np.stack([com[:, 0], np.full(n, 0.9)], axis=1),
               "switch.tau": tau * (1 + 0.2 * c), "ref.angles": q[:, 2:],
               "grf.F": np.tile([10.0, 300.0, -5.0, 250.0], (n, 1)) + rng.normal(size=(n, 4)),
               "contact.corr": rng.normal(size=(n, 4)) * (1 + c), "est.tau": rng.normal(size=(n, 4)),
               "trunk.tau": rng.normal(size=(n, 4)), "stance_damp.tau": rng.normal(size=(n, 4)),
               "ref_motion.tau": rng.normal(size=(n, 4)), "ankle.cop": rng.normal(size=(n, 2)) * 0.01,
               "ankle.mz": rng.normal(size=(n, 2)), "trunk.mz": rng.normal(size=(n, 2)),
               "ref_motion.feet": feet, "ref_motion.com": np.concatenate([com, np.zeros((n, 1))], axis=1),
               "grf_match.dtau": rng.normal(size=(n, 4)),
               "solved.tau_ff": rng.normal(size=(n, 4)) * (c != 2), "solved.tau_pd": rng.normal(size=(n, 4))}
        if c == 1:  # falls: the trunk tilts past 60 deg at t = 1.5 s
            qc[t >= 1.5, 2] = np.radians(70.0)
        for key, value in sig.items():
            per.setdefault(key, []).append(value)
    return t, {k: np.stack(v) for k, v in per.items() if v}


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return type(a) is type(b) and a == b


def test_a_batch_equals_each_copy_alone() -> None:
    t, signals = _copies()
    lengths = [t.size, t.size, t.size, 1800]  # the last copy failed at 1.8 s
    statuses = ["ok", "ok", "ok", "failed"]
    velocity = lambda q, qd: qd[:2]  # noqa: E731  # a stand-in CoM velocity
    many = walking_summary_batch(t, signals, lengths, statuses, MASS, LEG, G, velocity)
    for j, got in enumerate(many):
        size = lengths[j]
        alone = walking_summary_batch(t[:size], {k: v[j: j + 1, :size] for k, v in signals.items()}, [size],
                                      [statuses[j]], MASS, LEG, G, velocity)[0]
        assert _equal(got, alone), j
    assert [m["status"] for m in many] == ["ok", "fell", "ok", "failed"]
    assert many[1]["fell_at_s"] == 1.5 and many[1]["metrics_until_s"] == 1.5
    assert "solved_feedforward" in many[0]["actuation"] and "solved_feedforward" not in many[2]["actuation"]
    assert many[3]["metrics_until_s"] == t[1799]
    assert len({m["rms_deg"]["hip_l"] for m in many}) == 4  # each copy its own numbers
    assert many[0]["recording"] is many[2]["recording"]  # the same recording and stance: computed once


def test_a_copy_with_too_few_rows_has_no_walking_keys() -> None:
    t, signals = _copies(2)
    out = walking_summary_batch(t, signals, [t.size, 1], ["ok", "failed"], MASS, LEG, G)
    assert out[0]["status"] == "ok" and out[1] == {}
