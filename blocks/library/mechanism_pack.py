r"""The packed form of a :class:`~blocks.library.mechanism.PlanarMechanism`: one float64 vector that
:mod:`blocks.library.mechanism_kernels` reads.

Layout: a header of ``HEADER`` entries (sizes, codes and the offsets of the tables, all stored as
floats), then the tables. Point expressions (:class:`~models.mechanism.geometry.PointExpr`)
are stacked as in :class:`~models.mechanism.system.Mechanism`: every rotated term ``k`` has its
joint weights ``A[k]`` (m), offset ``c[k]`` [rad], body vector ``P[k]`` [m] and the expression
``E[k]`` it belongs to; every expression ``e`` has its ground offset ``R0[e]`` [m]. Expressions are
ordered: loops (the cut-point differences), coordinate points, body CoMs, spring attachments,
named points.

Splines (scipy ``BSpline``: knots ``t``, coefficients ``c`` (n, m), degree ``k``; fitpack's
``RectBivariateSpline``: knots ``tx``, ``ty``, coefficients per joint (nx, ny) row-major) are packed
as their B-spline coefficients; the kernels evaluate them with de Boor's recurrence (the one scipy's
``BSpline`` uses), with fitpack's clamping to the box for the bivariate ones.
"""

from __future__ import annotations

import numpy as np

from models.mechanism import Embedded, PreModel

__all__ = ["HEADER", "KIND_PROJECTION", "KIND_SPLINE1", "KIND_SPLINE2", "pack_mechanism", "H"]

KIND_PROJECTION, KIND_SPLINE1, KIND_SPLINE2 = 0, 1, 2

#: header entries (index into the packed vector)
H = {name: i for i, name in enumerate((
    "m", "nq", "nt", "ne", "nloop", "nbody", "nspring", "npoint", "ntau", "kind", "guide",
    "A", "c", "P", "E", "R0", "coord", "body", "rot", "spring", "grav", "ctau", "B",
    "s_t", "s_nt", "s_c", "s_k", "s_lo", "s_per", "s_wind",  # 1-D spline: the manifold's, or the guide's
    "b_tx", "b_ntx", "b_ty", "b_nty", "b_c", "b_k"))}  # bivariate spline: the manifold's
HEADER = len(H)


def pack_mechanism(model: Embedded) -> np.ndarray:
    """The packed vector of ``model`` (module docstring)."""
    mech = model.mech
    m, nq = mech.m, mech.nq
    exprs = [a - b for a, b in mech.loops]
    coord = []
    for c in mech.coords:
        if c.expr is not None:
            coord.append((1.0, float(len(exprs)), float(c.axis)))
            exprs.append(c.expr)
        else:
            coord.append((0.0, float(c.joint if c.joint is not None else -1), 0.0))
    first_body = len(exprs)
    exprs += [b.com for b in mech.bodies]
    first_spring = len(exprs)
    exprs += [s.attach for s in mech.springs]
    exprs += list(mech.points.values())
    head = np.zeros(HEADER)
    parts: list[np.ndarray] = [head]
    size = HEADER

    def put(key: str, arr: np.ndarray | list[float]) -> None:
        nonlocal size
        a = np.ascontiguousarray(arr, dtype=np.float64).ravel()
        head[H[key]] = size
        parts.append(a)
        size += a.size

    term_expr = np.concatenate([np.full(e.A.shape[0], i, dtype=float) for i, e in enumerate(exprs)])
    put("A", np.vstack([e.A for e in exprs]))
    put("c", np.concatenate([e.c for e in exprs]))
    put("P", np.vstack([e.P for e in exprs]))
    put("E", term_expr)
    put("R0", np.array([e.r0 for e in exprs]))
    put("coord", np.array(coord).reshape(-1))
    put("body", np.array([(first_body + i, b.mass, b.inertia) for i, b in enumerate(mech.bodies)]).reshape(-1))
    put("rot", sum((b.inertia * np.outer(b.a, b.a) for b in mech.bodies), np.zeros((m, m))))
    put("spring", np.array([(first_spring + i, s.anchor[0], s.anchor[1], s.k, s.l0)
                            for i, s in enumerate(mech.springs)]).reshape(-1))
    put("grav", np.asarray(mech.gravity, dtype=float))
    put("ctau", mech.const_torque if mech.const_torque is not None else np.zeros(m))
    put("B", np.column_stack([w for _, w in mech.torque_joints]) if mech.torque_joints else np.zeros((m, 0)))
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
        put("s_t", s.t)
        head[H["s_nt"]] = s.t.size
        put("s_c", s.c)
        head[H["s_k"]] = s.k
        head[H["s_lo"]] = spl1.lo
        head[H["s_per"]] = 0.0 if spl1.period is None else spl1.period
        put("s_wind", spl1.winding)
    if kind == KIND_SPLINE2:
        assert isinstance(manifold, PreModel)
        tx, ty, _ = manifold._spl2[0].tck
        put("b_tx", tx)
        head[H["b_ntx"]] = tx.size
        put("b_ty", ty)
        head[H["b_nty"]] = ty.size
        put("b_c", np.concatenate([s.tck[2] for s in manifold._spl2]))
        head[H["b_k"]] = manifold._spl2[0].degrees[0]
    for key, val in (("m", m), ("nq", nq), ("nt", term_expr.size), ("ne", len(exprs)), ("nloop", len(mech.loops)),
                     ("nbody", len(mech.bodies)), ("nspring", len(mech.springs)), ("npoint", len(mech.points)),
                     ("ntau", len(mech.torque_joints)), ("kind", kind),
                     ("guide", 1.0 if (kind == KIND_PROJECTION and spl1 is not None) else 0.0)):
        head[H[key]] = val
    return np.concatenate(parts)
