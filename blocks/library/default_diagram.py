"""The default diagram: the paper's scheme (their Figure 2) plus what a real biped needs.

``assets/diagrams/grf_walk.json`` is this diagram saved; a test keeps the two identical::

    GRF source ──► phase detector ──► (stance) estimator ──► stance_sum ─┐
        │          reference ─► PID hip/knee ─ mux ─┬──► stance_fb ──┘   ├─► torque switch ─► dynamics ─┐
        │          trunk balance (stance hips) ─────┼────────────────────┘                                │
        │                                           └──────────────────────► (swing)                      │
        └──► ground contact (recorded GRF + stance-foot spring-damper) ─────────────────► dynamics.grf    │
                      └──► ankle (CoP shift under the stance foot) ─────────────────────► dynamics.mz     │
                      ◄──────────────────── state q, qd (feedback) ───────────────────────────────────────┘

The additions of the ``default`` preset are blocks, each switched off by the ``paper``
preset (``assets/presets/paper.json``): ``contact`` (ground under the stance foot),
``trunk`` (trunk attitude through the stance hips), ``fb_enable`` + ``stance_fb`` (joint
feedback in stance as well as swing), ``ref_motion`` (inverse-dynamics feedforward of the reference
motion for the swing legs, and the reference footprints and CoM for the contact and the ankle),
``ankle`` (the stance foot's centre of pressure steers the CoM over it: a ground moment on
the stance shank, ``body.mz``), ``footprints`` and ``stance_damp``. ``solved``
(:class:`~blocks.library.solved_gait.SolvedGait`, off unless a preset sets its ``source``: the
``emergent`` preset) adds the posture solver's torques and a PD around its joint angles to
every joint, through both sums, and its ground moments through ``mz_sum``. They are grouped into the
virtual subsystem ``stabilisers`` (:data:`STABILISERS`), drawn as one block until opened.
Mass scaling of the GRF is the GRF source's
``scale_to_model``; matched initial conditions are the dynamics block's ``init``.

Regenerate the files with ``python -m blocks.library.default_diagram assets/diagrams`` (also writes
``grf_walk_analysis.json``: the same diagram plus the joint-reaction and torque-decomposition
blocks, for scoping which term dominates).
"""

from __future__ import annotations

import sys

from blocks.diagram import Diagram, SolverSettings
from blocks.subsystems import group

__all__ = ["STABILISERS", "build_grf_walk", "build_grf_walk_analysis", "preset_gains"]

STABILISERS = ("contact", "trunk", "fb_enable", "stance_fb", "ref_motion", "ankle", "footprints", "stance_damp",
               "mz_sum")
"""The blocks the ``paper`` preset switches off (and ``mz_sum``, which adds their ground moments): the
``stabilisers`` virtual subsystem
(:mod:`blocks.subsystems`; a grouping of the drawing only, the compiler sees the flat blocks)."""


def preset_gains(block: str, preset: str = "tracking") -> dict[str, float]:
    """``{"kp", "ki", "kd"}`` of PID ``block`` in ``assets/presets/<preset>.json``, the one place the
    gains are written (kp N m/rad, ki N m/(rad s), kd N m s/rad)."""
    from blocks.library.presets import load_preset

    values = load_preset(preset)["set"]
    return {k: float(values[f"{block}.{k}"]) for k in ("kp", "ki", "kd")}

_POSITIONS = {  # signal flow left to right (app.gui.editing.auto_layout, rounded): scene px
    "grf": (0, 100), "ref": (0, 240), "meas_hip": (0, 420), "meas_knee": (0, 530),
    "est": (280, 0), "phase": (280, 140), "pid_hip": (280, 300), "pid_knee": (280, 480),
    "swing_mux": (560, 410), "swing_sum": (840, 420), "stance_sum": (1240, 140),
    "switch": (1520, 220), "grf_match": (1800, 330), "solved": (560, 600), "body": (2080, 190), "kin": (2360, 140),
    "trig": (2360, 0),
    # inside the stabilisers subsystem
    "ref_motion": (0, 1030), "trunk": (280, 460), "stance_damp": (280, 300), "footprints": (280, 660),
    "fb_enable": (280, 820), "stance_fb": (280, 930), "contact": (560, 280), "ankle": (840, 640), "mz_sum": (1120, 520),
}
_STABILISERS_AT = (840, 120)   # the collapsed subsystem [scene px]


def build_grf_walk() -> Diagram:
    """GRF -> phases -> estimator in stance / PID in swing -> dynamics, with state feedback."""
    d = Diagram("grf_walk", description=(
        "Luxman & Zielinska (2017) scheme: recorded GRF drive a free five-link biped; stance joints get the "
        "net-torque estimate, swing joints a PID on the human reference; the state feeds back. Default preset "
        "adds ground contact under the stance foot, trunk balance through the stance hips and stance feedback."),
        solver=SolverSettings(method="rk4", dt=1e-3, t_start=0.0, t_end=10.0))
    d.add("grf", "GrfSource")
    d.add("ref", "ReferenceSource")
    d.add("phase", "PhaseDetector", threshold_n=40.0, hysteresis_n=10.0, min_dwell_s=0.05)
    # before its readers: compiled right after the body, it leaves their order, and the results' columns, as before
    d.add("trig", "SegmentTrig")
    d.add("est", "NetTorqueEstimator", mode="jacobian")
    d.add("meas_hip", "Selector", n=7, indices=(3, 4))
    d.add("meas_knee", "Selector", n=7, indices=(5, 6))
    d.add("pid_hip", "PID", **preset_gains("pid_hip"), n=2)
    d.add("pid_knee", "PID", **preset_gains("pid_knee"), n=2)
    d.add("swing_mux", "Mux", sizes=(2, 2))
    d.add("switch", "TorqueSwitch")
    d.add("body", "FiveLinkDynamics", init="reference")
    d.add("kin", "BipedKinematics")
    d.add("contact", "GroundContact", height="reference")
    d.add("trunk", "TrunkBalance")
    d.add("fb_enable", "FeedbackEnable", mode="always")
    d.add("stance_fb", "Gain", k=1.0, n=4)
    d.add("stance_sum", "Sum", signs="+++++", n=4)
    d.add("ref_motion", "ReferenceMotion")
    d.add("swing_sum", "Sum", signs="+++", n=4)
    d.add("ankle", "AnkleBalance")
    d.add("footprints", "Footprints")
    d.add("stance_damp", "StanceDamping")
    d.add("mz_sum", "Sum", signs="+++", n=2)
    d.add("grf_match", "GrfMatch")
    d.add("solved", "SolvedGait")
    d.connect("grf.F", "phase.F", "est.F", "contact.F_rec")
    d.connect("contact.F", "body.grf")
    d.connect("body.q", "est.q", "meas_hip.u", "meas_knee.u", "kin.q", "contact.q", "trunk.q", "trig.q")
    d.connect("trig.sc", "body.trig", "contact.trig", "est.trig", "kin.trig", "ankle.trig", "footprints.trig")
    d.connect("body.qd", "contact.qd", "trunk.qd")
    d.connect("ref.angles", "trunk.ref")
    d.connect("ref.rates", "trunk.ref_rate")
    d.connect("phase.stance", "contact.stance", "trunk.stance")
    d.connect("ref.hip", "pid_hip.ref")
    d.connect("ref.knee", "pid_knee.ref")
    d.connect("meas_hip.y", "pid_hip.meas")
    d.connect("meas_knee.y", "pid_knee.meas")
    d.connect("phase.swing", "fb_enable.swing")
    d.connect("fb_enable.enable", "pid_hip.enable", "pid_knee.enable")
    d.connect("switch.hip", "pid_hip.track")
    d.connect("switch.knee", "pid_knee.track")
    d.connect("pid_hip.u", "swing_mux.u1")
    d.connect("pid_knee.u", "swing_mux.u2")
    d.connect("phase.stance", "switch.stance")
    d.connect("est.tau", "stance_sum.u1")
    d.connect("swing_mux.y", "swing_sum.u1", "stance_fb.u")
    d.connect("ref_motion.tau", "swing_sum.u2")
    d.connect("ref_motion.feet", "footprints.feet_ref")
    d.connect("body.q", "footprints.q", "stance_damp.q")
    d.connect("body.qd", "stance_damp.qd")
    d.connect("phase.stance", "footprints.stance", "stance_damp.stance")
    d.connect("footprints.feet", "contact.feet_ref")
    d.connect("stance_damp.tau", "stance_sum.u4")
    d.connect("swing_sum.y", "switch.tau_swing")
    d.connect("stance_fb.y", "stance_sum.u2")
    d.connect("trunk.tau", "stance_sum.u3")
    d.connect("stance_sum.y", "switch.tau_stance")
    d.connect("switch.tau", "grf_match.tau_in")
    d.connect("grf_match.tau", "body.tau")
    d.connect("body.q", "grf_match.q")
    d.connect("body.qd", "grf_match.qd")
    d.connect("grf.F", "grf_match.F")
    d.connect("mz_sum.y", "grf_match.mz")
    d.connect("phase.stance", "grf_match.stance")
    d.connect("footprints.feet", "grf_match.feet_ref")
    d.connect("body.q", "ankle.q")
    d.connect("body.qd", "ankle.qd")
    d.connect("phase.stance", "ankle.stance")
    d.connect("contact.F", "ankle.F")
    d.connect("ref_motion.feet", "ankle.feet_ref")
    d.connect("ref_motion.com", "ankle.com_ref")
    d.connect("ankle.mz", "mz_sum.u1")
    d.connect("trunk.mz", "mz_sum.u2")
    d.connect("mz_sum.y", "body.mz")
    d.connect("body.q", "solved.q")
    d.connect("body.qd", "solved.qd")
    d.connect("phase.stance", "solved.stance")
    d.connect("solved.tau", "stance_sum.u5", "swing_sum.u3")
    d.connect("solved.mz", "mz_sum.u3")
    for name, (x, y) in _POSITIONS.items():
        d.set_position(name, x, y)
    group(d, "stabilisers", list(STABILISERS), *_STABILISERS_AT)
    return d


def build_grf_walk_analysis() -> Diagram:
    """The default diagram plus joint reactions and the M/C/G/E torque decomposition (sampled every 10 ms)."""
    d = build_grf_walk()
    d.name = "grf_walk_analysis"
    d.add("reactions", "JointReactions", ts=0.01)
    d.add("decomp", "TorqueDecomposition", ts=0.01)
    d.connect("body.q", "reactions.q", "decomp.q")
    d.connect("body.qd", "reactions.qd", "decomp.qd")
    d.connect("grf_match.tau", "reactions.tau", "decomp.tau")
    d.connect("contact.F", "reactions.F", "decomp.F")
    d.set_position("reactions", 2360, 380)
    d.set_position("decomp", 2360, 560)
    return d


if __name__ == "__main__":  # pragma: no cover - regeneration helper
    folder = sys.argv[1]
    build_grf_walk().save(f"{folder}/grf_walk.json")
    build_grf_walk_analysis().save(f"{folder}/grf_walk_analysis.json")
