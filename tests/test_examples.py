"""Smoke test and claims of the examples."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def arm() -> ModuleType:
    return _load("two_link_arm")


def test_slow_movement_is_dominated_by_gravity(arm: ModuleType) -> None:
    f = arm.measure(4.0)
    assert np.all(f["gravity"] > 0.7)  # measured 0.86 (shoulder), 0.75 (elbow)
    assert np.all(f["peak_gravity"] > 10 * f["peak_interaction"])


def test_fast_movement_is_dominated_by_interaction_torques(arm: ModuleType) -> None:
    f = arm.measure(0.5)
    assert np.all(f["interaction"] > 0.5)  # measured 0.88 (shoulder), 0.90 (elbow)
    assert np.all(f["peak_interaction"] > 3 * f["peak_gravity"])
    # gravity is the same posture-dependent torque at both speeds
    np.testing.assert_allclose(f["peak_gravity"], arm.measure(4.0)["peak_gravity"], rtol=1e-12)


def test_example_prints_the_fractions(arm: ModuleType, capsys: pytest.CaptureFixture[str]) -> None:
    arm.main()
    out = capsys.readouterr().out
    assert "slow movement (4.0 s)" in out and "fast movement (0.5 s)" in out
    slow = arm.measure(4.0)
    assert f"gravity dominates {100 * slow['gravity'][0]:5.1f} %" in out
