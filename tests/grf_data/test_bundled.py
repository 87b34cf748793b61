"""The bundled synthetic footwear datasets: human-like bounds, footwear directions, consistency."""

from __future__ import annotations

import numpy as np
import pytest

from grf_data.registry import BUNDLED, load_dataset, reference_torques
from models.biped import FiveLinkBiped
from models.dataset import GaitDataset
from models.gaitgen import GENERATOR_VERSION
from models.gaitgen.consistency import com_from_grf

BIPED = FiveLinkBiped()
BW = BIPED.total_mass * BIPED.params.g


@pytest.fixture(scope="module")
def sets() -> dict[str, GaitDataset]:
    return {name: load_dataset(name) for name in BUNDLED}


def kin(ds: GaitDataset) -> np.ndarray:
    assert ds.q is not None
    return ds.q


def cop(ds: GaitDataset) -> np.ndarray:
    assert ds.cop_x is not None
    return ds.cop_x


def one_cycle(ds: GaitDataset) -> slice:
    return slice(0, (len(ds.t) - 1) // int(ds.meta.extra["n_cycles"]))


def stance_curve(ds: GaitDataset, col: int) -> np.ndarray:
    """Right-foot force column ``col`` over its first stance [BW]."""
    c = ds.grf[one_cycle(ds)]
    return c[c[:, 3] > 0, col] / BW


def first_peak(ds: GaitDataset) -> tuple[float, float]:
    f = stance_curve(ds, 3)
    half = len(f) // 2
    i = int(np.argmax(f[:half]))
    return float(f[i]), i / (len(f) - 1)


def test_files_are_labelled_synthetic(sets: dict[str, GaitDataset]) -> None:
    for name, ds in sets.items():
        assert ds.meta.synthetic is True and ds.meta.footwear
        assert ds.meta.extra["generator"]["version"] == GENERATOR_VERSION
        assert ds.meta.extra["parameters"]["name"] == name
        assert ds.rate_hz >= 500 - 1e-6 and ds.duration >= 10.0
        assert ds.meta.body_mass_kg == pytest.approx(55.33) and ds.meta.height_m == pytest.approx(1.66)


def test_mean_forces_over_whole_cycles(sets: dict[str, GaitDataset]) -> None:
    for ds in sets.values():
        g = ds.grf[:-1]                                   # whole cycles, closing sample dropped
        assert abs((g[:, 1] + g[:, 3]).mean() / BW - 1.0) < 0.005
        assert abs((g[:, 0] + g[:, 2]).mean() / BW) < 0.005


def test_first_peak_and_valley_bounds(sets: dict[str, GaitDataset]) -> None:
    for ds in sets.values():
        f = stance_curve(ds, 3)
        p1, at = first_peak(ds)
        assert 1.05 <= p1 <= 1.25 and 0.12 <= at <= 0.25
        i1 = int(at * (len(f) - 1))
        valley = f[i1: int(0.7 * len(f))].min()
        assert 0.75 <= valley <= 0.95
        p2 = f[len(f) // 2:].max()                       # issue 4: second peak 1.05-1.2 BW
        assert 1.05 <= p2 <= 1.2


def test_fore_aft_brakes_then_propels(sets: dict[str, GaitDataset]) -> None:
    for ds in sets.values():
        fx = stance_curve(ds, 2)
        n = len(fx)
        assert np.argmin(fx) < n // 2 < np.argmax(fx)
        # issue 4 asks for about +/-0.15-0.2 BW; generator 2.3.0 measures -0.17 to -0.18 BW braking
        # and 0.155-0.167 BW propulsion (grf_data/README.md)
        assert -0.2 <= fx.min() <= -0.15
        assert 0.145 <= fx.max() <= 0.2


def test_stance_and_double_support_share(sets: dict[str, GaitDataset]) -> None:
    for ds in sets.values():
        c = ds.grf[one_cycle(ds)]
        stance = (c[:, 3] > 0).mean()
        double = ((c[:, 1] > 0) & (c[:, 3] > 0)).mean() / 2
        assert 0.58 <= stance <= 0.64
        assert 0.08 <= double <= 0.13


def test_knee_peak_in_swing(sets: dict[str, GaitDataset]) -> None:
    for ds in sets.values():
        knee = np.rad2deg(kin(ds)[one_cycle(ds), 6])
        # human norm (measured on ../shared/data): 55-65 deg at about 72 % of the cycle (here 72-75 %)
        assert np.argmax(knee) / len(knee) == pytest.approx(0.72, abs=0.03)
        assert 55.0 <= knee.max() <= 65.0


def test_hip_flexion_range(sets: dict[str, GaitDataset]) -> None:
    """Human norm (measured on ../shared/data): hip flexion about -6 to 37 deg.

    The peak comes in late swing, at about 85 % of the cycle."""
    for ds in sets.values():
        hip = np.rad2deg(kin(ds)[one_cycle(ds), 3:5])
        assert -6.0 <= hip.min() and hip.max() <= 37.0


def test_reference_torques_within_human_norm(sets: dict[str, GaitDataset]) -> None:
    """The references' inverse-dynamics torques stay at or below 1.5 N m/kg (issue 5's bundled bound)."""
    for ds in sets.values():
        tau = reference_torques(ds)
        assert tau is not None
        assert np.abs(tau).max() / ds.meta.body_mass_kg <= 1.5


def test_trunk_angle_is_human_like(sets: dict[str, GaitDataset]) -> None:
    """Issue 5's band [-5, 12] deg for the reference trunk angle; published norms: oscillation about +/-3 deg."""
    for ds in sets.values():
        alpha = np.rad2deg(kin(ds)[:, 2])
        assert -5.0 <= alpha.min() and alpha.max() <= 12.0
        assert np.ptp(alpha) <= 6.0


def test_footwear_directions(sets: dict[str, GaitDataset]) -> None:
    bare, snk, heels = sets["barefoot"], sets["sneakers"], sets["high_heels"]

    def cadence(ds: GaitDataset) -> float:
        return float(ds.meta.extra["cadence_spm"])

    def double(ds: GaitDataset) -> float:
        c = ds.grf[one_cycle(ds)]
        return float(((c[:, 1] > 0) & (c[:, 3] > 0)).mean())

    assert first_peak(heels)[0] > first_peak(snk)[0] and first_peak(heels)[1] < first_peak(snk)[1]
    assert double(heels) > double(snk)
    assert cadence(heels) < cadence(snk) < cadence(bare)
    assert kin(heels)[0, 6] > kin(snk)[0, 6]                      # knee flexion at right heel strike
    assert kin(heels)[:, 2].mean() < kin(snk)[:, 2].mean()       # trunk leans back relative to sneakers
    assert bare.meta.extra["stride_m"] < snk.meta.extra["stride_m"]
    assert first_peak(bare)[0] < first_peak(snk)[0]


def test_com_from_grf_matches_kinematics(sets: dict[str, GaitDataset]) -> None:
    """Double integral of sum(F)/m - g from the kinematic CoM state equals points(q)['com']."""
    for ds in sets.values():
        cyc = one_cycle(ds)
        com_grf, com_kin = com_from_grf(ds.t[cyc], ds.grf[cyc], kin(ds)[cyc], BIPED)
        assert np.max(np.abs(com_grf - com_kin)) < 5e-3
        assert np.ptp(com_kin[:, 1]) > 5e-3                # the CoM does move: the check has teeth


def test_stance_foot_is_pinned(sets: dict[str, GaitDataset]) -> None:
    for ds in sets.values():
        pts = BIPED.points_batch(kin(ds))
        loaded = ds.grf[:, 3] > 0
        foot = pts["foot_r"][loaded]
        assert np.max(np.abs(foot[:, 1])) < 1e-4
        assert np.allclose(foot[:, 0], cop(ds)[loaded, 1], atol=1e-4)


def test_torques_are_stored_and_reproduce_inverse_dynamics(sets: dict[str, GaitDataset]) -> None:
    ds = sets["sneakers"]
    tau = reference_torques(ds)
    assert tau is not None and tau.shape == (len(ds.t), 4)
    k = 100
    qd0 = np.array(ds.meta.extra["initial_qd"])
    assert np.allclose(qd0[:2], (kin(ds)[1, :2] - kin(ds)[0, :2]) * ds.rate_hz, atol=0.02)
    assert np.all(np.isfinite(tau[:k]))


def test_trunk_row_is_consistent_in_single_support(sets: dict[str, GaitDataset]) -> None:
    """The stored GRF balance the alpha row of the inverse dynamics in single support too.

    ``qd``/``qdd`` of one stored cycle by band-limited spectral differentiation (the CSV keeps 6
    significant digits, so the rounding noise is cut above 60 harmonics). Generator 1.0.0 left
    13-15 N m RMS there; 2.x solves the trunk angle for it (measured 2.0-2.5 N m with 2.3.0,
    2.2-2.3 with 2.2.0). In double support 2.3.0 leaves 6-11 N m RMS, the moment its smooth load
    shift does not supply (2.2.0: 1.3-1.6 N m, bought with a load shift ringing by up to 0.4 BW).
    """
    for ds in sets.values():
        cyc = one_cycle(ds)
        q, grf = kin(ds)[cyc], ds.grf[cyc]
        n = q.shape[0]
        period = n / ds.rate_hz
        trend = np.zeros(7)
        trend[0] = (kin(ds)[cyc.stop, 0] - kin(ds)[0, 0]) * ds.rate_hz / n
        t = np.arange(n) / ds.rate_hz
        spec = np.fft.rfft(q - np.outer(t, trend), axis=0)
        spec[61:] = 0.0
        w = 2 * np.pi * np.fft.rfftfreq(n, d=period / n)[:, None]
        qd = np.fft.irfft(1j * w * spec, n=n, axis=0) + trend
        qdd = np.fft.irfft(-(w**2) * spec, n=n, axis=0)
        _, res = BIPED.inverse_dynamics(q, qd, qdd, grf)
        single = (grf[:, 1] > 0) != (grf[:, 3] > 0)
        inner = single & (np.arange(n) > 5) & (np.arange(n) < n - 5)
        assert np.sqrt(np.mean(res[inner, 2] ** 2)) < 3.0          # N m; a 1 deg/s^2 error is ~0.1 N m
        double = (grf[:, 1] > 0) & (grf[:, 3] > 0)
        assert np.sqrt(np.mean(res[double, 2] ** 2)) < 15.0
        assert np.sqrt(np.mean(res[:, 1] ** 2)) < 0.02 * BW         # vertical row: the check has teeth


def test_vertical_force_never_pulls(sets: dict[str, GaitDataset]) -> None:
    """Issue 16 s6: a foot on the ground pushes (generator 2.2.0 reached -17 N on sneakers at 1.215 s)."""
    for ds in sets.values():
        assert ds.grf[:, [1, 3]].min() >= 0.0


def fy_cycle_bw(ds: GaitDataset) -> np.ndarray:
    return ds.grf[one_cycle(ds)][:, [1, 3]] / BW


def test_vertical_force_has_no_spike(sets: dict[str, GaitDataset]) -> None:
    """No ringing at loading and unloading (issue 16 s6), by two measures on one stored cycle:

    * the largest curvature ``max |d^2 F_y / dt^2|`` (periodic second difference) stays below
      4000 BW/s^2 -- measured 1000-1900 with generator 2.3.0 (the designed shapes alone: up to
      about 600), against 39 000-51 000 with 2.2.0, whose load shift rang by up to 0.4 BW;
    * ``F_y`` departs from its own low-pass (harmonics 0-30 of the stride, about 27 Hz) by less
      than 0.03 BW -- measured 0.003-0.011 with 2.3.0, 0.10-0.17 with 2.2.0.
    """
    for name, ds in sets.items():
        fy = fy_cycle_bw(ds)
        dt = 1.0 / ds.rate_hz
        curvature = (np.roll(fy, -1, axis=0) - 2.0 * fy + np.roll(fy, 1, axis=0)) / dt**2
        assert np.abs(curvature).max() < 4000.0, name
        spec = np.fft.rfft(fy, axis=0)
        spec[31:] = 0.0
        low = np.fft.irfft(spec, n=fy.shape[0], axis=0)
        assert np.abs(fy - low).max() < 0.03, name
