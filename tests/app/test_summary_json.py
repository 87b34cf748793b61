"""``summary.json`` is strict JSON, names its preset, and the console prints one status line
(issue 34 §1)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.cli import main
from app.jsontext import dumps, finite


def strict_load(path: Path) -> Any:
    """``json.loads`` that rejects ``NaN``, ``Infinity`` and ``-Infinity`` as strict parsers do."""
    def reject(word: str) -> None:
        raise ValueError(f"{path}: not strict JSON: {word}")

    return json.loads(path.read_text(encoding="utf-8"), parse_constant=reject)


def test_finite_maps_non_finite_floats_to_none() -> None:
    data = {"a": math.nan, "b": [1.5, np.float64(np.inf), (np.float32(2.0), -math.inf)], "c": {"d": np.int64(3)}}
    assert finite(data) == {"a": None, "b": [1.5, None, [2.0, None]], "c": {"d": 3}}
    assert json.loads(dumps(data)) == {"a": None, "b": [1.5, None, [2.0, None]], "c": {"d": 3}}


def test_a_short_run_writes_null_for_what_it_has_not_got(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """0.5 s holds no whole gait cycle: stride length and cadence are not there. They were bare
    ``NaN`` (rejected by strict parsers); they are ``null``."""
    out = tmp_path / "out"
    assert main(["run", "--duration", "0.5", "--no-csv", "--out", str(out)]) == 0
    summary = strict_load(out / "summary.json")
    assert summary["stride_length_m"] is None and summary["cadence_steps_per_min"] is None
    assert summary["steps"] == 500 and summary["status"] == "ok"
    assert summary["preset"] == "tracking"  # the default diagram holds the tracking preset
    lines = capsys.readouterr().out.splitlines()
    # one status line, no bare "ok" before it (half a second holds no whole gait cycle, and says so)
    assert lines[0].startswith("ok (no whole gait cycle): 500 steps to t = 0.500 s, ")
    assert "ok" not in lines and sum(ln.startswith("ok") for ln in lines) == 1


@pytest.mark.parametrize(("given", "applied"), [("default", "tracking"), ("paper", "paper")])
def test_summary_names_the_preset_applied(tmp_path: Path, given: str, applied: str) -> None:
    out = tmp_path / "out"
    assert main(["run", "--duration", "0.3", "--no-csv", "--preset", given, "--set", "pid_hip.kp=310",
                 "--out", str(out)]) in (0, 3)
    summary = strict_load(out / "summary.json")
    assert summary["preset"] == applied and summary["params"]["pid_hip.kp"] == 310.0


def test_the_preset_a_diagram_holds() -> None:
    """Without ``--preset``: the preset whose every value the diagram holds, None for a diagram without them."""
    from app.run_summary import applied_preset
    from app.runs import RunSpec, default_diagram_path
    from blocks import Diagram
    from blocks.library.presets import apply_preset

    default = Diagram.load(default_diagram_path())
    assert applied_preset(RunSpec(preset=None)) == "tracking"
    assert applied_preset(RunSpec(preset=None, diagram=apply_preset(default, "emergent"))) == "emergent"
    changed = apply_preset(default, "paper")
    changed.set_param("pid_hip.kp", 123.0)  # a preset value changed: no longer the paper preset
    assert applied_preset(RunSpec(preset=None, diagram=changed)) is None
    squeezer = default_diagram_path().with_name("andrews_squeezer.json")
    assert applied_preset(RunSpec(preset=None, diagram=squeezer)) is None
