"""Hypothesis: >= 2000 malformed inputs per text importer; only DataFormatError, no infinite output."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from models.errors import DataFormatError
from models.gaitdata.checks import decode_text
from models.gaitdata.cortex import read_forces_text
from models.gaitdata.opensim import angles_from_table, grf_from_table, has_coordinates, has_grf, parse_sto
from models.gaitdata.table import read_table_text
from models.gaitdata.trc import kinematics_from_trc, parse_trc

pytestmark = pytest.mark.slow  # about 20 s: 2000 examples per importer

FUZZ = settings(max_examples=2000, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])

SEEDS = {
    "mot": ("g\nversion=1\nnRows=4\nnColumns=5\ninDegrees=yes\nendheader\n"
            "time\tground_force_vx\tground_force_vy\t1_ground_force_vx\t1_ground_force_vy\n"
            "0\t1\t700\t2\t0\n0.01\t2\t650\t3\t60\n0.02\t1\t300\t2\t500\n0.03\t0\t0\t1\t720\n"),
    "ik": ("ik\nendheader\ntime\tpelvis_tilt\thip_flexion_r\tknee_angle_r\thip_flexion_l\tknee_angle_l\n"
           "0\t5\t20\t-10\t-5\t-40\n0.1\t6\t15\t-12\t0\t-30\n0.2\t5\t10\t-5\t5\t-10\n"),
    "trc": ("PathFileType\t4\t(X/Y/Z)\tx.trc\nDataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\n"
            "100\t100\t3\t2\tmm\nFrame#\tTime\tR.Knee\t\t\tL.Knee\t\t\n\t\tX1\tY1\tZ1\tX2\tY2\tZ2\n\n"
            "1\t0.00\t1\t500\t100\t2\t500\t-100\n2\t0.01\t2\t501\t100\t3\t499\t-100\n"
            "3\t0.02\t3\t502\t100\t4\t498\t-100\n"),
    "forces": ("[Force Data]\nNumberOfForcePlates=1\nSampleRate=100\nNumberOfSamples=3\n"
               "#Sample\tFX1\tFY1\tFZ1\tX1\tY1\tZ1\tMZ1\n1\t0\t0\t0\t100\t0\t0\t0\n"
               "2\t10\t700\t0\t110\t0\t0\t0\n3\t0\t0\t0\t120\t0\t0\t0\n"),
    "table": "time,F_lx,F_ly,F_rx,F_ry\n0,1,700,0,0\n0.01,2,650,1,50\n0.02,1,300,2,500\n0.03,0,0,1,720\n",
}

_tokens = st.sampled_from(["\t", ",", " ", "\n", "nan", "inf", "-1e308", "1e999", "abc", "", "0", "-0", "1_0",
                           "endheader", "#", "%", "time", "\x00", "\xff", "=", "[Force Data]", "1.5", "-700"])


def _mutate(seed: str) -> st.SearchStrategy[bytes]:
    """Seed text with random cuts, insertions, deletions and duplicated lines."""
    @st.composite
    def build(draw: st.DrawFn) -> bytes:
        text = seed
        for _ in range(draw(st.integers(1, 4))):
            op = draw(st.integers(0, 4))
            i = draw(st.integers(0, len(text)))
            j = draw(st.integers(i, min(len(text), i + 30)))
            if op == 0:
                text = text[:i]
            elif op == 1:
                text = text[:i] + draw(_tokens) + text[i:]
            elif op == 2:
                text = text[:i] + text[j:]
            elif op == 3:
                lines = text.splitlines(keepends=True)
                if lines:
                    k = draw(st.integers(0, len(lines) - 1))
                    lines.insert(k, lines[k])
                    text = "".join(lines)
            else:
                text = text[:i] + draw(st.text(max_size=8)) + text[j:]
        return text.encode("utf-8", "surrogatepass")
    return build()


def _check(fn, raw: bytes) -> None:
    try:
        out = fn(decode_text(raw, "<fuzz>"))
    except DataFormatError:
        return
    arrays = out if isinstance(out, tuple) else (out,)
    for rec in arrays:
        if rec is None:
            continue
        for name in ("grf", "angles"):
            a = getattr(rec, name, None)
            if a is not None:
                # NaN marks a gap and is allowed; an infinity never reaches the output
                assert not np.isinf(a).any(), f"infinite {name}"
        assert np.isfinite(rec.t).all() and (np.diff(rec.t) > 0).all()


def _sto(text: str):
    tab = parse_sto(text, "<fuzz>")
    return (grf_from_table(tab) if has_grf(tab) else None,
            angles_from_table(tab) if has_coordinates(tab) else None)


@FUZZ
@given(_mutate(SEEDS["mot"]))
def test_fuzz_mot_grf(raw: bytes) -> None:
    _check(_sto, raw)


@FUZZ
@given(_mutate(SEEDS["ik"]))
def test_fuzz_mot_ik(raw: bytes) -> None:
    _check(_sto, raw)


@FUZZ
@given(_mutate(SEEDS["trc"]))
def test_fuzz_trc(raw: bytes) -> None:
    def fn(text: str):
        m = parse_trc(text, "<fuzz>")
        assert not any(np.isinf(v).any() for v in m.xyz.values())
        return kinematics_from_trc(m) if len(m.xyz) > 2 else None
    _check(fn, raw)


@FUZZ
@given(_mutate(SEEDS["forces"]))
def test_fuzz_forces(raw: bytes) -> None:
    _check(lambda text: read_forces_text(text, "<fuzz>"), raw)


@FUZZ
@given(_mutate(SEEDS["table"]))
def test_fuzz_table(raw: bytes) -> None:
    _check(lambda text: read_table_text(text, "<fuzz>"), raw)
