"""A walking run's status (its falls), the status texts, and the walking keys' metric hook for ``summary.json``
and ``compare`` (:func:`walking_summary`; the metrics and the force account of many copies at once are
:mod:`app.walking_summary`'s).

Signals are read by their canonical names (``body.q``, ``est.tau``, ...: the first block of
each type in :data:`app.signals.CANONICAL`, whatever it is called; :func:`app.signals.by_type`), so a
renamed block changes nothing. A diagram without the walking signals gets no walking keys.

Status (:func:`run_status`): ``failed`` if the engine stopped (non-finite value) or the state blew up
(the height or an angle beyond :data:`BLOWUP`; not the forward position ``x0``, which walking moves on
without bound: 2.4 km in an hour at 0.67 m/s); ``fell`` at the first time (``fell_at_s``;
``fell_because`` names the criterion and the value that passed it, :func:`first_fall`)

* the trunk tilts beyond 60 deg,
* the hip drops below half the leg length,
* a hip angle passes half a turn,
* a knee flexes beyond 160 deg (past the human knee's passive range) or hyperextends beyond
  30 deg: the leg has folded, or
* the shank of a leg in stance tilts past horizontal (90 deg from vertical): its foot has rolled
  a quarter turn and no longer stands on the ground (a rolling foot, ``foot_radius > 0``, can
  otherwise roll on while the recorded GRF still pushes on it);

else ``ok``. A walker whose legs fold or spin has fallen even with an upright trunk. The walking
metrics of a fallen run are computed up to the fall only (``metrics_until_s``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from blocks import Results
from blocks.library.context import biped_of
from models.biped import FiveLinkBiped

if TYPE_CHECKING:
    from app.run_summary import ResultsBatch

FALL_ALPHA_RAD = np.radians(60.0)  # a trunk tilted beyond 60 deg has fallen
FALL_HIP_FRACTION = 0.5  # ... and so has a hip below half the leg length
FALL_JOINT_RAD = np.radians(180.0)  # ... and a leg that has spun past half a turn at the hip
FALL_KNEE_RAD = (np.radians(-30.0), np.radians(160.0))  # ... or folded at the knee (flexion gamma outside this)
FALL_SHANK_RAD = np.radians(90.0)  # ... or whose stance shank tilts past horizontal
BLOWUP = 1e3  # |q[1:]| beyond this (m or rad) is a numerical blow-up, not a fall

# role -> canonical signal (app.signals.CANONICAL names the block types)
ROLES: dict[str, str] = {
    "q": "body.q", "qd": "body.qd", "stance": "phase.stance", "feet": "kin.feet", "contact": "kin.contact",
    "com": "kin.com", "hip": "kin.hip", "tau": "switch.tau", "ref": "ref.angles", "grf": "grf.F",
    "corr": "contact.corr",
    "est": "est.tau", "trunk": "trunk.tau", "damp": "stance_damp.tau", "ff": "ref_motion.tau", "cop": "ankle.cop",
    "mz": "ankle.mz", "trunk_mz": "trunk.mz", "ref_feet": "ref_motion.feet", "ref_com": "ref_motion.com",
    "match": "grf_match.dtau", "solved_ff": "solved.tau_ff", "solved_pd": "solved.tau_pd",
}
REQUIRED = ("q", "stance", "feet", "com", "tau")


def find_signals(signals: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``role -> array`` for every role of :data:`ROLES` in ``signals`` (canonical names; a run's, or a
    batch's with a leading copy axis); ``tau`` is the torque the body gets: the switch's plus what
    ``GrfMatch`` adds."""
    s = {role: signals[key] for role, key in ROLES.items() if key in signals}
    if "tau" in s and "match" in s:
        s["tau"] = s["tau"] + s["match"]
    return s


class Fall(NamedTuple):
    """When a walker fell [s] and which criterion said so, with the value that passed it."""

    at_s: float
    cause: str


_SIDES = ("left", "right")


def first_falls(t: np.ndarray, q: np.ndarray, hip: np.ndarray | None, leg_length: float | None,
                stance: np.ndarray | None = None, lengths: Sequence[int] | None = None) -> list[Fall | None]:
    """The first fall (module docstring) and its cause of each of ``G`` copies, or None: ``t`` (T,) s,
    ``q`` (G, T, 7), ``hip`` (G, T, 2), ``stance`` (G, T, 2) flags [l, r] (adds the stance-shank
    criterion); copy ``j`` is read up to ``lengths[j]`` rows (default all). When several criteria fire
    at the same tick the first of the docstring's list names the cause."""
    deg = np.degrees
    knee = q[..., 5:7]
    shank = q[..., 2:3] - q[..., 3:5] + knee  # absolute shank angle from vertical [rad], per leg
    lo, hi = deg(FALL_KNEE_RAD)
    # (mask (G, T), value (G, T), text of the value ``v``), in the docstring's order
    checks = [(np.abs(q[..., 2]) > FALL_ALPHA_RAD, q[..., 2], True,
               "the trunk tilted to {v:+.2f} deg (beyond 60 deg)")]
    if leg_length is not None and hip is not None:
        half = FALL_HIP_FRACTION * leg_length
        checks.append((hip[..., 1] < half, hip[..., 1], False,
                       f"the hip dropped to {{v:.3f}} m (below half the leg, {half:.3f} m)"))
    per_leg = [(np.abs(q[..., 3:5]) > FALL_JOINT_RAD, q[..., 3:5], "the {side} hip angle reached {v:+.0f} deg "
                "(past half a turn)"),
               (knee > FALL_KNEE_RAD[1], knee, f"the {{side}} knee folded to {{v:.2f}} deg (beyond {hi:.0f} deg)"),
               (knee < FALL_KNEE_RAD[0], knee, f"the {{side}} knee hyperextended to {{v:.2f}} deg "
                                               f"(beyond {lo:.0f} deg)")]
    if stance is not None:
        per_leg.append(((np.abs(shank) > FALL_SHANK_RAD) & (stance > 0.5), shank,
                        "the {side} stance shank tilted {v:+.0f} deg from vertical (past horizontal)"))
    for mask, value, text in per_leg:
        checks += [(mask[..., k], value[..., k], True, text.replace("{side}", side)) for k, side in enumerate(_SIDES)]
    masks = np.stack([mask for mask, _, _, _ in checks])  # (C, G, T)
    if lengths is not None:
        masks &= np.arange(masks.shape[-1]) < np.asarray(lengths)[:, None]
    hit = np.asarray(masks.any(axis=-1))  # (C, G)
    first = np.where(hit, masks.argmax(axis=-1), masks.shape[-1])
    out: list[Fall | None] = []
    for j in range(masks.shape[1]):
        if not hit[:, j].any():
            out.append(None)
            continue
        c = int(np.argmin(first[:, j]))  # the earliest tick; at a tie, the first criterion
        i = int(first[c, j])
        _, value, angle, text = checks[c]
        v = float(value[j, i])
        out.append(Fall(float(t[i]), text.format(v=deg(v) if angle else v)))
    return out


def first_fall(t: np.ndarray, q: np.ndarray, hip: np.ndarray | None, leg_length: float | None,
               stance: np.ndarray | None = None) -> Fall | None:
    """The first fall (module docstring) and its cause, or None, of one run: ``t`` (n,) s, ``q`` (n, 7),
    ``hip`` (n, 2), ``stance`` (n, 2) flags [l, r] (adds the stance-shank criterion); :func:`first_falls`."""
    return first_falls(t, q[None], None if hip is None else hip[None], leg_length,
                       None if stance is None else stance[None])[0]


FALL_MARGIN_S = 0.1  # a run stopped at a fall runs on this long past it [s], so that the fallen pose shows


class FallWatch:
    """The fall criteria (:func:`first_fall`) on a running recorder: where a run stops at a fall
    (:func:`fall_stop` for :meth:`blocks.runner.Runner.run`; the GUI session per frame).

    ``q``, ``hip`` and ``stance`` are the recorded names of the body state, hip point and stance
    flags (None: that criterion is left out); ``leg_length`` [m] of the model."""

    def __init__(self, q: str, hip: str | None, stance: str | None, leg_length: float | None) -> None:
        self.q, self.hip, self.stance, self.leg_length = q, hip, stance, leg_length

    @classmethod
    def of(cls, built: Any) -> FallWatch | None:
        """The watch of a built run (:class:`app.runs.Built`); None when it records no body state."""
        from app.signals import find_signal

        columns = built.runner.recorder.columns
        q = find_signal(built.diagram, "FiveLinkDynamics", "q", columns)
        if q is None:
            return None
        return cls(q, find_signal(built.diagram, "BipedKinematics", "hip", columns),
                   find_signal(built.diagram, "PhaseDetector", "stance", columns), biped_of(built.model.ctx).leg_length)

    def fall_since(self, recorder: Any, tick: int) -> Fall | None:
        """The first fall among the rows a :class:`~blocks.recorder.Recorder` holds from ``tick`` on."""
        i = int(np.searchsorted(recorder.ticks[: recorder.length], tick, side="left"))
        if i >= recorder.length:
            return None
        q = recorder.view(self.q)[i:]
        hip = recorder.view(self.hip)[i:] if self.hip else None
        if not self._may_have_fallen(q, hip):
            return None
        stance = recorder.view(self.stance)[i:] if self.stance else None
        return first_fall(recorder.time()[i:], q, hip, self.leg_length, stance)

    def _may_have_fallen(self, q: np.ndarray, hip: np.ndarray | None) -> bool:
        """A cheap superset of :func:`first_fall`'s criteria (the shank's without its stance flag): a
        GUI frame checks every 50 ms of its run, and :func:`first_fall` costs 0.25 ms even on 5 rows."""
        lo, hi = FALL_KNEE_RAD
        knee = q[:, 5:7]
        shank = q[:, 2:3] - q[:, 3:5] + knee
        return bool(np.abs(q[:, 2]).max() > FALL_ALPHA_RAD or np.abs(q[:, 3:5]).max() > FALL_JOINT_RAD
                    or knee.min() < lo or knee.max() > hi or np.abs(shank).max() > FALL_SHANK_RAD
                    or (hip is not None and self.leg_length is not None
                        and hip[:, 1].min() < FALL_HIP_FRACTION * self.leg_length))


def fall_stop(built: Any) -> Callable[[Any, int], float | None] | None:
    """A stop check for :meth:`blocks.runner.Runner.run`: the end time :data:`FALL_MARGIN_S` after the
    first fall; None when the run records no body state."""
    watch = FallWatch.of(built)
    if watch is None:
        return None

    def stop(runner: Any, tick: int) -> float | None:
        fall = watch.fall_since(runner.recorder, tick)
        return None if fall is None else fall.at_s + FALL_MARGIN_S

    return stop


def run_status(engine_status: str, sig: dict[str, np.ndarray], fell_at: float | None) -> str:
    """``ok``, ``fell`` or ``failed`` (module docstring)."""
    if engine_status != "ok":
        return "failed"
    q = sig.get("q")
    if q is not None and (not np.all(np.isfinite(q)) or np.abs(q[:, 1:]).max(initial=0.0) > BLOWUP):
        return "failed"
    return "fell" if fell_at is not None else "ok"


#: a run whose mean speed is off the recording's by more than this fraction reads "ok (poor fit: ...)"
SPEED_OFF_FRACTION = 0.20


def fit_problems(summary: dict[str, Any]) -> list[str]:
    """Why an ``ok`` run does not reproduce its recording, each as a short phrase (empty: no reason found).

    * the residual verdict (:func:`models.force_account.verdict`) is ``poor``;
    * the mean speed (``speed_account.mean_m_s``) is off the recording's (``recording.speed_m_s``, m/s)
      by more than :data:`SPEED_OFF_FRACTION`.
    """
    out: list[str] = []
    res = summary.get("residual") or {}
    if res.get("verdict") == "poor":
        out.append(f"residual {100 * float(res.get('fraction', float('nan'))):.0f} % of peak GRF")
    run_v = (summary.get("speed_account") or {}).get("mean_m_s")
    rec_v = (summary.get("recording") or {}).get("speed_m_s")
    if run_v is not None and rec_v is not None and abs(rec_v) > 1e-3 \
            and abs(run_v - rec_v) > SPEED_OFF_FRACTION * abs(rec_v):
        out.append(f"speed {run_v:.2f} m/s against {rec_v:.2f} m/s recorded")
    return out


def status_text(summary: dict[str, Any]) -> str:
    """``ok``, ``ok (poor fit: residual 38 % of peak GRF, speed 0.25 m/s against 0.99 m/s recorded)``,
    ``ok (no whole gait cycle)``, ``FELL at 0.84 s: the right knee hyperextended to -31.2 deg (beyond -30 deg)``
    or ``FAILED: reason``: the first thing a user reads, on the console, in the GUI status bar and in tuning
    rows (:func:`fit_problems` says when an ``ok`` run is a poor fit; ``cycles_completed`` 0 says it held no
    whole gait cycle)."""
    status = summary.get("status", "")
    if status == "fell":
        cause = summary.get("fell_because")
        return f"FELL at {summary.get('fell_at_s', float('nan')):.2f} s" + (f": {cause}" if cause else "")
    if status == "failed":
        return f"FAILED: {summary.get('message') or 'the state blew up (non-finite or beyond 1e3)'}"
    if status == "ok":
        problems = fit_problems(summary)
        notes = [f"poor fit: {', '.join(problems)}"] if problems else []
        if summary.get("cycles_completed") == 0:
            notes.append("no whole gait cycle")
        if notes:
            return f"ok ({'; '.join(notes)})"
    return str(status)


def speed_text(summary: dict[str, Any]) -> str | None:
    """``mean speed 0.729 m/s = initial 0.750 -0.064 recorded GRF +0.043 floor`` (``speed_account``), or None."""
    speed = summary.get("speed_account")
    if not speed:
        return None
    return (f"mean speed {speed['mean_m_s']:.3f} m/s = initial {speed['initial_m_s']:.3f} "
            f"{speed['recorded_grf_m_s']:+.3f} recorded GRF {speed['residual_m_s']:+.3f} floor")


def walking_summary(results: Results, built: Any) -> dict[str, Any]:
    """Metric hook of :mod:`app.runs` (``results`` carries the canonical names: :func:`app.signals.by_type`)."""
    return walking_summary_many(ResultsBatch.of([results]), built)[0]


def walking_summary_many(batch: ResultsBatch, built: Any) -> list[dict[str, Any]]:
    """The metric hook's batch form (:func:`app.run_summary.register_metric`): every copy of ``batch`` at once
    (:func:`app.walking_summary.walking_summary_batch`), plus the preset's ``labels``."""
    from app.walking_summary import walking_summary_batch

    bp = biped_of(built.model.ctx)
    body = FiveLinkBiped(bp)
    out = walking_summary_batch(batch.t, batch.signals, batch.lengths, batch.statuses, bp.total_mass,
                                bp.leg_length, bp.g, lambda q, qd: body.com_state(q, qd)[2:4])
    from app.compare_report import labels
    from app.run_summary import applied_preset

    preset = applied_preset(built.spec)  # the same for every copy: a batch shares its spec but the settings
    if preset:
        marks = labels(preset)  # input / solved / set-point / simulated, per metric
        for o in out:
            if o:
                o["labels"] = marks
    return out
