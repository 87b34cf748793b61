"""``app.report``'s table rows: a fall names its criterion, and a figure the run has not got reads n/a."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from app.report import rows


def _summary(**extra: Any) -> dict[str, Any]:
    return {"status": "ok", "t_end_reached": 2.0, "fell_at_s": None, "stride_length_m": 0.75,
            "cadence_steps_per_min": 108.0, **extra}


def test_a_fall_names_its_criterion_and_a_missing_stride_is_not_a_number() -> None:
    cause = "the left knee hyperextended to -30.04 deg (beyond -30 deg)"
    walked = SimpleNamespace(summary=_summary())
    fell = SimpleNamespace(summary=_summary(status="fell", fell_at_s=0.7612, fell_because=cause,
                                            stride_length_m=float("nan")))
    table = dict(rows([walked, fell]))
    assert table["fell (criterion)"] == ["no", f"fell at 0.76 s: {cause}"]
    assert table["stride [m], cadence [steps/min]"] == ["0.75, 108", "n/a, 108"]
    assert table["status (simulated s)"] == ["ok (2.00)", "fell (2.00)"]
