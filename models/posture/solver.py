r"""The posture solver: the periodic five-link gait that a recorded GRF and CoP produce.

Direct collocation over one gait cycle (CasADi + IPOPT), after Ackermann & van den Bogert
(2010) and OpenSim Moco. On ``n`` nodes ``t_k = t0 + k h``, ``h = T / n``:

Unknowns
    ``q_k, qd_k, qdd_k`` (7 each), the stride ``D`` [m], one footprint ``X_s`` [m] per stance and
    the foot point's offset ``e_s`` [m] from that stance's mean CoP (the force acts at the recorded
    CoP, so the foot carries ``mz = (d_k - e_s) F_y``, ``d_k`` the CoP relative to its mean;
    ``e_s`` is unknowable from force data alone and is penalised: ``(e_s / s_cop)^2``).
Dynamics
    the inverse dynamics of :mod:`models.posture.dynamics` with the recorded foot forces and the
    CoP's ground moments: ``gen_k = ID(q_k, qd_k, qdd_k, F_k, mz_k)``. Its rows 0-2 are the
    *residual actuators* on the trunk, ``(R_x, R_y)`` [N] at the trunk CoM and a moment ``R_m``
    [N m]: every force or moment that is not in the recording; rows 3-6 are the joint torques.
Constraints
    * trapezoidal collocation ``q_{k+1} - q_k = h/2 (qd_k + qd_{k+1})``, likewise ``qd``;
    * periodicity: node ``n`` is node 0 shifted one stride, ``q_n = q_0 + D e_x``, ``qd_n = qd_0``
      (written into the last collocation interval, so no constraint is duplicated);
    * a stance foot at its footprint, ``foot(q_k) = (X_s - w_k D, 0)`` (``w_k`` = 1 on nodes of a
      stance that began in the previous cycle), so it neither slips nor lifts;
    * a swing foot at or above the floor, ``foot_y(q_k) >= 0``.
Objective (means over the nodes; every weight is a named field of :class:`SolverOptions`)
    ``J = w_dyn [ (|R_xy| / (s_F BW))^2 + (R_m / (s_M BW L))^2 ]
       + sum_swing w_swing ((y_k - y_ref) / sigma)^2
       + (tau / (s_tau BW L))^2 + (qdd / s_acc)^2 + (e_s / s_cop)^2``
    with ``BW`` the body weight [N], ``L`` the leg length [m], ``y`` the swing reference
    quantities (:mod:`models.posture.inputs`) and ``sigma`` their tolerance (deg or m).

RRA-style option (``rra_m`` > 0, OpenSim's Residual Reduction Algorithm adjusts the mass centre the
same way): the trunk's CoM becomes an unknown ``r_0 + dr_0``, ``|dr_0| <= rra_m``, in the last
stage, penalised by ``(dr_0 / s_rra)^2`` so that it moves only where the residual asks for it; the
solution's ``params`` carry the adjusted trunk and ``dr_0`` is reported.

Free: trunk, stance hip and knee, CoM, footprints, stride and speed (``D / T``); or the
speed given (``speed`` [m/s]: ``D = speed T``). Read of the recording: the GRF, the CoP and the
swing hip and knee (:mod:`models.posture.inputs`). Nothing else.

Continuation (one NLP, re-solved with new weights and bounds, each stage warm-started from the
last; a single solve from the naive guess does not converge reliably; a stage before the last
only has to bring the guess near and stops after ``stage_iter`` iterations):

1. ``kinematic``: dynamics off, footprints at each stance's mean CoP;
2. ``anchored``: dynamics on, footprints still at the mean CoP;
3. ``free``: footprints and stride free (one footprint fixed: the gauge of x).

The first guess (:mod:`models.posture.guess`) reads no trunk, CoM or stance angle.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import numpy as np

from models.params import BipedParams
from models.posture.dynamics import SymbolicBiped
from models.posture.guess import footprint_guess, initial_guess, periodic_rates, resample, stride_guess
from models.posture.inputs import CycleInputs

__all__ = ["SolverOptions", "PostureSolution", "solve_posture", "STAGES"]

STAGES = ("kinematic", "anchored", "free")


@dataclass(frozen=True)
class SolverOptions:
    """Weights and settings of the posture NLP (module doc). Units in the field comments."""

    sigma_deg: float = 0.5          # swing tracking tolerance [deg] (joint/segment references)
    sigma_foot_m: float = 0.005     # swing tracking tolerance [m] (foot-path reference)
    s_force_bw: float = 0.005       # residual force scale [BW]
    s_moment: float = 0.0005        # residual moment scale [BW x leg length]
    s_tau: float = 0.5              # joint torque regulariser scale [BW x leg length]
    s_acc: float = 200.0            # acceleration regulariser scale [m/s^2, rad/s^2]
    s_cop_m: float = 0.05           # scale of the foot point's offset from its stance's mean CoP [m]
    footprints: str = "free"        # "free" (the answer) or "cop" (held at each stance's mean CoP)
    speed: float | None = None      # m/s: stride fixed to speed x period; None = free
    max_iter: int = 3000            # IPOPT iterations of the last stage
    stage_iter: int = 150           # IPOPT iterations of each continuation stage before the last
    tol: float = 1e-8
    mumps_pivtol: float = 1e-2      # MUMPS pivot tolerance (IPOPT's 1e-6 ends 200 nodes in Restoration_Failed)
    stages: tuple[str, ...] = STAGES
    print_level: int = 0
    guess_lean_deg: float = 0.0     # trunk angle of the first guess [deg] (robustness checks)
    rra_m: float = 0.0              # RRA-style: the trunk CoM may move up to this far along the trunk [m]
    s_rra_m: float = 0.01           # scale of the RRA-style trunk CoM shift's penalty [m]


@dataclass
class PostureSolution:
    """A solved cycle: arrays on the ``n`` nodes (SI units) and the solver's account."""

    inputs: CycleInputs
    options: SolverOptions
    params: BipedParams
    t: np.ndarray            # (n,) s
    q: np.ndarray            # (n, 7)
    qd: np.ndarray           # (n, 7)
    qdd: np.ndarray          # (n, 7)
    tau: np.ndarray          # (n, 4) N m [hip_l, hip_r, knee_l, knee_r]
    residual: np.ndarray     # (n, 3) [R_x N, R_y N, R_m N m (ccw +, on the trunk)]
    stride: float            # m
    footprints: np.ndarray   # (runs,) m
    cop_offsets: np.ndarray  # (runs,) m: each foot point behind its stance's mean CoP (mz = (d - e) F_y)
    trunk_com_shift: float   # m: the RRA-style trunk CoM adjustment (0 unless SolverOptions.rra_m > 0)
    mz: np.ndarray           # (n, 2) N m: the ground moment on each shank, (d - e_s) F_y (ccw +)
    status: str              # "converged" | "failed" | "interrupted" (progress asked to stop)
    message: str
    iterations: int
    objective: float
    constraint_violation: float
    solve_time_s: float
    stage_log: list[dict[str, Any]] = field(default_factory=list)
    raw: np.ndarray | None = None  # the NLP's decision vector (warm starts)
    lam_g: np.ndarray | None = None

    @property
    def converged(self) -> bool:
        return self.status == "converged"


class _Problem:
    """The NLP of one :class:`CycleInputs` (built once, re-solved per stage)."""

    def __init__(self, inputs: CycleInputs, params: BipedParams, options: SolverOptions) -> None:
        self.inputs, self.params, self.options = inputs, params, options
        n, h = inputs.n, inputs.period / inputs.n
        self.n, self.h = n, h
        sym = SymbolicBiped.build(params)
        self.n_runs = len(inputs.runs)
        nx = 21 * n + 2 + 2 * self.n_runs
        x = ca.MX.sym("x", nx)
        Q = ca.reshape(x[0:7 * n], 7, n)
        V = ca.reshape(x[7 * n:14 * n], 7, n)
        A = ca.reshape(x[14 * n:21 * n], 7, n)
        D = x[21 * n]
        P = x[21 * n + 1:21 * n + 1 + self.n_runs]
        E = x[21 * n + 1 + self.n_runs:21 * n + 1 + 2 * self.n_runs]
        dr0 = x[nx - 1]  # RRA-style trunk CoM adjustment [m] (fixed at 0 unless rra_m > 0)
        w_dyn = ca.MX.sym("w_dyn")
        grf = ca.DM(inputs.grf.T)
        fy = inputs.grf[:, [1, 3]]
        mz: Any = ca.DM((inputs.cop_d * fy).T)
        for i, run in enumerate(inputs.runs):  # the foot point e_s behind the stance's mean CoP
            load = np.zeros((2, n))
            load[run.foot, run.nodes] = fy[run.nodes, run.foot]
            mz = mz - E[i] * ca.DM(load)
        gen = sym.inverse_dynamics.map(n)(Q, V, A, grf, mz, ca.repmat(dr0, 1, n))
        hip, _, _, foot_l, foot_r, _ = sym.points.map(n)(Q, ca.repmat(dr0, 1, n))
        shift = ca.vertcat(D, ca.MX.zeros(6))
        Qn = ca.horzcat(Q[:, 1:], Q[:, 0] + shift)
        Vn = ca.horzcat(V[:, 1:], V[:, 0])
        An = ca.horzcat(A[:, 1:], A[:, 0])
        g = [ca.vec(Qn - Q - h / 2 * (V + Vn)), ca.vec(Vn - V - h / 2 * (A + An))]
        lbg, ubg = [np.zeros(14 * n)], [np.zeros(14 * n)]
        feet = (foot_l, foot_r)
        for i, run in enumerate(inputs.runs):
            idx = list(map(int, run.nodes))
            target_x = P[i] - D * ca.DM(run.wrapped.astype(float)).T
            g.append(ca.vec(feet[run.foot][0, idx] - target_x))
            g.append(ca.vec(feet[run.foot][1, idx]))
            lbg += [np.zeros(2 * len(idx))]
            ubg += [np.zeros(2 * len(idx))]
        for foot in (0, 1):
            swing = [int(k) for k in np.flatnonzero(~inputs.stance[:, foot])]
            if swing:
                g.append(ca.vec(feet[foot][1, swing]))
                lbg.append(np.zeros(len(swing)))
                ubg.append(np.full(len(swing), np.inf))
        bw = params.total_mass * params.g
        L = params.leg_length
        o = options
        res_f = ca.sumsqr(gen[0:2, :] / (o.s_force_bw * bw)) / n
        res_m = ca.sumsqr(gen[2, :] / (o.s_moment * bw * L)) / n
        track: Any = 0
        sig = np.deg2rad(o.sigma_deg) if inputs.swing_reference != "foot" else o.sigma_foot_m
        for foot in (0, 1):
            b, gm = Q[3 + foot, :], Q[5 + foot, :]
            if inputs.swing_reference == "joint":
                y = (b, gm)
            elif inputs.swing_reference == "segment":
                y = (Q[2, :] - b, Q[2, :] - b + gm)
            else:
                y = (feet[foot][0, :] - hip[0, :], feet[foot][1, :] - hip[1, :])
            w = ca.DM(inputs.swing_weight[:, foot]).T
            for j in (0, 1):
                track += ca.sumsqr(w * (y[j] - ca.DM(inputs.swing_ref[:, foot, j]).T) / sig)
        track = track / n
        reg = (ca.sumsqr(gen[3:7, :] / (o.s_tau * bw * L)) / n + ca.sumsqr(A / o.s_acc) / n
               + ca.sumsqr(E / o.s_cop_m) / max(self.n_runs, 1) + (dr0 / o.s_rra_m) ** 2)
        f = w_dyn * (res_f + res_m) + track + reg
        self.nlp = {"x": x, "p": w_dyn, "f": f, "g": ca.vertcat(*g)}
        self.lbg, self.ubg = np.concatenate(lbg), np.concatenate(ubg)
        self.terms = ca.Function("terms", [x], [gen, res_f, res_m, track, reg])
        self.nx = nx
        self.solver: Any = None
        self.stage_solver: Any = None

    def make_solver(self, callback: Callable[[int, float, float], bool] | None) -> None:
        opts: dict[str, Any] = {
            "ipopt.max_iter": self.options.max_iter, "ipopt.tol": self.options.tol,
            "ipopt.mumps_pivtol": self.options.mumps_pivtol,
            "ipopt.mumps_pivtolmax": max(0.5, self.options.mumps_pivtol),
            "ipopt.print_level": self.options.print_level, "print_time": False,
            "ipopt.mu_strategy": "adaptive", "ipopt.linear_solver": "mumps", "ipopt.sb": "yes",
        }
        if callback is not None:
            self._callback = _Progress(self.nx, self.lbg, self.ubg, callback)
            opts["iteration_callback"] = self._callback
        self.solver = ca.nlpsol("posture", "ipopt", self.nlp, opts)
        # a continuation stage only has to bring the guess near: it stops after stage_iter iterations
        self.stage_solver = ca.nlpsol("posture_stage", "ipopt", self.nlp,
                                      {**opts, "ipopt.max_iter": self.options.stage_iter})

    def bounds(self, stage: str, footprints: np.ndarray, stride: float) -> tuple[np.ndarray, np.ndarray]:
        n = self.n
        lbx, ubx = np.full(self.nx, -np.inf), np.full(self.nx, np.inf)
        # joint limits wide enough for any walk: knees from 10 deg hyperextension to 160 deg flexion
        for k in (5, 6):
            lbx[k:7 * n:7], ubx[k:7 * n:7] = np.deg2rad(-10.0), np.deg2rad(160.0)
        lbx[2:7 * n:7], ubx[2:7 * n:7] = np.deg2rad(-60.0), np.deg2rad(60.0)
        lbx[1:7 * n:7] = 0.0
        iD, iP, iE = 21 * n, 21 * n + 1, 21 * n + 1 + self.n_runs
        anchored = stage in ("kinematic", "anchored") or self.options.footprints == "cop"
        if anchored:
            lbx[iP:iE], ubx[iP:iE] = footprints, footprints
            lbx[iE:self.nx - 1], ubx[iE:self.nx - 1] = 0.0, 0.0
            lbx[iD], ubx[iD] = stride, stride
        else:
            gauge = next(i for i, r in enumerate(self.inputs.runs) if r.foot == 1)
            lbx[iP + gauge] = ubx[iP + gauge] = footprints[gauge]
            lbx[iD] = 0.05
        lbx[-1] = ubx[-1] = 0.0
        if stage == "free" and self.options.rra_m > 0:
            lbx[-1], ubx[-1] = -self.options.rra_m, self.options.rra_m
        if self.options.speed is not None and stage == "free":
            lbx[iD] = ubx[iD] = self.options.speed * self.inputs.period
        return lbx, ubx


class _Progress(ca.Callback):
    """IPOPT iteration callback: calls ``report(iteration, objective, constraint violation)``; when
    that returns True, IPOPT stops (``User_Requested_Stop``)."""

    def __init__(self, nx: int, lbg: np.ndarray, ubg: np.ndarray, report: Callable[[int, float, float], bool]) -> None:
        ca.Callback.__init__(self)
        self.nx, self.ng, self.report, self.count = nx, len(lbg), report, 0
        self.lbg, self.ubg = lbg, ubg
        self.construct("progress", {})

    def get_n_in(self) -> int:
        return ca.nlpsol_n_out()

    def get_n_out(self) -> int:
        return 1

    def get_name_in(self, i: int) -> str:
        return ca.nlpsol_out(i)

    def get_name_out(self, i: int) -> str:
        return "ret"

    def get_sparsity_in(self, i: int) -> Any:
        name = ca.nlpsol_out(i)
        if name == "f":
            return ca.Sparsity.scalar()
        if name in ("x", "lam_x"):
            return ca.Sparsity.dense(self.nx)
        if name in ("g", "lam_g"):
            return ca.Sparsity.dense(self.ng)
        return ca.Sparsity(0, 0)

    def eval(self, arg: Any) -> list[Any]:
        self.count += 1
        g = np.asarray(arg[ca.nlpsol_out().index("g")]).ravel()
        viol = float(np.max(np.maximum(self.lbg - g, 0.0) + np.maximum(g - self.ubg, 0.0), initial=0.0))
        return [1 if self.report(self.count, float(arg[ca.nlpsol_out().index("f")]), viol) else 0]


def _same_runs(a: CycleInputs, b: CycleInputs) -> bool:
    """Whether two node sets of one cycle have the same stances in the same order (a solution on
    one can start the other)."""
    return [(r.foot, bool(r.wrapped.any())) for r in a.runs] == [(r.foot, bool(r.wrapped.any())) for r in b.runs]


def solve_posture(inputs: CycleInputs, params: BipedParams, options: SolverOptions | None = None,
                  warm: PostureSolution | None = None,
                  progress: Callable[[str, int, float, float], bool | None] | None = None) -> PostureSolution:
    """Solve ``inputs`` (module doc). ``warm``: a neighbouring solution to start from (its last stage
    only is solved): on the same nodes with its multipliers, or on other nodes of the same cycle,
    interpolated (mesh refinement). ``progress(stage, iteration, objective, violation)`` is called per
    IPOPT iteration; when it returns True the solve stops there with status ``interrupted``."""
    options = options or SolverOptions()
    start = time.perf_counter()
    prob = _Problem(inputs, params, options)
    stage_name = ["kinematic"]

    def report(it: int, f: float, viol: float) -> bool:
        return bool(progress is not None and progress(stage_name[0], it, f, viol))

    prob.make_solver(report if progress is not None else None)
    n, h = inputs.n, inputs.period / inputs.n
    stride = stride_guess(inputs, params)
    if options.speed is not None and not any(r.anchor is not None for r in inputs.runs):
        stride = options.speed * inputs.period
    prints = footprint_guess(inputs, stride)
    if warm is not None and warm.raw is not None and warm.raw.shape[0] == prob.nx \
            and np.array_equal(warm.inputs.stance, inputs.stance) and warm.lam_g is not None \
            and warm.lam_g.shape[0] == len(prob.lbg):
        x0 = warm.raw.copy()
        stages: tuple[str, ...] = (options.stages[-1],)
    elif warm is not None and warm.converged and _same_runs(warm.inputs, inputs):  # mesh refinement
        q, qd, qdd = resample(warm.q, warm.qd, warm.qdd, warm.stride, n)
        x0 = np.concatenate([q.ravel(), qd.ravel(), qdd.ravel(), [warm.stride], warm.footprints,
                             warm.cop_offsets, [warm.trunk_com_shift]])
        stages = (options.stages[-1],)
        warm = None  # its multipliers belong to other nodes
    else:
        q = initial_guess(inputs, params, stride, prints, options.guess_lean_deg)
        shift = np.zeros(7)
        shift[0] = stride
        qd, qdd = periodic_rates(q, h, shift)
        x0 = np.concatenate([q.ravel(), qd.ravel(), qdd.ravel(), [stride], prints, np.zeros(len(prints)), [0.0]])
        stages = options.stages
    log: list[dict[str, Any]] = []
    lam_g = warm.lam_g if len(stages) == 1 and warm is not None else None
    sol: dict[str, Any] = {}
    stats: dict[str, Any] = {}
    for stage in stages:
        stage_name[0] = stage
        lbx, ubx = prob.bounds(stage, prints, stride)
        x0 = np.clip(x0, lbx, ubx)
        args: dict[str, Any] = {"x0": x0, "lbx": lbx, "ubx": ubx, "lbg": prob.lbg, "ubg": prob.ubg,
                                "p": 0.0 if stage == "kinematic" else 1.0}
        if lam_g is not None:
            args["lam_g0"] = lam_g
        t_stage = time.perf_counter()
        last = stage == stages[-1]
        sol = (prob.solver if last else prob.stage_solver)(**args)
        stats = (prob.solver if last else prob.stage_solver).stats()
        x0 = np.asarray(sol["x"]).ravel()
        lam_g = np.asarray(sol["lam_g"]).ravel()
        log.append({"stage": stage, "status": stats["return_status"], "iterations": int(stats["iter_count"]),
                    "objective": float(sol["f"]), "time_s": time.perf_counter() - t_stage})
        if stats["return_status"] == "User_Requested_Stop":
            break
    x = x0
    gen, *_ = prob.terms(x)
    gen = np.asarray(gen)
    q = x[0:7 * n].reshape(n, 7)
    qd = x[7 * n:14 * n].reshape(n, 7)
    qdd = x[14 * n:21 * n].reshape(n, 7)
    g_val = np.asarray(ca.Function("g", [prob.nlp["x"]], [prob.nlp["g"]])(x)).ravel()
    viol = float(np.max(np.maximum(prob.lbg - g_val, 0.0) + np.maximum(g_val - prob.ubg, 0.0)))
    ok = bool(stats.get("success", False)) and viol < 1e-6
    stopped = stats.get("return_status") == "User_Requested_Stop"
    offsets = x[21 * n + 1 + prob.n_runs:21 * n + 1 + 2 * prob.n_runs]
    fy = inputs.grf[:, [1, 3]]
    mz = inputs.cop_d * fy
    for i, run in enumerate(inputs.runs):
        mz[run.nodes, run.foot] -= offsets[i] * fy[run.nodes, run.foot]
    if x[-1] != 0.0:
        from dataclasses import replace

        params = replace(params, trunk=replace(params.trunk, com=params.trunk.com + float(x[-1])))
    return PostureSolution(
        inputs=inputs, options=options, params=params, t=inputs.t, q=q, qd=qd, qdd=qdd, tau=gen[3:7].T.copy(),
        residual=np.column_stack([gen[0], gen[1], -gen[2]]), stride=float(x[21 * n]),
        footprints=x[21 * n + 1:21 * n + 1 + prob.n_runs].copy(),
        cop_offsets=offsets.copy(), mz=mz,
        trunk_com_shift=float(x[-1]), status="interrupted" if stopped else "converged" if ok else "failed",
        message=str(stats.get("return_status", "")), iterations=sum(s["iterations"] for s in log),
        objective=float(sol["f"]), constraint_violation=viol, solve_time_s=time.perf_counter() - start,
        stage_log=log, raw=x.copy(), lam_g=lam_g)
