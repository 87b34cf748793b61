r"""``SolvedGait``: the posture solver's periodic gait, read by gait phase, as feedforward plus a light PD.

The posture solver (``gaitblocks solve``, :mod:`models.posture.solver`) finds one periodic gait
cycle on ``n`` nodes ``t_k = t_0 + k T / n``: the joint angles and rates, the joint torques
``tau_ff`` [N m] and the ground moments ``m_z`` [N m] (the recorded force acting at the recorded
centre of pressure) under which the recorded GRF moves the five-link model through it with no
residual. This block replays that cycle in a stepped diagram. The recording's time of the run
(``t_d = t - t_start + t_data[0] + t_offset``, as the data sources read it) gives the gait
phase and the cycle count::

    s = (t_d - t_0) / T,   c = floor(s),   k + w = (s - c) n   (k whole, 0 <= w < 1)

and every tabled quantity is interpolated linearly between nodes ``k`` and ``k + 1`` (node
``n`` is node 0 of the next cycle, its ``x_0`` one stride ``D`` on; ``x_0`` also moves ``c D``).
The outputs::

    tau_ff = gain tau_sol(s),      m_z = gain m_z,sol(s)
    tau_pd = K_p (q_sol - q)_j + K_d (qd_sol - qd)_j     j = [beta_l, beta_r, gamma_l, gamma_r]
    tau    = tau_ff + tau_pd

with ``K_p, K_d`` = ``kp_hip, kd_hip`` on the hips and ``kp_knee, kd_knee`` on the knees
(tunable: the gain sliders and ``tune`` set how tightly the diagram holds the solved gait).
The PD acts around the *solution's own* joint angles; nothing here reads the recording's
trunk, stance knee, CoM or footprints. ``q_sol``, ``qd_sol`` and ``trunk`` (the solution's
trunk angle ``alpha``) are outputs for scopes and metrics.

Where the cycle comes from (``source``): ``off`` (every output zero, nothing loaded: the
presets that do not use it), ``run`` (the run's solution, given at compile time as the
resource :data:`SOLVED_GAIT`, a :class:`SolvedCycle`: :mod:`app.solved` solves or loads it) or
``file`` (``file``: a solve output folder or its ``results.npz``, cycle ``cycle``).
``load_solved_cycle`` reads the file; the solution's ground moments are not stored there, so
they are recovered from its own inverse dynamics: with ``m_z = 0`` the knee rows give
``tau_0``, and a ground moment on shank ``s`` adds ``m_z,s`` to that knee's row
(``th2 = alpha - beta + gamma``), so ``m_z,s = tau_knee,s - tau_0,knee,s`` (the hip rows check it,
``tau_hip,s = tau_0,hip,s - m_z,s``, to 1e-13 on the bundled sets).

Sampled like the controllers (``ts``, default every tick: the output is computed at the tick and
held through the RK4 stages). The law: the kernel :func:`solved_law` (both engines run it) on the
packed vector the class declares (the tunables, then the table: ``n`` rows of :data:`ROW_FIELDS`,
``q (7), qd (7), tau (4), m_z (2)``).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from blocks.core import Block, CompileContext, DiagramError, Kernels, Params, PortSpec
from blocks.core import ParamSpec as P
from blocks.kernels import kernel, pure, seg
from blocks.library.context import Q_IN, QD_IN, STANCE_IN, biped_of, data_of, dataset_of
from models.biped import Q_NAMES, TAU_NAMES, FiveLinkBiped
from models.params import BipedParams

__all__ = ["SolvedGait", "SolvedCycle", "SOLVED_GAIT", "ROW", "load_solved_cycle", "run_solution", "solved_law"]

SOLVED_GAIT = "solved_gait"  # the key of the run's SolvedCycle in CompileContext.resources
#: one node of the table: its fields and their sizes, in order
ROW_FIELDS = (("q", 7), ("qd", 7), ("tau", 4), ("mz", 2))
ROW = sum(size for _, size in ROW_FIELDS)
_RQ, _RQD, _RTAU, _RMZ = (sum(size for _, size in ROW_FIELDS[:i]) for i in range(len(ROW_FIELDS)))


@dataclass(frozen=True)
class SolvedCycle:
    """One solved gait cycle on ``n`` nodes (SI units; the solve output's ``cycle{k}_*`` arrays).

    ``t0`` [s] on the GRF recording's clock, ``period`` [s], ``stride`` [m], ``q``/``qd`` (n, 7),
    ``tau`` (n, 4) N m ``[hip_l, hip_r, knee_l, knee_r]``, ``mz`` (n, 2) N m, ``source`` the file
    read and ``sha256`` its hash (empty for a cycle built in memory)."""

    t0: float
    period: float
    stride: float
    q: np.ndarray
    qd: np.ndarray
    tau: np.ndarray
    mz: np.ndarray
    source: str = ""
    sha256: str = ""

    @property
    def n(self) -> int:
        return int(self.q.shape[0])

    def table(self) -> np.ndarray:
        """(n * ROW,) the packed rows."""
        return np.ascontiguousarray(np.column_stack([self.q, self.qd, self.tau, self.mz]).ravel(), dtype=np.float64)

    def state_at(self, t_data: float) -> tuple[np.ndarray, np.ndarray]:
        """``(q, qd)`` of the cycle at the recording's time ``t_data`` [s] (:func:`solved_law`)."""
        values: dict[str, Any] = {key.removesuffix("[]"): 0.0 for key in SolvedGait.packed}  # gains 0: the solution
        values.update(_n=float(self.n), _period=self.period, _shift=-self.t0, _stride=self.stride,
                      _table=self.table())
        p = SolvedGait("state_at").pack(Params(values))
        out = [np.zeros(k) for k in (4, 4, 4, 2, 7, 7, 1)]
        pure(solved_law)(t_data, np.zeros(0), np.zeros(0), np.zeros(7), np.zeros(7), np.zeros(2), p, *out)
        return out[4], out[5]


def _stride(q: np.ndarray, qd: np.ndarray, h: float) -> float:
    """The solution's stride [m]: its last collocation interval, ``x_n - x_{n-1} = h/2 (v_{n-1} + v_n)``
    with ``x_n = x_0 + D`` and ``v_n = v_0`` (:mod:`models.posture.solver`)."""
    return float(q[-1, 0] - q[0, 0] + 0.5 * h * (qd[-1, 0] + qd[0, 0]))


def load_solved_cycle(path: str | Path, params: BipedParams, cycle: int = 0) -> SolvedCycle:
    """Cycle ``cycle`` of a solve output (a folder holding ``results.npz``, or the file), on the model
    ``params`` (point feet: the ground moments are recovered with its inverse dynamics, module doc)."""
    from models.errors import UserError

    file = Path(path)
    if file.is_dir():
        file = file / "results.npz"
    if not file.is_file():
        raise UserError(f"{file}: no posture solution there (write one with: gaitblocks solve --out DIR)")
    raw = file.read_bytes()
    with np.load(file) as z:
        key = f"cycle{cycle}_"
        missing = [k for k in ("t", "q", "qd", "qdd", "tau", "grf") if key + k not in z.files]
        if missing:
            raise UserError(f"{file}: cycle {cycle} lacks {', '.join(key + k for k in missing)}")
        t, q, qd, qdd, tau, grf = (np.asarray(z[key + k], dtype=np.float64) for k in ("t", "q", "qd", "qdd", "tau",
                                                                                        "grf"))
        mz = np.asarray(z[key + "mz"], dtype=np.float64) if key + "mz" in z.files else None
    if t.size < 3 or not np.all(np.isfinite(q)) or not np.all(np.isfinite(tau)):
        raise UserError(f"{file}: cycle {cycle} is not a finite solution on 3 or more nodes")
    h = float(t[1] - t[0])
    if mz is None:
        tau0, _ = FiveLinkBiped(replace(params, foot_radius=0.0)).inverse_dynamics(q, qd, qdd, grf)
        mz = tau[:, 2:4] - tau0[:, 2:4]
    return SolvedCycle(float(t[0]), h * t.size, _stride(q, qd, h), q, qd, tau, mz, str(file),
                       hashlib.sha256(raw).hexdigest())


@kernel
def solved_law(t, x, z, q, qd, stance, p, tau, tau_ff, tau_pd, mz, q_sol, qd_sol, trunk):
    """The module docstring's outputs at time ``t`` for state ``q``, ``qd`` and the packed vector ``p`` of a
    :class:`SolvedGait` (the table: ``n`` rows of :data:`ROW_FIELDS`); the block's output kernel (it has no
    state: ``x``, ``z`` are not read)."""
    n = int(p[_N])
    if n == 0:
        for j in range(4):
            tau[j], tau_ff[j], tau_pd[j] = 0.0, 0.0, 0.0
        mz[0], mz[1] = 0.0, 0.0
        for i in range(7):
            q_sol[i], qd_sol[i] = 0.0, 0.0
        trunk[0] = 0.0
        return
    tab = seg(p, _TABLE)
    s = (t + p[_SHIFT]) / p[_PERIOD]
    c = math.floor(s)
    f = (s - c) * n
    k = min(int(f), n - 1)
    w = f - k
    k1 = k + 1
    wrap = 0.0
    if k1 == n:
        k1 = 0
        wrap = p[_STRIDE]
    a, b = ROW * k, ROW * k1
    for i in range(7):
        q_sol[i] = tab[a + _RQ + i] + w * (tab[b + _RQ + i] - tab[a + _RQ + i])
        qd_sol[i] = tab[a + _RQD + i] + w * (tab[b + _RQD + i] - tab[a + _RQD + i])
    q_sol[0] = q_sol[0] + w * wrap + c * p[_STRIDE]
    gain = p[_GAIN]
    for j in range(4):
        tau_ff[j] = gain * (tab[a + _RTAU + j] + w * (tab[b + _RTAU + j] - tab[a + _RTAU + j]))
        kp = p[_KP_HIP] if j < 2 else p[_KP_KNEE]
        kd = p[_KD_HIP] if j < 2 else p[_KD_KNEE]
        tau_pd[j] = kp * (q_sol[3 + j] - q[3 + j]) + kd * (qd_sol[3 + j] - qd[3 + j])
    sl, sr = stance[0] > 0.5, stance[1] > 0.5
    legs = int(sl) + int(sr)
    if legs:
        share = (p[_KP_TRUNK] * (q_sol[2] - q[2]) + p[_KD_TRUNK] * (qd_sol[2] - qd[2])) / legs
        if sl:
            tau_pd[0] = tau_pd[0] + share
        if sr:
            tau_pd[1] = tau_pd[1] + share
    for j in range(4):
        tau[j] = tau_ff[j] + tau_pd[j]
    for j in range(2):
        mz[j] = gain * (tab[a + _RMZ + j] + w * (tab[b + _RMZ + j] - tab[a + _RMZ + j]))
    trunk[0] = q_sol[2]


def run_solution(ctx: CompileContext) -> SolvedCycle:
    """The run's solved cycle, ``ctx.resources[SOLVED_GAIT]`` (given by :mod:`app.solved`)."""
    cycle = ctx.resources.get(SOLVED_GAIT)
    if cycle is None:
        raise DiagramError("the solved gait (SolvedGait source = run, FiveLinkDynamics init = solution): this run "
                           "gives no posture solution; run it through app.runs, whose RunSpec.solution names or "
                           "solves one, or read a file (SolvedGait source = file)")
    if not isinstance(cycle, SolvedCycle):
        raise TypeError(f"CompileContext.resources[{SOLVED_GAIT!r}] must be SolvedCycle, got {type(cycle).__name__}")
    return cycle


def solved_cycle_of(ctx: CompileContext, p: Params) -> SolvedCycle:
    """The cycle a ``SolvedGait`` block with parameters ``p`` reads (module doc), loaded once per compile."""
    if p.source == "run":
        return run_solution(ctx)
    key = f"solved:{p.file}:{p.cycle}"
    if key not in ctx.cache:
        if not p.file:
            raise DiagramError("SolvedGait source = file: give the file (a solve output folder or its results.npz)")
        ctx.cache[key] = load_solved_cycle(p.file, biped_of(ctx), int(p.cycle))
    loaded: SolvedCycle = ctx.cache[key]
    return loaded


class SolvedGait(Block):
    """The solved periodic gait by phase: feedforward torques and ground moments, and a PD around it.

    Inputs
    ------
    q : (7,) m, rad
    qd : (7,) m/s, rad/s
        The biped's state (for the PD).

    Outputs
    -------
    tau : (4,) N m
        ``tau_ff + tau_pd`` on ``[hip_l, hip_r, knee_l, knee_r]``.
    tau_ff, tau_pd : (4,) N m
        The solution's torques (times ``gain``) and the PD's.
    mz : (2,) N m
        The solution's ground moments on the shanks (times ``gain``; ccw +).
    q_sol, qd_sol : (7,) m, rad and m/s, rad/s
        The solution's state at this phase.
    trunk : (1,) rad
        The solution's trunk angle.
    """

    params = {"source": P("off", tunable=False, choices=("off", "run", "file"),
                          description="off; the run's solution (compile resource); or the file below"),
              "file": P("", tunable=False, description="solve output folder or results.npz (source = file)"),
              "cycle": P(0, min=0, max=1000, tunable=False, description="which solved cycle of the file"),
              "gain": P(1.0, min=0.0, max=2.0, description="multiplier on the solution's torques and ground moments"),
              "kp_hip": P(0.0, min=0.0, max=1e5, unit="N*m/rad", description="PD stiffness around the solution, hips"),
              "kd_hip": P(0.0, min=0.0, max=1e4, unit="N*m*s/rad", description="PD damping around the solution, hips"),
              "kp_knee": P(0.0, min=0.0, max=1e5, unit="N*m/rad",
                           description="PD stiffness around the solution, knees"),
              "kd_knee": P(0.0, min=0.0, max=1e4, unit="N*m*s/rad",
                           description="PD damping around the solution, knees"),
              "kp_trunk": P(0.0, min=0.0, max=1e5, unit="N*m/rad",
                            description="PD stiffness of the trunk around the solution's, through the stance hips"),
              "kd_trunk": P(0.0, min=0.0, max=1e4, unit="N*m*s/rad",
                            description="PD damping of the trunk around the solution's, through the stance hips")}
    inputs = (Q_IN, QD_IN, STANCE_IN)
    outputs = (PortSpec("tau", 4, "N*m", "feedforward + PD", TAU_NAMES),
               PortSpec("tau_ff", 4, "N*m", "the solution's joint torques", TAU_NAMES),
               PortSpec("tau_pd", 4, "N*m", "PD around the solution", TAU_NAMES),
               PortSpec("mz", 2, "N*m", "the solution's ground moments (ccw +)", ("l", "r")),
               PortSpec("q_sol", 7, "m, rad", "the solution's coordinates", Q_NAMES),
               PortSpec("qd_sol", 7, "m/s, rad/s", "the solution's rates", Q_NAMES),
               PortSpec("trunk", 1, "rad", "the solution's trunk angle", ("alpha",)))
    feedthrough = frozenset({(i, o) for i in ("q", "qd", "stance") for o in ("tau", "tau_pd")})
    discrete = True

    packed = ("_n", "_period", "_shift", "_stride", "gain", "kp_hip", "kd_hip", "kp_knee", "kd_knee", "kp_trunk",
              "kd_trunk", "_table[]")
    law = Kernels(output=solved_law)

    def derive(self, p: Params, ctx: CompileContext) -> None:
        cycle = solved_cycle_of(ctx, p) if p.source != "off" else None
        head, table = (0.0, 1.0, 0.0, 0.0), np.zeros(0)
        if cycle is not None:
            ds = dataset_of(ctx)
            head = (float(cycle.n), cycle.period, -ctx.t0 + float(ds.t[0]) + data_of(ctx).t_offset_s - cycle.t0,
                    cycle.stride)
            table = cycle.table()
        p.set("_cycle", cycle)
        for key, v in zip(("_n", "_period", "_shift", "_stride"), head):
            p.set(key, v)
        p.set("_table", table)


#: where the kernels above read each packed entry (numba takes them as constants when it compiles)
(_N, _PERIOD, _SHIFT, _STRIDE, _GAIN, _KP_HIP, _KD_HIP, _KP_KNEE, _KD_KNEE, _KP_TRUNK, _KD_TRUNK,
 _TABLE) = SolvedGait.packed_at(*SolvedGait.packed)
