"""Small measurements on recorded runs that several test modules share."""

from __future__ import annotations

from typing import Any


def com_start_vy(results: Any) -> float:
    """Vertical CoM velocity at the first sample [m/s]: one-sided second-order difference of ``kin.com``."""
    y, dt = results["kin.com"][:3, 1], results.t[1] - results.t[0]
    return float((-3.0 * y[0] + 4.0 * y[1] - y[2]) / (2.0 * dt))
