r"""One gait cycle for the five-link model: kinematics first, GRF from its inverse dynamics.

Recipe (all on ``n`` equally spaced samples of the stride period ``T``)
--------------------------------------------------------------------
1. Feet: pinned at their footprints in stance (``y = 0``), one stride forward along a smooth
   path in swing (:func:`models.gaitgen.shapes.foot_path`).
2. Vertical CoM: the designed per-foot vertical forces ``f_l + f_r`` [BW] (cycle mean exactly 1)
   give ``y_c'' = g (f_l + f_r - 1)``, integrated periodically (spectral);
   the mean height is the highest at which the landing knee flexes by at least ``knee_contact_deg``
   and no leg, stance or swing, is stretched beyond ``REACH_LIMIT`` of its length.
3. Fore-aft CoM and trunk angle: each foot gets a designed fore-aft force ``h_k`` [BW] (braking
   bump, then a propulsion bump of equal area, :meth:`CycleModel.horizontal_shape`); with a smooth
   correction ``c(t)`` (Fourier series of the *step* frequency, the gait is symmetric),
   ``x_c = v (t - sigma T / 2) + x_off + periodic double integral of g (h_l + h_r + c)``.
   ``alpha = alpha_0 +`` a Fourier series of the step frequency. ``x_off``, ``c`` and the trunk
   terms are the unknowns of step 6.
4. Pose: the hip that puts the whole-body CoM on target (:mod:`models.gaitgen.kinematics`),
   then ``q``; ``qd, qdd`` by periodic spectral differentiation (``x0`` after removing ``v t``).
5. Foot forces: ``FiveLinkBiped.inverse_dynamics(q, qd, qdd, 0)`` leaves the rows
   ``r = (r_x, r_y, r_alpha)`` that the feet must supply: ``sum_k J_k[:, 0:3]^T F_k = r``.
   The x0/y0 columns of a foot Jacobian are the identity, so ``sum F_k = (r_x, r_y) = m (a_c + g)``.
   The designed vertical forces share it, ``w_k = f_k / (f_l + f_r)``:

   * ``F_ky = w_k r_y +/- d`` (``d`` moves load from one foot to the other);
   * ``F_kx = m g h_k + w_k (r_x - m g (h_l + h_r))``: the designed braking/propulsion per foot,
     the correction shared like the load;
   * ``d`` is a smooth polynomial of the double-support phase ``u`` (:meth:`CycleModel.load_shift`,
     ``u^3 (1 - u)^3`` times ``SHIFT_TERMS`` Legendre terms, zero in single support), clipped so that
     neither foot pulls (``F_ky >= 0``). What it leaves of the alpha row,
     ``m_res = r_alpha - J_k[:, 2] . F_k`` [N m], is the moment the kinematics ask for and the
     forces do not give: in single support no force is left for it at all, so the whole-body
     angular momentum must change by the moment of the single foot force.
6. The trunk angle is then a boundary-value problem: in each single-support window it must make
   ``m_res = 0`` (an ODE in ``alpha``), while in double support it joins the windows
   with matched ``alpha, alpha'`` (periodic, half-period symmetric). It is solved by collocation:
   ``alpha`` is a Fourier series of ``harmonics`` step harmonics, the load shift has its
   ``SHIFT_TERMS`` coefficients, and ``scipy.optimize.least_squares`` drives ``SS_WEIGHT * m_res``
   to zero at every single-support sample and ``DS_WEIGHT * m_res`` at every double-support
   sample, with small penalties on the trunk oscillation (``lean_weight`` per
   degree, growing as ``(k / SMOOTH_ORDER)^2`` with the harmonic order ``k``), on the trunk's angular
   jerk in double support (``TRUNK_JERK_WEIGHT`` per rad/s^3), on the load shift ``d``
   (``LOAD_SHIFT_WEIGHT`` per BW), on a foot unloaded below half its designed share
   (``PULL_WEIGHT`` per BW, so that no contact flickers) and on the fore-aft correction
   (``CORRECTION_WEIGHT`` per BW), and on every joint torque above ``GaitParams.torque_limit``
   [N m/kg] (``GaitParams.torque_weight`` per N m/kg, since generator 2.1.0).
   The rest of ``m_res`` stays in the alpha row of the inverse-dynamics residual and is reported
   in the sidecar (``derived``): 2.2-2.7 N m RMS in single support (generator 1.0.0: 13-15 N m)
   and 6-11 N m RMS in double support.

   Why the load shift is a low-order polynomial (generator 2.3.0). Up to 2.2.0 ``d`` solved the
   alpha row exactly in double support. The band-limited trunk series that nulls the
   single-support moment rings where the demand changes at the contact instants (Gibbs); the
   ringing trunk acceleration, up to +/-15-20 rad/s^2 in double support, was balanced by ``d``
   and made the vertical force ring by up to 0.4 BW (max |d^2 F_y / dt^2| about 50 000 BW/s^2,
   F_y down to -17 N). A smooth ``d`` and the jerk penalty keep the forces as smooth as the
   designed shapes; the price is the double-support residual, 6-11 N m RMS (2.2.0: 1.3-1.6 N m).
   Weighted like single support (10), that residual pushed the trunk's sway to 6.5-7.2 deg.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.integrate import trapezoid
from scipy.optimize import brentq, least_squares

from models.biped import FiveLinkBiped
from models.gaitgen.kinematics import hip_for_com, leg_reach, pose_from_com
from models.gaitgen.params import GaitParams
from models.gaitgen.shapes import (
    VerticalShape,
    bump,
    foot_path,
    periodic_derivatives,
    periodic_double_integral,
    stance_phase,
    with_mean,
)
from models.params import BipedParams

REACH_LIMIT = 0.9995  # hip-foot distance never above 99.95 % of the straight leg (knee >= 3.3 deg)
X_HARMONICS = 4         # step harmonics of the fore-aft force correction
SS_WEIGHT = 10.0          # weight of the single-support moment residual [per N m]
DS_WEIGHT = 2.0           # weight of the double-support moment residual [per N m] (since generator 2.3.0)
LOAD_SHIFT_WEIGHT = 40.0  # weight of the double-support load shift d [per BW]
CORRECTION_WEIGHT = 100.0  # weight of the fore-aft correction terms [per BW]
PULL_WEIGHT = 1000.0      # weight of a foot unloaded below (1 - PULL_MARGIN) of its designed share [per BW]
PULL_MARGIN = 0.5         # the load shift may take at most half of a foot's designed vertical force
SMOOTH_ORDER = 4.0        # trunk harmonics above this order are penalised by (k / SMOOTH_ORDER)^2
SHIFT_TERMS = 4           # polynomial terms of the double-support load shift d(u) (since generator 2.3.0)
TRUNK_JERK_WEIGHT = 0.01  # weight of the trunk's angular jerk in double support [per rad/s^3] (since 2.3.0)
N_OPT = 192               # samples per cycle on which the coefficients are optimised
MAX_NFEV = 200            # the optimiser's budget of residual evaluations (finite-difference Jacobians not counted)


@dataclass(frozen=True)
class CycleSolution:
    """One stride on ``n`` samples: time, pose, rates, feet, forces and checks (SI units)."""

    t: np.ndarray          # (n,) s, 0 = right heel strike
    q: np.ndarray          # (n, 7)
    qd: np.ndarray         # (n, 7)
    qdd: np.ndarray        # (n, 7)
    grf: np.ndarray        # (n, 4) [F_lx, F_ly, F_rx, F_ry] N
    tau: np.ndarray        # (n, 4) [hip_l, hip_r, knee_l, knee_r] N m
    residual: np.ndarray   # (n, 3) inverse-dynamics residual with grf (N, N, N m)
    feet: np.ndarray       # (n, 2, 2) [left, right] foot points, m
    com: np.ndarray        # (n, 2) target CoM, m
    design_fy: np.ndarray  # (n, 2) designed vertical force [left, right], N
    shape: VerticalShape
    coefficients: np.ndarray
    y_mean: float


class CycleModel:
    """Builds the cycle of :class:`GaitParams` for a biped; see the module doc."""

    def __init__(self, gait: GaitParams, params: BipedParams | None = None) -> None:
        self.gait = gait
        self.params = params if params is not None else BipedParams.paper()
        self.biped = FiveLinkBiped(self.params, backend="numpy")
        sigma = gait.stance_frac
        self.shape = with_mean(
            VerticalShape(gait.peak1_bw, gait.peak1_at, 0.9, gait.valley_at, gait.peak2_bw, gait.peak2_at,
                          gait.onset_curvature),
            1.0 / (2.0 * sigma),
        )

    # ------------------------------------------------------------------ design
    def n_coefficients(self) -> int:
        """``[x offset (m), fore-aft correction terms (BW)..., trunk angle terms (rad)...,
        load-shift terms (BW)...]``."""
        return 1 + 2 * X_HARMONICS + 2 * self.gait.harmonics + SHIFT_TERMS

    def _trunk_terms(self, coef: np.ndarray) -> np.ndarray:
        start = 1 + 2 * X_HARMONICS
        return coef[start:start + 2 * self.gait.harmonics]

    def load_shift(self, phase: np.ndarray, coef: np.ndarray) -> np.ndarray:
        r"""Double-support load shift ``d`` [BW] onto the left foot at cycle ``phase``.

        With ``u`` in [0, 1] the phase within a double support,
        ``d(u) = u^3 (1 - u)^3 sum_j c_j P_j(2 u - 1)`` (Legendre ``P_j``, ``j < SHIFT_TERMS``):
        zero with zero slope and curvature at both ends, so the foot forces stay C2 across touch-down
        and toe-off. The gait is half-period symmetric: in the second double support (left foot
        landing) the shift is ``-d(u)``. Zero in single support.
        """
        ds = self.gait.stance_frac - 0.5
        ph = np.mod(phase, 1.0)
        first = ph < ds
        second = (ph >= 0.5) & (ph < 0.5 + ds)
        u = np.where(first, ph / ds, np.where(second, (ph - 0.5) / ds, 0.0))
        c = coef[-SHIFT_TERMS:]
        d = u**3 * (1.0 - u) ** 3 * np.polynomial.legendre.legval(2.0 * u - 1.0, c)
        return np.where(first, d, np.where(second, -d, 0.0))

    def horizontal_shape(self, s: np.ndarray) -> np.ndarray:
        """Designed per-foot fore-aft force [BW] at stance phase ``s``: braking, then propulsion.

        ``h(s) = -B bump(s, 3, 3 / s_b - 3) + p bump(s, 3 / (1 - s_p) - 3, 3)`` with
        ``B = braking_bw`` peaking at ``s_b = braking_at`` and ``s_p = 1 - braking_at``; ``p`` makes
        the stance mean zero, so the stride mean of the fore-aft force is zero.
        """
        g = self.gait
        order = 3.0 / g.braking_at - 3.0
        grid = np.linspace(0.0, 1.0, 4001)
        ratio = trapezoid(bump(grid, 3.0, order), grid) / trapezoid(bump(grid, order, 3.0), grid)
        inside = (s >= 0.0) & (s <= 1.0)
        out = g.braking_bw * (ratio * bump(s, order, 3.0) - bump(s, 3.0, order))
        return np.where(inside, out, 0.0)

    def _series(self, t: np.ndarray, coef: np.ndarray) -> np.ndarray:
        k = np.arange(1, coef.shape[0] // 2 + 1)
        arg = 4.0 * np.pi * np.outer(t, k) / self.gait.period_s
        half = coef.shape[0] // 2
        return np.cos(arg) @ coef[:half] + np.sin(arg) @ coef[half:]

    def design(self, n: int, coef: np.ndarray) -> dict[str, np.ndarray]:
        """Feet, CoM target and trunk angle on ``n`` samples for coefficient vector ``coef``."""
        g = self.gait
        T = g.period_s
        t = np.arange(n) * T / n
        phase = t / T
        foot_r = foot_path(phase, 0.0, g.stance_frac, g.stride_m, g.clearance_m, g.clearance_at,
                            g.landing_lift_m)
        foot_l = foot_path(phase, 0.5, g.stance_frac, g.stride_m, g.clearance_m, g.clearance_at,
                            g.landing_lift_m)
        f_r = self.shape(stance_phase(phase, 0.0, g.stance_frac))
        f_l = self.shape(stance_phase(phase, 0.5, g.stance_frac))
        grav = self.params.g
        y_osc = periodic_double_integral(grav * (f_l + f_r - 1.0), T)
        h_r = self.horizontal_shape(stance_phase(phase, 0.0, g.stance_frac))
        h_l = self.horizontal_shape(stance_phase(phase, 0.5, g.stance_frac))
        corr = self._series(t, coef[1:1 + 2 * X_HARMONICS])
        x_com = (g.speed_m_s * (t - 0.5 * g.stance_frac * T) + coef[0]
                 + periodic_double_integral(grav * (h_l + h_r + corr), T))
        alpha = np.deg2rad(g.trunk_lean_deg) + self._series(t, self._trunk_terms(coef))
        y_mean = self._mean_height(x_com, y_osc, alpha, foot_l, foot_r)
        com = np.column_stack([x_com, y_mean + y_osc])
        mg = self.params.total_mass * grav
        return {"t": t, "foot_l": foot_l, "foot_r": foot_r, "com": com, "alpha": alpha,
                "fx_l": mg * h_l, "fx_r": mg * h_r,
                "fy_l": mg * f_l, "fy_r": mg * f_r, "shift": mg * self.load_shift(phase, coef),
                "y_mean": np.array(y_mean)}

    def _mean_height(self, x_com: np.ndarray, y_osc: np.ndarray, alpha: np.ndarray, foot_l: np.ndarray,
                     foot_r: np.ndarray) -> float:
        """Mean CoM height [m]: the landing knee flexes at least ``knee_contact_deg`` and no leg is
        ever stretched beyond ``REACH_LIMIT`` (the lower of the two heights)."""
        pr = self.params
        g_c = np.deg2rad(self.gait.knee_contact_deg)
        reach_c = np.sqrt(pr.thigh.length**2 + pr.shank.length**2
                          + 2.0 * pr.thigh.length * pr.shank.length * np.cos(g_c)) / pr.leg_length
        a0 = alpha[:1]

        def excess(y_mean: float) -> float:
            com = np.array([[x_com[0], y_mean + y_osc[0]]])
            hip = hip_for_com(com, a0, foot_l[:1], foot_r[:1], pr)
            return float(leg_reach(hip, foot_r[:1], pr)[0]) - reach_c

        y_mean = float(brentq(excess, 0.3 * pr.leg_length, 1.2 * pr.leg_length, xtol=1e-12))
        limit = REACH_LIMIT * pr.leg_length
        for _ in range(20):
            hip = hip_for_com(np.column_stack([x_com, y_mean + y_osc]), alpha, foot_l, foot_r, pr)
            drop = 0.0
            for foot in (foot_l, foot_r):
                dx = hip[:, 0] - foot[:, 0]
                allowed = foot[:, 1] + np.sqrt(np.maximum(limit**2 - dx**2, 0.0))
                drop = max(drop, float(np.max(hip[:, 1] - allowed)))
            if drop <= 1e-9:
                break
            y_mean -= drop
        return y_mean

    # ------------------------------------------------------------------ dynamics
    def evaluate(self, n: int, coef: np.ndarray) -> CycleSolution:
        """Pose, rates, foot forces, torques and residual for ``coef`` on ``n`` samples."""
        d = self.design(n, coef)
        t, com, alpha = d["t"], d["com"], d["alpha"]
        foot_l, foot_r = np.asarray(d["foot_l"]), np.asarray(d["foot_r"])
        fy_l, fy_r = np.asarray(d["fy_l"]), np.asarray(d["fy_r"])
        T = self.gait.period_s
        q, _ = pose_from_com(com, alpha, foot_l, foot_r, self.params)
        trend = np.zeros(7)
        trend[0] = self.gait.speed_m_s
        qd_p, qdd = periodic_derivatives(q - np.outer(t, trend), T)
        qd = qd_p + trend
        _, r = self.biped.inverse_dynamics(q, qd, qdd, np.zeros((n, 4)))
        grf = self._share(q, r, d)
        tau, residual = self.biped.inverse_dynamics(q, qd, qdd, grf)
        return CycleSolution(t, q, qd, qdd, grf, tau, residual, np.stack([foot_l, foot_r], axis=1), com,
                             np.column_stack([fy_l, fy_r]), self.shape, coef, float(d["y_mean"]))

    def _alpha_columns(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """d(foot)/d(alpha) ``(n, 2)`` of the left and right foot."""
        pr = self.params
        a = q[:, 2]
        cols = []
        for side in (0, 1):
            th1 = a - q[:, 3 + side]
            th2 = th1 + q[:, 5 + side]
            cols.append(np.column_stack([
                -pr.trunk.com * np.cos(a) - pr.thigh.length * np.cos(th1) - pr.shank.length * np.cos(th2),
                pr.trunk.com * np.sin(a) + pr.thigh.length * np.sin(th1) + pr.shank.length * np.sin(th2),
            ]))
        return cols[0], cols[1]

    def _share(self, q: np.ndarray, r: np.ndarray, design: dict[str, np.ndarray],
               moment_only: bool = False) -> np.ndarray:
        """Foot forces ``(n, 4)`` from the generalised residual rows ``r`` (module doc, step 5).

        With ``moment_only`` it returns ``(n, 4)``: the alpha-row moment left after the load shift
        [N m] (single support: all of it), the load shift ``d`` [N] (:meth:`load_shift`), a
        double-support flag and the least of the two feet's margins above half their designed share
        [N]. The forces clip ``d`` so that neither foot pulls on the ground (``F_ky >= 0``).
        """
        fy_l, fy_r, fx_l, fx_r = design["fy_l"], design["fy_r"], design["fx_l"], design["fx_r"]
        total = fy_l + fy_r
        w_l = np.divide(fy_l, total, out=np.zeros_like(total), where=total > 0)
        w_r = 1.0 - w_l
        mix = r[:, 0] - fx_l - fx_r

        def forces(dv: np.ndarray) -> np.ndarray:
            return np.column_stack([fx_l + w_l * mix, w_l * r[:, 1] + dv, fx_r + w_r * mix, w_r * r[:, 1] - dv])

        j_l, j_r = self._alpha_columns(q)

        def moment(f: np.ndarray) -> np.ndarray:
            return np.einsum("ij,ij->i", j_l, f[:, 0:2]) + np.einsum("ij,ij->i", j_r, f[:, 2:4])

        double = (w_l > 0) & (w_r > 0)
        dv = np.where(double, design["shift"], 0.0)
        if moment_only:
            m_res = r[:, 2] - moment(forces(dv))
            low = np.minimum(PULL_MARGIN * w_l * r[:, 1] + dv, PULL_MARGIN * w_r * r[:, 1] - dv)
            return np.column_stack([m_res, dv, double.astype(float), low])
        return forces(np.clip(dv, -w_l * r[:, 1], w_r * r[:, 1]))

    def _rows(self, coef: np.ndarray, n: int) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
        """``(info, design, tau)``: :meth:`_share` moment info ``(n, 4)`` and the joint torques
        ``(n, 4)`` [N m] for ``coef`` on ``n`` samples."""
        d = self.design(n, coef)
        t = np.asarray(d["t"])
        q, _ = pose_from_com(np.asarray(d["com"]), np.asarray(d["alpha"]), np.asarray(d["foot_l"]),
                             np.asarray(d["foot_r"]), self.params)
        trend = np.zeros(7)
        trend[0] = self.gait.speed_m_s
        qd_p, qdd = periodic_derivatives(q - np.outer(t, trend), self.gait.period_s)
        qd = qd_p + trend
        _, r = self.biped.inverse_dynamics(q, qd, qdd, np.zeros((n, 4)))
        tau, _ = self.biped.inverse_dynamics(q, qd, qdd, self._share(q, r, d))
        return self._share(q, r, d, moment_only=True), d, tau

    def objective(self, coef: np.ndarray, n: int) -> np.ndarray:
        """Least-squares residual vector (module doc, step 6).

        ``[SS_WEIGHT * m_res (every sample, N m), LOAD_SHIFT_WEIGHT * d / BW (double support),
        PULL_WEIGHT * unloading below the margin / BW, TRUNK_JERK_WEIGHT * alpha''' (double
        support, rad/s^3), torque_weight * (|tau| / m - torque_limit)^+
        (N m/kg, every joint and sample), trunk terms (lean_weight per deg, rising with the harmonic
        order), CORRECTION_WEIGHT * fore-aft correction terms (BW)]``; the sample rows are divided by
        ``sqrt(n)`` (RMS-like).
        """
        info, design, tau = self._rows(coef, n)
        double = info[:, 2] > 0
        (jerk,) = periodic_derivatives(np.asarray(design["alpha"]), self.gait.period_s, orders=(3,))
        bw = self.params.total_mass * self.params.g
        excess = np.maximum(np.abs(tau) / self.params.total_mass - self.gait.torque_limit, 0.0)
        rows = np.concatenate([np.where(double, DS_WEIGHT, SS_WEIGHT) * info[:, 0],
                               np.where(double, LOAD_SHIFT_WEIGHT * info[:, 1] / bw, 0.0),
                               PULL_WEIGHT * np.minimum(info[:, 3], 0.0) / bw,
                               np.where(double, TRUNK_JERK_WEIGHT * jerk, 0.0),
                               self.gait.torque_weight * excess.ravel()])
        rows = rows / np.sqrt(n)
        trunk = self._trunk_terms(coef)
        k = np.arange(1, trunk.shape[0] // 2 + 1, dtype=float)
        order = np.concatenate([k, k])
        lean = self.gait.lean_weight * np.rad2deg(trunk) * np.maximum(1.0, order / SMOOTH_ORDER) ** 2
        fore_aft = CORRECTION_WEIGHT * coef[1:1 + 2 * X_HARMONICS]
        return np.concatenate([rows, lean, fore_aft])

    def solve(self, n_opt: int = N_OPT, n_out: int | None = None, max_nfev: int = MAX_NFEV,
              coef0: np.ndarray | None = None) -> CycleSolution:
        """Optimise the coefficients on ``n_opt`` samples, return the cycle on ``n_out`` samples."""
        start = np.zeros(self.n_coefficients()) if coef0 is None else coef0
        fit = least_squares(self.objective, start, args=(n_opt,), method="trf", x_scale="jac",
                            xtol=1e-12, ftol=1e-12, gtol=1e-12, max_nfev=max_nfev)
        return self.evaluate(n_out if n_out is not None else self.gait.samples_per_cycle, fit.x)
