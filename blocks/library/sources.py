r"""Data sources: recorded GRF and reference joint trajectories, on the solver's clock.

Both blocks read their dataset on the solver's grid of spacing ``dt/2``; their laws (kernels, both engines
run them) compute that grid's rows from the recording as :mod:`blocks.library.sources_kernels` describes.
The offset into the recording, ``t_offset_s`` [s], and the reference angles' low-pass cut-off,
``ref_filter_hz`` [Hz], are the diagram's, shared by every block that reads the recording
(:class:`blocks.library.settings.DataSettings`).
"""

from __future__ import annotations

import functools
import hashlib
import os
import warnings
from collections.abc import Mapping
from typing import Any

import numpy as np

from blocks.core import Block, CompileContext, DiagramError, Kernels, Params, PortSpec
from blocks.core import ParamSpec as P
from blocks.kernels import cache_dir, helper, kernel, seg
from blocks.library import sources_kernels as sk
from blocks.library.context import biped_of, data_of, dataset_of
from blocks.library.sources_kernels import (
    GRID_SIZE,
    fold,
    grid_lookup,
    grid_time,
    spline_at,
    spline_interval,
    table_row,
    table_value,
)
from models.biped import GRF_NAMES, FiveLinkBiped
from models.dataset import ANGLE_NAMES, KINEMATICS_FROM, GaitDataset
from models.filters import lowpass2
from models.gaitdata.repeat import fold_of
from models.initial_state import periodic_vertical_velocity, with_com_velocity

__all__ = ["GrfSource", "ReferenceSource", "initial_from_reference", "lowpass"]

_DATASET = P("", tunable=False, description="dataset name or file; empty = the run's dataset")


def lowpass(x: np.ndarray, cutoff_hz: float, rate_hz: float) -> np.ndarray:
    """Zero-lag low-pass: 2nd-order Butterworth run forwards and backwards (``filtfilt``), so
    4th-order magnitude and no phase lag. ``cutoff_hz = 0`` returns ``x`` unchanged."""
    if cutoff_hz <= 0:
        return x
    if cutoff_hz >= 0.5 * rate_hz:
        raise DiagramError(f"filter cut-off {cutoff_hz} Hz must be below half the data rate ({rate_hz:.1f} Hz)")
    return lowpass2(x, cutoff_hz, rate_hz)


@functools.cache
def _scipy_version() -> str:
    """The installed scipy's version (read once: ``importlib.metadata`` scans the installed packages, 7 ms)."""
    from importlib.metadata import version

    return version("scipy")


def _fit(t: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``scipy.interpolate.CubicSpline(t, y, axis=0)`` (not-a-knot ends) as the cubic ``PPoly`` scipy holds,
    knots ``x`` (n,) and coefficients ``c`` (4, n-1, k), which the kernels evaluate (``spline_at``, in scipy's
    order of operations); kept on disk by a hash of the samples and the scipy version: a warm start does not
    import ``scipy.interpolate`` (about 0.45 s)."""
    key = hashlib.sha256(t.tobytes() + y.tobytes() + str(y.shape).encode() + _scipy_version().encode()).hexdigest()
    path = os.path.join(cache_dir().parent, "splines", f"cubic_{key[:24]}.npz")
    try:
        with np.load(path) as f:
            return f["x"], f["c"]
    except (OSError, KeyError, ValueError):
        pass
    from scipy.interpolate import CubicSpline

    sp = CubicSpline(t, y, axis=0)
    x, c = np.ascontiguousarray(sp.x), np.ascontiguousarray(sp.c)
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.npz"
        np.savez(tmp, x=x, c=c)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache: fit again next time
    return x, c


def _reference_spline(ds: GaitDataset, filter_hz: float) -> tuple[np.ndarray, np.ndarray]:
    ref = ds.reference_angles()
    if ref is None:
        from models.gaitdata.hints import missing_kinematics_hint

        raise DiagramError(f"dataset '{ds.name}' has no reference joint angles (the reference source and "
                           f"init='reference' need them){missing_kinematics_hint(ds)}")
    return _fit(np.ascontiguousarray(ds.t, dtype=np.float64),
                np.ascontiguousarray(lowpass(ref, filter_hz, ds.rate_hz), dtype=np.float64))


def initial_from_reference(ctx: CompileContext, values: Mapping[str, Any], biped: FiveLinkBiped) -> tuple[
        np.ndarray, np.ndarray]:
    """``(q0, qd0)`` matching the reference at the start of the run.

    The angles come from the reference (:class:`ReferenceSource`'s law at the start). Their rates are the
    slope at the start of a least-squares cubic fitted to the reference samples within
    ``rate_window_s`` of it (Savitzky-Golay's local polynomial; one-sided at the first
    sample). The spline's own derivative there is an edge value carrying the full marker
    noise: on demotu-BMC walk1 it put the start speed at 0.47 m/s instead of about 1.0 m/s,
    and the run fell. ``rate_window_s = 0``, and a synthetic dataset (its exact motion ``q``
    known, no noise), keep the spline derivative. The stance foot
    (the one with the larger vertical force at t0) is put on the ground at ``x = 0, y = 0``
    (its contact coordinates) with its contact point at rest:
    ``(x0d, y0d) = -v_contact(angle rates, base at rest)`` (the base moves every point alike).
    """
    ds = dataset_of(ctx, values["dataset"])
    shared = data_of(ctx)
    td0 = ds.t[0] + shared.t_offset_s  # the recording's time at the run's start (module docstring)
    start = ReferenceSource("reference", dataset=values["dataset"]).probe(ctx.t0, ctx=ctx).y  # its law at t0
    row = np.concatenate([start["angles"], start["rates"]])
    window = float(values.get("rate_window_s", 0.0))
    near = np.abs(ds.t - td0) <= window
    if window > 0.0 and near.sum() >= 8 and ds.q is None:  # synthetic data (exact q) keep the spline
        ref = lowpass(np.asarray(ds.reference_angles()), shared.ref_filter_hz, ds.rate_hz)
        row[5:10] = np.polynomial.polynomial.polyfit(ds.t[near] - td0, ref[near], 3)[1]
    grf0 = np.array([np.interp(td0, ds.t, ds.grf[:, j]) for j in range(4)])
    side = 0 if grf0[1] >= grf0[3] else 1
    q = np.concatenate([[0.0, 0.0], row[0:5]])
    qd = np.concatenate([[0.0, 0.0], row[5:10]])
    contact = biped.feet_state(q, qd)[4 * side: 4 * side + 4]  # (xi, eta, vx, vy) with the base at rest
    q[0:2] = -contact[0:2]
    qd[0:2] = -contact[2:4]
    mode = values.get("init_vy", "reference")
    if mode == "grf" or (mode == "paired" and KINEMATICS_FROM in ds.meta.extra):
        qd = _grf_vertical_rate(ctx, ds, biped, q, qd, side, td0)
    return q, qd


def _grf_vertical_rate(ctx: CompileContext, ds: GaitDataset, biped: FiveLinkBiped, q: np.ndarray, qd: np.ndarray,
                       side: int, td0: float) -> np.ndarray:
    """``qd`` with the CoM's vertical velocity of :func:`models.initial_state.periodic_vertical_velocity`
    over the recording from the run's start to its end, whatever the run's duration (a 0.5 s run starts
    as a 10 s one does; the recording's mass, else the model's), or unchanged with a warning when that
    holds no whole cycle."""
    td1 = float(ds.t[-1])
    mass = ds.meta.body_mass_kg or biped.total_mass
    vy0 = periodic_vertical_velocity(ds.t, ds.grf, mass, biped.params.g, td0, td1)
    why = f"{ds.name!r} holds no whole gait cycle from the run's start to its end ({td0:.2f}-{td1:.2f} s)"
    if vy0 is not None:
        try:
            return with_com_velocity(biped, q, qd, side, np.array([biped.com_state(q, qd)[2], vy0]))
        except ValueError as exc:
            why = str(exc)
    warnings.warn(f"body.init_vy: {why}; the reference's initial vertical velocity is kept", stacklevel=2)
    return qd


_NS = sk.GRID.index("n")  # the recording's sample count, in its grid header


@helper
def _perturbed(p, v, k):
    """Force component ``k`` (0..3) times ``gain`` and the mass ratio, the propulsive (``F_x > 0``) part
    times ``propulsion_gain``, ``F_y`` times ``vertical_gain`` (``p``: the block's packed vector)."""
    out = v * (p[_GAIN] * p[_MASS_SCALE])
    if p[_PROPULSION] != 1.0 and k % 2 == 0 and out > 0.0:
        out = out * p[_PROPULSION]
    if p[_VERTICAL] != 1.0 and k % 2 == 1:
        out = out * p[_VERTICAL]
    return out


@kernel
def grf_output(t, x, z, p, y0, y1):
    """GrfSource: the recording ``_data = [grid header, t (n), F_lx, F_ly, F_rx, F_ry, cop_l, cop_r (n each)]``
    and, folded, ``on_l, on_r`` (n each: 1 where the CoP was recorded)."""
    data = seg(p, _GRF_DATA)
    row = table_row(data, 0, t)
    for k in range(6):
        v = table_value(data, row, k, 0.0, k + 2 if k >= 4 else -2)  # the CoP moves on where it was recorded
        if k < 4:
            y0[k] = _perturbed(p, v, k)
        else:
            y1[k - 4] = v


@helper
def _reference_knot(p, i):
    """Data time clipped to the knots, its interval and whether the rates are zeroed, for grid row ``i``."""
    n = int(p[_NS])
    x, _ = fold(p, 0, grid_time(p, 0, i))
    lo, hi = p[GRID_SIZE], p[GRID_SIZE + n - 1]
    xc = min(max(x, lo), hi)
    return xc, spline_interval(p, GRID_SIZE, n, xc), x < lo or x > hi


@kernel
def reference_output(t, x, z, p, y0, y1, y2, y3):
    """ReferenceSource: the recording ``_data = [grid header, knots x (n), coefficients c (4, n-1, 5)
    C-ordered]``; outputs the spline's angles and rates at the recording's time of the grid row (rates 0
    beyond the recording)."""
    p = seg(p, _REF_DATA)
    n = int(p[_NS])
    cb = GRID_SIZE + n
    i, f, on = grid_lookup(p, 0, t)
    xa, ja, outa = _reference_knot(p, i)
    if on:
        for col in range(5):
            a, ar = spline_at(p, GRID_SIZE, n, 5, cb, ja, xa, col)
            y0[col] = a
            y1[col] = 0.0 if outa else ar
    else:
        xb, jb, outb = _reference_knot(p, i + 1)
        for col in range(5):
            a, ar = spline_at(p, GRID_SIZE, n, 5, cb, ja, xa, col)
            b, br = spline_at(p, GRID_SIZE, n, 5, cb, jb, xb, col)
            y0[col] = (1.0 - f) * a + f * b
            y1[col] = (1.0 - f) * (0.0 if outa else ar) + f * (0.0 if outb else br)
    y2[0], y2[1] = y0[1], y0[2]
    y3[0], y3[1] = y0[3], y0[4]


class GrfSource(Block):
    r"""Recorded two-foot ground reaction forces.

    .. math:: F(t) = s\,\mathrm{LP}(F_{data})(t_{data}),\quad
              s = g_{extra}\,m_{model}/m_{data}\ \text{(if scaled and the data mass is known)}

    Perturbations for experiments (tunable, 1 = the recording): ``propulsion_gain`` multiplies
    the propulsive (forward, ``F_x > 0``) part of each foot's fore-aft force, ``vertical_gain``
    every vertical force.
    """

    params = {"dataset": _DATASET,
              "filter_hz": P(0.0, min=0.0, max=500.0, unit="Hz", tunable=False,
                             description="zero-lag Butterworth low-pass cut-off of the forces; 0 = off"),
              "scale_to_model": P(True, tunable=False, description="scale forces by model mass / data mass"),
              "gain": P(1.0, min=0.0, max=3.0, description="extra multiplier on all forces"),
              "propulsion_gain": P(1.0, min=0.0, max=3.0, description="multiplier on the propulsive part of F_x"),
              "vertical_gain": P(1.0, min=0.0, max=3.0, description="multiplier on F_y")}
    outputs = (PortSpec("F", 4, "N", "ground reaction forces on each foot, world frame", GRF_NAMES),
               PortSpec("cop", 2, "m", "CoP x of each foot (0 where absent or off the ground)", ("l", "r")))
    time_varying = True

    packed = ("gain", "propulsion_gain", "vertical_gain", "_mass_scale", "_data[]")
    law = Kernels(output=grf_output)

    def derive(self, p: Params, ctx: CompileContext) -> None:
        if p.has("_data"):  # the recording is read once; a live change re-derives nothing here
            return
        ds = dataset_of(ctx, p.dataset)
        grf = lowpass(ds.grf, p.filter_hz, ds.rate_hz)
        cop = np.nan_to_num(ds.cop_x, nan=0.0) if ds.cop_x is not None else np.zeros((ds.t.size, 2))
        if fold_of(ds) is not None:  # where each CoP was recorded (a folded recording moves it on there)
            cop = np.column_stack([cop, np.isfinite(ds.cop_x) if ds.cop_x is not None else np.zeros_like(cop)])
        mass = ds.meta.body_mass_kg
        p.set("_mass_scale", biped_of(ctx).total_mass / mass if (p.scale_to_model and mass) else 1.0)
        p.set("_dataset_name", ds.name)
        p.set("_data", sk.recording(ctx, ds, ds.t, grf.T, cop.T))


class ReferenceSource(Block):
    """Reference joint trajectories from a dataset (cubic spline; rates are its derivative)."""

    params = {"dataset": _DATASET}
    outputs = (PortSpec("angles", 5, "rad", "reference angles", ANGLE_NAMES),
               PortSpec("rates", 5, "rad/s", "reference rates", ANGLE_NAMES),
               PortSpec("hip", 2, "rad", "hip flexion beta", ("l", "r")),
               PortSpec("knee", 2, "rad", "knee flexion gamma", ("l", "r")))
    time_varying = True

    packed = ("_data[]",)
    law = Kernels(output=reference_output)

    def derive(self, p: Params, ctx: CompileContext) -> None:
        if p.has("_data"):
            return
        ds = dataset_of(ctx, p.dataset)
        knots, coefficients = _reference_spline(ds, data_of(ctx).ref_filter_hz)
        p.set("_data", sk.recording(ctx, ds, knots, coefficients))


#: where the kernels above read each packed entry (numba takes them as constants when it compiles)
_GAIN, _PROPULSION, _VERTICAL, _MASS_SCALE, _GRF_DATA = GrfSource.packed_at(*GrfSource.packed)
_REF_DATA = ReferenceSource.packed_at("_data")
