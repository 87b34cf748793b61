"""Walking metrics, the run's status and its force account, for ``summary.json`` and ``compare``.

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

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from blocks import Results
from blocks.library.context import biped_of
from models.biped import FiveLinkBiped
from models.force_account import force_account, height_account, residual, residual_moment, speed_account
from models.gait_metrics import walking_metrics

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
# what the ``recording`` block of summary.json holds: the same metrics on the recording itself
RECORDING_KEYS = ("trunk_deg", "knee_range_deg", "knee_deg", "stride_length_m", "com_height_m", "speed_m_s")
REQUIRED = ("q", "stance", "feet", "com", "tau")


def find_signals(results: Results) -> dict[str, np.ndarray]:
    """``role -> array`` for every role of :data:`ROLES` the run recorded; ``tau`` is the torque the body
    gets: the switch's plus what ``GrfMatch`` adds."""
    s = {role: results.signals[key] for role, key in ROLES.items() if key in results.signals}
    if "tau" in s and "match" in s:
        s["tau"] = s["tau"] + s["match"]
    return s


class Fall(NamedTuple):
    """When a walker fell [s] and which criterion said so, with the value that passed it."""

    at_s: float
    cause: str


_SIDES = ("left", "right")


def first_fall(t: np.ndarray, q: np.ndarray, hip: np.ndarray | None, leg_length: float | None,
               stance: np.ndarray | None = None) -> Fall | None:
    """The first fall (module docstring) and its cause, or None. ``stance`` (n, 2) flags [l, r] add the
    stance-shank criterion. When several criteria fire at the same tick the first of the docstring's
    list names the cause."""
    deg = np.degrees
    knee = q[:, 5:7]
    shank = q[:, 2:3] - q[:, 3:5] + knee  # absolute shank angle from vertical [rad], per leg
    lo, hi = deg(FALL_KNEE_RAD)
    # (mask (n,), value (n,), text of the value ``v``), in the docstring's order
    checks = [(np.abs(q[:, 2]) > FALL_ALPHA_RAD, deg(q[:, 2]), "the trunk tilted to {v:+.2f} deg (beyond 60 deg)")]
    if leg_length is not None and hip is not None:
        half = FALL_HIP_FRACTION * leg_length
        checks.append((hip[:, 1] < half, hip[:, 1],
                       f"the hip dropped to {{v:.3f}} m (below half the leg, {half:.3f} m)"))
    per_leg = [(np.abs(q[:, 3:5]) > FALL_JOINT_RAD, deg(q[:, 3:5]), "the {side} hip angle reached {v:+.0f} deg "
                "(past half a turn)"),
               (knee > FALL_KNEE_RAD[1], deg(knee), f"the {{side}} knee folded to {{v:.2f}} deg (beyond {hi:.0f} deg)"),
               (knee < FALL_KNEE_RAD[0], deg(knee), f"the {{side}} knee hyperextended to {{v:.2f}} deg "
                                                    f"(beyond {lo:.0f} deg)")]
    if stance is not None:
        per_leg.append(((np.abs(shank) > FALL_SHANK_RAD) & (stance > 0.5), deg(shank),
                        "the {side} stance shank tilted {v:+.0f} deg from vertical (past horizontal)"))
    for mask, value, text in per_leg:
        checks += [(mask[:, k], value[:, k], text.replace("{side}", side)) for k, side in enumerate(_SIDES)]
    firsts = [(int(np.argmax(mask)), j) for j, (mask, _, _) in enumerate(checks) if mask.any()]
    if not firsts:
        return None
    i, j = min(firsts)
    _, value, text = checks[j]
    return Fall(float(t[i]), text.format(v=value[i]))


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


def _account(t: np.ndarray, s: dict[str, np.ndarray], mass: float, g: float) -> dict[str, Any]:
    """``actuation`` and ``residual`` (:mod:`models.force_account`) from the walking diagram's signals."""
    stance = s["stance"] > 0.5
    legs = np.repeat(stance, 2, axis=1)[:, [0, 2, 1, 3]]  # [hip_l hip_r knee_l knee_r] -> its leg's flag
    tau = s["tau"]
    parts = {name: np.where(legs, s[role], 0.0) for name, role in
             (("estimator", "est"), ("trunk_balance", "trunk"), ("stance_damping", "damp"), ("grf_match", "match"))
             if role in s}
    if "ff" in s:
        parts["feedforward"] = np.where(legs, 0.0, s["ff"])
    for name, role in (("solved_feedforward", "solved_ff"), ("solved_pd", "solved_pd")):  # every joint, any phase
        if role in s and np.any(s[role]):
            parts[name] = s[role]
    # joint feedback: whatever the applied torque holds beyond the named sources
    named = np.zeros_like(tau)
    for part in parts.values():  # in place: the same sums as sum(parts.values(), zeros), no temporaries
        named += part
    parts["joint_feedback"] = np.subtract(tau, named, out=named)
    order = ("estimator", "joint_feedback", "trunk_balance", "feedforward", "stance_damping", "grf_match",
             "solved_feedforward", "solved_pd")
    torques = {k: parts[k] for k in order if k in parts}
    grf = s.get("grf")
    if grf is None:
        return {}
    corr = s.get("corr")
    mz = ground_moment(s)
    out: dict[str, Any] = {"actuation": force_account(t, stance, mass, g, grf, corr, torques, mz)}
    if corr is not None:
        contact = s.get("contact", s["feet"])
        moment = residual_moment(corr, contact, s["com"], mz)
        out["residual"] = residual(grf, corr, moment, float(np.mean(s["com"][:, 1])), mass)
    return out


def ground_moment(s: dict[str, np.ndarray]) -> np.ndarray | None:
    """(n, 2) N m: every ground moment on the stance shanks, the ankle block's CoP shift plus the trunk
    balance passed to the ground (``TrunkBalance`` ``route = ground``); None if neither was recorded."""
    parts = [s[k] for k in ("mz", "trunk_mz") if k in s]
    return sum(parts[1:], parts[0]) if parts else None


def walking_summary_from(results: Results, mass: float, leg_length: float | None = None,
                         g: float = 9.81, com_velocity: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
                         ) -> dict[str, Any]:
    """Status, walking metrics (up to a fall) and the force account; ``{}`` without walking signals.
    ``com_velocity(q, qd)``, the model's CoM velocity (2,) [m/s] in a state, adds the speed and height accounts."""
    s = find_signals(results)
    if any(role not in s for role in REQUIRED) or results.t.size < 2:
        return {}
    t = results.t
    fall = first_fall(t, s["q"], s.get("hip"), leg_length, s["stance"])
    fell = fall.at_s if fall else None
    status = run_status(results.status, s, fell)
    n = t.size if fell is None else max(int(np.searchsorted(t, fell, side="right")), 2)
    cut = {k: v[:n] for k, v in s.items()}
    q = cut["q"]
    q_ref = np.concatenate([q[:, :2], cut["ref"]], axis=1) if "ref" in cut else None
    # where the feet touch: the rolling contact coordinates (the foot points for point feet)
    feet = cut.get("contact", cut["feet"])
    out: dict[str, Any] = {"status": status, "fell_at_s": fell, "fell_because": fall.cause if fall else None,
                           "metrics_until_s": float(t[n - 1]),
                           "metrics_scope": "whole run" if fell is None else "up to the fall"}
    out.update(walking_metrics(t[:n], q, q_ref, cut["stance"] > 0.5, feet, cut["com"], cut["tau"], mass))
    weight = mass * g
    if "corr" in cut:
        corr = cut["corr"]
        net = corr[:, 0:2] + corr[:, 2:4]  # external; in double support the feet also push on each other
        out["contact_corr_bw_rms"] = {"x": float(np.sqrt(np.mean(net[:, 0] ** 2)) / weight),
                                      "y": float(np.sqrt(np.mean(net[:, 1] ** 2)) / weight),
                                      "per_foot_x": float(np.sqrt(np.mean(corr[:, [0, 2]] ** 2)) / weight)}
    mz = ground_moment(cut)
    if "cop" in cut and mz is not None:
        cop = np.abs(cut["cop"])[cut["stance"] > 0.5]  # the ankle block's own CoP shift
        out["cop_shift_m"] = {"rms": float(np.sqrt(np.mean(cop ** 2))) if cop.size else 0.0,
                              "max": float(cop.max()) if cop.size else 0.0}
        out["peak_ground_moment_nm_per_kg"] = float(np.abs(mz).max()) / mass
    out["com_height_m"] = float(np.mean(cut["com"][:, 1]))
    out.update(_account(t[:n], cut, mass, g))
    if com_velocity is not None and "qd" in cut and "grf" in cut:
        v0 = com_velocity(cut["q"][0], cut["qd"][0])
        floor = cut.get("corr")
        out["speed_account"] = speed_account(t[:n], cut["com"][:, 0], float(v0[0]), cut["grf"], floor, mass)
        out["height_account"] = height_account(t[:n], cut["com"][:, 1], float(v0[1]), cut["grf"], floor, mass, g)
    if "ref" in cut and "ref_feet" in cut and "ref_com" in cut:
        out["recording"] = recording_metrics(t[:n], cut, mass)
    return out


def recording_metrics(t: np.ndarray, s: dict[str, np.ndarray], mass: float) -> dict[str, Any]:
    """:data:`RECORDING_KEYS` of the recording over the same window: the reference angles, its
    footprints and its CoM (``ReferenceMotion``), with the run's stance phases (from the GRF).
    ``trunk_deg`` is None when the recording has no trunk angle (a marker set without a trunk
    marker is imported with alpha = 0 throughout): a range of 0..0 deg would read as a finding."""
    q_ref = np.concatenate([s["ref_com"][:, :2], s["ref"]], axis=1)
    m = walking_metrics(t, q_ref, None, s["stance"] > 0.5, s["ref_feet"], s["ref_com"][:, :2],
                        np.zeros((t.size, 4)), mass)
    m["com_height_m"] = float(np.mean(s["ref_com"][:, 1]))
    span = float(t[-1] - t[0])
    m["speed_m_s"] = float(s["ref_com"][-1, 0] - s["ref_com"][0, 0]) / span if span > 0 else None
    if not np.any(s["ref"][:, 0]):
        m["trunk_deg"] = None
    return {k: m[k] for k in RECORDING_KEYS}


def walking_summary(results: Results, built: Any) -> dict[str, Any]:
    """Metric hook of :mod:`app.runs` (``results`` carries the canonical names: :func:`app.signals.by_type`)."""
    bp = biped_of(built.model.ctx)
    body = FiveLinkBiped(bp)
    out = walking_summary_from(results, bp.total_mass, bp.leg_length, bp.g,
                               lambda q, qd: body.com_state(q, qd)[2:4])  # the preset: app.runs.applied_preset
    if out:
        from app.compare_report import labels
        from app.runs import applied_preset

        preset = applied_preset(built.spec)
        if preset:
            out["labels"] = labels(preset)  # input / solved / set-point / simulated, per metric
    return out
