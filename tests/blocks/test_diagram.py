"""Diagram building API and file format: fan-in, round trip, migrations, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blocks.core import DiagramError
from blocks.diagram import VERSION, Diagram, SolverSettings
from blocks.library.default_diagram import build_grf_walk
from blocks.library.settings import DATA, MODEL, DataSettings, ModelSettings
from models.errors import DataFormatError

ASSET = Path(__file__).resolve().parents[2] / "assets" / "diagrams" / "grf_walk.json"
OLD = Path(__file__).resolve().parent / "old_formats"   # files as earlier versions saved them


def small() -> Diagram:
    d = Diagram("small", solver=SolverSettings(dt=0.01, t_end=1.0))
    d.add("src", "Step", t_step=0.5, n=2)
    d.add("k", "Gain", k=2)
    d.add("k2", "Gain", k=-1.5, n=2)
    d.add("sel", "Selector", n=2, indices=(1,))
    d.connect("src.y", "k2.u", "sel.u")
    d.connect("sel.y", "k.u")
    d.log("k.y")
    d.set_position("src", 10, 20)
    return d


def test_fan_in_raises() -> None:
    d = small()
    d.add("other", "Constant", value=(1.0,))
    with pytest.raises(DiagramError, match="fan-in: input 'k.u' is already driven by 'sel.y'"):
        d.connect("other.y", "k.u")


def test_unknown_port_and_block_type() -> None:
    d = small()
    with pytest.raises(DiagramError, match="block 'k' has no input 'v'"):
        d.connect("src.y", "k.v")
    with pytest.raises(DiagramError, match="unknown block type 'Nope'"):
        d.add("x", "Nope")


def test_save_load_save_is_byte_identical(tmp_path: Path) -> None:
    for d in (small(), build_grf_walk()):
        first = tmp_path / "a.json"
        d.save(first)
        again = tmp_path / "b.json"
        Diagram.load(first).save(again)
        assert first.read_bytes() == again.read_bytes()


def test_asset_is_the_built_default_diagram() -> None:
    """Both walking assets are their builders' output: grf_walk_analysis is grf_walk plus two sampled
    observers (tests/blocks/test_compiled.py compares both compiled diagrams with one Python run)."""
    from blocks.library.default_diagram import build_grf_walk_analysis

    assert ASSET.read_text(encoding="utf-8") == build_grf_walk().to_json()
    analysis = ASSET.with_name("grf_walk_analysis.json")
    assert analysis.read_text(encoding="utf-8") == build_grf_walk_analysis().to_json()


def test_ui_fields_are_separate_from_simulation_fields() -> None:
    data = small().to_dict()
    assert data["ui"] == {"blocks": {"src": {"x": 10.0, "y": 20.0}}}
    assert all(set(b) == {"name", "type", "params"} for b in data["blocks"])
    assert data["blocks"][1]["params"] == {"k": 2.0}  # normalised to the declared kind


def test_migration_from_version_1(tmp_path: Path) -> None:
    v1 = {"format": "gaitblocks-diagram", "version": 1, "name": "old",
          "solver": {"method": "rk4", "step": 0.002, "t_end": 1.5},
          "blocks": [{"name": "c", "type": "Constant", "params": {"value": [2.0]}, "position": [5, 6]},
                     {"name": "g", "type": "Gain", "params": {"k": 3.0}, "position": [50, 6]}],
          "wires": [["c.y", "g.u"]], "logged": ["g.y"]}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(v1))
    d = Diagram.load(path)
    assert d.solver.dt == 0.002 and d.solver.t_end == 1.5
    assert d.connections == [("c.y", "g.u")]
    assert d.ui == {"blocks": {"c": {"x": 5.0, "y": 6.0}, "g": {"x": 50.0, "y": 6.0}}}
    assert d.to_dict()["version"] == VERSION == 5


def _v2(ref_params: dict, motion_params: dict) -> dict:
    return {"format": "gaitblocks-diagram", "version": 2, "name": "v2", "solver": {"dt": 0.001, "t_end": 1.0},
            "blocks": [{"name": "grf", "type": "GrfSource", "params": {"t_offset": 0.5, "filter_hz": 12.0}},
                       {"name": "ref", "type": "ReferenceSource", "params": ref_params},
                       {"name": "ref_motion", "type": "ReferenceMotion", "params": motion_params}],
            "connections": []}


def test_migration_from_version_2_sets_the_shared_data_settings_once() -> None:
    d = Diagram.from_dict(_v2({"t_offset": 0.5, "filter_hz": 8.0}, {"filter_hz": 8.0, "gain": 0.0}))
    assert (d.section(DATA).t_offset_s, d.section(DATA).ref_filter_hz) == (0.5, 8.0)
    assert d.blocks["grf"].params == {"filter_hz": 12.0}     # the GRF's own filter stays on its block
    assert d.blocks["ref"].params == {} and d.blocks["ref_motion"].params == {"gain": 0.0}
    unset = Diagram.from_dict(_v2({}, {}))
    assert unset.section(DATA) == DataSettings(t_offset_s=0.5)


def test_migration_from_version_2_rejects_readers_that_disagree() -> None:
    msg = r"ref.filter_hz = 0.0 and ref_motion.filter_hz = 20.0 differ.*data.ref_filter_hz"
    with pytest.raises(DiagramError, match=msg):
        Diagram.from_dict(_v2({"filter_hz": 0.0}, {"filter_hz": 20.0}))


def reader() -> Diagram:
    """A diagram with one block that reads the walking library's sections."""
    d = Diagram("reader", solver=SolverSettings(dt=0.01, t_end=1.0))
    d.add("grf", "GrfSource")
    return d


def test_data_section_round_trips_and_is_checked() -> None:
    d = reader()
    d.set_section(DATA, DataSettings(t_offset_s=1.25, ref_filter_hz=0.0))
    assert Diagram.from_dict(d.to_dict()).section(DATA) == d.section(DATA)
    assert d.to_dict()["sections"][DATA] == {"t_offset_s": 1.25, "ref_filter_hz": 0.0}
    bad = d.to_dict()
    bad["sections"][DATA] = {"ref_filter_hz": -1.0}
    with pytest.raises(DiagramError, match="data.ref_filter_hz"):
        Diagram.from_dict(bad)
    bad["sections"] = {"weather": {}}
    with pytest.raises(DiagramError, match="unknown diagram section 'weather'.*model, data"):
        Diagram.from_dict(bad)
    with pytest.raises(DiagramError, match="must be a DataSettings"):
        d.set_section(DATA, ModelSettings())


def test_a_diagram_carries_the_sections_its_blocks_read() -> None:
    """Generic blocks read no section: nothing of the walking library is saved with them."""
    assert small().sections == {} and "sections" in small().to_dict() and small().to_dict()["sections"] == {}
    assert list(reader().sections) == [MODEL, DATA]
    assert small().resources() == {}
    assert set(reader().resources()) == {"biped", "data"}


def test_version_3_file_loads_with_its_sections() -> None:
    """The default diagram as version 3 saved it (``model`` and ``data`` at the top level) loads
    into the same diagram as today's, its sections moved under ``sections``."""
    old = json.loads((OLD / "grf_walk_v3.json").read_text(encoding="utf-8"))
    assert old["version"] == 3 and "model" in old and "sections" not in old
    old["model"] = {"mass_kg": 70.0, "height_m": 1.75, "foot_radius_m": 0.3}
    old["data"] = {"t_offset_s": 0.25, "ref_filter_hz": 12.0}
    d = Diagram.from_dict(old)
    assert d.section(MODEL) == ModelSettings(mass_kg=70.0, height_m=1.75, foot_radius_m=0.3)
    assert d.section(DATA) == DataSettings(t_offset_s=0.25, ref_filter_hz=12.0)
    assert d.to_dict()["version"] == VERSION and "model" not in d.to_dict()
    same = Diagram.load(OLD / "grf_walk_v3.json").to_dict()
    assert same == _without_trig(build_grf_walk().to_dict())


def _without_trig(d: dict) -> dict:
    """Today's default diagram without its ``SegmentTrig`` block, which version 3 did not have (its readers,
    left unconnected, compute the sines and cosines themselves: the same numbers,
    tests/blocks/test_segment_trig.py)."""
    d["blocks"] = [b for b in d["blocks"] if b["name"] != "trig"]
    d["connections"] = [c for c in d["connections"] if "trig" not in (c["from"].split(".")[0], c["to"].split(".")[0])]
    d["ui"]["blocks"].pop("trig")
    return d


def test_old_mechanism_file_loses_its_biped_section() -> None:
    """The Andrews squeezer as version 2 saved it carried a biped ``model`` section; loaded, it
    carries no section, and saves none."""
    old = json.loads((OLD / "andrews_squeezer_v2.json").read_text(encoding="utf-8"))
    assert old["version"] == 2 and "model" in old
    d = Diagram.load(OLD / "andrews_squeezer_v2.json")
    assert d.sections == {} and d.to_dict()["sections"] == {}
    assert d.to_dict()["blocks"] == Diagram.load(ASSET.parent / "andrews_squeezer.json").to_dict()["blocks"]


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(extra=1), "diagram: unknown field.*extra"),
    (lambda d: d.pop("solver"), "diagram: missing field.*solver"),
    (lambda d: d["blocks"][0].update(colour="red"), r"blocks\[0\]: unknown field.*colour"),
    (lambda d: d["blocks"][1]["params"].update(kk=1.0), "unknown parameter.*'kk'"),
    (lambda d: d["solver"].update(dt=-1.0), "solver.dt"),
    (lambda d: d.update(version=99), "newer gaitblocks"),
])
def test_bad_files_give_clear_errors(tmp_path: Path, mutate, message) -> None:
    data = small().to_dict()
    mutate(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DiagramError, match=message) as err:
        Diagram.load(path)
    assert str(path) in str(err.value)


def test_json_syntax_error_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "format": "gaitblocks-diagram",\n  "version": 2,,\n}')
    with pytest.raises(DataFormatError, match=r"broken.json, line 3, column 16"):
        Diagram.load(path)


def test_set_param_checks_range() -> None:
    d = build_grf_walk()
    d.set_param("pid_hip.kp", 120.0)
    assert d.blocks["pid_hip"].params["kp"] == 120.0
    with pytest.raises(Exception, match="above the maximum"):
        d.set_param("phase.min_dwell_s", 100.0)


def test_data_fields_are_set_like_parameters() -> None:
    d = small()
    assert d.param_spec("data.ref_filter_hz").unit == "Hz"
    d.set_param("data.ref_filter_hz", 6)
    d.set_param("data.t_offset_s", 0.5)
    assert d.section(DATA) == DataSettings(t_offset_s=0.5, ref_filter_hz=6.0)
    assert d.value("data.ref_filter_hz") == 6.0
    with pytest.raises(DiagramError, match="no parameter 'cutoff'"):
        d.set_param("data.cutoff", 1.0)
    with pytest.raises(DiagramError, match="names a diagram section"):
        d.add("data", "Gain")
    with pytest.raises(DiagramError, match="no parameter 'mass_kg'"):  # the model section has no parameters
        d.set_param("model.mass_kg", 70.0)


DIAGRAMS = sorted(ASSET.parent.glob("*.json"))


def _entries(d: Diagram) -> list[tuple[str, str, list[tuple[str, type, object]]]]:
    """Each block's name, type and parameters with their Python types (a list where a load gives a tuple
    would compare equal in a dict but not here)."""
    return [(e.name, e.type, [(k, type(v), v) for k, v in e.params.items()]) for e in d.blocks.values()]


@pytest.mark.parametrize("path", DIAGRAMS, ids=lambda p: p.stem)
def test_copy_is_what_a_save_and_a_load_give(path: Path) -> None:
    """``copy`` skips the checks of a load but gives the same diagram: blocks, parameter values and their
    types, connections, logged signals, sections, solver and UI fields."""
    d = Diagram.load(path)
    c, loaded = d.copy(), Diagram.from_dict(d.to_dict())
    assert c.to_json() == loaded.to_json() == d.to_json()
    assert _entries(c) == _entries(loaded)
    assert c.sections == loaded.sections and c.solver == loaded.solver


def test_a_copy_keeps_values_set_after_adding_as_a_load_does() -> None:
    d = small()
    d.add("c", "Constant", value=(1.0, 2.0))
    d.set_param("c.value", [3, 4])
    d.set_param("src.t_step", 1)
    c, loaded = d.copy(), Diagram.from_dict(d.to_dict())
    assert _entries(c) == _entries(loaded)
    assert c.to_json() == loaded.to_json()


def test_a_copy_is_independent_of_its_source() -> None:
    d = small()
    c = d.copy()
    c.set_param("k.k", 3.0)
    c.add("extra", "Gain", k=1.0)
    c.connect("k.y", "extra.u")
    c.log("extra.y")
    c.set_position("k", 1.0, 2.0)
    assert d.value("k.k") == 2.0 and "extra" not in d.blocks
    assert ("k.y", "extra.u") not in d.connections and "extra.y" not in d.logged
    assert "k" not in d.ui["blocks"]


def test_a_copy_refuses_an_in_memory_function_as_a_save_does() -> None:
    d = small()
    d.add("f", "Function", func=lambda u, p: u)
    with pytest.raises(DiagramError, match="'func' is an in-memory function"):
        d.copy()


def test_loading_a_file_again_gives_a_new_copy_and_sees_a_change(tmp_path: Path) -> None:
    """``load`` keeps its last loads by text: a second load is an independent diagram, and a file saved again
    (same size, within the file system's time stamp resolution) is read anew."""
    path = tmp_path / "d.json"
    small().save(path)
    first = Diagram.load(path)
    first.set_param("k.k", 3.0)
    assert Diagram.load(path).value("k.k") == 2.0
    edited = small()
    edited.set_param("k.k", 4.0)         # "k": 2.0 -> 4.0, the same length
    edited.save(path)
    assert Diagram.load(path).value("k.k") == 4.0
