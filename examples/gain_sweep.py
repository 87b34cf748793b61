"""A gain sweep from Python: the knee PID's kp on the bundled ``sneakers`` set, in parallel.

Each point is a :class:`app.runs.RunSpec` (the default diagram and the ``tracking`` preset with one
parameter set); the executor (:mod:`blocks.executors`) runs them in worker processes and
:func:`app.tuning.worker.run_one` turns each summary into a flat row, as ``gaitblocks sweep`` does.

Run:  python examples/gain_sweep.py
"""

from __future__ import annotations

from app.runs import RunSpec
from app.tuning.worker import run_one
from blocks.executors import make_executor

KP = (50.0, 200.0, 800.0, 3200.0)  # N m/rad


def sweep(kps: tuple[float, ...] = KP, seconds: float = 2.0, workers: int = 2) -> list[dict]:
    base = RunSpec(dataset="sneakers", preset="tracking", duration=seconds, settings=(("est.gain", 0.0),))
    specs = [base.with_settings(("pid_knee.kp", kp)) for kp in kps]
    with make_executor("process", workers) as ex:
        return ex.map(run_one, specs)


def main() -> None:
    print("pid_knee.kp [N m/rad]  status  RMS knee L/R [deg]  peak knee torque [N m/kg]")
    for row in sweep():
        print(f"{row['pid_knee.kp']:>20.0f}  {row['status']:>6}  {row['rms_deg.knee_l']:8.2f} / "
              f"{row['rms_deg.knee_r']:5.2f}  {row['peak_torque_nm_per_kg.knee']:10.2f}")


if __name__ == "__main__":
    main()
