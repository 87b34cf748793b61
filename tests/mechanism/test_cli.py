"""The mechanism diagrams through ``gaitblocks run`` (no GRF dataset needed)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from models.mechanism import Embedded, build
from models.mechanism.library import SQUEEZER_ANGLES, SQUEEZER_REFERENCE

DIAGRAMS = Path(__file__).resolve().parents[2] / "assets" / "diagrams"


def _csv(out: Path) -> tuple[list[str], np.ndarray]:
    header = [h.rsplit(" [", 1)[0] for h in (out / "results.csv").read_text().splitlines()[0].split(",")]  # no units
    return header, np.loadtxt(out / "results.csv", delimiter=",", skiprows=1, ndmin=2)


@pytest.mark.slow
def test_squeezer_diagram_reaches_the_published_reference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sq"
    assert main(["run", "--diagram", str(DIAGRAMS / "andrews_squeezer.json"), "--out", str(out)]) == 0, \
        capsys.readouterr().err
    header, table = _csv(out)
    assert table[-1, 0] == pytest.approx(0.03)
    for name, ref in zip(SQUEEZER_ANGLES, SQUEEZER_REFERENCE):
        col = header.index(f"mech.joints[{name}]")
        assert table[-1, col] == pytest.approx(ref, rel=1e-7), name
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "ok" and summary["solver"]["method"] == "solve_ivp"


@pytest.mark.parametrize("name, mech_name", [("four_bar", "four_bar_crank"), ("five_bar", "five_bar")])
def test_linkage_diagrams_follow_the_model_layer(name: str, mech_name: str, tmp_path: Path) -> None:
    out = tmp_path / name
    assert main(["run", "--diagram", str(DIAGRAMS / f"{name}.json"), "--duration", "0.4", "--out", str(out)]) == 0
    header, table = _csv(out)
    mech = build(mech_name)
    run = Embedded(mech).simulate(0.4, rtol=1e-11, atol=1e-11, n_out=2)
    for k, c in enumerate(mech.coords):
        col = header.index(f"mech.q[{c.name}]") if mech.nq > 1 else header.index("mech.q")
        # rk4 at 1 ms against DOP853 at 1e-11
        assert table[-1, col] == pytest.approx(run.q[-1, k], abs=1e-7)
    assert abs(table[-1, header.index("mech.q") if mech.nq == 1 else 1] - table[0, 1]) > 1e-3  # it moved
    assert json.loads((out / "summary.json").read_text())["dataset"] is None  # no GRF data read


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_ehsani_coordinate_four_bar_stops_cleanly_at_its_singularity(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   engine: str) -> None:
    """Both engines stop at the same tick naming the block (one law: the kernel writes NaN when Newton
    fails, docs/kernels-mechanism.md)."""
    out = tmp_path / "fb"
    code = main(["run", "--diagram", str(DIAGRAMS / "four_bar.json"), "--set", "mech.mechanism=four_bar",
                 "--duration", "3", "--dt", "0.01", "--engine", engine, "--out", str(out)])
    assert code == 1
    err = capsys.readouterr().err
    assert "block 'mech'" in err
    assert "state 'q' is nan at t = 1.12 s" in err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["t_end_reached"] == pytest.approx(1.11)  # the last whole tick


def test_squeezer_summary_carries_no_biped(tmp_path: Path) -> None:
    """A mechanism diagram carries no section of the walking library, and its run summary names
    no biped: no ``model`` (trunk, thigh, shank), no ``data_settings``, no ``subject``."""
    from blocks import Diagram

    assert Diagram.load(DIAGRAMS / "andrews_squeezer.json").sections == {}
    out = tmp_path / "sq"
    assert main(["run", "--diagram", str(DIAGRAMS / "andrews_squeezer.json"), "--duration", "0.0005",
                 "--no-csv", "--out", str(out)]) == 0
    text = (out / "summary.json").read_text()
    summary = json.loads(text)
    assert summary["status"] == "ok" and summary["steps"] == 5
    assert not {"model", "data_settings", "subject"} & set(summary)
    assert not any(word in text for word in ("trunk", "thigh", "shank", "biped"))
    walk = tmp_path / "walk"   # the walking diagram's summary has both
    assert main(["run", "--duration", "0.01", "--no-csv", "--out", str(walk)]) == 0
    walking = json.loads((walk / "summary.json").read_text())
    assert set(walking["model"]) >= {"trunk", "thigh", "shank"} and walking["data_settings"]["ref_filter_hz"] == 20.0
