"""Labels of ``compare`` and ``summary.json``: ``input`` / ``solved`` / ``set-point`` / ``simulated`` per preset."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.compare_report import label, labels, metrics_table, verdict
from app.runs import RunSpec, run


@dataclass
class _Cond:
    name: str
    summary: dict[str, Any] = field(default_factory=dict)


def _summary(lo: float, hi: float, stride: float) -> dict[str, Any]:
    return {"status": "ok", "trunk_deg": {"min": lo, "max": hi}, "knee_range_deg": {"l": 60.0, "r": 61.0},
            "stride_length_m": stride, "com_height_m": 0.9, "recording": {}}


def test_each_preset_labels_the_trunk_as_what_it_is() -> None:
    assert labels("tracking") == {"trunk": "input", "knee": "input", "stride": "input", "com_height": "input",
                                  "cadence": "input"}
    assert labels("emergent") == {"trunk": "solved", "knee": "solved", "stride": "solved", "com_height": "solved",
                                  "cadence": "input"}
    assert labels("setpoint")["trunk"] == "set-point" and labels("setpoint")["stride"] == "simulated"
    assert label("paper", "trunk") == "simulated" and label("default", "trunk") == "input"


def test_the_setpoint_table_and_verdict_do_not_call_the_trunk_a_finding() -> None:
    conds = [_Cond("a", _summary(1.0, 4.0, 0.70)), _Cond("b", _summary(-1.0, 3.0, 0.75))]
    header = metrics_table(conds, "setpoint")[0]
    assert "trunk min [deg] (set-point)" in header and "stride [m] (simulated)" in header
    text = verdict(conds, "setpoint")
    assert "held toward a set-point" in text and "Most forward lean" not in text and "Shortest stride: a" in text
    assert "Most forward lean: a" in verdict(conds, "emergent")
    solved = verdict(conds, "emergent")
    assert "solved metrics" in solved and "set-point" not in solved


def test_summary_json_labels_the_setpoint_trunk() -> None:
    s = run(RunSpec(dataset="sneakers", preset="setpoint", duration=0.3)).summary
    assert s["preset"] == "setpoint" and s["labels"]["trunk"] == "set-point"
