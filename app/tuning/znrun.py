"""``gaitblocks tune --method zn`` on the biped: Ku and Tu per joint of the swing-phase loop.

The run the command tunes is built as every run is (:func:`app.runs.build`: its preset, settings,
dataset and the subject-scaled model) and stepped to the middle of the left leg's first swing (the
phase detector's ``swing`` flag; the run's whole length is available for it, whatever
``--duration``). There the diagram is linearised (:func:`blocks.linearize.linearize`) with the
dynamics block's torques, the right foot's force and moment opened, and each PID's joint plant is the
left joint's row with the rest of the body held (:func:`app.tuning.zn.linearised_joint_plant`),
plus the assumed damping, actuator lag and delay. For each PID block of the default diagram
(``pid_hip`` -> hip, ``pid_knee`` -> knee) :func:`app.tuning.zn.ultimate_by_sweep` finds ``Ku`` and
``Tu``, and the classic table gives ``kp``, ``ki``, ``kd`` (clipped to the ``ParamSpec`` ranges).
The report also carries the hand-made plant at the same pose (:func:`app.tuning.zn.swing_joint_plant`)
for comparison (docs/tuning.md says what differs).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.tuning.zn import body_inputs, linearised_joint_plant, swing_joint_plant, zn_table
from models.errors import UserError

if TYPE_CHECKING:
    from app.runs import Built, RunSpec
    from blocks import Diagram

__all__ = ["zn_tune", "swing_operating_point", "BLOCKS"]

BLOCKS = {"hip": "pid_hip", "knee": "pid_knee"}


def _block_of(built: Built, type_name: str) -> str:
    for b in built.model.blocks:
        if b.type_name == type_name:
            return b.name
    raise UserError(f"--method zn needs a {type_name} block in the diagram")


def swing_operating_point(spec: RunSpec, chunk: int = 50) -> tuple[Built, str]:
    """Build ``spec`` (its whole length) and leave its runner at the middle tick of the left leg's
    first swing; returns the build and the dynamics block's name."""
    from app.runs import build
    from blocks.core import SimulationError

    built = build(replace(spec, duration=None, record_every=1))
    runner = built.runner
    phase, body = _block_of(built, "PhaseDetector"), _block_of(built, "FiveLinkDynamics")
    off = built.model.out_slot[f"{phase}.swing"][0]
    seen = False
    t_end = built.t_end
    try:
        while runner.ticks_until(t_end) > 0:
            runner.advance(min(chunk, runner.ticks_until(t_end)))
            if runner.sig[off] > 0.5:
                seen = True
            elif seen:
                break
    except SimulationError as exc:
        raise UserError(f"--method zn: the run failed before its first left swing ended: {exc}") from None
    flag = runner.results(copy=False)[f"{phase}.swing"][:, 0] > 0.5
    idx = np.flatnonzero(flag)
    if idx.size == 0:
        raise UserError(f"--method zn: the left foot is never in swing in the first {runner.time:.3g} s of the run")
    gaps = np.flatnonzero(np.diff(idx) > 1)
    end = idx[gaps[0]] if gaps.size else idx[-1]
    runner.reset()
    runner.advance(int((idx[0] + end) // 2))
    return built, body


def zn_tune(diagram: Diagram, args: argparse.Namespace, plot: Path) -> tuple[dict[str, float], dict[str, Any]]:
    """Gains ``{"pid_hip.kp": ..., ...}`` and the report ``{"zn": {joint: {ku, tu, plant, gains}}}``."""
    from app.commands.run import spec_from_args
    from app.tuning.zn import simulate_p_loop
    from blocks.library.context import biped_of
    from blocks.linearize import linearize

    built, body = swing_operating_point(spec_from_args(args))
    lm = linearize(built.runner, body_inputs(body), [f"{body}.q"])
    rows = lm.state_index(body)
    q, qd = lm.x0[rows[:7]], lm.x0[rows[7:]]
    biped = biped_of(built.model.ctx)  # the subject-scaled model build() handed to the blocks
    best: dict[str, float] = {}
    report: dict[str, Any] = {}
    curves = {}
    for joint, block in BLOCKS.items():
        plant = linearised_joint_plant(lm, body, joint, damping=args.zn_damping, tau_a=args.zn_lag,
                                       delay=args.zn_delay)
        hand = swing_joint_plant(biped, q, joint, damping=args.zn_damping, tau_a=args.zn_lag, delay=args.zn_delay)
        up = plant.ultimate()
        gains = zn_table(up.ku, up.tu, args.zn_rule)
        for key, v in gains.items():
            spec = diagram.param_spec(f"{block}.{key}")
            best[f"{block}.{key}"] = float(min(max(v, spec.min or 0.0), spec.max or v))
        report[joint] = {"ku_nm_per_rad": up.ku, "tu_s": up.tu, "sweep_evaluations": up.evals, "gains": gains,
                         "plant": {"inertia_kgm2": plant.inertia, "stiffness_nm_per_rad": plant.stiffness,
                                   "damping_nms_per_rad": plant.damping,
                                   "assumed_damping_nms_per_rad": args.zn_damping,
                                   "actuator_lag_s": plant.tau_a, "delay_s": plant.delay},
                         "hand_made_plant": {"inertia_kgm2": hand.inertia,
                                             "gravity_stiffness_nm_per_rad": hand.stiffness}}
        a, b, c = plant.state_space()
        curves[joint] = simulate_p_loop(a, b, c, up.ku, delay=plant.delay, dt=1e-3, t_end=6 * up.tu)
        print(f"{joint}: I = {plant.inertia:.4g} kg m^2, k = {plant.stiffness:.4g} N m/rad, c = {plant.damping:.4g} "
              f"N m s/rad; Ku = {up.ku:.4g} N m/rad, Tu = {up.tu:.4g} s -> kp {gains['kp']:.4g}, "
              f"ki {gains['ki']:.4g}, kd {gains['kd']:.4g}")
    _plot(curves, plot)
    return best, {"zn": report, "zn_rule": args.zn_rule, "pose_t_s": lm.t, "pose_q": q.tolist(),
                  "pose_qd": qd.tolist(), "plant_source": "linearised diagram (blocks.linearize), rest of body held"}


def _plot(curves: dict[str, tuple[np.ndarray, np.ndarray]], path: Path) -> None:
    from app.tuning.plots import _plt

    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    for joint, (t, y) in curves.items():
        ax.plot(t, y, label=f"{joint} at Ku")
    ax.set_xlabel("t [s]")
    ax.set_ylabel("joint angle / set-point")
    ax.set_title("swing-loop response at the ultimate gain (sustained oscillation)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
