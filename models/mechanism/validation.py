r"""Validation rows of the constrained-multibody core (issue 21; Ehsani 2023, §3-4).

* **Four-bar** (Ehsani, Eq. 121): q(t) a piecewise Hermite trajectory; velocity and acceleration
  of point p from the pre-modelled manifold (quintic splines on nodes 0.01 apart, the
  paper's step; Ehsani's cubic splines reported beside: their second derivative, which the
  acceleration needs, is only accurate to about step^2) against the classical absolute-coordinate analysis
  (:mod:`models.mechanism.classical`). Agreement in significant figures
  :math:`-\log_{10}(\max|a - b| / \max|b|)`; bound >= 7 (the paper's figure).
* **Five-bar** (Ehsani, Eq. 123, Table 2): the same with analytical projection (bound >= 6);
  then the gradients of joints 3 and 4 from numerical differentiation on the computational
  molecule against projection for step lengths 1e-1 .. 1e-7 (truncation ~h^2 against
  round-off ~eps/h: the step length matters), and from pre-modelled bivariate quintic
  splines at grid steps 0.1 and 0.05.
* **Andrews' squeezer**: the seven angles at t = 0.03 s against the published reference
  (Mazzia & Magherini test set); max relative error, bound 1e-7 for the embedded method with
  exact constraint solve (DOP853, rtol = atol = 1e-12). The spline variant (step 0.01) and
  the Baumgarte-stabilised DAE report their errors and the DAE its drift.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy.interpolate import CubicHermiteSpline

from models.mechanism.classical import AbsoluteMechanism, five_bar_absolute, four_bar_absolute
from models.mechanism.dae import DAE
from models.mechanism.embedded import Embedded
from models.mechanism.library import (
    FIVE_BAR,
    FOUR_BAR,
    PX_OFFSET,
    SQUEEZER_REFERENCE,
    SQUEEZER_T_REF,
    andrews_squeezer,
    five_bar,
    four_bar,
)
from models.mechanism.manifold import NumericalDiff, PreModel, Projection, continuation, hessian_term
from models.mechanism.system import Mechanism

if TYPE_CHECKING:
    from models.validation import Row

__all__ = ["hermite_trajectory", "sig_figs", "point_kinematics", "four_bar_check", "five_bar_check",
           "squeezer_check", "rows"]

FOUR_BAR_KNOTS = ((0.0, 1.0, 2.0, 3.0, 4.0), ((0.0, 1.8, -1.6, 1.0, 0.0),))
FIVE_BAR_KNOTS = ((0.0, 1.0, 2.0, 3.0, 4.0), ((0.5, 1.5, -0.5, 2.5, 0.5), (0.5, -1.0, 2.0, 0.0, 0.5)))
ND_STEPS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7)


def hermite_trajectory(knots: tuple, n: int = 201) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Piecewise cubic Hermite q(t) through the knots with zero end slopes and Catmull-Rom
    slopes inside: ``t`` (n,), ``q``, ``qd``, ``qdd`` (n, nq)."""
    tk = np.asarray(knots[0])
    t = np.linspace(tk[0], tk[-1], n)
    cols = []
    for qk in knots[1]:
        qk = np.asarray(qk, dtype=float)
        slope = np.zeros_like(qk)
        slope[1:-1] = (qk[2:] - qk[:-2]) / (tk[2:] - tk[:-2])
        spl = CubicHermiteSpline(tk, qk, slope)
        cols.append((spl(t), spl(t, 1), spl(t, 2)))
    q, qd, qdd = (np.column_stack([c[k] for c in cols]) for k in range(3))
    return t, q, qd, qdd


def sig_figs(ours: np.ndarray, ref: np.ndarray) -> float:
    """Agreement in significant figures: ``-log10(max|ours - ref| / max|ref|)`` (16 if equal)."""
    err = float(np.max(np.abs(np.asarray(ours) - np.asarray(ref))))
    scale = float(np.max(np.abs(ref)))
    return 16.0 if err == 0 else float(-np.log10(err / scale))


def point_kinematics(mech: Mechanism, manifold: Projection | PreModel | NumericalDiff, name: str, q: np.ndarray,
                     qd: np.ndarray, qdd: np.ndarray, guess: np.ndarray | None = None) -> tuple[
                         np.ndarray, np.ndarray, np.ndarray]:
    """Velocity and acceleration of point ``name`` from the manifold (Ehsani, Eqs. 44, 57):
    ``v = J F qd``, ``a = J (F qdd + H[qd, qd]) + kappa(F qd)``; and the solved ``f``."""
    f, F, H = manifold.evaluate(q, guess)
    e = mech.points[name]
    fd = F @ qd
    fdd = F @ qdd + hessian_term(H, qd)
    J = e.jacobian(f)
    return J @ fd, J @ fdd + e.convective(f, fd), f


def _absolute_guess(mech: Mechanism, f: np.ndarray, proximal: tuple[str, ...]) -> np.ndarray:
    X = []
    for body, pname in zip(mech.bodies, proximal):
        X += [*mech.points[pname].position(f), float(body.a @ f + body.c)]
    return np.array(X)


def _compare(mech: Mechanism, manifold: Projection | PreModel, absm: AbsoluteMechanism, proximal: tuple[str, ...],
             body: int, s: tuple[float, float], knots: tuple, drivers: str) -> tuple[float, float]:
    t, q, qd, qdd = hermite_trajectory(knots)
    f = continuation(mech, q[0])
    X = _absolute_guess(mech, f, proximal)
    vs, as_, vc, ac = [], [], [], []
    for k in range(t.size):
        v, a, f = point_kinematics(mech, manifold, "p", q[k], qd[k], qdd[k], f)
        qa = q[k] if drivers == "height" else q[k]
        X, Xd, Xdd = absm.analyse(X, qa, qd[k], qdd[k])
        v2, a2 = absm.point_kinematics(X, Xd, Xdd, body, s)
        vs.append(v)
        as_.append(a)
        vc.append(v2)
        ac.append(a2)
    return sig_figs(np.array(vs), np.array(vc)), sig_figs(np.array(as_), np.array(ac))


def four_bar_check() -> dict[str, float]:
    """Point p of the four-bar: pre-model (step 0.01; quintic, and Ehsani's cubic splines)
    against the classical analysis."""
    mech = four_bar()
    P = FOUR_BAR
    absm = four_bar_absolute(P["l0"], P["l1"], P["l2"], P["lcm2"], P["l3"])
    out = {}
    for degree, tag in ((5, ""), (3, "cubic_")):
        out[tag + "v"], out[tag + "a"] = _compare(mech, PreModel(mech, step=0.01, degree=degree), absm,
                                                  ("O", "A", "B"), 1, (P["lcm2"], PX_OFFSET), FOUR_BAR_KNOTS, "height")
    return out


def five_bar_check() -> dict[str, float]:
    """Point p of the five-bar (projection vs classical) and gradient accuracy of numerical
    differentiation (per step) and of pre-models (per grid step) against projection."""
    mech = five_bar()
    P = FIVE_BAR
    absm = five_bar_absolute(P["l0"], P["l1"], P["l2"], P["l3"], P["l4"])
    proj = Projection(mech)
    out = {}
    out["v"], out["a"] = _compare(mech, proj, absm, ("O", "J1", "J2", "J3"), 2, (P["lp"], 0.0), FIVE_BAR_KNOTS,
                                  "angle")
    t, q, _, _ = hermite_trajectory(FIVE_BAR_KNOTS, n=81)
    f = continuation(mech, q[0])
    exact = []
    fs = []
    for qk in q:
        f, F, _ = proj.evaluate(qk, f)
        fs.append(f)
        exact.append(np.linalg.norm(F[2:4], axis=1))
    exact_a = np.array(exact)
    for h in ND_STEPS:
        nd = NumericalDiff(mech, h)
        grads = [np.linalg.norm(nd.evaluate(qk, fk)[1][2:4], axis=1) for qk, fk in zip(q, fs)]
        out[f"nd_{h:g}"] = sig_figs(np.array(grads), exact_a)
    lo, hi = q.min(axis=0) - 0.3, q.max(axis=0) + 0.3
    for step in (0.1, 0.05):
        pm = PreModel(mech, step=step, ranges=((lo[0], hi[0]), (lo[1], hi[1])))
        grads = [np.linalg.norm(pm.evaluate(qk)[1][2:4], axis=1) for qk in q]
        out[f"spline_{step:g}"] = sig_figs(np.array(grads), exact_a)
    return out


def squeezer_check() -> dict[str, float]:
    """Max relative error of the seven angles at t = 0.03 s, per method; DAE drift."""
    mech = andrews_squeezer()
    ref = np.array(SQUEEZER_REFERENCE)
    out = {}
    run = Embedded(mech, Projection(mech)).simulate(SQUEEZER_T_REF, rtol=1e-12, atol=1e-12, n_out=2)
    out["projection"] = float(np.max(np.abs(run.f[-1] - ref) / np.abs(ref)))
    spline = PreModel(mech, step=0.01)
    run = Embedded(mech, spline).simulate(SQUEEZER_T_REF, rtol=1e-10, atol=1e-10, n_out=2)
    out["spline"] = float(np.max(np.abs(run.f[-1] - ref) / np.abs(ref)))
    dae = DAE(mech, "baumgarte", alpha=2000.0, beta=2000.0).simulate(SQUEEZER_T_REF, rtol=1e-10, atol=1e-10,
                                                                      n_out=31)
    out["dae"] = float(np.max(np.abs(dae.f[-1] - ref) / np.abs(ref)))
    out["dae_drift_pos"], out["dae_drift_vel"] = dae.drift_pos, dae.drift_vel
    return out


def rows() -> list[Row]:
    """The validation table rows (``gaitblocks validate``)."""
    from models.validation import Row

    fb, fv, sq = four_bar_check(), five_bar_check(), squeezer_check()
    out = [Row("mechanism four-bar p velocity, pre-model vs classical [sig. figs]", fb["v"], 7.0, "min"),
           Row("mechanism four-bar p acceleration, pre-model vs classical [sig. figs]", fb["a"], 7.0, "min"),
           Row("mechanism four-bar p velocity, cubic-spline pre-model (Ehsani's) [sig. figs]", fb["cubic_v"], None),
           Row("mechanism four-bar p acceleration, cubic-spline pre-model (Ehsani's) [sig. figs]", fb["cubic_a"],
               None),
           Row("mechanism five-bar p velocity, projection vs classical [sig. figs]", fv["v"], 6.0, "min"),
           Row("mechanism five-bar p acceleration, projection vs classical [sig. figs]", fv["a"], 6.0, "min"),
           Row("mechanism five-bar |grad f3,f4|, best numerical diff. vs projection [sig. figs]",
               max(fv[f"nd_{h:g}"] for h in ND_STEPS), 7.0, "min")]
    out += [Row(f"mechanism five-bar |grad f3,f4|, numerical diff. h={h:g} [sig. figs]", fv[f"nd_{h:g}"], None)
            for h in ND_STEPS]
    out += [Row(f"mechanism five-bar |grad f3,f4|, pre-model grid {s:g} [sig. figs]", fv[f"spline_{s:g}"], None)
            for s in (0.1, 0.05)]
    out += [Row("mechanism squeezer 7 angles at 0.03 s, embedded exact solve: max rel err", sq["projection"], 1e-7),
            Row("mechanism squeezer 7 angles at 0.03 s, embedded spline 0.01: max rel err", sq["spline"], None),
            Row("mechanism squeezer 7 angles at 0.03 s, DAE Baumgarte: max rel err", sq["dae"], None),
            Row("mechanism squeezer DAE position drift max|Phi| [m]", sq["dae_drift_pos"], None),
            Row("mechanism squeezer DAE velocity drift max|Phi_f fd| [m/s]", sq["dae_drift_vel"], None)]
    return out
