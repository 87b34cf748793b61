"""Parameters of one synthetic walking condition, and the three bundled footwear conditions.

The numbers are design choices bounded by human data (published gait norms, measured on
``../shared/data``) and set apart by footwear after the literature cited in
``grf_data/README.md``. Every field is written into the dataset's JSON sidecar.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

GENERATOR_VERSION = "2.3.0"


@dataclass(frozen=True)
class GaitParams:
    """One steady, symmetric walking condition.

    Parameters
    ----------
    name, footwear, description : str
        Dataset name (file stem), footwear label and a one-line description.
    cadence_spm : float
        Cadence [steps/min]; the stride period is ``T = 120 / cadence`` s, rounded so that one
        cycle holds an even whole number of samples at ``rate_hz``.
    stride_m : float
        Stride length [m] (two steps); speed ``v = stride / T``.
    stance_frac : float
        Stance share of the cycle; each double support lasts ``stance_frac - 0.5``.
    peak1_bw, peak1_at, peak2_bw, peak2_at, valley_at : float
        Per-foot vertical GRF design [BW] and phases [share of stance]; the valley value is
        solved so that the cycle mean of the total vertical force is exactly body weight.
    braking_bw, braking_at : float
        Designed braking peak [BW] and its stance phase; the propulsion bump mirrors it with equal area.
    onset_curvature : float
        Curvature of the vertical force at contact and toe-off [BW per stance^2].
    trunk_lean_deg : float
        Mean trunk angle alpha [deg] (+ forward). Its oscillation is solved from the dynamics.
    knee_contact_deg : float
        Knee flexion of the landing leg at heel strike [deg]; it sets the CoM height.
    clearance_m, clearance_at : float
        Swing-foot lift after toe-off [m] and where in swing it peaks [share of swing].
    landing_lift_m : float
        Height of the late-swing lift [m] from which the foot comes down onto its footprint.
    harmonics : int
        Fourier harmonics (of the step frequency) of the trunk angle and of the CoM's
        fore-aft oscillation.
    lean_weight : float
        Weight of the trunk oscillation amplitude [per deg] against the moment residual [per N m].
    torque_limit, torque_weight : float
        Joint torques above ``torque_limit`` [N m/kg] are penalised with ``torque_weight`` [per N m/kg]
        at every sample, so the free terms (trunk angle, fore-aft correction, CoM offset) keep the
        references' torques within human norms where they can.
    rate_hz, min_duration_s : float
        Output sampling rate [Hz] and the least duration [s] (whole cycles are written).
    """

    name: str
    footwear: str
    description: str
    cadence_spm: float
    stride_m: float
    stance_frac: float
    peak1_bw: float
    peak1_at: float
    peak2_bw: float
    peak2_at: float
    trunk_lean_deg: float
    knee_contact_deg: float
    valley_at: float = 0.5
    braking_bw: float = 0.17
    braking_at: float = 0.12
    onset_curvature: float = 150.0
    clearance_m: float = 0.085
    clearance_at: float = 0.27
    landing_lift_m: float = 0.01
    harmonics: int = 16
    lean_weight: float = 4.0
    torque_limit: float = 1.25
    torque_weight: float = 200.0
    rate_hz: float = 500.0
    min_duration_s: float = 10.0

    @property
    def samples_per_cycle(self) -> int:
        """Even number of samples in one stride at ``rate_hz``."""
        return 2 * int(round(60.0 / self.cadence_spm * self.rate_hz))

    @property
    def period_s(self) -> float:
        """Stride period ``T`` [s] actually used (cadence rounded to whole samples)."""
        return self.samples_per_cycle / self.rate_hz

    @property
    def speed_m_s(self) -> float:
        return self.stride_m / self.period_s

    @property
    def n_cycles(self) -> int:
        return int(math.ceil(self.min_duration_s / self.period_s - 1e-9))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


CONDITIONS: dict[str, GaitParams] = {
    "barefoot": GaitParams(
        name="barefoot", footwear="barefoot",
        description="synthetic steady walking, barefoot: shorter stride, higher cadence, softer loading peak",
        cadence_spm=110.0, stride_m=0.73, stance_frac=0.60,
        peak1_bw=1.10, peak1_at=0.23, peak2_bw=1.10, peak2_at=0.77,
        trunk_lean_deg=1.0, knee_contact_deg=8.0, onset_curvature=250.0, clearance_at=0.28,
    ),
    "sneakers": GaitParams(
        name="sneakers", footwear="sneakers",
        description="synthetic steady walking in cushioned sneakers (the default dataset)",
        cadence_spm=108.0, stride_m=0.75, stance_frac=0.60,
        peak1_bw=1.16, peak1_at=0.21, peak2_bw=1.10, peak2_at=0.77,
        trunk_lean_deg=2.0, knee_contact_deg=10.0, braking_bw=0.13, lean_weight=6.0,
    ),
    "high_heels": GaitParams(
        name="high_heels", footwear="high heels",
        description="synthetic steady walking in high heels: earlier, higher loading peak, longer double support",
        cadence_spm=102.0, stride_m=0.72, stance_frac=0.61,
        peak1_bw=1.22, peak1_at=0.16, peak2_bw=1.08, peak2_at=0.77,
        trunk_lean_deg=1.0, knee_contact_deg=20.0, onset_curvature=60.0, braking_bw=0.11, lean_weight=1.2,
        clearance_m=0.1, clearance_at=0.3,
    ),
}
