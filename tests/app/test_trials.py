"""Trial manifests and ``compare --trials``: parsing, mean ± SD per condition, end to end."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from app.comparison import PCT, ConditionResult
from app.manifest import read_manifest, trials_from_args
from app.trials import TrialResult, condition_stats
from models.errors import UserError


def test_toml_and_csv_manifests_resolve_relative_paths(tmp_path: Path) -> None:
    (tmp_path / "s1").mkdir()
    (tmp_path / "s1" / "a.forces").write_text("x")
    (tmp_path / "s1" / "a.trc").write_text("x")
    (tmp_path / "m.toml").write_text('[[trial]]\ncondition = "c"\nsubject = "s1"\ngrf = "s1/a.forces"\n'
                                     'kinematics = "s1/a.trc"\nmass = 70\nheight = 1.7\nwindow = [0.4, 2.0]\n'
                                     '[[trial]]\ncondition = "bundled"\ngrf = "sneakers"\n')
    t = read_manifest(tmp_path / "m.toml")
    assert t[0].grf == str(tmp_path / "s1" / "a.forces") and t[0].kinematics == str(tmp_path / "s1" / "a.trc")
    assert (t[0].mass, t[0].height, t[0].start, t[0].end) == (70.0, 1.7, 0.4, 2.0)
    assert t[1].grf == "sneakers" and t[1].mass is None
    (tmp_path / "m.csv").write_text("# trials\ncondition,subject,grf,kinematics,mass,height,start,end\n"
                                    "c,s1,s1/a.forces,s1/a.trc,70,,0.4,\n")
    c = read_manifest(tmp_path / "m.csv")[0]
    assert (c.condition, c.mass, c.height, c.start, c.end) == ("c", 70.0, None, 0.4, None)


@pytest.mark.parametrize("text, message", [
    ("condition,grf\nc,missing.forces\n", r"m\.csv, line 2: grf file .*missing\.forces not found"),
    ("condition,grf,mass\nc,sneakers,heavy\n", r"line 2: mass 'heavy' is not a number"),
    ("condition,grf,mass\nc,sneakers,4000\n", r"line 2: mass 4000 outside 10-400"),
    ("grf\nsneakers\n", r"line 1: the header needs condition and grf"),
    ("condition,grf,start,end\nc,sneakers,2,1\n", r"line 2: window end 1 s is not after its start 2 s"),
])
def test_bad_manifest_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "m.csv").write_text(text)
    with pytest.raises(UserError, match=message):
        read_manifest(tmp_path / "m.csv")


def test_cli_masses_must_match_entries() -> None:
    t = trials_from_args(["a.forces|a.trc", "sneakers"], [70.0, 60.0])
    assert [x.mass for x in t] == [70.0, 60.0] and t[0].condition == "a"
    with pytest.raises(UserError, match="2 --grf entries"):
        trials_from_args(["a", "b"], [70.0])


def _result(cond: str, trunk_cycles: np.ndarray, rms_trunk: float) -> TrialResult:
    from app.manifest import Trial

    cyc = {"pct": PCT, "trunk_deg_cycles": trunk_cycles, "trunk_deg": trunk_cycles.mean(axis=0)}
    return TrialResult(Trial(condition=cond, grf="x"), ConditionResult("x", {"status": "ok", "rms_deg": {
        "trunk": rms_trunk, "hip_l": 1, "hip_r": 1, "knee_l": 1, "knee_r": 1}}, cyc))


def test_mean_sd_over_trials_and_cycles() -> None:
    """Cycles pooled over trials; ranges 2, 4 (trial 1) and 6 (trial 2): mean 4, SD 2, n 3."""
    ramp = np.linspace(0, 1, PCT.size)
    r1 = _result("c", np.stack([2 * ramp, 4 * ramp]), 0.5)
    r2 = _result("c", np.stack([6 * ramp]), 1.5)
    s = condition_stats([r1, r2])["c"]
    assert s["cycles"] == 3 and s["trials"] == 2
    assert s["trunk range [deg]"] == pytest.approx({"mean": 4.0, "sd": 2.0, "n": 3})
    assert s["RMS trunk [deg]"] == pytest.approx({"mean": 1.0, "sd": np.sqrt(0.5), "n": 2})


@pytest.mark.slow
def test_compare_trials_end_to_end(shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bundled sets and the shared real trials through ``compare --trials`` (a CSV manifest)."""
    d = shared_data
    rows = ["condition,subject,grf,kinematics,mass,height,start,end",
            "sneakers,synthetic,sneakers,,,,,", "high_heels,synthetic,high_heels,,,,,",
            f"overground,walk1,{d}/demotu-BMC/walk1.forces,{d}/demotu-BMC/walk1.trc,,,,",
            f"overground,walk2,{d}/demotu-BMC/walk2.forces,{d}/demotu-BMC/walk2.trc,,,,",
            f"treadmill,subject01,{d}/opensim-core/subject01_walk1_grf.mot,{d}/opensim-core/subject01_walk_IK.mot,"
            "72.6,1.8,,"]
    (tmp_path / "trials.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / "out"
    code = main(["compare", "--trials", str(tmp_path / "trials.csv"), "--duration", "4", "--workers", "2",
                 "--preset", "tracking", "--out", str(out)])  # the real trials have no solved gait (next test)
    printed = capsys.readouterr().out
    assert code == 0, printed
    stats = json.loads((out / "conditions.json").read_text())
    assert list(stats) == ["sneakers", "high_heels", "overground", "treadmill"]
    og = stats["overground"]
    assert og["trials"] == 2 and og["ok"] == 2 and og["RMS hip [deg]"]["n"] == 2
    assert og["cycles"] >= 2 and og["trunk range [deg]"]["n"] == og["cycles"] and og["trunk range [deg]"]["sd"] > 0
    summaries = json.loads((out / "summaries.json").read_text())
    assert summaries["5:treadmill/subject01"]["subject"]["mass_kg"] == 72.6
    assert summaries["3:overground/walk1"]["subject"]["height_source"].startswith("estimated from the markers")
    for png in ("trunk.png", "knee.png", "grf_vertical.png"):
        assert (out / png).stat().st_size > 10_000
    assert "overground" in printed and "±" in printed


def test_a_trial_without_a_solved_gait_is_reported_as_such(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Under the default ``emergent`` preset a trial whose posture solve found no gait is a row that says
    so (``no_solution``, no numbers), the other trials still run, and the command exits 1."""
    import app.runs
    from app.defaults import COMPARE_PRESET
    from app.solved import NoSolution

    real_run = app.runs.run
    seen: list[str | None] = []

    def run(spec: app.runs.RunSpec) -> app.runs.RunResult:
        seen.append(spec.preset)
        if spec.dataset == "barefoot":
            raise NoSolution("barefoot", "implausible", "the optimum needs a joint torque of 9.1 N m/kg")
        return real_run(replace(spec, preset="tracking"))  # the walked solution is not what this test is about

    monkeypatch.setattr(app.runs, "run", run)
    (tmp_path / "trials.csv").write_text("condition,subject,grf\nsneakers,s1,sneakers\nbarefoot,s1,barefoot\n")
    code = main(["compare", "--trials", str(tmp_path / "trials.csv"), "--duration", "2", "--workers", "1",
                 "--out", str(tmp_path / "out")])
    printed = capsys.readouterr().out
    assert code == 1
    assert seen == [COMPARE_PRESET, COMPARE_PRESET]
    stats = json.loads((tmp_path / "out" / "conditions.json").read_text())
    assert stats["sneakers"]["ok"] == 1 and stats["sneakers"]["trunk mean [deg]"]["n"] >= 1
    assert stats["barefoot"]["ok"] == 0 and stats["barefoot"]["cycles"] == 0
    assert stats["barefoot"]["trunk mean [deg]"]["n"] == 0
    row = next(r for r in (tmp_path / "out" / "conditions.md").read_text().splitlines() if r.startswith("| barefoot"))
    assert "n/a" in row and not any(ch.isdigit() for ch in row.split("|")[4])
    assert "barefoot/s1: run no_solution" in printed and "implausible" in printed
