"""Dataset registry and ``gaitblocks datasets``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from grf_data import registry
from models.dataset import DatasetMeta, GaitDataset
from models.errors import UserError


@pytest.fixture(autouse=True)
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GAITBLOCKS_CONFIG_DIR", str(tmp_path / "cfg"))
    return tmp_path / "cfg"


def test_bundled_listing_reads_sidecars() -> None:
    rows = {r["name"]: r for r in registry.list_datasets()}
    assert set(registry.BUNDLED) <= set(rows)
    assert registry.DEFAULT_DATASET == "sneakers"
    for name in registry.BUNDLED:
        assert rows[name]["synthetic"] is True and rows[name]["rate_hz"] == 500.0
        assert rows[name]["duration_s"] >= 10.0
    assert rows["high_heels"]["footwear"] == "high heels"


def test_unknown_name_lists_known_ones() -> None:
    with pytest.raises(UserError, match="unknown dataset 'flipflops'.*barefoot, sneakers, high_heels"):
        registry.load_dataset("flipflops")


def test_register_persists_and_loads_synthetic_copy(tmp_path: Path, config: Path) -> None:
    src = registry.bundled_path("barefoot")
    dst = tmp_path / "mine.csv"
    dst.write_text(src.read_text())
    dst.with_suffix(".json").write_text(src.with_suffix(".json").read_text())
    registry.register_dataset("mine", dst)
    assert json.loads((config / "datasets.json").read_text()) == {"mine": str(dst.resolve())}
    mine = registry.load_dataset("mine")
    bare = registry.load_dataset("barefoot")
    assert np.array_equal(mine.grf, bare.grf)
    with pytest.raises(UserError, match="taken by a bundled"):
        registry.register_dataset("sneakers", dst)
    registry.unregister_dataset("mine")
    with pytest.raises(UserError, match="unknown dataset 'mine'"):
        registry.load_dataset("mine")


def test_mass_and_height_scale_dynamically_similar() -> None:
    base = registry.load_dataset("sneakers")
    big = registry.load_dataset("sneakers", mass=2 * 55.33, height=1.66 * 1.21)
    assert np.allclose(big.grf, 2 * base.grf)
    assert np.allclose(big.t, 1.1 * base.t)
    assert big.q is not None and base.q is not None
    assert np.allclose(big.q[:, 1], 1.21 * base.q[:, 1]) and np.allclose(big.q[:, 2:], base.q[:, 2:])
    assert big.meta.body_mass_kg == pytest.approx(110.66)


def test_file_paths_go_to_the_lab_importer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from models import gaitdata

    seen: dict[str, object] = {}

    def fake(path: Path, kinematics: object = None, mass: float | None = None,
             height: float | None = None, start: float | None = None, end: float | None = None) -> GaitDataset:
        seen.update(path=Path(path), kinematics=kinematics, mass=mass)
        return GaitDataset(t=np.array([0.0, 0.01]), grf=np.zeros((2, 4)), meta=DatasetMeta(name="x"))

    monkeypatch.setattr(gaitdata, "load_trial", fake)
    trial = tmp_path / "walk.mot"
    trial.write_text("x")
    registry.load_dataset(trial, kinematics="ik.mot", mass=70.0)
    assert seen == {"path": trial, "kinematics": Path("ik.mot"), "mass": 70.0}


def test_cli_lists_and_registers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert "sneakers" in out and "(default)" in out and "high heels" in out
    target = tmp_path / "walk.mot"
    target.write_text("x")
    assert main(["datasets", "--register", "walk1", str(target), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out.split("\n", 1)[1])
    assert rows[-1]["name"] == "walk1" and rows[-1]["kind"] == "registered"
    assert main(["datasets", "--register", "1bad", str(target)]) == 2


def test_register_a_recording_with_its_kinematics_and_subject(shared_data: Path, config: Path, tmp_path: Path) -> None:
    """A registered real trial carries its angles file and subject: by name it loads like the
    explicit call, ``gaitblocks run --grf NAME`` scales the model to the subject, and the
    ``GRF|KINEMATICS`` pair spec (the form a block's ``dataset`` parameter takes) loads the same."""
    grf = shared_data / "opensim-core/subject01_walk1_grf.mot"
    kin = shared_data / "opensim-core/subject01_walk_IK.mot"
    assert main(["datasets", "--register", "s01", str(grf), "--kinematics", str(kin), "--mass", "72.6",
                 "--height", "1.8"]) == 0
    entry = json.loads((config / "datasets.json").read_text())["s01"]
    assert entry == {"grf": str(grf.resolve()), "kinematics": str(kin.resolve()), "mass_kg": 72.6, "height_m": 1.8}
    by_name = registry.load_dataset("s01")
    explicit = registry.load_dataset(str(grf), kinematics=str(kin), mass=72.6, height=1.8)
    pair = registry.load_dataset(f"{grf}|{kin}", mass=72.6)
    for ds in (by_name, pair):
        assert np.array_equal(ds.grf, explicit.grf)
        assert ds.angles is not None and np.array_equal(ds.angles, explicit.angles)
    assert by_name.meta.body_mass_kg == 72.6 and by_name.meta.height_m == 1.8
    assert main(["run", "--grf", "s01", "--duration", "0.05", "--out", str(tmp_path / "run")]) == 0
    model = json.loads((tmp_path / "run" / "summary.json").read_text())["model"]
    assert model["total_mass_kg"] == pytest.approx(72.6)
    assert model["thigh"]["length_m"] == pytest.approx(0.245 * 1.8)
    with pytest.raises(UserError, match="kinematics file .* is not a file"):
        registry.register_dataset("bad", grf, kinematics=tmp_path / "missing.mot")
    assert main(["datasets", "--kinematics", str(kin)]) == 2


def test_old_registry_entries_still_load(config: Path) -> None:
    config.mkdir(parents=True, exist_ok=True)
    (config / "datasets.json").write_text(json.dumps({"bf": str(registry.bundled_path("barefoot"))}))
    assert np.array_equal(registry.load_dataset("bf").grf, registry.load_dataset("barefoot").grf)
    (config / "datasets.json").write_text(json.dumps({"bf": {"grf": 3}}))
    with pytest.raises(UserError, match="dataset registry must be"):
        registry.load_dataset("bf")


def test_a_synthetic_set_read_again_is_an_equal_independent_copy_and_a_rewrite_is_read_anew(tmp_path: Path) -> None:
    """``read_synthetic`` keeps its last parsed tables by content: a second read gives equal, independent
    arrays, and the file written again with other numbers (same size) gives those."""
    src = registry._locate("sneakers", None, None, None, None, None)[0]
    meta = registry._sidecar(src)
    assert meta is not None
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)[:40]
    path = tmp_path / "s.csv"
    path.write_text("".join(lines), encoding="utf-8")
    first = registry.read_synthetic(path, meta)
    first.grf[0, 0] = -1.0e6                                # the caller's array: the kept table is untouched
    again = registry.read_synthetic(path, meta)
    assert again.grf[0, 0] != -1.0e6 and again.t.shape == (39,)
    np.testing.assert_array_equal(again.grf, np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)[:, 1:5])
    swapped = lines[:1] + lines[2:3] + lines[1:2] + lines[3:]   # two rows swapped: same size, other table
    path.write_text("".join(swapped), encoding="utf-8")
    third = registry.read_synthetic(path, meta)
    assert third.t[0] == again.t[1] and third.t[1] == again.t[0]
