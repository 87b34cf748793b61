"""``models.jit_cache``: a cached function whose callee in another file changed runs the callee's new code,
and nothing compiles again when no compiled file changed."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import blocks
import models
from blocks.kernels import seg
from models import jit_cache

REPO = Path(__file__).resolve().parents[2]

HELPER = '''"""The callee: a cached function in its own file."""
from models.jit import njit


@njit(cache=True)
def scale(x):
    return {factor} * x
'''

CALLER = '''"""The caller: a cached function that calls the helper of another file (numba links it in)."""
from kpkg.helper import scale
from models.jit import njit


@njit(cache=True)
def caller(x):
    return scale(x) + 1.0
'''

RUN = '''import json
from kpkg.caller import caller
value = caller(3.0)
st = caller.stats
print(json.dumps({"value": value, "hits": sum(st.cache_hits.values()), "misses": sum(st.cache_misses.values())}))
'''


PROBE = '''import json
from numba import types
from kpkg.caller import caller
from models.jit_cache import has_machine_code
before = has_machine_code(caller, (types.float64,))
if {compile}:
    caller(3.0)
print(json.dumps({{"before": before, "after": has_machine_code(caller, (types.float64,)),
                  "other": has_machine_code(caller, (types.int32,))}}))
'''


def _run(tmp: Path, code: str = RUN) -> dict[str, float]:
    """``caller(3.0)`` and the caller's cache hits and misses, in a fresh process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp), str(REPO)]), "NUMBA_CACHE_DIR": str(tmp / "numba"),
           "GAITBLOCKS_KERNEL_PATH": str(tmp / "kpkg")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=120)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_a_cached_caller_runs_the_new_code_of_a_helper_edited_in_another_file(tmp_path: Path) -> None:
    pkg = tmp_path / "kpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text(HELPER.format(factor="2.0"))
    (pkg / "caller.py").write_text(CALLER)

    first = _run(tmp_path)
    assert first == {"value": 7.0, "hits": 0, "misses": 1}  # 2 * 3 + 1, compiled and cached

    (pkg / "notes.py").write_text('"""Plain Python beside the kernels."""\nNOTE = 1\n')  # not compiled code
    again = _run(tmp_path)
    assert again == {"value": 7.0, "hits": 1, "misses": 0}  # loaded from the cache: nothing compiled

    (pkg / "helper.py").write_text(HELPER.format(factor="3.0"))  # the caller's own file is unchanged
    edited = _run(tmp_path)
    assert edited["value"] == 10.0  # 3 * 3 + 1: numba alone would load the cached 7.0
    assert edited["misses"] == 1


def test_the_fingerprint_holds_the_compiled_modules_and_what_they_import() -> None:
    files = {p.relative_to(REPO).as_posix() for p in jit_cache.fingerprint_files()}
    # compiled code: kernels, helpers, plain njit(cache=True), register_jitable, numba overloads
    assert {"blocks/library/sources_kernels.py", "blocks/library/walking.py", "models/_eom_numba.py",
            "blocks/csv_text.py", "blocks/kernels.py", "blocks/library/floor.py", "models/jit.py"} <= files
    # imported at module level by those (constants the kernels read): layouts and names
    assert {"blocks/packing.py", "blocks/library/mechanism_pack.py", "blocks/library/context.py",
            "models/biped.py"} <= files
    # neither compiled nor imported by compiled modules (codegen writes "@njit" only inside strings)
    assert "models/jit_cache.py" in files  # the cache's own format
    assert not {"blocks/codegen.py", "blocks/runner.py", "blocks/compiled.py"} & files


def test_every_cached_function_of_the_project_is_stamped_with_the_fingerprint() -> None:
    """A module that caches compiled code without :func:`models.jit.njit` (numba's own cache), or that the
    scan misses, fails here."""
    from numba.core.caching import NullCache
    from numba.core.registry import CPUDispatcher

    files = set(jit_cache.fingerprint_files())
    seen = 0
    for pkg in (models, blocks):
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            if info.name.endswith(".__main__"):  # runs a command when imported
                continue
            mod = importlib.import_module(info.name)
            for v in vars(mod).values():
                if isinstance(v, CPUDispatcher) and not isinstance(v._cache, NullCache):
                    assert isinstance(v._cache, jit_cache.FingerprintCache), v
                    assert Path(v.py_func.__code__.co_filename).resolve() in files, v
                    seen += 1
    assert seen > 50
    assert jit_cache.fingerprint_files((REPO / "app",)) == ()  # the GUI and CLI compile nothing (not scanned)


def test_the_fingerprint_follows_the_files(tmp_path: Path) -> None:
    pkg = tmp_path / "kpkg"
    pkg.mkdir()
    (pkg / "helper.py").write_text(HELPER.format(factor="2.0"))
    (pkg / "consts.py").write_text("N = 3\n")  # no compiled code, but read by the caller: frozen in its code
    (pkg / "unused.py").write_text("M = 4\n")
    (pkg / "caller.py").write_text("from kpkg import consts\nfrom kpkg.helper import (\n    scale,  # a comment\n)\n"
                                   "from models.jit import njit\n\n\n@njit(cache=True)\ndef caller(x):\n"
                                   "    return scale(x) * consts.N\n")
    (pkg / "plain.py").write_text('"""Mentions the @njit decorator."""\nx = "@kernel"\n')  # words, not decorators
    assert jit_cache.fingerprint_files((pkg,)) == (pkg / "caller.py", pkg / "consts.py", pkg / "helper.py")

    taken = jit_cache._take((pkg,))
    assert not jit_cache._edited(taken) and jit_cache._take((pkg,)) == taken
    (pkg / "unused.py").write_text("M = 5\n")
    assert jit_cache._take((pkg,))[0] == taken[0]  # not part of it
    (pkg / "consts.py").write_text("N = 4\n")
    assert jit_cache._edited(taken) and jit_cache._take((pkg,))[0] != taken[0]
    (pkg / "consts.py").write_text("N = 3\n")
    os.utime(pkg / "consts.py", ns=(0, 0))
    assert jit_cache._edited(taken)  # touched since: a process cannot tell what it imported
    assert jit_cache._take((pkg,))[0] == taken[0]  # the same text: the same fingerprint


def test_a_compiled_result_of_another_fingerprint_is_not_loaded() -> None:
    """The data file carries the fingerprint it was compiled under (two processes of different fingerprints
    can leave an index naming the other's data file): another one is a miss, not old code."""

    class Result:
        def _reduce(self) -> tuple[str]:
            return ("machine code",)

    impl = jit_cache._FingerprintImpl(seg.py_func)
    payload = impl.reduce(Result())
    assert payload == (jit_cache.fingerprint(), ("machine code",))
    assert impl.rebuild(None, ("0" * 20, ("machine code",))) is None
    assert impl.rebuild(None, ("machine code", "of an older format")) is None


def test_has_machine_code_tells_a_cached_signature_from_one_to_compile(tmp_path: Path) -> None:
    """The first-compile notice's guess: no machine code before the first call, then in the process and
    in a new process from the disk cache; never for a signature not compiled; stale after an edit."""
    pkg = tmp_path / "kpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text(HELPER.format(factor="2.0"))
    (pkg / "caller.py").write_text(CALLER)
    assert _run(tmp_path, PROBE.format(compile=True)) == {"before": False, "after": True, "other": False}
    assert _run(tmp_path, PROBE.format(compile=False)) == {"before": True, "after": True, "other": False}
    (pkg / "helper.py").write_text(HELPER.format(factor="3.0"))  # the fingerprint changes: the cache is stale
    assert _run(tmp_path, PROBE.format(compile=False)) == {"before": False, "after": False, "other": False}

