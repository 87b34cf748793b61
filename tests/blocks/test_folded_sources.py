"""A folded repeated recording (``--repeat-cycles``, :mod:`models.gaitdata.repeat`) read per tick by the
data sources equals the fully repeated recording.

Fifty seconds of the bundled sneakers need the recording to 9.46 s and five repetitions of its 8.9 s
span: the folded data holds three, and the sources map the others onto them
(:func:`blocks.library.sources_kernels.fold`). The laws on the data repeated five times (checked against
``np.interp`` of that data for the GRF, and run as Python against compiled for all) and on the folded data
must agree at every ``dt/2`` grid time of the run, and at times between them, to :data:`TOL`."""

from __future__ import annotations

import numpy as np
import pytest

import models.gaitdata.repeat as repeat
from app.runs import RunSpec, build

DURATION = 50.0
SOURCES = ("grf", "ref", "ref_motion")
REPEAT = repeat.repeat_dataset
#: relative to each column's peak (at least 1). GRF and reference: a folded time ``x - m P`` rounds
#: differently from the repeated data's own times (ulp(32 s) = 7e-15 s), times the GRF's steepest slope
#: (about 6e4 N/s), over its 700 N peak: measured 2.3e-12. ReferenceMotion's torques come from second
#: differences of positions: in the unfolded data the trunk is 45 m from the origin by the last
#: repetition (ulp 7e-15 m over dt^2 = 4e-6 s^2: 2e-9 m/s^2 of rounding, on 25 m in the folded data):
#: measured 1.5e-10
TOL = {"grf": 5e-12, "ref": 5e-12, "ref_motion": 5e-10}


def _built(monkeypatch: pytest.MonkeyPatch, compact: bool):
    monkeypatch.setattr(repeat, "repeat_dataset", lambda data, duration: REPEAT(data, duration, compact=compact))
    return build(RunSpec(dataset="sneakers", duration=DURATION, repeat=True, preset="tracking"))


@pytest.fixture(scope="module")
def pair() -> tuple:
    mp = pytest.MonkeyPatch()
    try:
        return _built(mp, False), _built(mp, True)
    finally:
        mp.undo()


def test_the_folded_data_holds_three_repetitions(pair: tuple) -> None:
    old, new = pair
    p_old, p_new = old.runner.params["grf"], new.runner.params["grf"]
    n_old, n_new = int(p_old._data[6]), int(p_new._data[6])  # samples (grid header slot 6)
    assert n_new < 0.75 * n_old  # 3 of 5 repetitions held
    fold = p_new._data[7:11]
    assert not p_old._data[7:11].any()
    assert fold[1] > 8.0 and fold[2] == 5.0  # period [s], repetitions of the unfolded data


def _outputs(block, p, times: np.ndarray) -> np.ndarray:
    out_fn = block.kernels().output
    packed = np.ascontiguousarray(block.pack(p), dtype=np.float64)
    sizes = [int(s.size) for s in block.outputs]
    ys = [np.zeros(s) for s in sizes]
    rows = np.zeros((times.size, sum(sizes)))
    x = z = np.zeros(0)
    for i, t in enumerate(times):
        out_fn(float(t), x, z, packed, *ys)
        rows[i] = np.concatenate(ys)
    return rows


@pytest.mark.parametrize("name", SOURCES)
def test_folded_kernels_equal_the_repeated_data(pair: tuple, name: str) -> None:
    old, new = pair
    block = next(b for b in new.model.blocks if b.name == name)
    ctx = new.model.ctx
    grid = ctx.t0 + 0.5 * ctx.dt * np.arange(int(round((ctx.t_end - ctx.t0) / (0.5 * ctx.dt))) + 1)
    between = grid[:-1] + 0.3 * ctx.dt  # off the grid: blended rows
    p_old = old.runner.params[name]
    for times in (grid, between):
        got = _outputs(block, new.runner.params[name], times)
        want = _outputs(block, p_old, times)  # the kernels on the unfolded data ...
        table = np.array([np.concatenate([np.ravel(v) for v in _python_outputs(block, p_old, t)]) for t in
                          times[:: 97]])  # ... which equal the same law run as Python (sampled)
        assert np.allclose(want[:: 97], table, rtol=0, atol=1e-9)
        if name == "grf":  # ... and np.interp of the repeated recording
            from blocks.library.context import data_of, dataset_of

            ds, data = dataset_of(old.model.ctx), data_of(old.model.ctx)
            assert p_old.filter_hz == 0.0 and p_old.propulsion_gain == p_old.vertical_gain == 1.0
            td = times - ctx.t0 + ds.t[0] + data.t_offset_s
            ref = np.column_stack([np.interp(td, ds.t, ds.grf[:, j]) for j in range(4)]) * (p_old.gain *
                                                                                          p_old._mass_scale)
            assert np.abs(want[:, :4] - ref).max() <= 1e-9 * np.abs(ref).max()
        scale = np.maximum(1.0, np.abs(want).max(axis=0))
        err = np.abs(got - want) / scale
        assert err.max() <= TOL[name], (name, float(err.max()), int(np.argmax(err.max(axis=1))), err.max(axis=0))
        assert np.abs(got).max() > 0.1  # real numbers, not zeros


def _python_outputs(block, p, t: float) -> list[np.ndarray]:
    ys = [np.zeros(int(s.size)) for s in block.outputs]
    block.output(float(t), np.zeros(0), np.zeros(0), (), p, tuple(ys))
    return ys
