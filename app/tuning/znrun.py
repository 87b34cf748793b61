"""``gaitblocks tune --method zn`` on the biped: Ku and Tu per joint of the swing-phase loop.

For each PID block of the default diagram (``pid_hip`` -> hip, ``pid_knee`` -> knee) the joint
plant is linearised at the reference's mid-swing pose of the left leg (the middle of the first
interval where its vertical GRF is below 1 % of body weight), :func:`app.tuning.zn.ultimate_by_sweep`
finds ``Ku`` and ``Tu``, and the classic table gives ``kp``, ``ki``, ``kd`` (clipped to the
``ParamSpec`` ranges).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.tuning.zn import swing_joint_plant, zn_table
from models.errors import UserError

if TYPE_CHECKING:
    from blocks import Diagram

__all__ = ["zn_tune", "mid_swing_pose", "BLOCKS"]

BLOCKS = {"hip": "pid_hip", "knee": "pid_knee"}


def mid_swing_pose(dataset: str) -> np.ndarray:
    """``q`` (7,) at mid-swing of the left leg (module docstring); base position at the origin."""
    from blocks.datasets import resolve_dataset

    data = resolve_dataset(dataset)
    ang = data.reference_angles()
    if ang is None:
        raise UserError(f"--method zn needs reference angles in dataset {dataset!r}")
    fy = data.grf[:, 1]
    swing = fy < 0.01 * float(np.max(np.abs(data.grf[:, 1] + data.grf[:, 3])))
    idx = np.flatnonzero(swing)
    if idx.size == 0:
        raise UserError(f"dataset {dataset!r}: the left foot is never in swing")
    gaps = np.flatnonzero(np.diff(idx) > 1)
    end = idx[gaps[0]] if gaps.size else idx[-1]
    mid = (idx[0] + end) // 2
    return np.concatenate([[0.0, 0.0], ang[mid]])


def zn_tune(diagram: Diagram, args: argparse.Namespace, plot: Path) -> tuple[dict[str, float], dict[str, Any]]:
    """Gains ``{"pid_hip.kp": ..., ...}`` and the report ``{"zn": {joint: {ku, tu, plant, gains}}}``."""
    from app.tuning.zn import simulate_p_loop

    q = mid_swing_pose(args.grf)
    params = diagram.model.biped_params()
    best: dict[str, float] = {}
    report: dict[str, Any] = {}
    curves = {}
    for joint, block in BLOCKS.items():
        plant = swing_joint_plant(params, q, joint, damping=args.zn_damping, tau_a=args.zn_lag, delay=args.zn_delay)
        up = plant.ultimate()
        gains = zn_table(up.ku, up.tu, args.zn_rule)
        for key, v in gains.items():
            spec = diagram.param_spec(f"{block}.{key}")
            best[f"{block}.{key}"] = float(min(max(v, spec.min or 0.0), spec.max or v))
        report[joint] = {"ku_nm_per_rad": up.ku, "tu_s": up.tu, "sweep_evaluations": up.evals, "gains": gains,
                         "plant": {"inertia_kgm2": plant.inertia, "gravity_stiffness_nm_per_rad": plant.stiffness,
                                   "damping_nms_per_rad": plant.damping, "actuator_lag_s": plant.tau_a,
                                   "delay_s": plant.delay}}
        a, b, c = plant.state_space()
        curves[joint] = simulate_p_loop(a, b, c, up.ku, delay=plant.delay, dt=1e-3, t_end=6 * up.tu)
        print(f"{joint}: Ku = {up.ku:.4g} N m/rad, Tu = {up.tu:.4g} s -> kp {gains['kp']:.4g}, ki {gains['ki']:.4g}, "
              f"kd {gains['kd']:.4g}")
    _plot(curves, plot)
    return best, {"zn": report, "zn_rule": args.zn_rule, "pose_q": q.tolist()}


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
