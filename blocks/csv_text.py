"""Rows of numbers as CSV text, byte for byte as ``"%.10g"`` formats them, fast.

``results.csv`` holds every recorded signal at every kept tick: 1.4 million numbers for 10 s of
the walking diagram. Python's ``"%.10g" % x`` (as :func:`numpy.savetxt` uses, one call per
number) costs about 0.25 us a number, most of a warm ``gaitblocks run``. :func:`write_rows`
writes each block of rows into one preallocated byte buffer with a compiled loop instead and
writes the same bytes.

How one finite, non-zero ``x`` is written (``%g`` with precision ``P = 10``):

* its decimal exponent ``X`` and ten significant digits ``D`` (``1e9 <= D < 1e10``) come from
  ``m = |x| 10^(9 - X)``, rounded to the nearest integer; ``10^k`` is exact for ``|k| <= 22``, so
  ``m`` carries one rounding (relative error ``<= 2^-53``, below ``3e-6`` absolute for
  ``m < 1e10``). Rounding to nearest can only go wrong when ``m`` is within that error of a half:
  such a number (``|frac(m) - 1/2| < 1e-4``, about one in 5,000), and any ``x`` with ``|x| < 1e-13``
  or ``>= 1e32`` (``|9 - X| > 22``), sends its whole row to Python's own formatting (correctly
  rounded, halves to even);
* ``-4 <= X < 10``: fixed notation with ``9 - X`` decimals, trailing zeros and a bare point
  dropped; otherwise ``d.ddddddddde+XX`` with trailing zeros dropped and at least two exponent
  digits;
* ``0`` -> ``0``, ``-0.0`` -> ``-0``, ``nan``, ``inf``, ``-inf``.

``tests/blocks/test_csv_text.py`` compares the bytes with ``"%.10g"`` on edge cases and random
numbers of every magnitude.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable
from typing import BinaryIO

import numpy as np

from models.jit import njit

__all__ = ["write_rows", "format_rows", "python_rows", "warm_up", "COMPILED_FROM"]

#: blocks with fewer numbers than this are formatted by Python (the compiled loop loads in ~20 ms)
COMPILED_FROM = 20_000
_WIDTH = 17  # bytes of one number at most ("-1.234567891e-05") and its separator
_POW10 = np.array([10.0 ** k for k in range(23)])  # exact: 10^k < 2^53 * 2^k for k <= 22
_TIE = 1e-4
_LOG10_2 = math.log10(2.0)


def python_rows(block: np.ndarray) -> str:
    """``block`` (rows, cols) as CSV lines by ``"%.10g"``: the reference (and small blocks)."""
    row = ",".join(["%.10g"] * block.shape[1]) + "\n"
    return (row * block.shape[0]) % tuple(block.ravel().tolist())


@njit(cache=True, nogil=True)
def _number(x, buf, pos, pow10, digits):
    """Write ``x`` at ``buf[pos:]``; the new position, or -1 when Python must format it."""
    # the words as ASCII codes, not string literals: each literal would compile numba's unicode code (2-3 s)
    if x != x:
        buf[pos], buf[pos + 1], buf[pos + 2] = 110, 97, 110  # 'nan'
        return pos + 3
    if x < 0.0 or (x == 0.0 and np.signbit(x)):
        buf[pos] = 45  # '-'
        pos += 1
    if x == 0.0:
        buf[pos] = 48  # '0'
        return pos + 1
    a = abs(x)
    if a == np.inf:
        buf[pos], buf[pos + 1], buf[pos + 2] = 105, 110, 102  # 'inf'
        return pos + 3
    e = int(math.floor((math.frexp(a)[1] - 1) * _LOG10_2))  # may be one below: the loop corrects it
    for _ in range(3):  # log10 may be one off near powers of ten
        k = 9 - e
        if k > 22 or k < -22:
            return -1
        m = a * pow10[k] if k >= 0 else a / pow10[-k]
        if m >= 1e10:
            e += 1
        elif m < 1e9:
            e -= 1
        else:
            break
    else:
        return -1
    r = np.floor(m)
    frac = m - r
    if abs(frac - 0.5) < _TIE:
        return -1
    d = np.uint64(r) + np.uint64(1 if frac > 0.5 else 0)
    if d >= np.uint64(10_000_000_000):
        d //= np.uint64(10)
        e += 1
    for i in range(9, -1, -1):  # unsigned: a multiply and a shift per digit
        q = d // np.uint64(10)
        digits[i] = np.int64(d - q * np.uint64(10))
        d = q
    last = 9
    while last > 0 and digits[last] == 0:
        last -= 1
    if -4 <= e < 10:
        if e >= 0:
            for i in range(e + 1):
                buf[pos] = 48 + digits[i]
                pos += 1
            if last > e:
                buf[pos] = 46  # '.'
                pos += 1
                for i in range(e + 1, last + 1):
                    buf[pos] = 48 + digits[i]
                    pos += 1
        else:
            buf[pos] = 48
            buf[pos + 1] = 46
            pos += 2
            for _ in range(-e - 1):
                buf[pos] = 48
                pos += 1
            for i in range(last + 1):
                buf[pos] = 48 + digits[i]
                pos += 1
        return pos
    buf[pos] = 48 + digits[0]
    pos += 1
    if last > 0:
        buf[pos] = 46
        pos += 1
        for i in range(1, last + 1):
            buf[pos] = 48 + digits[i]
            pos += 1
    buf[pos] = 101  # 'e'
    buf[pos + 1] = 45 if e < 0 else 43
    pos += 2
    ae = abs(e)
    if ae >= 100:
        buf[pos] = 48 + ae // 100
        pos += 1
    buf[pos] = 48 + (ae // 10) % 10
    buf[pos + 1] = 48 + ae % 10
    return pos + 2


@njit(cache=True, nogil=True)
def _rows(block, buf, ends, pow10):
    """Format ``block`` into ``buf``; ``ends[i]`` = end of row ``i``, negative for a row Python must do."""
    digits = np.zeros(10, dtype=np.int64)
    pos = 0
    n, c = block.shape
    for i in range(n):
        start = pos
        ok = True
        for j in range(c):
            if j:
                buf[pos] = 44  # ','
                pos += 1
            pos = _number(block[i, j], buf, pos, pow10, digits)
            if pos < 0:
                ok = False
                break
        if ok:
            buf[pos] = 10  # '\n'
            pos += 1
            ends[i] = pos
        else:
            pos = start
            ends[i] = -start - 1
    return pos


def write_rows(fh: BinaryIO, blocks: Iterable[np.ndarray]) -> None:
    """Write each ``(rows, cols)`` float64 block of ``blocks`` to ``fh`` as CSV lines (``,`` between
    numbers, ``\\n`` after each row): the bytes of :func:`python_rows` (module docstring). One byte
    buffer serves every block."""
    buf = np.empty(0, dtype=np.uint8)
    for block in blocks:
        block = np.ascontiguousarray(block, dtype=np.float64)
        if block.ndim != 2 or block.size < COMPILED_FROM:
            fh.write(python_rows(block.reshape(block.shape[0], -1)).encode("ascii"))
            continue
        need = block.shape[0] * (block.shape[1] * _WIDTH + 1)
        if buf.size < need:
            buf = np.empty(need, dtype=np.uint8)
        ends = np.empty(block.shape[0], dtype=np.int64)
        size = _rows(block, buf, ends, _POW10)
        view, pos = buf.data, 0
        for i in np.flatnonzero(ends < 0):  # rows the compiled loop left out: the buffer holds nothing for them
            start = -int(ends[i]) - 1
            fh.write(view[pos:start])
            fh.write(python_rows(block[i: i + 1]).encode("ascii"))
            pos = start
        fh.write(view[pos:size])


def format_rows(block: np.ndarray) -> bytes:
    """``block`` as the bytes :func:`write_rows` writes."""
    out = io.BytesIO()
    write_rows(out, [block])
    return out.getvalue()


def warm_up() -> None:
    """Compile (or load from the cache) the compiled loop, as :func:`write_rows` calls it: a first run's idle
    compile worker runs this while the run goes on (:data:`blocks.compiled.ALSO_WARM`)."""
    format_rows(np.zeros((1, COMPILED_FROM)))
