"""``gaitblocks solve``: the periodic gait that a recording's GRF and CoP produce (posture solver).

Direct collocation over one gait cycle (:mod:`models.posture.solver`): the GRF and CoP of
``--grf`` and the swing hip and knee of ``--kinematics`` (default: the same recording) are the
only things read; trunk, stance leg, CoM, footprints, stride and speed are solved. Writes
``DIR/results.csv``, ``DIR/results.npz`` and ``DIR/summary.json`` (:mod:`app.posture`), and prints
a progress line per block of IPOPT iterations. Exit code 0 converged, 3 no periodic gait within
the residual limits or an implausible optimum, 1 solver failure, 2 bad input, 130 Ctrl+C (SIGINT:
IPOPT stops at its next iteration and nothing is written; a second Ctrl+C raises at once).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from app.commands.run import add_output_options, check_out_dir

HELP = ("solve the periodic five-link gait a recording's GRF and CoP produce (no trunk set-point); "
        "write results.csv, results.npz and summary.json")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_output_options(parser, "gaitblocks_solve")
    parser.add_argument("--grf", default="sneakers", metavar="NAME|FILE", help="the recording whose GRF and CoP drive")
    parser.add_argument("--kinematics", default=None, metavar="NAME|FILE",
                        help="a kinematics file of the same trial as --grf, or another dataset (name or "
                             "GRF|KINEMATICS pair) whose swing hip and knee to read by swing phase (default: the "
                             "GRF's own)")
    parser.add_argument("--mass", type=float, default=None, metavar="KG", help="subject mass (default: the file's)")
    parser.add_argument("--height", type=float, default=None, metavar="M", help="subject height (default: the file's)")
    parser.add_argument("--nodes", type=int, default=100, help="collocation nodes per cycle")
    parser.add_argument("--cycle", default="0", metavar="K|all",
                        help="which whole gait cycle (0 = the first), or 'all' (mean +/- SD over cycles)")
    parser.add_argument("--swing-reference", default="joint", choices=("joint", "segment", "foot"),
                        help="tracked in swing: joint = hip and knee flexion (the paper's PID), segment = thigh "
                             "and shank to the vertical, foot = the foot's path relative to the hip")
    parser.add_argument("--sigma-deg", type=float, default=0.5, help="swing tracking tolerance, deg")
    parser.add_argument("--mid-swing-only", action="store_true",
                        help="track the swing reference only at 30-70 %% of swing (not near landing)")
    parser.add_argument("--kinematics-only", action="store_true",
                        help="no dynamics in the objective (the identifiability check: what kinematics alone give)")
    parser.add_argument("--footprints", default="free", choices=("free", "cop"),
                        help="footprints free, or held at each stance's mean centre of pressure")
    parser.add_argument("--speed", default="free", metavar="free|trial|M_S",
                        help="walking speed: free (solved), trial (the recording's mean) or a number in m/s")
    parser.add_argument("--cop-shift", type=float, default=0.0, metavar="M",
                        help="move every recorded centre of pressure forward under its foot by this many metres")
    parser.add_argument("--propulsion", type=float, default=1.0, help="scale the recorded fore-aft GRF")
    parser.add_argument("--vertical", type=float, default=1.0, help="scale the recorded vertical GRF")
    parser.add_argument("--mass-gain", type=float, default=1.0, help="scale the model's body mass (GRF unchanged)")
    parser.add_argument("--trunk-com-shift", type=float, default=0.0, metavar="M",
                        help="move the trunk's centre of mass up the trunk by this many metres")
    parser.add_argument("--rra", action="store_true",
                        help="RRA-style: let the trunk's centre of mass move up to 3 cm along the trunk to reduce the "
                             "residual moment (the shift is reported)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")


def spec_from_args(args: argparse.Namespace) -> Any:
    from app.posture import SolveSpec
    from models.errors import UserError

    speed: float | str | None
    if args.speed == "free":
        speed = None
    elif args.speed == "trial":
        speed = "trial"
    else:
        try:
            speed = float(args.speed)
        except ValueError:
            raise UserError(f"--speed must be free, trial or a number of m/s, got {args.speed!r}") from None
    if args.cycle == "all":
        cycle = None
    else:
        try:
            cycle = int(args.cycle)
        except ValueError:
            raise UserError(f"--cycle must be a whole number or 'all', got {args.cycle!r}") from None
    return SolveSpec(kinematics=args.kinematics, nodes=args.nodes, cycle=cycle, swing_reference=args.swing_reference,
                     sigma_deg=args.sigma_deg, mid_swing_only=args.mid_swing_only, dynamics=not args.kinematics_only,
                     footprints=args.footprints, speed=speed, cop_shift_m=args.cop_shift,
                     propulsion_gain=args.propulsion, vertical_gain=args.vertical, mass_gain=args.mass_gain,
                     trunk_com_shift_m=args.trunk_com_shift, rra=args.rra)


def status_line(summary: dict[str, Any]) -> str:
    """One console line: status, posture, stride and the residual verdicts."""
    res = summary["residual"]
    trunk, stride = summary["trunk_mean_deg"], summary["stride_m"]
    sd = f" +/- {trunk['sd']:.2f}" if trunk["n"] > 1 else ""
    return (f"{summary['status']}: trunk mean {trunk['mean']:.2f}{sd} deg, range "
            f"{summary['trunk_range_deg']['mean']:.2f} deg, stride {stride['mean']:.3f} m, speed "
            f"{summary['speed_m_s']['mean']:.3f} m/s, stance knee peak "
            f"{summary['stance_knee_peak_deg']['mean']:.1f} deg; residual force {100 * res['force_ratio']:.2f} % "
            f"({res['force_verdict']}), moment {100 * res['moment_ratio']:.2f} % ({res['moment_verdict']}); "
            f"{summary['iterations']} iterations, {summary['solve_time_s']:.1f} s")


def run(args: argparse.Namespace) -> int:
    from app.interrupt import SigintFlag
    from app.posture import SolveInterrupted, write_outputs
    from app.runs import RunSpec, solve

    spec = spec_from_args(args)
    spec.check()
    check_out_dir(args.out, args.force, ("results.csv", "results.npz", "summary.json"))
    last = [-1]
    with SigintFlag() as sigint:
        def progress(stage: str, it: int, f: float, viol: float) -> bool:
            if not args.quiet and it // 10 != last[0]:
                last[0] = it // 10
                print(f"  {stage}: iteration {it}, objective {f:.4g}, constraint violation {viol:.1e}",
                      file=sys.stderr, flush=True)
            return sigint.raised

        try:
            result = solve(RunSpec(dataset=args.grf, mass=args.mass, height=args.height, solve=spec), progress=progress)
        except SolveInterrupted as exc:
            print(f"gaitblocks solve: {exc} (SIGINT); nothing written", file=sys.stderr)
            return 130

    write_outputs(result, Path(args.out))
    print(status_line(result.summary))
    if result.summary["status"] != "converged":
        print(f"  {result.summary['message']}")
    print(f"results in {args.out}")
    return {"converged": 0, "no_periodic_gait": 3, "implausible": 3}.get(result.summary["status"], 1)
