"""Which torque dominates a reaching movement? Duarte's two-link arm, slow versus fast.

A planar arm (Dempster parameters for 1.70 m, 70 kg) moves along a joint-space minimum-jerk path from
hanging at the side (shoulder -90 deg, elbow 0) to the upper arm forward at horizontal with
the elbow flexed 90 deg. The shoulder and elbow torques are split into inertial M(q) q_dd,
Coriolis/centrifugal C, gravitational G and external E parts (Duarte, BMC notebook
"Multibody dynamics of simple biomechanical models"). Slowly (4 s) gravity dominates; fast
(0.5 s) the interaction torques (inertial + Coriolis) exceed gravity for most of the motion.

Run:  python examples/two_link_arm.py
"""

from __future__ import annotations

import numpy as np

from models.decomposition import TwoLinkArm, dominance, minimum_jerk

START = np.radians([-90.0, 0.0])  # shoulder from the forward horizontal, elbow
END = np.radians([0.0, 90.0])
JOINTS = ("shoulder", "elbow")


def measure(duration: float, arm: TwoLinkArm | None = None) -> dict[str, np.ndarray]:
    """Dominance fractions (see ``models.decomposition.dominance``) for one movement time."""
    arm = arm if arm is not None else TwoLinkArm.dempster(height=1.70, mass=70.0)
    _, q, qd, qdd = minimum_jerk(START, END, duration, n=1001)
    dec = arm.decomposition(q, qd, qdd)
    out = dominance(dec)
    out["peak_gravity"] = np.abs(dec.gravity).max(axis=0)
    out["peak_interaction"] = np.abs(dec.interaction).max(axis=0)
    return out


def main() -> None:
    for label, duration in (("slow", 4.0), ("fast", 0.5)):
        f = measure(duration)
        print(f"{label} movement ({duration} s):")
        for j, name in enumerate(JOINTS):
            print(f"  {name:8s} gravity dominates {100 * f['gravity'][j]:5.1f} % of the time, "
                  f"interaction dominates {100 * f['interaction'][j]:5.1f} %  "
                  f"(peaks: |G| {f['peak_gravity'][j]:5.2f} N m, "
                  f"|M qdd + C| {f['peak_interaction'][j]:5.2f} N m)")


if __name__ == "__main__":
    main()
