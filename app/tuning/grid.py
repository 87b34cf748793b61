"""Sweep axes and sample points.

An axis is written ``block.param=lo:hi:n`` (``n`` evenly spaced values from ``lo`` to ``hi``
inclusive), ``block.param=lo:hi`` (a range for ``--samples``) or ``block.param=v1,v2,...``
(explicit values). Every value is checked against the parameter's ``ParamSpec`` range before
any run starts.

* :func:`grid_points` -- the full Cartesian product (first axis slowest);
* :func:`random_points` -- ``N`` uniform points in the box, ``numpy.random.default_rng(seed)``;
* :func:`lhs_points` -- ``N`` Latin-hypercube points, ``scipy.stats.qmc.LatinHypercube(seed)``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from models.errors import UserError

if TYPE_CHECKING:
    from blocks import Diagram

__all__ = ["Axis", "parse_axis", "grid_points", "random_points", "lhs_points", "check_axes"]


@dataclass(frozen=True)
class Axis:
    """One swept parameter ``ref`` (``"block.param"``): its range and grid values."""

    ref: str
    lo: float
    hi: float
    values: tuple[float, ...]


def _number(text: str, where: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise UserError(f"{where}: cannot read {text!r} as a number") from None
    if not math.isfinite(v):
        raise UserError(f"{where}: {text!r} is not a finite number")
    return v


def parse_axis(text: str) -> Axis:
    """Parse ``block.param=lo:hi:n``, ``block.param=lo:hi`` or ``block.param=v1,v2,...``."""
    where = f"--param {text!r}"
    if "=" not in text:
        raise UserError(f"{where}: expected BLOCK.PARAM=LO:HI:N or BLOCK.PARAM=V1,V2,...")
    ref, spec = (s.strip() for s in text.split("=", 1))
    if "." not in ref:
        raise UserError(f"{where}: parameter must be written block.param")
    if ":" in spec:
        parts = spec.split(":")
        if len(parts) not in (2, 3):
            raise UserError(f"{where}: expected LO:HI:N or LO:HI")
        lo, hi = _number(parts[0], where), _number(parts[1], where)
        if hi < lo:
            raise UserError(f"{where}: HI {hi} is below LO {lo}")
        if len(parts) == 3:
            try:
                n = int(parts[2])
            except ValueError:
                raise UserError(f"{where}: N must be a whole number, got {parts[2]!r}") from None
            if n < 1:
                raise UserError(f"{where}: N must be at least 1")
            values = tuple(float(v) for v in np.linspace(lo, hi, n)) if n > 1 else (lo,)
        else:
            values = (lo, hi)
        return Axis(ref, lo, hi, values)
    vals = tuple(_number(v, where) for v in spec.split(",") if v.strip())
    if not vals:
        raise UserError(f"{where}: no values")
    return Axis(ref, min(vals), max(vals), vals)


def check_axes(axes: Sequence[Axis], diagram: Diagram) -> None:
    """Every axis names a numeric parameter of ``diagram`` and stays inside its ``ParamSpec`` range."""
    refs = [a.ref for a in axes]
    dupes = sorted({r for r in refs if refs.count(r) > 1})
    if dupes:
        raise UserError(f"--param given twice for {', '.join(dupes)}")
    for a in axes:
        spec = diagram.param_spec(a.ref)
        if spec.kind not in ("float", "int"):
            raise UserError(f"--param {a.ref}: a {spec.kind} parameter cannot be swept")
        for v in (a.lo, a.hi, *a.values):
            spec.validate(int(round(v)) if spec.kind == "int" else v, f"--param {a.ref}")


def grid_points(axes: Sequence[Axis]) -> list[dict[str, float]]:
    """Cartesian product of the axes' values, first axis varying slowest."""
    return [dict(zip([a.ref for a in axes], combo)) for combo in itertools.product(*(a.values for a in axes))]


def _scale(axes: Sequence[Axis], unit: np.ndarray) -> list[dict[str, float]]:
    lo = np.array([a.lo for a in axes])
    hi = np.array([a.hi for a in axes])
    pts = lo + unit * (hi - lo)
    return [{a.ref: float(v) for a, v in zip(axes, row)} for row in pts]


def random_points(axes: Sequence[Axis], n: int, seed: int) -> list[dict[str, float]]:
    """``n`` points uniform in the box ``[lo, hi]`` of every axis."""
    return _scale(axes, np.random.default_rng(seed).random((n, len(axes))))


def lhs_points(axes: Sequence[Axis], n: int, seed: int) -> list[dict[str, float]]:
    """``n`` Latin-hypercube points: each axis range cut in ``n`` strata, one point in each."""
    from scipy.stats import qmc

    return _scale(axes, qmc.LatinHypercube(d=len(axes), seed=seed).random(n))
