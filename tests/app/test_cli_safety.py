"""The command line never loses work: everything is checked before simulating, results are kept,
and a command imports only what it needs."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from app.cli import main

REPO = Path(__file__).resolve().parents[2]


def _no_simulation(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("simulated although the command line was wrong")


def test_existing_results_folder_needs_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "o"
    args = ["run", "--grf", "sneakers", "--duration", "0.05", "--out", str(out)]
    assert main(args) == 0
    first = (out / "summary.json").read_text()
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--force" in err and "already holds results" in err
    assert (out / "summary.json").read_text() == first  # untouched
    assert main([*args, "--force", "--set", "pid_hip.kp=300"]) == 0
    assert json.loads((out / "summary.json").read_text())["params"]["pid_hip.kp"] == 300.0


def test_no_csv_and_uncompressed_npz(tmp_path: Path) -> None:
    out = tmp_path / "o"
    assert main(["run", "--grf", "sneakers", "--duration", "0.05", "--no-csv", "--out", str(out)]) == 0
    assert not (out / "results.csv").exists() and (out / "summary.json").exists()
    with zipfile.ZipFile(out / "results.npz") as z:
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_STORED}
    assert main(["run", "--grf", "sneakers", "--duration", "0.05", "--compress", "--force", "--out", str(out)]) == 0
    with zipfile.ZipFile(out / "results.npz") as z:
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_DEFLATED}


@pytest.mark.parametrize("case", ["out_is_file", "unknown_dataset", "existing_results"])
def test_compare_fails_before_simulating(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    import app.comparison

    monkeypatch.setattr(app.comparison, "compare", _no_simulation)
    out = tmp_path / "c"
    grf = ["sneakers"]
    if case == "out_is_file":
        out.write_text("keep me")
    elif case == "unknown_dataset":
        grf = ["sneakers", "no_such_shoe"]
    else:
        out.mkdir()
        (out / "compare.csv").write_text("keep me")
    assert main(["compare", "--grf", *grf, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert {"out_is_file": "is not a folder", "unknown_dataset": "unknown dataset 'no_such_shoe'",
            "existing_results": "--force"}[case] in err
    if case == "out_is_file":
        assert out.read_text() == "keep me"


def test_sweep_keeps_rows_finished_before_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker crash after two runs still leaves those two rows in sweep.csv."""
    import app.commands.sweep as sweep_cmd
    from app.tuning.sweep import read_csv
    from blocks.executors import Executor

    class Crashing(Executor):
        def imap(self, fn: Any, items: Any, stop: Any = None) -> Any:
            for i, item in enumerate(items):
                if i == 2:
                    raise RuntimeError("worker lost")
                yield i, fn(item)

    monkeypatch.setattr(sweep_cmd, "make_executor", lambda *a, **k: Crashing())
    out = tmp_path / "s"
    with pytest.raises(RuntimeError, match="worker lost"):
        main(["sweep", "--grf", "sneakers", "--duration", "0.1", "--param", "pid_hip.kp=100:400:4",
              "--executor", "serial", "--out", str(out)])
    rows = read_csv(out / "sweep.csv")
    assert [r["run"] for r in rows] == ["0", "1"] and [float(r["pid_hip.kp"]) for r in rows] == [100.0, 200.0]


def test_sweep_checks_everything_first(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import app.commands.sweep as sweep_cmd

    monkeypatch.setattr(sweep_cmd, "run_sweep", _no_simulation)
    for bad, msg in ((["--grf", "nope"], "unknown dataset 'nope'"),
                     (["--grf", "sneakers", "--param", "pid_hip.nokp=1:2:2"], "nokp"),
                     (["--grf", "sneakers", "--duration", "-1"], "--duration")):
        code = main(["sweep", *bad, "--param", "pid_hip.kp=1:2:2", "--out", str(tmp_path / "s")])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and msg in err, err


@pytest.mark.parametrize("command", ["--help", "run", "compare", "sweep", "tune", "data", "datasets", "validate"])
def test_parser_imports_no_heavy_modules(command: str) -> None:
    code = ("import sys; from app.cli import build_parser; "
            f"build_parser([{command!r}]); "
            "print(sorted(m for m in ('scipy.signal', 'matplotlib', 'scipy.optimize', 'PySide6', 'numba') "
            "if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_help_shows_every_default() -> None:
    from app.cli import build_parser

    parser = build_parser(["sweep"])
    sub = next(a for a in parser._actions if a.dest == "command").choices["sweep"]  # type: ignore[union-attr]
    text = " ".join(sub.format_help().split())  # argparse wraps long help lines
    for default in ("(default: gaitblocks_sweep)", "(default: vectorized when every block has kernels, else process)",
                    "(default: lhs)", "(default: default)"):
        assert default in text, default


@pytest.mark.parametrize("args", [["run", "--grf", "no_such_set"], ["run", "--duration", "-1"],
                                  ["compare", "--grf", "no_such_set"], ["tune", "--grf", "no_such_set"]])
def test_user_errors_come_before_the_engine_is_imported(tmp_path: Path, args: list[str]) -> None:
    code = ("import sys; from app.cli import main; "
            f"rc = main({[*args, '--out', str(tmp_path / 'o')]!r}); "
            "print(rc, sorted(m for m in ('scipy.signal', 'matplotlib', 'numba', 'blocks.library.catalog') "
            "if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "2 []", proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1
