r"""Code generation: a :class:`~blocks.compile.CompiledModel` as the source of one numba step function.

The emitted module defines ``advance_serial`` and ``advance_parallel``: the same body, compiled
without and with ``parallel=True``. Row ``i`` of every buffer is copy ``i`` of the diagram
(``prange`` over copies); one run is ``N = 1`` (the serial form: no thread pool). Per copy it runs
ticks ``k0 .. k0 + n - 1`` exactly as :mod:`blocks.runner` does:

1. stop (reason ``PARAM``) if ``FLAG[0]`` is set: a live parameter change is queued;
2. major output pass, in the compiled order, a sampled block only on its sample hits
   (``k % ticks == 0``);
3. ``sum(sig)`` not finite: stop before recording (``NONFINITE_SIGNAL``; the tick is not done); summed as four
   interleaved partial sums (strict IEEE arithmetic keeps one sum a chain of dependent additions: the walking
   step 0.03-0.13 us a tick faster, paired in one process; a NaN or an infinity still makes it non-finite);
4. record row ``k // every - row0`` when ``k % every == 0``: ``REC[i, row, c] = sig[RIDX[c]]``
   (``row0``: the first row the buffer holds, 0 unless the log is streamed to disk in chunks);
5. discrete updates into ``zn`` of the blocks with a hit; a changed mode entry copies ``z`` to
   ``zold`` (Python logs the events from the two); then ``z = zn`` for those blocks;
6. RK4, ``h = dt``, minor blocks re-evaluated at stages 2-4 on ``xw = x + c K_{s-1}`` (a block
   without inputs and states, whose outputs are a function of ``t`` and its parameters, as a
   recording's source, is not evaluated again at stage 3: its stage-2 outputs, at the same time,
   are still in ``sig``):

   .. math:: x_{k+1} = x_k + w_1 K_1 + w_2 K_2 + w_3 K_3 + w_4 K_4, \quad w = (1, 2, 2, 1)\,h/6

7. ``sum(x)`` not finite: stop after the tick (``NONFINITE_STATE``, or ``NONFINITE_STATE_AND_MODE``
   when a mode changed in that tick too); a mode change stops after the tick when ``stop_modes``
   (``MODE``).

``final`` = 1 evaluates the outputs once more at tick ``k0 + done`` (the runner's last row),
2 also records it (as :meth:`blocks.recorder.Recorder.record` with ``final=True``). ``DONE[i]``,
``REASON[i]`` and, on a non-finite value, ``FAILT[i]`` (time [s]) report per copy. Every mode
switch is also appended to ``EV[i]`` as ``(tick, z index, old, new)`` while it has room (``EVN[i]``
counts them all): batch runs log their events from it.

Kernels are imported by module and name, so they must be module-level ``@kernel`` functions.
The step calls each one by address (:func:`blocks.step_intrinsics.caller`; ``FN[c]`` is the address
of ``CALLS[c] = (kernel, number of arguments)``, taken by :class:`blocks.compiled.CompiledEngine`), so
numba neither links nor optimises the kernels' code again when it compiles a new step; the ports are
views without owner (:func:`blocks.step_intrinsics.view`, ``row``), made once per call before the tick
loop. Both keep the step's own code small: the walking diagram's step compiled in 6.9-7.4 s of CPU
with linked kernels and numba's slices, 4.1-4.3 s without (docs/engine.md, issue 35 §3). The step is
called from Python only, so it is compiled without numba's C wrapper (``no_cfunc_wrapper``).
The source carries a hash of the text of every kernel module it imports, of the fingerprint of all the
project's compiled code (:func:`models.jit_cache.fingerprint`: the helpers those kernels call and the
layouts they read) and of the numba version, so a changed kernel or helper gives a new file (numba's
cache does not see changes in called functions). A process whose kernel modules, or files of the
fingerprint, were edited on disk after it imported them salts the hash with its own id, so the step it
compiles from the older code is never loaded by another process (seen once: a long test run compiled,
under the new text's hash, a step from the code it had imported before an edit).
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path
from typing import Any

from blocks.compile import CompiledModel
from blocks.core import Block, Kernels
from models.jit import numba
from models.jit_cache import edited_since_fingerprint, fingerprint

__all__ = ["DONE_ALL", "MODE", "NONFINITE_STATE_AND_MODE", "NONFINITE_SIGNAL", "NONFINITE_STATE", "PARAM", "generate",
           "missing_kernels", "block_kernels"]

DONE_ALL, MODE, NONFINITE_SIGNAL, NONFINITE_STATE, PARAM, NONFINITE_STATE_AND_MODE = 0, 1, 2, 3, 4, 5


def block_kernels(b: Block) -> Kernels | None:
    """``b.kernels()`` if it covers what the block needs (outputs, derivative, update), else None."""
    k = b.kernels()
    if k is None:
        return None
    _, outs = b.port_specs()
    if outs and k.output is None:
        return None
    if b.state_size() and k.derivative is None:
        return None
    if b.discrete and b.discrete_size() and k.update is None:
        return None
    return k


def missing_kernels(model: CompiledModel) -> list[str]:
    """Blocks of ``model`` without a (complete) compiled form, as ``"name (Type)"``."""
    return [f"{b.name} ({b.type_name})" for b in model.blocks if block_kernels(b) is None]


def _ref(fn: Any) -> tuple[str, str, str]:
    py = getattr(fn, "py_func", fn)
    mod, name = py.__module__, py.__name__
    if getattr(sys.modules.get(mod), name, None) is not fn:
        raise TypeError(f"kernel {mod}.{name} must be a module-level @kernel function (importable by name)")
    return mod, name, getattr(sys.modules[mod], "__file__", "") or ""


def _edited_since_import(files: set[str]) -> bool:
    """Whether a kernel module among ``files`` changed on disk after this process imported it (the
    step's hash reads the files, the compiled step the imported code)."""
    from blocks.kernels import IMPORTED

    for path in files:
        try:
            st = os.stat(path)
        except OSError:
            continue
        if path in IMPORTED and IMPORTED[path] != (st.st_mtime_ns, st.st_size):
            return True
    return False


class _Src:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)


def _signal_sum(src: _Src) -> None:
    """``acc``: the signals' sum for the finite check, as four interleaved partial sums (module docstring, 3)."""
    src(3, "a0 = a1 = a2 = a3 = 0.0")
    src(3, "for j in range(0, sig.size - 3, 4):")
    for i in range(4):
        src(4, f"a{i} += sig[j + {i}]")
    src(3, "for j in range(sig.size - sig.size % 4, sig.size):")
    src(4, "a0 += sig[j]")
    src(3, "acc = (a0 + a1) + (a2 + a3)")


def generate(model: CompiledModel) -> tuple[str, str]:
    """``(source, key)``: the module text and the hash naming it (module docstring)."""
    imports: dict[tuple[str, str], str] = {}
    files: set[str] = set()

    def alias(fn: Any) -> str:
        mod, name, path = _ref(fn)
        files.add(path)
        return imports.setdefault((mod, name), f"_k{len(imports)}")

    m = model
    views: dict[tuple[str, int, int], str] = {}

    def view(buf: str, off: int, size: int) -> str:
        return views.setdefault((buf, off, size), f"{buf}_{off}_{size}")

    plan: list[dict[str, Any]] = []
    for j, b in enumerate(m.blocks):
        k = block_kernels(b)
        if k is None:
            raise TypeError(f"block '{b.name}' ({b.type_name}) has no compiled form")
        n = b.name
        u = [view("sig", *m.in_slot[f"{n}.{s.name}"]) for s in m.inputs[n]]
        y = [view("sig", *m.out_slot[f"{n}.{s.name}"]) for s in m.outputs[n]]
        xo, xs = m.x_slot[n]
        zo, zs = m.z_slot[n]
        plan.append({
            "j": j, "b": b, "u": u, "y": y, "every": m.ticks[n], "minor": n in m.minor,
            "x": view("x", xo, xs), "xw": view("xw", xo, xs), "z": view("z", zo, zs), "zn": view("zn", zo, zs),
            "k": [view(f"stage{s}", xo, xs) for s in range(4)], "zslot": (zo, zs), "nmodes": len(b.modes),
            "out": alias(k.output) if y else None,
            "der": alias(k.derivative) if xs else None,
            "upd": alias(k.update) if b.discrete and zs else None,
            "time_only": not u and not xs and not zs,  # outputs a function of t and p alone
        })

    def hit(e: int) -> str:
        return "True" if e == 1 else f"k % {e} == 0"

    sites: dict[tuple[str, int], int] = {}  # (kernel alias, number of arguments): its address's index in FN

    def call(fn: str, t: str, x: str, z: str, c: dict[str, Any], outs: list[str]) -> str:
        args = [t, x, z, *c["u"], f"p_{c['j']}", *outs]
        at = sites.setdefault((fn, len(args)), len(sites))
        return f"{fn}c(FN[{at}], {', '.join(args)})"

    body = _Src()
    major = _Src()
    for c in plan:
        if c["out"]:
            ind = 0 if c["every"] == 1 else 1
            if ind:
                major(0, f"if {hit(c['every'])}:")
            major(ind, call(c["out"], "t", c["x"], c["z"], c, c["y"]))
    if not major.lines:
        major(0, "pass")

    nx = int(m.x0.size)
    body(3, "if FLAG[0] != 0:")
    body(4, "reason = 4")
    body(4, "break")
    body.lines += ["            " + ln for ln in major.lines]
    _signal_sum(body)
    body(3, "if not math.isfinite(acc):")
    body(4, "reason = 2")
    body(4, "FAILT[i] = t")
    body(4, "break")
    body(3, "if k % every == 0:")
    body(4, "row = k // every - row0")
    body(4, "for c in range(RIDX.size):")
    body(5, "rec[row, c] = sig[RIDX[c]]")
    body(4, "if i == 0:")
    body(5, "RTICKS[row] = k")
    upd = [c for c in plan if c["upd"]]
    body(3, "changed = False")
    for c in upd:
        ind = 3 if c["every"] == 1 else 4
        if ind == 4:
            body(3, f"if {hit(c['every'])}:")
        body(ind, call(c["upd"], "t", c["x"], c["z"], c, [c["zn"]]))
    for c in upd:
        if c["nmodes"]:
            zo = c["zslot"][0]
            body(3, f"if {hit(c['every'])}:")
            body(4, f"for q in range({zo}, {zo + c['nmodes']}):")
            body(5, "if z[q] != zn[q]:")
            body(6, "changed = True")
            body(6, "if ne < ev.shape[0]:")
            body(7, "ev[ne, 0] = k")
            body(7, "ev[ne, 1] = q")
            body(7, "ev[ne, 2] = z[q]")
            body(7, "ev[ne, 3] = zn[q]")
            body(6, "ne += 1")
    if any(c["nmodes"] for c in upd):
        body(3, "if changed:")
        body(4, "for q in range(z.size):")
        body(5, "zold[q] = z[q]")
    for c in upd:
        zo, zs = c["zslot"]
        body(3, f"if {hit(c['every'])}:")
        body(4, f"for q in range({zo}, {zo + zs}):")
        body(5, "z[q] = zn[q]")
    if nx:
        ders = [c for c in plan if c["der"]]
        for c in ders:
            body(3, call(c["der"], "t", c["x"], c["z"], c, [c["k"][0]]))
        for s, (coef, ts) in enumerate((("0.5 * dt", "t + 0.5 * dt"), ("0.5 * dt", "t + 0.5 * dt"), ("dt", "t + dt")),
                                       start=1):
            body(3, f"cs = {coef}")
            body(3, f"ts = {ts}")
            body(3, "for j in range(x.size):")
            body(4, f"xw[j] = x[j] + stage{s - 1}[j] * cs")
            for c in plan:
                if c["out"] and c["minor"] and not (s == 2 and c["time_only"]):
                    body(3, call(c["out"], "ts", c["xw"], c["z"], c, c["y"]))
            for c in ders:
                body(3, call(c["der"], "ts", c["xw"], c["z"], c, [c["k"][s]]))
        body(3, "acc = 0.0")
        body(3, "for j in range(x.size):")
        body(4, "x[j] += w[0] * stage0[j] + w[1] * stage1[j] + w[2] * stage2[j] + w[3] * stage3[j]")
        body(4, "acc += x[j]")
        body(3, "done += 1")
        body(3, "if not math.isfinite(acc):")
        body(4, "reason = 5 if changed else 3")
        body(4, "FAILT[i] = t + dt")
        body(4, "break")
    else:
        body(3, "done += 1")
    body(3, "if changed and stop_modes:")
    body(4, "reason = 1")
    body(4, "break")

    head = _Src()
    head(2, "ii = np.int64(i)  # prange's index is unsigned: int64 | uint64 would unify to float64")
    for buf in ("sig", "x", "xw", "z", "zn", "zold"):
        head(2, f"{buf} = _row({buf.upper()}, ii)")
    head(2, "rec = REC[i]")
    head(2, "ev = EV[i]")
    head(2, "ne = EVN[i]")
    for s in range(4):
        head(2, f"stage{s} = K[i, {s}]")
    for c in plan:
        j = c["j"]
        head(2, f"p_{j} = _row(P[{j}], ii if P[{j}].shape[0] > 1 else 0)")
    for (buf, off, size), name in views.items():
        head(2, f"{name} = _view({buf}, {off}, {size})")

    final = _Src()
    final(2, "if final > 0 and reason == 0:")
    final(3, "k = k0 + done")
    final(3, "t = t0 + k * dt")
    final.lines += ["            " + ln for ln in major.lines]
    _signal_sum(final)
    final(3, "if not math.isfinite(acc):")
    final(4, "reason = 2")
    final(4, "FAILT[i] = t")
    final(3, "elif final == 2:")
    final(4, "row = k // every + (1 if k % every else 0) - row0")
    final(4, "for c in range(RIDX.size):")
    final(5, "rec[row, c] = sig[RIDX[c]]")
    final(4, "if i == 0:")
    final(5, "RTICKS[row] = k")

    import blocks.packing  # the layouts' offsets, which kernels read as constants
    import blocks.step_intrinsics  # the views the step makes

    files.update((str(blocks.packing.__file__), str(blocks.step_intrinsics.__file__)))
    hasher = hashlib.sha256()
    for path in sorted(files):
        try:
            hasher.update(Path(path).read_bytes())
        except OSError:
            hasher.update(path.encode())
    hasher.update(numba.__version__.encode())
    hasher.update(fingerprint().encode())  # every compiled file: the kernels' own callees and constants too
    if _edited_since_import(files) or edited_since_fingerprint():  # older code than the files: never share it
        hasher.update(f"stale:{os.getpid()}:{time.time_ns()}".encode())
    out = [f'"""Generated by blocks.codegen for diagram {m.diagram.name!r} ({len(m.blocks)} blocks): do not edit."""',
           f"# kernels and numba: {hasher.hexdigest()[:16]}", "import math", "", "import numpy as np",
           "from numba import njit, prange", "",
           "from blocks.step_intrinsics import caller as _caller, row as _row, view as _view"]
    out += [f"from {mod} import {name} as {a}" for (mod, name), a in imports.items()]
    out += [""] + [f"{a}c = _caller({a})" for a in imports.values()]
    out += ["", "# FN[i]: the address of CALLS[i] = (kernel, number of arguments) (blocks.step_intrinsics.address)",
            f"CALLS = ({''.join(f'({a}, {n}), ' for (a, n) in sites)})"]
    sig_args = ("k0, n, final, stop_modes, t0, dt, w, SIG, X, XW, K, Z, ZN, ZOLD, P, REC, RTICKS, RIDX, every, row0, "
                "FLAG, DONE, REASON, FAILT, EV, EVN, FN")
    common = "cache=True, nogil=True, error_model='numpy', no_cfunc_wrapper=True, _nrt=False"  # called from Python only
    for fname, flags in (("advance_serial", common), ("advance_parallel", common + ", parallel=True")):
        out += ["", "", f"@njit({flags})", f"def {fname}({sig_args}):  # noqa",
                "    for i in prange(SIG.shape[0]):"]
        out += head.lines
        out += ["        done = 0", "        reason = 0", "        for kk in range(n):", "            k = k0 + kk",
                "            t = t0 + k * dt"]
        out += body.lines
        out += final.lines
        out += ["        DONE[i] = done", "        REASON[i] = reason", "        EVN[i] = ne"]
    src = "\n".join(out) + "\n"
    key = hashlib.sha256(src.encode()).hexdigest()[:20]
    return src, key
