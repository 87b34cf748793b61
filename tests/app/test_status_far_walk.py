"""A walker far from the start has not blown up: ``run_status`` bounds the height and the angles only."""

from __future__ import annotations

import numpy as np

from app.walking import BLOWUP, run_status


def test_forward_position_beyond_the_blowup_bound_is_ok() -> None:
    q = np.tile(np.array([0.0, 0.95, 0.05, 0.2, -0.1, 0.3, 0.1]), (5, 1))
    q[:, 0] = np.linspace(2390.0, 2400.0, 5)  # an hour at 0.67 m/s
    assert run_status("ok", {"q": q}, None) == "ok"
    q[3, 1] = 2 * BLOWUP  # the height is still bounded
    assert run_status("ok", {"q": q}, None) == "failed"
    q[3, 1] = 0.95
    q[2, 0] = np.inf  # and every coordinate must be finite
    assert run_status("ok", {"q": q}, None) == "failed"
