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


def test_pid_plant_reaches_the_step_and_nothing_moves_without_gains() -> None:
    ex = _load("pid_plant")
    t, x = ex.step_response()
    assert abs(x[-1] - 1.0) < 0.03 and x.max() < 1.2  # measured 0.982, overshoot 5.6 %
    assert np.all(x[t < 0.5] == 0.0)  # nothing before the step
    _, still = ex.step_response(kp=0.0, ki=0.0, kd=0.0)
    assert np.abs(still).max() == 0.0


def test_custom_block_matches_the_exact_lag() -> None:
    ex = _load("custom_block")
    t, y = ex.response(tau=0.25, t_end=1.0)
    np.testing.assert_allclose(y, 1.0 - np.exp(-t / 0.25), atol=1e-9)


@pytest.mark.slow
def test_paper_scheme_falls_and_tracking_walks() -> None:
    ex = _load("paper_scheme")
    assert ex.walk("paper", 2.0)["fell_at_s"] is not None
    assert ex.walk("tracking", 2.0)["fell_at_s"] is None


@pytest.mark.slow
def test_gain_sweep_stiffer_knee_tracks_better() -> None:
    ex = _load("gain_sweep")
    soft, stiff = ex.sweep((200.0, 3200.0), seconds=1.0, workers=1)
    assert soft["pid_knee.kp"] == 200.0 and stiff["pid_knee.kp"] == 3200.0
    assert stiff["rms_deg.knee_l"] < 0.5 * soft["rms_deg.knee_l"]


def test_readme_code_runs() -> None:
    """The README's "diagram in code" block runs as written (5 s of walking shortened to 1 s)."""
    import re

    readme = (EXAMPLES.parent / "README.md").read_text(encoding="utf-8")
    code = re.search(r"## A diagram in code\n\n```python\n(.*?)```", readme, re.S)
    assert code is not None
    env: dict[str, object] = {}
    exec(compile(code.group(1).replace("duration=5.0", "duration=1.0"), "README.md", "exec"), env)
    res, walk = env["res"], env["walk"]
    assert abs(res["plant.y"].reshape(-1)[-1] - 1.0) < 0.03  # type: ignore[index]
    assert walk.summary["status"] == "ok"  # type: ignore[attr-defined]
