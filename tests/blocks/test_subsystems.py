"""Virtual subsystems in the diagram file: checked on load, kept by copy/save, invisible to the compiler."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from blocks import Diagram
from blocks.library.default_diagram import STABILISERS, build_grf_walk
from blocks.spec import DiagramError
from blocks.subsystems import boundary, group, owners, ungroup

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "diagrams"


def small() -> Diagram:
    d = Diagram("s")
    d.add("src", "Step")
    d.add("k", "Gain", k=2.0)
    d.add("i", "Integrator")
    d.connect("src.y", "k.u")
    d.connect("k.y", "i.u")
    return d


def test_default_diagram_groups_the_stabilisers_and_the_boundary_is_the_crossing_signals() -> None:
    d = build_grf_walk()
    assert set(owners(d)) == set(STABILISERS) and set(owners(d).values()) == {"stabilisers"}
    b = boundary(d, "stabilisers")
    inside = set(STABILISERS)
    ends = [(a, a.split(".")[0] in inside, z.split(".")[0] in inside) for a, z in d.connections]
    assert set(b.inputs) == {a for a, a_in, z_in in ends if not a_in and z_in}
    assert set(b.outputs) == {a for a, a_in, z_in in ends if a_in and not z_in}
    assert len(b.inputs) == 10 and len(b.outputs) == 8  # inputs include solved.mz (into mz_sum) and trig.sc


@pytest.mark.parametrize("subs, message", [
    ([{"name": "g", "blocks": ["nope"]}], "no block 'nope'"),
    ([{"name": "g", "blocks": ["k"]}, {"name": "h", "blocks": ["k"]}], "belongs to one"),
    ([{"name": "k", "blocks": ["src"]}], "already a block"),
    ([{"name": "g", "blocks": []}], "non-empty"),
    ([{"name": "g", "blocks": ["k"], "colour": 1}], "name, blocks"),
    ([{"name": "g", "blocks": ["k"]}, {"name": "g", "blocks": ["i"]}], "already a subsystem"),
])
def test_malformed_subsystems_are_refused_on_load(tmp_path: Path, subs: list, message: str) -> None:
    data = small().to_dict()
    data["ui"]["subsystems"] = subs
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(DiagramError, match=message):
        Diagram.load(path)


def test_group_ungroup_round_trip_and_names() -> None:
    d = small()
    group(d, "g", ["k", "src"], 10, 20)
    assert d.ui["subsystems"] == [{"name": "g", "blocks": ["src", "k"], "x": 10.0, "y": 20.0}]  # diagram order
    assert Diagram.from_dict(json.loads(d.to_json())).to_json() == d.to_json()
    with pytest.raises(DiagramError, match="already in subsystem 'g'"):
        group(d, "h", ["k"], 0, 0)
    with pytest.raises(DiagramError, match="names a subsystem"):
        d.add("g", "Gain")
    assert boundary(d, "g").outputs == ("k.y",) and boundary(d, "g").inputs == ()
    ungroup(d, "g")
    assert "subsystems" not in d.ui and d.to_dict() == small().to_dict()


def test_bundled_version_3_files_without_subsystems_still_load() -> None:
    for name in ("four_bar", "five_bar", "andrews_squeezer"):
        d = Diagram.load(ASSETS / f"{name}.json")
        assert owners(d) == {} and d.blocks
