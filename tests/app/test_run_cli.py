"""``gaitblocks run``: outputs and summary on the default diagram, clean failures, exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from blocks import Diagram
from blocks.diagram import SolverSettings
from blocks.library.default_diagram import build_grf_walk

REPO = Path(__file__).resolve().parents[2]
SUMMARY_KEYS = {"status", "message", "t_end_reached", "wall_s", "realtime_factor", "steps", "events", "params"}


def test_run_default_diagram_on_bundled_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    code = main(["run", "--grf", "sneakers", "--duration", "0.5", "--set", "pid_hip.kp=300", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    summary = json.loads((out / "summary.json").read_text())
    assert SUMMARY_KEYS <= set(summary)
    assert summary["status"] == "ok" and summary["steps"] == 500
    assert summary["t_end_reached"] == pytest.approx(0.5)
    assert summary["params"]["pid_hip.kp"] == 300.0 and summary["params"]["pid_knee.kp"] == 800.0
    assert summary["dataset"]["spec"] == "sneakers" and summary["dataset"]["source"].startswith("synthetic: ")
    assert any(e["block"] == "phase" and e["to"] == "stance" for e in summary["events"])
    with np.load(out / "results.npz") as npz:
        t, q = npz["t"], npz["body.q"]
    assert t.shape == (501,) and q.shape == (501, 7)
    header = (out / "results.csv").read_text().splitlines()[0].split(",")
    assert header[0] == "t [s]" and "body.q[alpha] [m or rad]" in header and "grf.F[F_ly] [N]" in header
    csv = np.loadtxt(out / "results.csv", delimiter=",", skiprows=1)
    np.testing.assert_allclose(csv[:, header.index("body.q[alpha] [m or rad]")], q[:, 2], rtol=1e-9, atol=1e-12)


def test_blow_up_is_recorded_as_failed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = Diagram("unstable", solver=SolverSettings(dt=0.01, t_end=5.0))
    d.add("c", "Constant", value=(0.0,))
    d.add("sys", "StateSpace", a=(1000.0,), b=(0.0,), c=(1.0,), x0=(1.0,))
    d.connect("c.y", "sys.u")
    d.save(tmp_path / "unstable.json")
    out = tmp_path / "out"
    assert main(["run", "--diagram", str(tmp_path / "unstable.json"), "--out", str(out)]) == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["message"].startswith("block 'sys': state '0' is ")
    assert 1.0 < summary["t_end_reached"] < 1.2 and summary["steps"] == round(summary["t_end_reached"] / 0.01) + 1
    assert "simulation stopped: block 'sys'" in capsys.readouterr().err


def _bad(kind: str) -> Diagram:
    d = build_grf_walk()
    data = d.to_dict()
    if kind == "loop":
        data["blocks"].append({"name": "g", "type": "Gain", "params": {}})
        data["blocks"].append({"name": "h", "type": "Gain", "params": {}})
        data["connections"] += [{"from": "g.y", "to": "h.u"}, {"from": "h.y", "to": "g.u"}]
    elif kind == "missing":
        data["connections"] = [c for c in data["connections"] if c["to"] != "pid_knee.track"]
    return Diagram.from_dict(data)


@pytest.mark.parametrize("kind, message", [
    ("loop", "algebraic loop: g.y → h.u → h.y → g.u → g.y; break it with a UnitDelay"),
    ("missing", "block 'pid_knee' (PID): input 'track' is not connected"),
    ("unknown", "block 'est': unknown block type 'NetTorqueGuesser'"),
])
def test_bad_diagrams_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str,
                                           message: str) -> None:
    path = tmp_path / f"{kind}.json"
    if kind == "unknown":
        text = build_grf_walk().to_json().replace('"NetTorqueEstimator"', '"NetTorqueGuesser"')
        path.write_text(text)
    else:
        _bad(kind).save(path)
    code = main(["run", "--diagram", str(path), "--grf", "sneakers", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_console_script_smoke(tmp_path: Path) -> None:
    path = tmp_path / "loop.json"
    _bad("loop").save(path)
    proc = subprocess.run([sys.executable, "-m", "app", "run", "--diagram", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.startswith("gaitblocks run: error: ") and "algebraic loop" in proc.stderr
    assert "Traceback" not in proc.stderr
