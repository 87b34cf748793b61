"""Synthetic repeats of the bundled footwear conditions, made by the bundled generator.

Where no recorded repeats exist, each bundled condition (:data:`models.gaitgen.params.CONDITIONS`)
gets ``n`` synthetic trials: the condition's parameters with the cadence [steps/min] and the
stride [m] each scaled by ``1 + u``, ``u`` drawn uniformly in ``[-spread, +spread]`` (default
2 %) from a generator seeded by ``(seed, condition index, trial index)``. Every other parameter is
the condition's own. Each variant's cycle is solved by :mod:`models.gaitgen`, warm-started from
the bundled set's own coefficients (its sidecar; about a minute on the loaded 2-core machine, several
minutes cold), and written once into a cache folder (``<cache>/synthetic/<key>/<name>.csv`` + ``.json``), the key
being a hash of the generator version and the variant's parameters; later calls read the cache.

``python -m app.footwear_report.synthetic --n 3`` fills the cache and writes a manifest.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from app.manifest import Trial
from models.gaitgen.params import CONDITIONS, GENERATOR_VERSION, GaitParams

__all__ = ["SyntheticTrial", "variants", "generate", "expand", "default_cache", "write_manifest"]

SPREAD = 0.02  # +/- share of cadence and stride


@dataclass(frozen=True)
class SyntheticTrial:
    """One generated variant: its condition, file, and the applied scale factors (1 = the condition's)."""

    condition: str
    name: str
    path: Path
    cadence_factor: float
    stride_factor: float


def variants(condition: str, n: int, spread: float = SPREAD,
             seed: int = 31) -> list[tuple[str, GaitParams, float, float]]:
    """``n`` variants ``(name, params, cadence factor, stride factor)`` of ``condition`` (module doc)."""
    if condition not in CONDITIONS:
        raise KeyError(f"no bundled condition {condition!r} (known: {', '.join(CONDITIONS)})")
    base = CONDITIONS[condition]
    ci = sorted(CONDITIONS).index(condition)
    out = []
    for i in range(n):
        u = np.random.default_rng([seed, ci, i]).uniform(-spread, spread, size=2)
        fc, fs = float(1 + u[0]), float(1 + u[1])
        name = f"{condition}_syn{i + 1}"
        gait = replace(base, name=name, cadence_spm=base.cadence_spm * fc, stride_m=base.stride_m * fs,
                       description=f"synthetic repeat {i + 1} of {condition}: cadence x{fc:.4f}, stride x{fs:.4f} "
                                   f"(models.gaitgen {GENERATOR_VERSION})")
        out.append((name, gait, fc, fs))
    return out


def default_cache() -> Path:
    """``<user cache>/synthetic`` (:func:`models.userdirs.user_dir`)."""
    from models.userdirs import user_dir

    return user_dir("cache") / "synthetic"


def _key(gait: GaitParams) -> str:
    text = json.dumps({"generator": GENERATOR_VERSION, **gait.to_dict()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def generate(conditions: tuple[str, ...] | list[str], n: int, cache: Path | None = None, spread: float = SPREAD,
             seed: int = 31, progress: object = None) -> list[SyntheticTrial]:
    """The ``n`` synthetic trials of each condition, generated into ``cache`` where not there yet."""
    root = cache if cache is not None else default_cache()
    out = []
    for cond in conditions:
        for name, gait, fc, fs in variants(cond, n, spread, seed):
            folder = root / _key(gait)
            path = folder / f"{name}.csv"
            if not (path.is_file() and path.with_suffix(".json").is_file()):
                if callable(progress):
                    progress(f"generating {name} (cadence x{fc:.4f}, stride x{fs:.4f})")
                _write(gait, folder, cond)
            out.append(SyntheticTrial(cond, name, path, fc, fs))
    return out


def expand(trials: list[Trial], n: int, cache: Path | None = None,
           progress: object = None) -> list[Trial]:
    """Each trial that names a bundled set (no kinematics of its own) replaced by ``n`` synthetic
    repeats of its condition (subject ``synthetic <name>``); other trials kept. ``n = 0``: unchanged."""
    if n <= 0:
        return list(trials)
    out: list[Trial] = []
    for t in trials:
        if t.grf in CONDITIONS and t.kinematics is None:
            for s in generate([t.grf], n, cache, progress=progress):
                out.append(replace(t, grf=str(s.path), subject=f"synthetic {s.name}"))
        else:
            out.append(t)
    return out


def _write(gait: GaitParams, folder: Path, condition: str) -> Path:
    """Solve the variant's cycle warm-started from the bundled condition's own coefficients (its
    sidecar), then write ``<name>.csv`` and ``.json`` as :func:`models.gaitgen.generate.write` does."""
    from grf_data.registry import bundled_path
    from models.gaitgen.cycle import CycleModel
    from models.gaitgen.generate import COLUMNS, metadata, tile
    from models.params import BipedParams

    params = BipedParams.paper()
    model = CycleModel(gait, params)
    side = json.loads(bundled_path(condition).with_suffix(".json").read_text(encoding="utf-8"))
    coef = np.asarray(side.get("derived", {}).get("fourier_coefficients", []), dtype=float)
    sol = model.solve(coef0=coef if coef.shape == (model.n_coefficients(),) else None)
    cols, meta = tile(sol, gait), metadata(gait, sol, params)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{gait.name}.csv"
    np.savetxt(path, np.column_stack([cols[c] for c in COLUMNS]), fmt="%.6g", delimiter=",", header=",".join(COLUMNS),
               comments="")
    path.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return path


def write_manifest(trials: list[SyntheticTrial], path: Path) -> Path:
    """A JSON manifest (:mod:`app.manifest`) of ``trials``, each labelled synthetic in its subject."""
    entries = [{"condition": t.condition, "subject": f"synthetic {t.name}", "grf": str(t.path)} for t in trials]
    path.write_text(json.dumps({"trials": entries}, indent=1) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m app.footwear_report.synthetic", description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3, help="synthetic trials per condition")
    ap.add_argument("--only", nargs="+", choices=sorted(CONDITIONS), default=None)
    ap.add_argument("--cache", type=Path, default=None, help="cache folder (default: the user cache)")
    ap.add_argument("--manifest", type=Path, default=None, help="write a JSON manifest of the trials here")
    args = ap.parse_args(argv)
    trials = generate(args.only or ["sneakers", "barefoot", "high_heels"], args.n, args.cache,
                      progress=lambda s: print(s, file=sys.stderr, flush=True))
    for t in trials:
        print(t.path)
    if args.manifest is not None:
        write_manifest(trials, args.manifest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
