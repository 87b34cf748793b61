"""The engine core knows no biped and no dataset: the library reads both from the compile context."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from blocks import compile_diagram
from blocks.core import CompileContext
from blocks.library.context import BIPED, DATASETS, biped_of, dataset_of
from blocks.library.default_diagram import build_grf_walk
from blocks.library.settings import MODEL, ModelSettings
from models.params import BipedParams
from tests.blocks.demo_data import demo_dataset

ENGINE_CORE = ("core.py", "compile.py", "runner.py")


@pytest.mark.parametrize("name", ENGINE_CORE)
def test_engine_core_imports_nothing_from_models(name: str) -> None:
    tree = ast.parse((Path(__file__).resolve().parents[2] / "blocks" / name).read_text(encoding="utf-8"))
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert [m for m in imported if m == "models" or m.startswith("models.")] == []


CORE_FILES = sorted(p.name for p in (Path(__file__).resolve().parents[2] / "blocks").glob("*.py"))


@pytest.mark.parametrize("name", CORE_FILES)
def test_engine_core_imports_no_library_and_no_biped(name: str) -> None:
    """The engine finds its library by name (``blocks.core.LIBRARIES``) and the library registers
    its sections (``blocks.sections``): no file of the core imports the library or the biped."""
    tree = ast.parse((Path(__file__).resolve().parents[2] / "blocks" / name).read_text(encoding="utf-8"))
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert [m for m in imported if m.startswith(("blocks.library", "models.params", "models.biped"))] == []


def test_biped_of_reads_the_resource_else_the_paper_model() -> None:
    scaled = BipedParams.scaled(mass=90.0, height=1.9)
    assert biped_of(CompileContext(resources={BIPED: scaled})) is scaled
    assert biped_of(CompileContext()) == BipedParams.paper()
    with pytest.raises(TypeError, match="biped"):
        biped_of(CompileContext(resources={BIPED: "paper"}))


def test_compile_hands_the_diagram_model_unless_the_caller_gives_one() -> None:
    ds = demo_dataset(1.0)
    d = build_grf_walk()
    d.set_section(MODEL, ModelSettings(mass_kg=80.0, height_m=1.8, foot_radius_m=0.0))
    own = compile_diagram(d, resources={DATASETS: lambda s: ds}, t_end=0.5)
    assert biped_of(own.ctx).total_mass == pytest.approx(80.0)
    given = BipedParams.scaled(mass=60.0, height=1.6)
    other = compile_diagram(d, resources={DATASETS: lambda s: ds, BIPED: given}, t_end=0.5)
    assert biped_of(other.ctx) is given


def test_dataset_of_loads_each_dataset_once_per_compile() -> None:
    calls: list[str] = []
    ds = demo_dataset(1.0)

    def resolve(spec: str):
        calls.append(spec)
        return ds

    ctx = CompileContext(dataset="walk", resources={DATASETS: resolve})
    assert dataset_of(ctx) is ds and dataset_of(ctx, "walk") is ds and dataset_of(ctx, "other") is ds
    assert calls == ["walk", "other"]


class _Watched(dict[str, object]):
    """Compile resources that note which keys a block asked for."""

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.asked: set[str] = set()

    def get(self, key: str, default: object = None) -> object:
        self.asked.add(key)
        return super().get(key, default)


def test_each_walking_section_names_every_block_type_that_reads_it() -> None:
    """A diagram carries the sections its blocks read, from the readers each section registered
    (``blocks/library/settings.py``): every block type whose ``derive`` asks for the biped or the
    data settings must be among them, or its diagram would lose the section on save."""
    from blocks.core import BLOCK_TYPES, load_libraries
    from blocks.library.settings import DATA, DATA_READERS, MODEL_READERS

    load_libraries()
    ds = demo_dataset(2.0)
    asked: dict[str, set[str]] = {}
    for name, cls in BLOCK_TYPES.items():
        resources = _Watched({DATASETS: lambda s: ds})
        try:
            cls("b").make_params(CompileContext(t_end=1.0, resources=resources))
        except Exception:  # a block that needs more than its defaults (a function, a solution file)
            pass
        asked[name] = resources.asked
    assert {n for n, keys in asked.items() if BIPED in keys} <= MODEL_READERS
    assert {n for n, keys in asked.items() if DATA in keys} <= DATA_READERS
    assert {"FiveLinkDynamics", "GrfSource", "NetTorqueEstimator"} <= {n for n, k in asked.items() if BIPED in k}
