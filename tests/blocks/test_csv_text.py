"""``results.csv`` text: the compiled formatter writes the bytes ``"%.10g"`` (and ``numpy.savetxt``) writes."""

from __future__ import annotations

import io

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from blocks import csv_text
from blocks.csv_text import format_rows, python_rows

EDGES = [0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0, 0.5, 1e-4, -1e-4, 9.99999999949e-5, 9.9999999995e-5, 1e-5,
         1.234567891e-4, 12345678905.0, 12345678915.0, 1234567890.5, 9999999999.5, 99999.999995, 1e10, 1e9,
         999999999.95, 9999999999.4, 1e-13, 1e-14, 9.9e-14, 1e32, 1e31, 5e-324, 2.2250738585072014e-308,
         1.7976931348623157e308, 123.456, 0.1, 0.3, 2 / 3, -2 / 3, 1e22, 1e-22, 100.0, 1e-300, 1e100, 0.0001,
         0.00012345, 1234567.0, 3.0000000005, 3.0000000015, 2.5e-5, 7.0e15]


def savetxt_bytes(block: np.ndarray) -> bytes:
    fh = io.BytesIO()
    np.savetxt(fh, block, fmt="%.10g", delimiter=",")
    return fh.getvalue()


def compiled(block: np.ndarray) -> bytes:
    """:func:`format_rows` on the compiled path whatever the block's size."""
    old = csv_text.COMPILED_FROM
    csv_text.COMPILED_FROM = 0
    try:
        return format_rows(block)
    finally:
        csv_text.COMPILED_FROM = old


def test_edge_values_match_savetxt_byte_for_byte() -> None:
    block = np.array(EDGES + [-v for v in EDGES]).reshape(-1, 4)
    assert compiled(block) == savetxt_bytes(block)
    assert python_rows(block).encode() == savetxt_bytes(block)
    # the ties (an exact half at the tenth digit) went to Python, which rounds them to even
    assert compiled(np.array([[12345678905.0, 12345678915.0]])) == b"1.23456789e+10,1.234567892e+10\n"


def test_random_numbers_of_every_magnitude_match() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        block = rng.standard_normal((300, 30)) * 10.0 ** rng.uniform(-20, 40, (300, 30))
        block[rng.random(block.shape) < 0.1] = 0.0
        rounded = np.round(block, int(rng.integers(0, 6)))  # short decimals and trailing zeros
        with np.errstate(over="ignore"):
            single = block.astype(np.float32).astype(np.float64)  # short binary fractions, inf
        for b in (block, rounded, single):
            assert compiled(b) == savetxt_bytes(b)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 6)), elements=st.floats(width=64)))
def test_any_float_matches(block: np.ndarray) -> None:
    assert compiled(block) == savetxt_bytes(block)


def test_small_blocks_take_the_python_path_with_the_same_bytes() -> None:
    block = np.array([[1.5, -2.25e-7, np.nan]])
    assert block.size < csv_text.COMPILED_FROM
    assert format_rows(block) == savetxt_bytes(block) == b"1.5,-2.25e-07,nan\n"
