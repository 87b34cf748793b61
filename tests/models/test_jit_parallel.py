"""``models.jit_parallel``: kernels compiled by worker processes give the same cache entries, machine code
and results as compiled in one process; a worker that fails leaves its work to this process; and a cache
entry naming another signature's machine code is a miss (``models.jit_cache.FingerprintCache``)."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from models import jit_cores, jit_parallel
from models.errors import UserError
from models.jit import njit

REPO = Path(__file__).resolve().parents[2]

#: a tiny diagram of library blocks with kernels: at least two kernel groups to share out
RUN = r'''
import json, sys
import numpy as np
from blocks import Diagram, Runner, compile_diagram
from blocks.diagram import SolverSettings
import blocks.compiled as bc

reports = []
compile_all = bc.compile_all
def recorded(*a, **k):
    reports.append(compile_all(*a, **k))
    return reports[-1]
bc.compile_all = recorded
d = Diagram("parallel_probe", solver=SolverSettings(dt=1e-3, t_end=0.2))
d.add("ref", "Step", t_step=0.05, before=0.0, after=1.0)
d.add("err", "Sum", signs="+-")
d.add("k", "Gain", k=4.0)
d.add("x", "Integrator", x0=0.1, n=1)
d.add("mux", "Mux", sizes=(1.0, 1.0))
for a, b in [("ref.y", "err.u1"), ("x.y", "err.u2"), ("err.y", "k.u"), ("k.y", "x.u"), ("x.y", "mux.u1"),
             ("err.y", "mux.u2")]:
    d.connect(a, b)
runner = Runner(compile_diagram(d), engine="compiled")
res = runner.run()
calls = runner._engine.module.CALLS
import numba
from blocks import csv_text
from models import jit_cores, jit_parallel
from models.errors import UserError
from models.jit_cache import has_machine_code
for proc in jit_parallel._EXITING:  # a worker's warm-ups (blocks.compiled.ALSO_WARM) are not waited for
    proc.wait()
rows = tuple(numba.typeof(a) for a in (np.zeros((1, 2)), np.zeros(1, np.uint8), np.zeros(1, np.int64), csv_text._POW10))
out = {"signals": {k: v.tolist() for k, v in res.signals.items()}, "csv": has_machine_code(csv_text._rows, rows),
       "hits": sum(sum(k.stats.cache_hits.values()) for k, _ in calls),
       "misses": sum(sum(k.stats.cache_misses.values()) for k, _ in calls),
       "report": [vars(r) for r in reports]}
print(json.dumps(out))
'''


def _run(cache: Path, workers: int, code: str = RUN) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO), "NUMBA_CACHE_DIR": str(cache / "numba"),
           "GAITBLOCKS_CACHE": str(cache / "gb"), jit_cores.ENV: str(workers)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600, cwd=REPO)
    assert out.returncode == 0, out.stderr[-3000:]
    result: dict = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _entries(cache: Path) -> dict[tuple[str, object], bytes]:
    """Every numba cache entry under ``cache``: ``(index file's name, index key)`` -> the bytes of its data file
    (numba's folder for the generated step is named after its path, which differs between the runs)."""
    out = {}
    indexes = sorted(cache.rglob("*.nbi"))
    assert len({i.name for i in indexes}) == len(indexes)
    for index in indexes:
        with open(index, "rb") as f:
            pickle.load(f)  # numba's version
            _stamp, overloads = pickle.loads(f.read())
        for key, name in overloads.items():
            out[(index.name, key)] = (index.parent / name).read_bytes()
    return out


def test_workers_fill_the_cache_with_the_serial_compile_s_entries_and_results(tmp_path: Path) -> None:
    """The kernels of a diagram compiled on two processes (one worker) and on one: the same cache index keys
    and the same results, to the bit; the run with the worker loaded the worker's kernels from the cache,
    and a later process loads every kernel."""
    parallel = _run(tmp_path / "parallel", workers=1)
    serial = _run(tmp_path / "serial", workers=0)
    (report,) = parallel["report"]
    assert report["workers"] == 1 and report["elsewhere"] >= 1 and report["here"] >= 1 and not report["note"]
    assert parallel["hits"] >= report["elsewhere"]  # the worker's machine code loaded here, not compiled again
    assert serial["report"] == [] or serial["report"][0]["elsewhere"] == 0
    assert serial["hits"] == 0
    assert parallel["signals"] == serial["signals"]
    assert parallel["csv"] and not serial["csv"]  # the CSV writer compiled by the idle worker, as the run calls it

    a, b = _entries(tmp_path / "parallel" / "numba"), _entries(tmp_path / "serial" / "numba")
    kernels = {k for k in a if not k[0].startswith("csv_text.")}  # the CSV writer: the worker's warm-up
    assert len(kernels) >= 5 and kernels == b.keys()  # the same signatures, CPU and bytecode: the same index keys
    # (the data files differ in numba's per-process counters in the symbol names, as two serial runs do when
    # they compile in another order: ``copy_u_next$8`` / ``$2``; the results below are compared instead)

    again = _run(tmp_path / "parallel", workers=1)
    assert again["misses"] == 0 and again["hits"] > 0 and again["report"] == []
    assert again["signals"] == serial["signals"]


# ----------------------------------------------------------------------------- groups
@njit(cache=False)
def _shared(x):
    return 2.0 * x


@njit(cache=False, inline="always")
def _inlined(x):
    return x + 1.0


@njit(cache=False)
def _a(x):
    return _shared(x) + _inlined(x)


@njit(cache=False)
def _b(x):
    return _shared(x) - 1.0


@njit(cache=False)
def _c(x):
    return _inlined(x) * 3.0 + x * x * x - x / 7.0 + 2.0 * x ** 4


@njit(cache=False)
def _d(x):
    return _inlined(x)


def test_groups_join_calls_sharing_a_compiled_callee_or_a_dispatcher() -> None:
    from numba import types

    f8, i8 = (types.float64,), (types.int64,)
    got = jit_parallel.groups([(_a, f8), (_c, f8), (_b, f8), (_d, f8), (_d, i8)])
    names = [sorted(d.py_func.__name__ + str(sig[0]) for d, sig in g) for g in got]
    # _a and _b share _shared (compiled for both); an inlined helper joins nothing; _d's two signatures together
    assert sorted(names) == sorted([["_afloat64", "_bfloat64"], ["_cfloat64"], ["_dfloat64", "_dint64"]])
    assert names[0] == ["_afloat64", "_bfloat64"]  # the largest first


def test_compile_size_counts_each_dispatcher_once_with_what_it_calls() -> None:
    from numba import types

    f8, i8 = (types.float64,), (types.int64,)
    d_alone = jit_parallel.compile_size([(_d, f8)])
    assert jit_parallel.compile_size([(_d, f8), (_d, i8)]) == d_alone   # two signatures: one code
    assert d_alone > len(_d.py_func.__code__.co_code)                      # the inlined helper counts
    assert jit_parallel.compile_size([(_a, f8), (_b, f8)]) == (jit_parallel.compile_size([(_a, f8)])
                                                               + jit_parallel.compile_size([(_b, f8)]))


def test_the_compile_estimate_waits_for_its_longest_group() -> None:
    """One large kernel group is not shortened by workers; equal groups share the processes (longest first)."""
    from blocks.compiled import compile_estimate_s

    step = compile_estimate_s(10, False)                       # the step alone: 1 + 0.15 * 10
    assert step == pytest.approx(2.5) and compile_estimate_s(10, True) == pytest.approx(5.0)
    big = 0.4 + 3.5e-4 * 30000
    assert compile_estimate_s(10, False, [30000]) == pytest.approx(step + big)
    assert compile_estimate_s(10, False, [30000, 1000], workers=1) == pytest.approx(step + big + 1.0)
    small = 0.4 + 3.5e-4 * 1000
    assert compile_estimate_s(10, False, [1000] * 4, workers=1) == pytest.approx(step + 2 * small + 1.0)
    assert compile_estimate_s(10, False, [1000] * 4) == pytest.approx(step + 4 * small)


def test_worker_count_follows_the_environment_and_the_idle_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(jit_cores.ENV, "2")
    assert jit_cores.worker_count(10) == 2 and jit_cores.worker_count(2) == 1
    assert jit_cores.worker_count(1) == 0  # nothing to share
    monkeypatch.setenv(jit_cores.ENV, "0")
    assert jit_cores.worker_count(10) == 0
    monkeypatch.setenv(jit_cores.ENV, "two")
    with pytest.raises(UserError, match="GAITBLOCKS_COMPILE_WORKERS='two'"):
        jit_cores.worker_count(10)
    monkeypatch.delenv(jit_cores.ENV)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(4)), raising=False)
    for idle, workers in ((4.0, 3), (3.6, 3), (3.4, 2), (2.0, 1), (1.4, 0), (0.1, 0)):  # 4 cores: floor(idle - 1/2)
        monkeypatch.setattr(jit_cores, "idle_cores", lambda idle=idle: idle)
        assert jit_cores.worker_count(10) == workers, idle
    monkeypatch.setattr(jit_cores, "idle_cores", lambda: 4.0)
    assert jit_cores.worker_count(2) == 1 and jit_cores.worker_count(1) == 0


def test_idle_cores_sees_a_busy_core() -> None:
    """A thread spinning while the machine is watched leaves at most the other cores idle."""
    cores = os.cpu_count() or 1
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        busy = jit_cores.idle_cores(0.3)
    finally:
        stop.set()
        spinner.join()
    assert 0.0 <= busy <= cores - 0.7


# ----------------------------------------------------------------------------- failures
DIES = '''"""Functions to compile."""
from models.jit import njit


@njit(cache=True)
def doomed(x):
    return x * 5.0


@njit(cache=True)
def fine(x):
    return x - 5.0
'''

FAILING = r'''
import json
from numba import types
from kpkg import dies
from models import jit_cores, jit_parallel
jit_parallel.WORKER = ("-c", "import os; os._exit(7)")  # a worker that ends as it starts
notes = []
f8 = (types.float64,)
made = {}
exec("from models.jit import njit\n@njit\ndef local(x):\n    return x + 0.5\n", made)
funcs = (dies.doomed, dies.fine, made["local"])
report = jit_parallel.compile_all([(f, f8) for f in funcs], workers=1, on_note=notes.append)
print(json.dumps({"report": vars(report), "notes": notes, "compiled": [len(f.overloads) for f in funcs],
                  "values": [f(2.0) for f in funcs]}))
'''


def test_a_worker_that_dies_leaves_the_work_to_this_process(tmp_path: Path) -> None:
    """The worker ends as it starts: every function is compiled here all the same, and the note says so (a
    function not importable by its name would have been compiled here in any case)."""
    pkg = tmp_path / "kpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "dies.py").write_text(DIES)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)]),
           "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "GAITBLOCKS_KERNEL_PATH": str(pkg)}
    out = subprocess.run([sys.executable, "-c", FAILING], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["compiled"] == [1, 1, 1] and got["values"] == [10.0, -3.0, 2.5]
    report = got["report"]
    assert report["elsewhere"] == 0 and report["here"] == 3 and report["workers"] == 1
    assert "a compile worker ended (exit code 7)" in report["note"]
    assert got["notes"] == [report["note"]]


class _Conn:
    """A worker's end of the pipe, played back: its messages, then EOF (it died)."""

    def __init__(self, messages: list[tuple[str, str]]) -> None:
        self.messages, self.sent = list(messages), []

    def recv(self) -> tuple[str, str]:
        if not self.messages:
            raise EOFError
        return self.messages.pop(0)

    def send(self, obj: object) -> None:
        self.sent.append(obj)


class _Proc:
    returncode = -9

    def wait(self, timeout: float | None = None) -> int:
        return self.returncode


def _feed(messages: list[tuple[str, str]], todo: list) -> tuple[_Conn, list, list[str], jit_parallel._Queue]:
    conn, lost, notes = _Conn(messages), [], []
    queue = jit_parallel._Queue(todo, ("pkg:warm_up",))
    jit_parallel._feed(_Proc(), conn, "hello", queue, jit_parallel.Report(), lost, 0.0, notes)
    assert conn.sent[0] == "hello"  # the run's path, cache folder and fingerprint
    del conn.sent[0]
    return conn, lost, notes, queue


def test_the_feeder_gives_back_what_a_worker_did_not_compile() -> None:
    from numba import types

    f8 = (types.float64,)
    local = njit(lambda x: x)  # not importable by its name: never sent
    g1, g2, g3 = [(_a, f8), (_b, f8)], [(local, f8)], [(_c, f8)]
    conn, lost, notes, queue = _feed([("ready", ""), ("done", ""), ("failed", "TypingError: no")], [g1, g2, g3])
    sent = [m if isinstance(m, tuple) else [q for _, q, _ in m] for m in conn.sent]
    assert sent == [["_a", "_b"], ["_c"], ("pkg:warm_up",)]  # g2 skipped, then the warm-ups: nothing left
    assert lost == [g2, g3] and notes == ["TypingError: no"] and queue.elsewhere == 1

    conn, lost, notes, queue = _feed([("ready", "")], [g1, g3])  # dies while compiling g1
    assert lost == [g1] and notes == ["a compile worker ended (exit code -9)"] and queue.take() == g3


# ----------------------------------------------------------------------------- a crossed index entry
CROSS = r'''
import json, sys
from kpkg.fine import fine
if sys.argv[1] == "compile":
    fine(2.0), fine(2)
value = fine(2)
print(json.dumps({"value": value, "type": type(value).__name__, "hits": sum(fine.stats.cache_hits.values()),
                  "misses": sum(fine.stats.cache_misses.values())}))
'''


def test_an_index_entry_naming_another_signature_s_data_is_a_miss(tmp_path: Path) -> None:
    """Two processes saving two signatures of one function at once can leave the index naming the other's
    data file (numba numbers them per index): the int64 entry made to name the float64 machine code. numba
    alone would run the float64 code for an int (returning 7.0 ... as a float); here it compiles again."""
    pkg = tmp_path / "kpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "fine.py").write_text("from models.jit import njit\n\n\n@njit(cache=True)\ndef fine(x):\n    return x + 5\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO)]),
           "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "GAITBLOCKS_KERNEL_PATH": str(pkg)}

    def run(mode: str) -> dict:
        out = subprocess.run([sys.executable, "-c", CROSS, mode], env=env, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr[-3000:]
        result: dict = json.loads(out.stdout.strip().splitlines()[-1])
        return result

    assert run("compile") == {"value": 7, "type": "int", "hits": 0, "misses": 2}
    assert run("load") == {"value": 7, "type": "int", "hits": 1, "misses": 0}
    (index,) = (tmp_path / "numba").rglob("fine*.nbi")
    with open(index, "rb") as f:
        version = pickle.load(f)
        stamp, overloads = pickle.loads(f.read())
    assert len(overloads) == 2
    by_arg = {str(key[0][0]): name for key, name in overloads.items()}
    crossed = {key: by_arg["float64"] for key in overloads}  # both signatures name the float64 data file
    with open(index, "wb") as f:
        pickle.dump(version, f, protocol=-1)
        f.write(pickle.dumps((stamp, crossed), protocol=-1))
    assert run("load") == {"value": 7, "type": "int", "hits": 0, "misses": 1}
