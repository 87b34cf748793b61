"""The run service (:mod:`app.runs`): one RunSpec, one summary, whoever runs it."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.cli import main
from app.comparison import compare
from app.gui.session.session import SimSession
from app.jsontext import dumps
from app.runs import RunSpec, build_diagram, run
from app.signals import find_signal
from blocks import Diagram
from tests.run_helpers import com_start_vy

TIMING = ("wall_s", "realtime_factor")  # wall-clock figures differ from run to run by nature


def _plain(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary as summary.json holds it, without the wall-clock figures."""
    out: dict[str, Any] = json.loads(dumps(summary))  # strict JSON: nan is null (app.jsontext)
    for key in TIMING:
        out.pop(key)
    return out


SPEC = RunSpec(dataset="sneakers", preset="default", settings=(("pid_hip.kp", 900.0), ("est.gain", 0.8)),
               duration=0.6)


def test_same_spec_same_summary_from_cli_gui_and_service(tmp_path: Path) -> None:
    service = _plain(run(SPEC).summary)
    assert service["status"] == "ok" and service["params"]["pid_hip.kp"] == 900.0
    assert service["params"]["est.gain"] == 0.8 and "rms_deg" in service

    out = tmp_path / "cli"
    assert main(["run", "--grf", "sneakers", "--preset", "default", "--set", "pid_hip.kp=900",
                 "--set", "est.gain=0.8", "--duration", "0.6", "--out", str(out)]) == 0
    cli = json.loads((out / "summary.json").read_text())
    for key in TIMING:
        cli.pop(key)

    session = SimSession.from_spec(SPEC)
    while not session.finished:
        session.step(97)  # in chunks, as the GUI steps frame by frame
    gui = _plain(session.summary())

    assert cli == service
    assert gui == service


def test_gui_compare_runs_the_gui_state() -> None:
    """Parameters changed in the GUI reach Compare: with the estimator off and soft hip/knee
    gains the walk degrades, and Compare reports exactly what the GUI's own run does."""
    session = SimSession(dataset="sneakers", t_end=1.0)
    default_rms = compare(["sneakers"], duration=1.0, workers=1)[0].summary["rms_deg"]
    for ref, value in (("est.gain", 0.0), ("pid_hip.kp", 5.0), ("pid_knee.kp", 5.0)):
        session.set_param(ref, value)
    assert session.spec.settings == (("est.gain", 0.0), ("pid_hip.kp", 5.0), ("pid_knee.kp", 5.0))
    [cond] = compare(["sneakers"], duration=1.0, workers=1, base=session.spec)
    assert cond.summary["params"]["est.gain"] == 0.0 and cond.summary["params"]["pid_hip.kp"] == 5.0
    assert cond.summary["rms_deg"]["knee_l"] > 2 * default_rms["knee_l"]
    session.reset()  # the GUI's own run of the same state
    while not session.finished:
        session.step(200)
    assert _plain(session.summary())["rms_deg"] == cond.summary["rms_deg"]


def _renamed(d: Diagram, old: str, new: str) -> Diagram:
    data = d.to_dict()
    for b in data["blocks"]:
        if b["name"] == old:
            b["name"] = new
    for c in data["connections"]:
        for end in ("from", "to"):
            block, port = c[end].split(".", 1)
            if block == old:
                c[end] = f"{new}.{port}"
    data.get("ui", {}).get("blocks", {}).pop(old, None)
    return Diagram.from_dict(data)


def test_renamed_blocks_change_no_metric(tmp_path: Path) -> None:
    base = RunSpec(dataset="sneakers", preset=None, diagram=build_diagram(RunSpec(preset="default")), duration=0.6)
    ref = _plain(run(base).summary)
    d = _renamed(_renamed(base.diagram, "body", "torso_and_legs"), "phase", "gait_phase")  # type: ignore[arg-type]
    renamed = run(replace(base, diagram=d))
    assert find_signal(d, "FiveLinkDynamics", "q", renamed.results.signals) == "torso_and_legs.q"
    got = _plain(renamed.summary)
    assert got["rms_deg"] == ref["rms_deg"] and got["cycles_completed"] == ref["cycles_completed"]
    assert "body.q" not in renamed.results.signals  # the canonical names are not written into the results
    path = tmp_path / "renamed.json"
    d.save(path)
    out = tmp_path / "o"
    assert main(["run", "--diagram", str(path), "--grf", "sneakers", "--duration", "0.6", "--out", str(out)]) == 0
    assert json.loads((out / "summary.json").read_text())["rms_deg"] == ref["rms_deg"]


def test_bad_spec_fails_before_simulating() -> None:
    from models.errors import UserError

    with pytest.raises(UserError, match="unknown dataset 'nope'"):
        run(RunSpec(dataset="nope"))
    with pytest.raises(UserError, match="--duration"):
        run(RunSpec(duration=-1.0))


def test_session_end_time_follows_the_data_not_the_last_dataset(shared_data: Path) -> None:
    """A short recording clips the run's end; switching back to a long set restores the diagram's."""
    session = SimSession(dataset="sneakers")
    full = session.t_end
    assert full == pytest.approx(10.0) and session.spec.duration is None
    data = shared_data
    walk1 = data / "demotu-BMC" / "walk1.forces"
    session.set_dataset(f"{walk1}|{data / 'demotu-BMC' / 'walk1.trc'}")
    assert session.t_end < 3.0
    session.set_dataset("sneakers")
    assert session.t_end == pytest.approx(full)


def test_init_vy_grf_starts_at_the_grf_velocity_whatever_the_duration() -> None:
    """``body.init_vy = grf`` starts the CoM at the periodic vertical velocity of the recording's GRF from
    the run's start to its end (computed here from the dataset itself), with the stance foot at rest; a
    0.5 s run starts exactly as a 3 s one; a recording cropped to less than a cycle keeps the reference's
    velocity and its summary says why (a block's compile-time warning)."""
    from blocks.library.datasets import resolve_dataset
    from models.initial_state import periodic_vertical_velocity
    from models.params import G_EARTH

    ds = resolve_dataset("barefoot")
    vy0 = periodic_vertical_velocity(ds.t, ds.grf, ds.meta.body_mass_kg, G_EARTH, ds.t[0], ds.t[-1])
    spec = RunSpec(dataset="barefoot", preset="setpoint", duration=3.0, settings=(("body.init_vy", "grf"),))
    r = run(spec)
    vy_ref = com_start_vy(run(replace(spec, settings=(("body.init_vy", "reference"),))).results)
    assert vy0 is not None and abs(vy0 - vy_ref) > 0.005
    assert com_start_vy(r.results) == pytest.approx(vy0, abs=1e-3)
    assert not any("init_vy" in w for w in r.summary["warnings"])
    short = run(replace(spec, duration=0.5))
    np.testing.assert_array_equal(short.results["body.qd"][0], r.results["body.qd"][0])
    assert not any("init_vy" in w for w in short.summary["warnings"])
    cropped = run(replace(spec, duration=0.5, end=0.6))
    assert any("body.init_vy" in w and "no whole gait cycle" in w for w in cropped.summary["warnings"])
