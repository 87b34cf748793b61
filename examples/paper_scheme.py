"""The paper's scheme (Luxman & Zielinska 2017) against the recommended configuration.

The same diagram (``blocks.library.default_diagram.build_grf_walk``: recorded GRF -> gait phases -> net-torque
estimator in stance, PID in swing -> five-link dynamics) runs with two presets on the bundled
``sneakers`` set: ``paper`` (as published: swing-only PID with the paper's gains) and ``tracking``
(ground contact, trunk balance and stance feedback added; called ``default`` before, a name still
accepted). The paper's gains cannot hold the 55 kg model up; the tracking preset walks.

Run:  python examples/paper_scheme.py
"""

from __future__ import annotations

from app.runs import RunSpec, run
from blocks.library.default_diagram import build_grf_walk


def walk(preset: str, seconds: float = 3.0) -> dict:
    """``summary.json`` of ``seconds`` on sneakers with ``preset``."""
    return run(RunSpec(dataset="sneakers", diagram=build_grf_walk(), preset=preset, duration=seconds)).summary


def main() -> None:
    for preset in ("paper", "tracking"):
        s = walk(preset)
        rms = s["rms_deg"]
        fell = f"fell at {s['fell_at_s']:.2f} s" if s.get("fell_at_s") is not None else "stays up"
        print(f"{preset:>8}: {fell}; RMS hip {max(rms['hip_l'], rms['hip_r']):.2f} deg, "
              f"knee {max(rms['knee_l'], rms['knee_r']):.2f} deg, trunk {rms['trunk']:.2f} deg")


if __name__ == "__main__":
    main()
