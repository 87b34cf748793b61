"""The paper's diagram (DESIGN.md section 1, their Figure 2), built with the Python API.

``assets/diagrams/grf_walk.json`` is this diagram saved; a test keeps the two identical::

    GRF source ──► phase detector ──► (stance) estimator ─┐
        │          reference ─► (swing) PID hip/knee ─ mux ┴─► torque switch ─► dynamics ─┐
        └──────────────── foot forces ────────────────────────────────────────► dynamics  │
                      ◄──────────────────── state q (feedback) ───────────────────────────┘

Regenerate the file with ``python -m blocks.default_diagram assets/diagrams/grf_walk.json``.
"""

from __future__ import annotations

import sys

from blocks.diagram import Diagram, SolverSettings

__all__ = ["build_grf_walk"]

_POSITIONS = {
    "grf": (40, 200), "ref": (40, 420), "phase": (260, 120), "est": (480, 200), "meas_hip": (260, 520),
    "meas_knee": (260, 600), "pid_hip": (480, 400), "pid_knee": (480, 520), "swing_mux": (660, 460),
    "switch": (760, 260), "body": (960, 260), "kin": (1160, 360),
}


def build_grf_walk() -> Diagram:
    """GRF -> phases -> estimator in stance / PID in swing -> dynamics, with state feedback."""
    d = Diagram("grf_walk", description=(
        "Luxman & Zielinska (2017) scheme: recorded GRF drive a free five-link biped; stance joints get the "
        "net-torque estimate, swing joints a PID on the human reference; the state feeds back."),
        solver=SolverSettings(method="rk4", dt=1e-3, t_start=0.0, t_end=10.0))
    d.add("grf", "GrfSource")
    d.add("ref", "ReferenceSource")
    d.add("phase", "PhaseDetector", threshold_n=40.0, hysteresis_n=10.0, min_dwell_s=0.05)
    d.add("est", "NetTorqueEstimator", mode="jacobian")
    d.add("meas_hip", "Selector", n=7, indices=(3, 4))
    d.add("meas_knee", "Selector", n=7, indices=(5, 6))
    d.add("pid_hip", "PID", kp=500.0, ki=250.0, kd=25.0, n=2)
    d.add("pid_knee", "PID", kp=500.0, ki=250.0, kd=25.0, n=2)
    d.add("swing_mux", "Mux", sizes=(2, 2))
    d.add("switch", "TorqueSwitch")
    d.add("body", "FiveLinkDynamics", init="reference")
    d.add("kin", "BipedKinematics")
    d.connect("grf.F", "phase.F", "est.F", "body.grf")
    d.connect("body.q", "est.q", "meas_hip.u", "meas_knee.u", "kin.q")
    d.connect("ref.hip", "pid_hip.ref")
    d.connect("ref.knee", "pid_knee.ref")
    d.connect("meas_hip.y", "pid_hip.meas")
    d.connect("meas_knee.y", "pid_knee.meas")
    d.connect("phase.swing", "pid_hip.enable", "pid_knee.enable")
    d.connect("switch.hip", "pid_hip.track")
    d.connect("switch.knee", "pid_knee.track")
    d.connect("pid_hip.u", "swing_mux.u1")
    d.connect("pid_knee.u", "swing_mux.u2")
    d.connect("phase.stance", "switch.stance")
    d.connect("est.tau", "switch.tau_stance")
    d.connect("swing_mux.y", "switch.tau_swing")
    d.connect("switch.tau", "body.tau")
    for name, (x, y) in _POSITIONS.items():
        d.set_position(name, x, y)
    return d


if __name__ == "__main__":  # pragma: no cover - regeneration helper
    build_grf_walk().save(sys.argv[1])
