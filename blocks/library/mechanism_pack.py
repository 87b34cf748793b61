r"""The packed form of a :class:`~blocks.library.mechanism.PlanarMechanism`: the tables that
:mod:`blocks.library.mechanism_kernels` reads, laid out by :class:`blocks.packing.Layout` from
:data:`PACKED` (sizes and codes as scalars, then the offsets of the tables, then the tables).

Point expressions (:class:`~models.mechanism.geometry.PointExpr`) are stacked as in
:class:`~models.mechanism.system.Mechanism`: every rotated term ``k`` has its joint weights
``A[k]`` (m), offset ``c[k]`` [rad], body vector ``P[k]`` [m] and the expression ``E[k]`` it belongs
to; every expression ``e`` has its ground offset ``R0[e]`` [m]. Expressions are ordered: loops
(the cut-point differences), coordinate points, body CoMs, spring attachments, named points.
The coordinates, bodies and springs are tables of records whose fields are declared here
(:data:`COORD`, :data:`BODY`, :data:`SPRING`: each field's offset in its record, and ``"size"``).

Splines (scipy ``BSpline``: knots ``t``, coefficients ``c`` (n, m), degree ``k``; fitpack's
``RectBivariateSpline``: knots ``tx``, ``ty``, coefficients per joint (nx, ny) row-major) are packed
as their B-spline coefficients; the kernels evaluate them with de Boor's recurrence (the one scipy's
``BSpline`` uses), with fitpack's clamping to the box for the bivariate ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from blocks.packing import Layout, state_offsets
from models.mechanism import Embedded, PreModel

__all__ = ["BODY", "COORD", "KIND_PROJECTION", "KIND_SPLINE1", "KIND_SPLINE2", "LAYOUT", "PACKED", "SPRING",
           "mechanism_tables"]

KIND_PROJECTION, KIND_SPLINE1, KIND_SPLINE2 = 0, 1, 2

#: the packed entries, all derived constants: sizes and codes, then the tables (``[]``)
PACKED = ("_m", "_nq", "_nt", "_ne", "_nloop", "_nbody", "_nspring", "_npoint", "_ntau", "_kind", "_guide",
          "_s_nt", "_s_k", "_s_lo", "_s_per",  # 1-D spline: the manifold's, or the guide's
          "_b_ntx", "_b_nty", "_b_k",  # bivariate spline: the manifold's
          "_A[]", "_c[]", "_P[]", "_E[]", "_R0[]", "_coord[]", "_body[]", "_rot[]", "_spring[]", "_grav[]", "_ctau[]",
          "_B[]", "_s_t[]", "_s_c[]", "_s_wind[]", "_b_tx[]", "_b_ty[]", "_b_c[]")
LAYOUT = Layout(PACKED, {})

#: a coordinate: ``kind`` 0 a joint variable (``index`` the joint), 1 a point's ``axis`` (``index`` its expression)
COORD = state_offsets((("kind", 1), ("index", 1), ("axis", 1)), {})
#: a body: the expression of its CoM, its mass [kg] and inertia [kg m^2]
BODY = state_offsets((("expr", 1), ("mass", 1), ("inertia", 1)), {})
#: a spring: the expression of its attachment, its ground anchor (x, y) [m], stiffness [N/m], rest length [m]
SPRING = state_offsets((("expr", 1), ("anchor", 2), ("k", 1), ("l0", 1)), {})


def _records(fields: dict[str, int], rows: list[dict[str, Any]]) -> np.ndarray:
    """``rows`` (each ``{field: value}``) as one flat table of records laid out by ``fields``."""
    out = np.zeros((len(rows), fields["size"]))
    for i, row in enumerate(rows):
        for name, value in row.items():
            v = np.atleast_1d(np.asarray(value, dtype=np.float64))
            out[i, fields[name]: fields[name] + v.size] = v
    return out.reshape(-1)


def mechanism_tables(model: Embedded) -> dict[str, Any]:
    """Every entry of :data:`PACKED` for ``model`` (module docstring), by name (without ``[]``)."""
    mech = model.mech
    m, nq = mech.m, mech.nq
    exprs = [a - b for a, b in mech.loops]
    coord = []
    for c in mech.coords:
        if c.expr is not None:
            coord.append({"kind": 1.0, "index": float(len(exprs)), "axis": float(c.axis)})
            exprs.append(c.expr)
        else:
            coord.append({"kind": 0.0, "index": float(c.joint if c.joint is not None else -1), "axis": 0.0})
    first_body = len(exprs)
    exprs += [b.com for b in mech.bodies]
    first_spring = len(exprs)
    exprs += [s.attach for s in mech.springs]
    exprs += list(mech.points.values())
    term_expr = np.concatenate([np.full(e.A.shape[0], i, dtype=float) for i, e in enumerate(exprs)])
    out: dict[str, Any] = {
        "_A": np.vstack([e.A for e in exprs]), "_c": np.concatenate([e.c for e in exprs]),
        "_P": np.vstack([e.P for e in exprs]), "_E": term_expr, "_R0": np.array([e.r0 for e in exprs]),
        "_coord": _records(COORD, coord),
        "_body": _records(BODY, [{"expr": first_body + i, "mass": b.mass, "inertia": b.inertia}
                                 for i, b in enumerate(mech.bodies)]),
        "_rot": sum((b.inertia * np.outer(b.a, b.a) for b in mech.bodies), np.zeros((m, m))),
        "_spring": _records(SPRING, [{"expr": first_spring + i, "anchor": s.anchor, "k": s.k, "l0": s.l0}
                                     for i, s in enumerate(mech.springs)]),
        "_grav": np.asarray(mech.gravity, dtype=float),
        "_ctau": mech.const_torque if mech.const_torque is not None else np.zeros(m),
        "_B": np.column_stack([w for _, w in mech.torque_joints]) if mech.torque_joints else np.zeros((m, 0)),
        "_m": m, "_nq": nq, "_nt": term_expr.size, "_ne": len(exprs), "_nloop": len(mech.loops),
        "_nbody": len(mech.bodies), "_nspring": len(mech.springs), "_npoint": len(mech.points),
        "_ntau": len(mech.torque_joints)}
    manifold = model.manifold
    kind = KIND_PROJECTION
    spl1: PreModel | None = None
    if isinstance(manifold, PreModel):
        kind = KIND_SPLINE1 if nq == 1 else KIND_SPLINE2
        spl1 = manifold if nq == 1 else None
    elif model.guide is not None:
        spl1 = model.guide
    if spl1 is not None:
        s = spl1._spl
        out.update(_s_t=s.t, _s_nt=s.t.size, _s_c=s.c, _s_k=s.k, _s_lo=spl1.lo, _s_wind=spl1.winding,
                   _s_per=0.0 if spl1.period is None else spl1.period)
    if kind == KIND_SPLINE2:
        assert isinstance(manifold, PreModel)
        tx, ty, _ = manifold._spl2[0].tck
        out.update(_b_tx=tx, _b_ntx=tx.size, _b_ty=ty, _b_nty=ty.size, _b_k=manifold._spl2[0].degrees[0],
                   _b_c=np.concatenate([s.tck[2] for s in manifold._spl2]))
    out.update(_kind=kind, _guide=1.0 if (kind == KIND_PROJECTION and spl1 is not None) else 0.0)
    for key in LAYOUT.index.keys() - out.keys():  # the splines this model has not: 0, or empty
        out[key] = np.zeros(0) if key in LAYOUT.arrays else 0.0
    return out
