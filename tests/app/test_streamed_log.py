"""A log streamed to disk in chunks (:mod:`blocks.logstream`) is the in-memory log, bit for bit.

The same 2 s run of the bundled sneakers (0.8 s on the Python engine), stepped once into memory and
once streamed in chunks of 257 rows (so the chunk edges fall inside the engine's slices and between
the ``--record-every`` ticks), gives the same ``results.npz`` arrays, the same ``results.csv`` bytes
and, from the rows the stream keeps, the same summary signals; ``gaitblocks run --stream`` writes what
``--no-stream`` writes.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from app.commands.run import simulate
from app.interrupt import SigintFlag
from app.run_summary import metric_inputs, summarise
from app.runs import RunSpec, build
from blocks.logstream import LogStream


def _run(tmp: Path, every: int, stream: bool, keep_every: int = 1, engine: str = "compiled",
         duration: float = 2.0):
    built = build(RunSpec(dataset="sneakers", duration=duration, record_every=every, engine=engine))
    sink = None
    if stream:
        keep = metric_inputs(built.diagram) or []
        sink = LogStream(tmp, csv=True, keep=keep, keep_every=keep_every)
        built.runner.recorder.stream_to(sink, chunk_rows=257)
    with SigintFlag() as stop:
        results = simulate(built, stop)
    if sink is not None:
        sink.finish(results.info())
    else:
        results.save_npz(tmp / "results.npz")
        results.save_csv(tmp / "results.csv")
    return built, results


@pytest.mark.parametrize(("engine", "every", "duration"), [("compiled", 1, 2.0), ("compiled", 3, 2.0),
                                                          ("python", 1, 0.8)])
def test_streamed_log_is_the_in_memory_log(tmp_path: Path, engine: str, every: int, duration: float) -> None:
    mem, streamed = tmp_path / "mem", tmp_path / "streamed"
    mem.mkdir()
    streamed.mkdir()
    built, res_mem = _run(mem, every, False, engine=engine, duration=duration)
    _, res_str = _run(streamed, every, True, engine=engine, duration=duration)
    ticks = int(round(duration * 1000))
    with np.load(mem / "results.npz") as a, np.load(streamed / "results.npz") as b:
        assert list(a.keys()) == list(b.keys()) and len(a.keys()) > 40
        for key in a.keys():
            assert a[key].shape == b[key].shape and a[key].dtype == b[key].dtype, key
            assert np.array_equal(a[key], b[key]), key
        assert a["t"].size == ticks // every + 1 + (1 if ticks % every else 0) > 257
        assert np.abs(a["body.q"]).max() > 0.1
    assert (mem / "results.csv").read_bytes() == (streamed / "results.csv").read_bytes()
    assert not (streamed / ".log-partial").exists()
    side = json.loads((streamed / "results.json").read_text())
    assert list(side["signals"]) == list(res_mem.signals)
    # the rows kept for the summary: the metric signals, every row
    assert set(res_str.signals) == set(metric_inputs(built.diagram) or [])
    for name, arr in res_str.signals.items():
        assert np.array_equal(arr, res_mem.signals[name]), name
    assert np.array_equal(res_str.t, res_mem.t)
    assert summarise(res_str, built)["rms_deg"] == summarise(res_mem, built)["rms_deg"]


def test_kept_rows_every_k_are_a_decimated_log(tmp_path: Path) -> None:
    """Kept every 7th row, the summary's signals are those of ``--record-every 7`` (and the final row)."""
    _, res_str = _run(tmp_path, 1, True, keep_every=7)
    (tmp_path / "dec").mkdir()
    _, res_dec = _run(tmp_path / "dec", 7, False)
    assert np.array_equal(res_str.t, res_dec.t) and res_str.t[-1] == 2.0
    for name, arr in res_str.signals.items():
        assert np.array_equal(arr, res_dec.signals[name]), name


def test_run_command_streamed_writes_what_it_writes_in_memory(tmp_path: Path) -> None:
    outs = {}
    for mode in ("--stream", "--no-stream"):
        out = tmp_path / mode.strip("-")
        assert main(["run", "--grf", "sneakers", "--duration", "3", mode, "--out", str(out)]) == 0
        outs[mode] = out
    a, b = outs["--stream"], outs["--no-stream"]
    assert (a / "results.csv").read_bytes() == (b / "results.csv").read_bytes()
    with np.load(a / "results.npz") as za, np.load(b / "results.npz") as zb:
        assert all(np.array_equal(za[k], zb[k]) for k in zb.keys()) and list(za.keys()) == list(zb.keys())
    sa, sb = (json.loads((d / "summary.json").read_text()) for d in (a, b))
    for key in ("wall_s", "realtime_factor"):
        sa.pop(key), sb.pop(key)
    assert sa == sb and sa["cycles_completed"] >= 1


def test_a_diagram_without_metric_signals_streams_its_end(tmp_path: Path) -> None:
    """No signal kept for the summary (a mechanism): the kept times still give ``t_end_reached``."""
    diagram = Path(__file__).resolve().parents[2] / "assets" / "diagrams" / "four_bar.json"
    got = {}
    for mode in ("--stream", "--no-stream"):
        out = tmp_path / mode.strip("-")
        assert main(["run", "--diagram", str(diagram), "--duration", "0.5", mode, "--out", str(out)]) == 0
        got[mode] = json.loads((out / "summary.json").read_text())
        assert (out / "results.npz").exists()
    assert got["--stream"]["t_end_reached"] == got["--no-stream"]["t_end_reached"] == 0.5
