r"""Ziegler-Nichols tuning: the ultimate gain by a gain sweep, then the classic table.

**Gain sweep.** Close the loop with a proportional controller ``u = K (r - y)`` and measure the
growth of the oscillation: with ``a_k`` the peak-to-trough amplitude of successive swings,
``rho(K) = mean log(a_{k+1} / a_k)`` over the settled half of the response. ``rho < 0`` decays,
``rho > 0`` grows; the ultimate gain ``Ku`` is the root ``rho(Ku) = 0``, found by bracketing
(doubling) and bisection to ``rtol``. The ultimate period ``Tu`` is the mean peak spacing at ``Ku``.

**Loop simulation.** A linear plant ``x' = A x + B u``, ``y = C x`` discretised exactly (zero-order
hold, ``scipy.linalg.expm``) at ``dt``, with a transport delay of ``L / dt`` samples on the control
(:func:`simulate_p_loop`). An analytic check: the second-order-plus-delay plant
``G(s) = k e^{-Ls} / ((T1 s + 1)(T2 s + 1))`` has its phase crossover at ``omega_u`` solving
``omega L + atan(omega T1) + atan(omega T2) = pi``, ``Ku = 1 / |G(j omega_u)|``, ``Tu = 2 pi / omega_u``
(:func:`sopdt_ultimate`).

**The biped's swing-phase loop**: one joint of the swing leg, the rest of the body held, with three
documented assumptions a real joint has and the rigid model lacks (otherwise a proportional loop on
an undamped inertia has no finite ultimate gain): passive damping ``b`` [N m s/rad], an actuator lag
``tau_a`` [s] (muscle activation, 10-40 ms) and a feedback delay ``L`` [s]::

    G_j(s) = e^{-Ls} / ((tau_a s + 1)(I s^2 + c s + k))

Its inertia ``I``, stiffness ``k`` and damping ``c`` come from a linearisation of the diagram's
dynamics block at a swing state (:func:`linearised_joint_plant`, what ``gaitblocks tune --method zn``
uses), or from :mod:`models.biped` at a pose at rest (:func:`swing_joint_plant`, the hand-made plant:
``I = M_jj(q)``, ``k = -dG_j/dq_j``, ``c = b``); the two agree at a static equilibrium.

**Classic table** (Ziegler & Nichols 1942): P: ``Kp = 0.5 Ku``; PI: ``Kp = 0.45 Ku, Ti = Tu/1.2``;
PID: ``Kp = 0.6 Ku, Ti = Tu/2, Td = Tu/8``; in the diagram's parallel form ``ki = Kp/Ti``, ``kd = Kp Td``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from models.biped import FiveLinkBiped
from models.params import BipedParams

if TYPE_CHECKING:
    from blocks.linearize import LinearModel

__all__ = ["UltimatePoint", "simulate_p_loop", "growth_rate", "ultimate_by_sweep", "sopdt_plant", "sopdt_ultimate",
           "zn_table", "swing_joint_plant", "linearised_joint_plant", "body_inputs", "JointPlant", "JOINT_INDEX",
           "BODY_INPUTS"]

JOINT_INDEX = {"hip": 3, "knee": 5}  # left leg's beta / gamma rows of q


@dataclass(frozen=True)
class UltimatePoint:
    """Ultimate gain ``ku`` (plant input units per output unit) and period ``tu`` [s]; ``evals`` simulations."""

    ku: float
    tu: float
    evals: int


def simulate_p_loop(a: np.ndarray, b: np.ndarray, c: np.ndarray, k: float, *, delay: float, dt: float,
                    t_end: float, y0_step: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Closed loop ``u(t) = K (r - y(t - L))`` for a unit set-point step; returns ``(t, y)``.

    The loop is evaluated as one discrete transfer function (``scipy.signal.lfilter``):
    ``Y/R = K z^-D G(z) / (1 + K z^-D G(z))`` with ``G(z)`` the ZOH plant and ``D = L / dt``.
    """
    from scipy.linalg import expm
    from scipy.signal import lfilter, ss2tf

    n = a.shape[0]
    aug = np.zeros((n + 1, n + 1))
    aug[:n, :n], aug[:n, n] = a, b.reshape(n)
    e = expm(aug * dt)
    num, den = ss2tf(e[:n, :n], e[:n, n:n + 1], c.reshape(1, n), np.zeros((1, 1)))
    num = np.asarray(num).reshape(-1)  # G(z) = num / den, the same coefficients in powers of z^-1
    lag = int(round(delay / dt))
    shifted = np.concatenate([np.zeros(lag), num])  # z^-L G
    den_cl = np.concatenate([den, np.zeros(lag)]) + k * shifted
    steps = int(round(t_end / dt))
    y = lfilter(k * shifted, den_cl, np.full(steps, y0_step))
    return np.arange(steps) * dt, y


def _swings(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    d = np.diff(y)
    idx = np.flatnonzero(np.sign(d[1:]) != np.sign(d[:-1])) + 1
    return idx, y[idx]


def growth_rate(t: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """``(rho, period)`` of the oscillation in ``y`` (module docstring); ``(-inf, nan)`` without one."""
    idx, ext = _swings(y)
    if idx.size < 6:
        return -math.inf, math.nan
    amp = np.abs(np.diff(ext))
    keep = slice(amp.size // 2, None)
    a = amp[keep]
    if a.size < 2 or np.any(a <= 0):
        return -math.inf, math.nan
    rho = float(np.mean(np.diff(np.log(a))))
    period = float(2.0 * np.mean(np.diff(t[idx[keep]])))
    return rho, period


def ultimate_by_sweep(response: Callable[[float], tuple[np.ndarray, np.ndarray]], k0: float, *,
                      rtol: float = 1e-3, max_evals: int = 80, lo: float = 0.0) -> UltimatePoint:
    """Root of the growth rate over ``K`` (module docstring), starting the bracket at ``k0 > lo``.

    ``lo`` is the lowest gain searched: for an open-loop unstable plant the gain below which the loop
    diverges without oscillating (which the growth rate cannot see)."""
    if not k0 > lo:
        raise ValueError(f"the bracket must start above lo = {lo:g}, got k0 = {k0:g}")
    evals = 0

    def rho(k: float) -> tuple[float, float]:
        nonlocal evals
        evals += 1
        return growth_rate(*response(k))

    lo, hi = float(lo), float(k0)
    r, _ = rho(hi)
    while r <= 0.0:
        lo, hi = hi, 2.0 * hi
        r, _ = rho(hi)
        if evals > max_evals // 2:
            raise ValueError(f"no ultimate gain below K = {hi:g}: the loop stays stable")
    while hi - lo > rtol * hi and evals < max_evals:
        mid = 0.5 * (lo + hi)
        r, _ = rho(mid)
        if r > 0.0:
            hi = mid
        else:
            lo = mid
    ku = 0.5 * (lo + hi)
    _, tu = rho(ku)
    return UltimatePoint(ku, tu, evals)


def sopdt_plant(gain: float, t1: float, t2: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """State space ``(A, B, C)`` of ``gain / ((t1 s + 1)(t2 s + 1))`` (two first-order lags in series)."""
    a = np.array([[-1.0 / t1, 0.0], [1.0 / t2, -1.0 / t2]])
    b = np.array([gain / t1, 0.0])
    c = np.array([0.0, 1.0])
    return a, b, c


def sopdt_ultimate(gain: float, t1: float, t2: float, delay: float) -> tuple[float, float]:
    """Analytic ``(Ku, Tu)`` of ``gain e^{-Ls} / ((t1 s + 1)(t2 s + 1))``."""
    from scipy.optimize import brentq

    def phase(w: float) -> float:
        return w * delay + math.atan(w * t1) + math.atan(w * t2) - math.pi

    w = brentq(phase, 1e-9, 1e6)
    ku = math.sqrt((1 + (w * t1) ** 2) * (1 + (w * t2) ** 2)) / gain
    return ku, 2 * math.pi / w


def zn_table(ku: float, tu: float, kind: str = "pid") -> dict[str, float]:
    """Classic Ziegler-Nichols gains ``{kp, ki, kd}`` (parallel form) from ``Ku``, ``Tu``."""
    if kind == "p":
        return {"kp": 0.5 * ku, "ki": 0.0, "kd": 0.0}
    if kind == "pi":
        kp = 0.45 * ku
        return {"kp": kp, "ki": kp / (tu / 1.2), "kd": 0.0}
    kp = 0.6 * ku
    return {"kp": kp, "ki": kp / (tu / 2.0), "kd": kp * tu / 8.0}


@dataclass(frozen=True)
class JointPlant:
    """The linearised swing-joint loop (module docstring): ``I`` kg m^2, ``k`` N m/rad, damping ``c``
    N m s/rad (the assumed passive damping, plus the swing's velocity terms in a linearised plant),
    actuator lag ``tau_a`` s, delay ``delay`` s."""

    inertia: float
    stiffness: float
    damping: float
    tau_a: float
    delay: float

    def state_space(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """States ``[theta, omega, torque]``; input the commanded torque; output ``theta``."""
        i, k, b, ta = self.inertia, self.stiffness, self.damping, self.tau_a
        a = np.array([[0.0, 1.0, 0.0], [-k / i, -b / i, 1.0 / i], [0.0, 0.0, -1.0 / ta]])
        return a, np.array([0.0, 0.0, 1.0 / ta]), np.array([1.0, 0.0, 0.0])

    def ultimate(self) -> UltimatePoint:
        """Ku and Tu by :func:`ultimate_by_sweep`, each response 40 periods of ``sqrt(k' / I)`` long (4 to
        400 s), with ``k' = k``, or for a negative ``k`` (a joint that falls: a swing knee whose inertial
        terms outweigh gravity) the loop's ``k + K``, the search then starting above ``K = -k``."""
        a, b, c = self.state_space()
        k = self.stiffness
        dt = min(1e-3, self.delay / 10 if self.delay > 0 else 1e-3)

        def response(gain: float) -> tuple[np.ndarray, np.ndarray]:
            stiff = k if k > 0 else k + gain
            wn = math.sqrt(max(stiff, 1e-6) / self.inertia)
            t_end = min(max(40.0 * 2 * math.pi / wn, 4.0), 400.0)
            return simulate_p_loop(a, b, c, gain, delay=self.delay, dt=dt, t_end=t_end)

        lo = max(0.0, -k)
        return ultimate_by_sweep(response, max(k, 1.0) if k > 0 else 2.0 * lo + 1.0, lo=lo)


def swing_joint_plant(params: BipedParams, q: np.ndarray, joint: str, *, damping: float, tau_a: float,
                      delay: float) -> JointPlant:
    """Linearise ``joint`` (``hip`` or ``knee`` of the left leg) at pose ``q`` (7,)."""
    biped = FiveLinkBiped(params)
    j = JOINT_INDEX[joint]
    inertia = float(biped.mass_matrix(q)[j, j])
    eps = 1e-6
    zero4, zero7 = np.zeros(4), np.zeros(7)
    dq = np.zeros(7)
    dq[j] = eps
    g_plus = biped.rhs(q + dq, zero7, zero4, zero4)[j]
    g_minus = biped.rhs(q - dq, zero7, zero4, zero4)[j]
    stiffness = float(-(g_plus - g_minus) / (2 * eps))
    return JointPlant(inertia, stiffness, damping, tau_a, delay)


#: the body's inputs :func:`linearised_joint_plant` reads (left leg in swing, right in stance):
#: ``tau [hip_l, hip_r, knee_l, knee_r]`` (columns 0-3), the right foot's force ``F_rx, F_ry`` (4, 5)
#: and the right shank's ground moment ``mz_r`` (6)
BODY_INPUTS = ("tau", "grf[2]", "grf[3]", "mz[1]")
#: per joint: the column driving it, and the six whose generalised forces hold the other coordinates
_HOLD = {"hip": (0, (1, 2, 3, 4, 5, 6)), "knee": (2, (0, 1, 3, 4, 5, 6))}


def body_inputs(body: str) -> list[str]:
    """:data:`BODY_INPUTS` of the dynamics block ``body``, for :func:`blocks.linearize.linearize`."""
    return [f"{body}.{p}" for p in BODY_INPUTS]


def linearised_joint_plant(lm: LinearModel, body: str, joint: str, *, damping: float, tau_a: float,
                           delay: float) -> JointPlant:
    r"""The swing joint's plant from a linearisation of the dynamics block ``body``, the rest held.

    ``lm`` is :func:`blocks.linearize.linearize` with inputs :func:`body_inputs` (opened). Its rows
    for the body's accelerations read ``qdd = A_q dq + A_v dqd + B u`` (7 rows). Holding every
    coordinate but ``j`` (``dq_o = dqd_o = qdd_o = 0``) with six inputs whose generalised forces
    have no component on row ``j`` (for the left hip: the other three torques, the right foot's
    force and the right shank's moment; for the left knee likewise with the left hip torque in
    place of its own) solves ``B_c w = -(A_q[o, j] dq_j + A_v[o, j] dqd_j + B[o, d] u)`` for the
    holding forces ``w``; row ``j`` then gives

    .. math:: \ddot q_j = a_q\,q_j + a_v\,\dot q_j + b\,u,\qquad I = 1/b,\ k = -a_q I,\ c = -a_v I

    which is ``M_jj qdd_j = -k q_j - c qd_j + u``: ``I = M_jj`` and ``k = -dG_j/dq_j`` at rest, as
    :func:`swing_joint_plant` computes them from :mod:`models.biped`; moving, ``k`` and ``c`` also
    hold the velocity terms (Coriolis and centripetal) of the swing. The assumed passive
    ``damping`` adds to ``c``.
    """
    j = JOINT_INDEX[joint]
    drive, hold = _HOLD[joint]
    rows = lm.state_index(body)
    if rows.size != 14:
        raise ValueError(f"block '{body}' has {rows.size} states in the linearisation; a five-link body has 14")
    q_cols, v_rows = rows[:7], rows[7:]
    aq = lm.a[np.ix_(v_rows, q_cols)]
    av = lm.a[np.ix_(v_rows, rows[7:])]
    bb = lm.b[v_rows]
    others = [i for i in range(7) if i != j]
    bc = bb[np.ix_(others, hold)]
    # w = -bc^-1 (aq[o, j] dq + av[o, j] dqd + bb[o, drive] u): one column per term
    terms = np.column_stack([aq[others, j], av[others, j], bb[others, drive]])
    w = -np.linalg.solve(bc, terms)
    a_q, a_v, b = (np.array([aq[j, j], av[j, j], bb[j, drive]]) + bb[j, list(hold)] @ w).tolist()
    inertia = 1.0 / b
    return JointPlant(inertia, -a_q * inertia, damping - a_v * inertia, tau_a, delay)
