"""Write the bundled synthetic datasets: ``grf_data/<name>.csv`` plus a ``<name>.json`` sidecar.

One command regenerates all three (about 10-20 s each on one core)::

    python -m models.gaitgen                 # into grf_data/ (the package folder)
    python -m models.gaitgen --out DIR --only sneakers

The CSV has one header row of column names (:data:`COLUMNS`, units in ``grf_data/README.md``)
and values with 6 significant digits; swing-phase centres of pressure are ``nan``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from models.gaitgen.cycle import CycleModel, CycleSolution
from models.gaitgen.params import CONDITIONS, GENERATOR_VERSION, GaitParams
from models.params import BipedParams

FORMAT = "gaitblocks-synthetic-gait"
FORMAT_VERSION = 1
SUBJECT_HEIGHT_M = 1.66  # the paper's subject (Luxman & Zielinska 2017)

COLUMNS = ("time", "F_lx", "F_ly", "F_rx", "F_ry", "cop_lx", "cop_rx", "x0", "y0", "alpha", "beta_l", "beta_r",
           "gamma_l", "gamma_r", "tau_hip_l", "tau_hip_r", "tau_knee_l", "tau_knee_r")
UNITS = {"time": "s", "F_lx": "N", "F_ly": "N", "F_rx": "N", "F_ry": "N", "cop_lx": "m", "cop_rx": "m",
         "x0": "m", "y0": "m", "alpha": "rad", "beta_l": "rad", "beta_r": "rad", "gamma_l": "rad",
         "gamma_r": "rad", "tau_hip_l": "N m", "tau_hip_r": "N m", "tau_knee_l": "N m", "tau_knee_r": "N m"}

CITATIONS = [
    "Luxman R, Zielinska T (2017) Robot motion synthesis using ground reaction forces pattern: analysis of "
    "walking posture. Int J Adv Robotic Systems 14(4). doi:10.1177/1729881417720873",
    "Stefanyshyn DJ, Nigg BM, Fisher V, O'Flynn B, Liu W (2000) The influence of high heeled shoes on "
    "kinematics, kinetics, and muscle EMG of normal female gait. J Appl Biomech 16(3):309-319",
    "Simonsen EB et al. (2012) Walking on high heels changes muscle activity and the dynamics of human "
    "walking significantly. J Appl Biomech 28(1):20-28",
    "Cronin NJ (2014) The effects of high heeled shoes on female gait: a review. "
    "J Electromyogr Kinesiol 24(2):258-263",
    "Lieberman DE et al. (2010) Foot strike patterns and collision forces in habitually barefoot versus "
    "shod runners. Nature 463:531-535",
    "Franklin S, Grey MJ, Heneghan N, Bowen L, Li FX (2015) Barefoot vs common footwear: a systematic "
    "review of the kinematic, kinetic and muscle activity differences during walking. Gait Posture 42(3):230-239",
    "Hollander K et al. (2017) Growing-up (habitually) barefoot influences the development of foot and "
    "arch morphology in children and adolescents. Sci Rep 7:8079",
]


def tile(sol: CycleSolution, gait: GaitParams) -> dict[str, np.ndarray]:
    """Repeat the cycle ``gait.n_cycles`` times (plus the closing sample) as named columns."""
    n = sol.t.shape[0]
    total = gait.n_cycles * n + 1
    idx = np.arange(total)
    j, k = idx % n, idx // n
    shift = gait.stride_m * k
    q = sol.q[j].copy()
    q[:, 0] += shift
    grf = sol.grf[j]
    feet_x = sol.feet[j, :, 0] + shift[:, None]
    cop = np.where(np.column_stack([grf[:, 1], grf[:, 3]]) > 0.0, feet_x, np.nan)
    cols = {"time": idx / gait.rate_hz}
    cols.update(dict(zip(COLUMNS[1:5], grf.T)))
    cols["cop_lx"], cols["cop_rx"] = cop[:, 0], cop[:, 1]
    cols.update(dict(zip(COLUMNS[7:14], q.T)))
    cols.update(dict(zip(COLUMNS[14:18], sol.tau[j].T)))
    return cols


def metadata(gait: GaitParams, sol: CycleSolution, params: BipedParams) -> dict[str, Any]:
    """JSON sidecar content: provenance, parameters and the consistency figures of the cycle."""
    mass = params.total_mass
    bw = mass * params.g
    ss = (sol.grf[:, 1] > 0) != (sol.grf[:, 3] > 0)
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "name": gait.name, "footwear": gait.footwear,
        "description": gait.description, "synthetic": True,
        "generator": {"name": "models.gaitgen", "version": GENERATOR_VERSION,
                      "command": "python -m models.gaitgen"},
        "parameters": gait.to_dict(),
        "body_mass_kg": mass, "height_m": SUBJECT_HEIGHT_M, "model": "BipedParams.paper()",
        "rate_hz": gait.rate_hz, "n_cycles": gait.n_cycles, "duration_s": gait.n_cycles * gait.period_s,
        "period_s": gait.period_s, "cadence_spm": 120.0 / gait.period_s, "speed_m_s": gait.speed_m_s,
        "stride_m": gait.stride_m,
        "derived": {
            "valley_bw": sol.shape.valley, "com_mean_height_m": sol.y_mean,
            "alpha_row_residual_rms_nm": float(np.sqrt(np.mean(sol.residual[:, 2] ** 2))),
            "alpha_row_residual_single_support_rms_nm": float(np.sqrt(np.mean(sol.residual[ss, 2] ** 2))),
            "alpha_row_residual_max_nm": float(np.max(np.abs(sol.residual[:, 2]))),
            "peak_torque_nm_per_kg": {"hip": float(np.max(np.abs(sol.tau[:, :2])) / mass),
                                      "knee": float(np.max(np.abs(sol.tau[:, 2:])) / mass)},
            "mean_vertical_bw": float(np.mean(sol.grf[:, 1] + sol.grf[:, 3]) / bw),
            "mean_fore_aft_bw": float(np.mean(sol.grf[:, 0] + sol.grf[:, 2]) / bw),
            "fourier_coefficients": [float(c) for c in sol.coefficients],
        },
        "initial_q": [float(v) for v in sol.q[0]], "initial_qd": [float(v) for v in sol.qd[0]],
        "columns": [{"name": c, "unit": UNITS[c]} for c in COLUMNS],
        "licence": "MIT (the gaitblocks project's own licence); synthetic data, no recorded subject",
        "source": "synthetic: models.gaitgen (kinematics first, GRF from the model's inverse dynamics)",
        "citations": CITATIONS,
    }


def build(gait: GaitParams, params: BipedParams | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """Solve one condition: ``(columns, sidecar)``."""
    pr = params if params is not None else BipedParams.paper()
    sol = CycleModel(gait, pr).solve()
    return tile(sol, gait), metadata(gait, sol, pr)


def write(gait: GaitParams, out_dir: Path) -> tuple[Path, Path]:
    """Solve ``gait`` and write ``<name>.csv`` and ``<name>.json`` into ``out_dir``; returns both paths."""
    cols, meta = build(gait)
    return save(gait.name, cols, meta, out_dir)


def save(name: str, cols: dict[str, np.ndarray], meta: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    """Write the columns of :func:`tile` and the sidecar of :func:`metadata` as ``<name>.csv`` and
    ``<name>.json`` into ``out_dir``; returns both paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = out_dir / f"{name}.csv", out_dir / f"{name}.json"
    table = np.column_stack([cols[c] for c in COLUMNS])
    np.savetxt(csv_path, table, fmt="%.6g", delimiter=",", header=",".join(COLUMNS), comments="")
    json_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return csv_path, json_path


def default_out_dir() -> Path:
    import grf_data

    return Path(grf_data.__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m models.gaitgen",
                                     description="Regenerate the bundled synthetic footwear datasets.")
    parser.add_argument("--out", type=Path, default=None, help="output folder (default: the grf_data package)")
    parser.add_argument("--only", nargs="+", choices=sorted(CONDITIONS), default=None, help="conditions to write")
    args = parser.parse_args(argv)
    out = args.out if args.out is not None else default_out_dir()
    for name in args.only or list(CONDITIONS):
        csv_path, _ = write(CONDITIONS[name], out)
        print(f"wrote {csv_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
