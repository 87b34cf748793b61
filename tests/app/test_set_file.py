"""``gaitblocks run --set-file`` loads a parameter set such as tune's best.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main


def test_set_file_applies_values(tmp_path: Path) -> None:
    f = tmp_path / "best.json"
    f.write_text(json.dumps({"set": {"pid_hip.kp": 1234.0, "trunk.kd": 123.0}}))
    assert main(["run", "--grf", "sneakers", "--duration", "0.2", "--set-file", str(f), "--out", str(tmp_path)]) == 0
    params = json.loads((tmp_path / "summary.json").read_text())["params"]
    assert params["pid_hip.kp"] == 1234.0 and params["trunk.kd"] == 123.0


@pytest.mark.parametrize("content", ["not json", '{"nope": 1}', '{"set": {"pid_hip.kp": -5}}'])
def test_bad_set_file_is_one_clear_error(tmp_path: Path, content: str, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "bad.json"
    f.write_text(content)
    assert main(["run", "--grf", "sneakers", "--duration", "0.2", "--set-file", str(f), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err
