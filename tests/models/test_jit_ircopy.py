"""``models.jit_ircopy``: numba's copies of an inlined helper's IR are the stdlib's copies, made faster.

The copy of every block of a real function's IR is compared with :func:`copy.deepcopy`'s, object by object
(types, values, which objects are shared and which are new), and a function with inlined helpers compiles to
the same LLVM IR, byte for byte, with the fast copy and with the stdlib's (two fresh processes: numba numbers
its variables per process)."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

numba = pytest.importorskip("numba")

from models import jit_ircopy  # noqa: E402
from models.jit_ircopy import ir_deepcopy  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _shape(x: Any, original: Any) -> list[Any]:
    """The copy ``x`` of ``original`` as a list: each object's type and value, a back-reference for an object
    met before, and whether it is the original object itself (shared) or a new one."""
    seen: dict[int, int] = {}
    out: list[Any] = []

    def walk(a: Any, o: Any) -> None:
        if id(a) in seen:
            out.append(("ref", seen[id(a)]))
            return
        seen[id(a)] = len(seen)
        out.append((type(a).__name__, a is o))
        if isinstance(a, (list, tuple)):
            out.append(len(a))
            for p, q in zip(a, o):
                walk(p, q)
        elif isinstance(a, dict):
            out.append(sorted(map(repr, a)))
            for k in a:
                walk(a[k], o[k])
        elif hasattr(a, "__dict__") and type(a).__module__.startswith("numba.core.ir"):
            out.append(sorted(vars(a)))
            for k in sorted(vars(a)):
                walk(getattr(a, k), getattr(o, k))
        else:
            out.append(repr(a))

    walk(x, original)
    return out


def _helper(a, i):  # inlined below and in SCRIPT: its IR is what numba copies
    s = 0.0
    for k in range(i):
        s += a[k] * (k + 1.5)
    return s, (a[0], i)


def _caller(a, n):
    t = 0.0
    for j in range(n):
        s, (first, _) = _helper(a, j)
        t += s - first if j % 2 else s
    return t


def test_the_copy_of_every_block_is_deepcopys() -> None:
    from numba.core.compiler import run_frontend

    fir = run_frontend(_caller)
    assert len(fir.blocks) > 3
    for block in fir.blocks.values():
        fast, slow = ir_deepcopy(block), copy.deepcopy(block)
        assert fast is not block and fast.body is not block.body
        assert _shape(fast, block) == _shape(slow, block)
        assert [str(s) for s in fast.body] == [str(s) for s in slow.body]
    assert jit_ircopy._COPIERS.get(type(fir.blocks[0].body[0])) is jit_ircopy._plain  # the fast path was taken


def test_a_tuple_and_a_shared_list_keep_their_identity() -> None:
    shared = [1, 2]
    x = [shared, shared, (shared, 3), (1, "a")]
    y = ir_deepcopy(x)
    assert y == x and y[0] is y[1] is y[2][0] and y[0] is not shared
    assert y[3] is x[3]  # a tuple of atoms is kept, as the stdlib keeps it


SCRIPT = r"""
import copy, json, os, sys
sys.path.insert(0, os.getcwd())
import models.jit
before = "numba.core.inline_closurecall" in sys.modules  # not imported until numba compiles
from numba.core import inline_closurecall as icc
if sys.argv[1] == "stdlib":  # numba's own copies: the fast ones not installed at the first compile
    import models.jit_ircopy
    models.jit_ircopy.install = lambda: None
import numpy as np
from numba import njit
from tests.models.test_jit_ircopy import _helper

helper = njit(inline="always")(_helper)

@njit(inline="always")
def twice(a, i):
    s, pair = helper(a, i)
    return s + helper(a, i + 1)[0], pair

@njit
def caller(a, n):
    t = 0.0
    for j in range(n):
        s, (first, _) = twice(a, j)
        t += s - first if j % 2 else s
    return t

caller(np.arange(8.0), 5)
print(json.dumps([icc.copy.deepcopy.__module__, caller.inspect_llvm(caller.signatures[0]), before]))
"""


def test_inlined_helpers_compile_to_the_same_llvm_ir(tmp_path: Path) -> None:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    runs = {}
    for m in ("stdlib", "fast"):
        out = subprocess.run([sys.executable, "-c", SCRIPT, m], cwd=ROOT, env=env, capture_output=True, text=True,
                             check=True)
        runs[m] = json.loads(out.stdout.strip().splitlines()[-1])
    assert runs["stdlib"][0] == "copy" and runs["fast"][0] == "models.jit_ircopy"
    assert not runs["fast"][2]  # importing models.jit does not import numba's inliner (a warm run compiles nothing)
    assert runs["fast"][1] == runs["stdlib"][1]
