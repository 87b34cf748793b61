r"""Recursive planar inverse dynamics of a segment chain (Winter's method), vectorised over time.

The chain is solved from the distal end (the foot, loaded by the ground reaction force at
the centre of pressure) to the proximal joints, one rigid segment at a time (Winter 2009,
ch. 5; Duarte, BMC notebook "GaitAnalysis2D"; van den Bogert, ISB inverse-dynamics data).

Sign conventions
----------------
World frame x forward, y up, gravity ``(0, -g)``; the 2-D cross product is
``a x b = a_x b_y - a_y b_x``; moments and angular accelerations are counter-clockwise
positive (seen with x to the right and y up).

For each segment (mass ``m`` [kg], central inertia ``I`` [kg m^2], CoM ``r`` [m], CoM
acceleration ``a`` [m s^-2], angular acceleration ``alpha`` [rad s^-2]) the distal load
``(F_d, M_d)`` acts *on the segment* at the point ``r_d`` and the unknown proximal load
``(F_p, M_p)`` acts *on the segment* at its proximal joint ``r_p``, from the proximal
neighbour. Newton-Euler about the CoM:

.. math::

    F_p = m a - F_d - m g_{vec}, \qquad
    M_p = I \alpha - M_d - (r_d - r) \times F_d - (r_p - r) \times F_p .

Going up the chain, the next segment's distal load is ``(-F_p, -M_p)`` (action-reaction).
For a limb walking in +x, ``M_p`` > 0 is a hip *flexor* moment on the thigh, a knee
*extensor* moment on the shank and an ankle *dorsiflexor* moment on the foot; ``F_p`` is
the resultant joint force on the distal segment (N), not a joint contact force.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

G_STANDARD = 9.81  # m s^-2, as in models.params
WINTER_DUAL_PASS = 0.802  # cut-off correction of a dual-pass 2nd-order Butterworth filter (Winter 2009)


def cross2(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a_x b_y - a_y b_x`` over the last axis, shape ``(...)``."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def second_difference(x: np.ndarray, dt: float) -> np.ndarray:
    """Compact central second derivative ``(x[i+1] - 2 x[i] + x[i-1]) / dt^2`` along axis 0.

    The three-point stencil (not ``np.gradient`` twice, which is five points wide) keeps a
    kink in the motion (foot sticking after slipping) from smearing into its neighbours.
    The end samples copy their neighbours.
    """
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    out[1:-1] = (x[2:] - 2.0 * x[1:-1] + x[:-2]) / dt**2
    out[0], out[-1] = out[1], out[-2]
    return out


_FilterState = tuple[float, np.ndarray, np.ndarray, np.ndarray]


def _butter2_pass(t: np.ndarray, x: np.ndarray, f0: float, state: _FilterState | None = None,
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, _FilterState]:
    """One pass of the 2nd-order Butterworth ``y'' + b y' + a y = a x`` (trapezoidal rule).

    Handles uneven time stamps. Without ``state`` the filter starts at ``y = x[0]``,
    ``y' = 0``; with ``state = (t, x, y, y')`` of a previous sample it continues from there.
    Returns ``y, y', y''`` and the final state.
    """
    a = (2.0 * np.pi * f0) ** 2
    b = np.sqrt(2.0) * 2.0 * np.pi * f0
    y = np.empty_like(x)
    yd = np.zeros_like(x)
    ydd = np.zeros_like(x)
    if state is None:
        y[0] = x[0]
        tp, xp, yp, ydp = float(t[0]), x[0], y[0], yd[0]
        first = 1
    else:
        (tp, xp, yp, ydp), first = state, 0
    for i in range(first, x.shape[0]):
        h = t[i] - tp
        den = 4.0 + 2.0 * h * b + h * h * a
        xm = 0.5 * (x[i] + xp)
        y[i] = ((4.0 + 2.0 * h * b - h * h * a) * yp + 4.0 * h * ydp + 2.0 * h * h * a * xm) / den
        yd[i] = (-4.0 * h * a * yp + (4.0 - 2.0 * h * b - h * h * a) * ydp + 4.0 * h * a * xm) / den
        ydd[i] = (yd[i] - ydp) / h
        tp, xp, yp, ydp = float(t[i]), x[i], y[i], yd[i]
    return y, yd, ydd, (tp, xp, yp, ydp)


def winter_lowpass(t: np.ndarray, x: np.ndarray, cutoff: float,
                   start: str = "reset") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Zero-lag low-pass filter with derivatives, as in Winter's and van den Bogert's method.

    A 2nd-order Butterworth ``y'' + \sqrt2 \omega y' + \omega^2 y = \omega^2 x`` with
    ``\omega = 2 \pi f_c / 0.802`` is integrated with the trapezoidal rule backwards and then
    forwards in time (the 0.802 factor restores the cut-off of the dual pass, Winter 2009,
    section 3.4.4). The forward pass also yields the first and second derivatives from the
    filter state (``y''`` is the backward difference of ``y'``). This is the method of
    ``myfiltfilt.m``/``rtfilter.m`` in csu-hmc/GaitAnalysisToolKit, written here from its
    description.

    Parameters
    ----------
    t : (N,) array
        Increasing time stamps [s]; uneven steps are allowed (gaps of missing samples).
    x : (N, ...) array
        Signals along axis 0.
    cutoff : float
        Cut-off frequency [Hz].
    start : {"reset", "continue"}
        ``"reset"`` starts each pass at rest on its first input sample. ``"continue"`` lets
        the forward pass carry on from the backward pass's final state, across a time step
        of ``2 t[0]``, as the toolkit's persistent real-time filter does; it is kept only to
        reproduce the toolkit's reference numbers (its first ~0.15 s are a start-up transient).

    Returns
    -------
    y, yd, ydd : arrays shaped like ``x``
        Filtered signal, its first [1/s] and second [1/s^2] time derivatives.
    """
    t = np.asarray(t, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    if not np.all(np.diff(t) > 0):
        raise ValueError("winter_lowpass: time stamps must be strictly increasing")
    if start not in ("reset", "continue"):
        raise ValueError(f"winter_lowpass: start must be 'reset' or 'continue', got {start!r}")
    f0 = cutoff / WINTER_DUAL_PASS
    back, _, _, state = _butter2_pass(-t[::-1], x[::-1], f0)
    y, yd, ydd, _ = _butter2_pass(t, back[::-1], f0, state if start == "continue" else None)
    return y, yd, ydd


@dataclass(frozen=True)
class SegmentMotion:
    """Kinematics and inertia of one segment over ``N`` samples (world frame, SI units).

    Attributes
    ----------
    mass : float
        [kg].
    inertia : float
        About the CoM [kg m^2].
    com : (N, 2) array
        CoM position [m].
    com_acc : (N, 2) array
        CoM acceleration [m s^-2].
    ang_acc : (N,) array
        Counter-clockwise angular acceleration [rad s^-2].
    proximal : (N, 2) array
        Proximal joint centre [m].
    distal : (N, 2) array
        Distal joint centre [m] (for the foot: unused, the ground load has its own point).
    """

    mass: float
    inertia: float
    com: np.ndarray
    com_acc: np.ndarray
    ang_acc: np.ndarray
    proximal: np.ndarray
    distal: np.ndarray


def segment_angle(proximal: np.ndarray, distal: np.ndarray) -> np.ndarray:
    """Counter-clockwise angle of the vector proximal -> distal from +x [rad], unwrapped, (N,)."""
    r = np.asarray(distal, dtype=np.float64) - np.asarray(proximal, dtype=np.float64)
    return np.unwrap(np.arctan2(r[:, 1], r[:, 0]))


def motion_from_joints(proximal: np.ndarray, distal: np.ndarray, com_fraction: float, mass: float,
                       inertia: float, dt: float) -> SegmentMotion:
    """:class:`SegmentMotion` from sampled joint centres (uniform step ``dt`` [s]).

    The CoM lies at ``proximal + com_fraction (distal - proximal)``; accelerations come from
    :func:`second_difference` (use noise-free or pre-filtered positions).
    """
    proximal = np.asarray(proximal, dtype=np.float64)
    distal = np.asarray(distal, dtype=np.float64)
    com = proximal + com_fraction * (distal - proximal)
    ang = segment_angle(proximal, distal)
    return SegmentMotion(mass, inertia, com, second_difference(com, dt), second_difference(ang, dt),
                         proximal, distal)


def segment_inverse_dynamics(seg: SegmentMotion, force_distal: np.ndarray, point_distal: np.ndarray,
                             moment_distal: np.ndarray | float = 0.0,
                             g: float = G_STANDARD) -> tuple[np.ndarray, np.ndarray]:
    """Proximal joint load of one segment (see the module equations).

    Parameters
    ----------
    seg : SegmentMotion
    force_distal : (N, 2) array
        Force on the segment at ``point_distal`` [N].
    point_distal : (N, 2) array
        Where it acts [m] (the CoP for the foot, the distal joint otherwise).
    moment_distal : (N,) array or float
        Free moment on the segment [N m], counter-clockwise positive.
    g : float
        Gravity [m s^-2].

    Returns
    -------
    force_proximal : (N, 2) array
        Force on the segment at its proximal joint from the proximal neighbour [N].
    moment_proximal : (N,) array
        Moment on the segment from the proximal neighbour [N m], counter-clockwise positive.
    """
    f_d = np.asarray(force_distal, dtype=np.float64)
    weight = np.array([0.0, -g * seg.mass])
    f_p = seg.mass * seg.com_acc - f_d - weight
    m_p = (seg.inertia * seg.ang_acc - moment_distal - cross2(np.asarray(point_distal) - seg.com, f_d)
           - cross2(seg.proximal - seg.com, f_p))
    return f_p, m_p


def chain_inverse_dynamics(segments: Sequence[SegmentMotion], grf: np.ndarray, cop: np.ndarray,
                           free_moment: np.ndarray | float = 0.0,
                           g: float = G_STANDARD) -> list[tuple[np.ndarray, np.ndarray]]:
    """Solve a chain from the ground up: ``segments`` ordered distal first (foot, shank, thigh).

    Parameters
    ----------
    segments : sequence of SegmentMotion
        Distal to proximal; segment ``k``'s distal joint is segment ``k-1``'s proximal joint.
    grf : (N, 2) array
        Ground reaction force on the first segment [N].
    cop : (N, 2) array
        Its point of application [m] (the centre of pressure, or any point with the matching
        ``free_moment``).
    free_moment : (N,) array or float
        Ground moment about ``cop`` [N m], counter-clockwise positive.

    Returns
    -------
    list of (force (N, 2), moment (N,))
        Proximal joint load on each segment, in the order given (ankle, knee, hip).
    """
    out: list[tuple[np.ndarray, np.ndarray]] = []
    force, point, moment = np.asarray(grf, dtype=np.float64), np.asarray(cop, dtype=np.float64), free_moment
    for seg in segments:
        f_p, m_p = segment_inverse_dynamics(seg, force, point, moment, g)
        out.append((f_p, m_p))
        force, point, moment = -f_p, seg.proximal, -m_p
    return out


@dataclass(frozen=True)
class Leg2dOptions:
    """Settings of :func:`sagittal_leg` (van den Bogert's ``leg2d`` method).

    ``segments`` maps thigh, shank, foot to (mass / body mass, CoM / length from the
    proximal marker, radius of gyration / length); the defaults are Winter's
    (:data:`models.segments.WINTER`). ``cutoff`` [Hz] and ``start`` go to
    :func:`winter_lowpass`; ``g`` [m s^-2].
    """

    cutoff: float = 6.0
    segments: tuple[tuple[float, float, float], ...] = ((0.100, 0.433, 0.323), (0.0465, 0.433, 0.302),
                                                        (0.0145, 0.500, 0.475))
    start: str = "reset"
    g: float = G_STANDARD


@dataclass(frozen=True)
class Leg2dResult:
    """Joint angles [rad], angular velocities [rad/s], moments and forces, each ``(N, 3)``
    for (hip, knee, ankle); forces ``(N, 6)`` = (Fx, Fy) per joint, on the distal segment.

    Angles and moments: hip flexion, knee flexion, ankle plantarflexion positive. The ankle
    angle is measured to the heel-toe line, so it carries that line's offset (about -90 deg).
    Moments and forces have the units of the load given (N m/kg and N/kg for loads per kg).
    """

    angles: np.ndarray
    velocities: np.ndarray
    moments: np.ndarray
    forces: np.ndarray


def sagittal_leg(t: np.ndarray, markers: np.ndarray, load: np.ndarray,
                 options: Leg2dOptions | None = None) -> Leg2dResult:
    """Planar inverse dynamics of one leg from six markers and a force plate.

    Parameters
    ----------
    t : (N,) array
        Time stamps [s].
    markers : (N, 12) array
        x, y [m] of shoulder, greater trochanter (hip), lateral epicondyle (knee), lateral
        malleolus (ankle), heel, 5th metatarsal head. NaN marks a missing sample (both
        coordinates); each marker is filtered on its valid samples and then interpolated.
    load : (N, 3) array
        Force plate Fx, Fy and the moment Mz about the lab origin (counter-clockwise), per kg
        of body mass (or in N, N m for absolute results).
    options : Leg2dOptions

    Segments: trunk = shoulder -> trochanter, thigh = trochanter -> knee, shank = knee ->
    ankle, foot = heel -> 5th metatarsal (its axis, not the ankle). Joint angle = difference
    of segment angles, signed +1 (hip), -1 (knee, ankle) so flexion / plantarflexion is
    positive; each moment carries the same sign.
    """
    opt = options if options is not None else Leg2dOptions()
    t = np.asarray(t, dtype=np.float64)
    markers = np.asarray(markers, dtype=np.float64)
    pos, vel, acc = (np.empty_like(markers) for _ in range(3))
    for k in range(6):
        cols = slice(2 * k, 2 * k + 2)
        ok = ~np.isnan(markers[:, 2 * k])
        if ok.sum() < 3:
            raise ValueError(f"marker {k + 1} has fewer than 3 valid samples")
        filtered = winter_lowpass(t[ok], markers[ok, cols], opt.cutoff, opt.start)
        for out, sig in zip((pos, vel, acc), filtered, strict=True):
            out[:, cols] = np.column_stack([np.interp(t, t[ok], sig[:, j]) for j in range(2)])
    fp = winter_lowpass(t, np.asarray(load, dtype=np.float64), opt.cutoff, opt.start)[0]

    def pt(a: np.ndarray, k: int) -> np.ndarray:
        return a[:, 2 * k:2 * k + 2]

    ang, angvel, motions = [], [], []
    for i, (p, d) in enumerate(((0, 1), (1, 2), (2, 3), (4, 5))):
        r, rd, rdd = pt(pos, d) - pt(pos, p), pt(vel, d) - pt(vel, p), pt(acc, d) - pt(acc, p)
        n2 = np.sum(r * r, axis=1)
        w = cross2(r, rd) / n2
        ang.append(np.unwrap(np.arctan2(r[:, 1], r[:, 0])))
        angvel.append(w)
        if i == 0:
            continue
        mass, com, gyr = opt.segments[i - 1]
        length = float(np.mean(np.sqrt(n2)))
        ang_acc = cross2(r, rdd) / n2 - 2.0 * w * np.sum(r * rd, axis=1) / n2
        motions.append(SegmentMotion(mass, mass * (gyr * length) ** 2, pt(pos, p) + com * r,
                                     pt(acc, p) + com * rdd, ang_acc, pt(pos, i), pt(pos, i + 1)))
    zero = np.zeros((t.shape[0], 2))
    loads = chain_inverse_dynamics(motions[::-1], fp[:, :2], zero, fp[:, 2], opt.g)
    (f_a, m_a), (f_k, m_k), (f_h, m_h) = loads
    sign = np.array([1.0, -1.0, -1.0])
    angles = sign * np.column_stack([ang[1] - ang[0], ang[2] - ang[1], ang[3] - ang[2]])
    velocities = sign * np.column_stack([angvel[1] - angvel[0], angvel[2] - angvel[1], angvel[3] - angvel[2]])
    moments = sign * np.column_stack([m_h, m_k, m_a])
    return Leg2dResult(angles, velocities, moments, np.hstack([f_h, f_k, f_a]))
