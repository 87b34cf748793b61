"""numba's disk cache kept right across source files: every cached function of the project is stamped
with a fingerprint of all the project's compiled code, not only of its own file.

numba's ``cache=True`` stores a function's machine code with a stamp of its own source file
(a content hash in numba 0.68, mtime and size before) and reuses it while that stamp matches. But a
compiled function links, and often inlines, the code of every compiled function it calls, and
freezes the module globals it reads (a packed layout's offsets) as constants. A kernel in
``walking.py`` calling a helper of ``sources_kernels.py`` would run the helper's old code from the
cache after ``sources_kernels.py`` changed (an upgrade, an edit).

:func:`njit` (exported as :data:`models.jit.njit`) caches with :class:`FingerprintCache` instead:
numba's own cache, in numba's own folder (next to the source in ``__pycache__``, or under
``$NUMBA_CACHE_DIR``), whose stamp is ``(numba's stamp of the file, fingerprint)``. When any file of
the fingerprint changes, every cached function's stamp changes, numba finds its index stale and
compiles it again, once, and overwrites the index. Nothing is deleted and no folder is named after
a fingerprint, so two processes starting at once (pytest-xdist's workers) do what numba's cache
already does for them (both may compile; each index and data file is written to a temporary name
and moved into place), and a process that changes nothing loads as before.

The fingerprint (:func:`fingerprint`) is the SHA-256 of the relative path and bytes of every file
of :func:`fingerprint_files`, found by a scan of the project's packages (:data:`PACKAGES`, and the
folders of ``$GAITBLOCKS_KERNEL_PATH``):

* every module with a numba decorator at the start of a line (``@kernel``, ``@helper``, ``@njit``,
  ``@register_jitable``, ``@intrinsic``, ``@overload``, ...): the code that gets linked;
* every project module those import at module level (``from blocks.packing import ...``,
  ``from blocks.library.mechanism_pack import LAYOUT``): the globals a compiled function can read;
* this module (the format of what is cached).

It is taken once per process, the first time a cached function is decorated, from the files as they
are then (the code the process is importing); :func:`edited_since_fingerprint` tells whether one
changed on disk since.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
from numba.core import sigutils
from numba.core.caching import CompileResultCacheImpl, FunctionCache

__all__ = ["PACKAGES", "FingerprintCache", "edited_since_fingerprint", "fingerprint", "fingerprint_files",
           "has_machine_code", "njit", "scanned_folders"]

#: the project's top-level packages (DESIGN.md §2) that may hold compiled code, relative to the folder
#: holding ``models/``; scanned recursively
PACKAGES = ("models", "blocks")

_ROOT = Path(__file__).resolve().parent.parent

#: a numba decorator's name after ``@`` (:func:`_defines_compiled` checks that it starts its line)
_DECORATOR = re.compile(rb"@[ \t]*(?:\w+\.)*(?:kernel|helper|njit|jit|register_jitable|intrinsic|overload\w*|cfunc|"
                        rb"vectorize|guvectorize|generated_jit)\b")
#: a module-level import (column 0, after a newline): ``from X import a, (b, c)`` or ``import X``
_FROM_IMPORT = re.compile(rb"\nfrom[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)")
_IMPORT = re.compile(rb"\nimport[ \t]+([\w.]+)")


def scanned_folders() -> tuple[Path, ...]:
    """The folders scanned for compiled code: :data:`PACKAGES` beside ``models/``, then the folders of
    ``$GAITBLOCKS_KERNEL_PATH`` (``os.pathsep``-separated: a user's own block modules, whose kernels
    call each other across files)."""
    extra = [Path(p).resolve() for p in os.environ.get("GAITBLOCKS_KERNEL_PATH", "").split(os.pathsep) if p]
    return tuple(_ROOT / p for p in PACKAGES) + tuple(extra)


def _module_file(dotted: str, roots: tuple[str, ...], known: set[str]) -> str | None:
    """The file among ``known`` of module ``dotted`` (``a.b`` → ``a/b.py`` or ``a/b/__init__.py``) under one
    of ``roots``."""
    rel = os.path.join(*dotted.split("."))
    for root in roots:
        for cand in (os.path.join(root, rel + ".py"), os.path.join(root, rel, "__init__.py")):
            if cand in known:
                return cand
    return None


def _imports(text: bytes, roots: tuple[str, ...], known: set[str]) -> set[str]:
    """The files among ``known`` of the modules ``text`` imports at module level (``from X import y``:
    ``X/y.py`` when ``y`` is a module, else ``X``'s file)."""
    out: set[str] = set()
    text = b"\n" + text
    for mod, names in _FROM_IMPORT.findall(text):
        own = _module_file(mod.decode(), roots, known)
        for part in re.sub(rb"#[^\n]*", b"", names).strip(b"() \n").split(b","):
            if not part.split():
                continue
            sub = _module_file(f"{mod.decode()}.{part.split()[0].decode()}", roots, known)
            if sub is not None:
                out.add(sub)
            elif own is not None:
                out.add(own)
    for mod in _IMPORT.findall(text):
        found = _module_file(mod.decode(), roots, known)
        if found is not None:
            out.add(found)
    return out


def _defines_compiled(text: bytes) -> bool:
    """Whether module text ``text`` has a numba decorator at the start of a line (a decorator, not a word
    in a docstring or a string)."""
    for m in _DECORATOR.finditer(text):
        if not text[text.rfind(b"\n", 0, m.start()) + 1:m.start()].strip():
            return True
    return False


def _py_files(folder: Path) -> list[str]:
    """The ``.py`` files under ``folder`` (not in ``__pycache__``)."""
    out = []
    for d, dirs, files in os.walk(folder):
        dirs[:] = [x for x in dirs if x != "__pycache__"]
        out += [os.path.join(d, f) for f in files if f.endswith(".py")]
    return out


def _roots(folders: tuple[Path, ...]) -> tuple[Path, ...]:
    """Where the dotted names of modules under ``folders`` start: their parents."""
    return tuple(dict.fromkeys(f.parent for f in folders))


def fingerprint_files(folders: tuple[Path, ...] | None = None) -> tuple[Path, ...]:
    """The files of the fingerprint (module docstring), sorted: the modules under ``folders`` (default
    :func:`scanned_folders`) that define compiled code, and the modules under them that those import
    at module level."""
    folders = scanned_folders() if folders is None else folders
    roots = tuple(str(r) for r in _roots(folders))
    known = {path for folder in folders for path in _py_files(folder)}
    found: set[str] = set()
    for path in known:
        with open(path, "rb") as f:
            text = f.read()
        if _defines_compiled(text):
            found.add(path)
            found |= _imports(text, roots, known)
    if str(Path(__file__).resolve()) in known:  # this file: the cache's format
        found.add(str(Path(__file__).resolve()))
    return tuple(Path(p) for p in sorted(found))


def _stamp(path: Path) -> tuple[int, int]:
    st = os.stat(path)
    return st.st_mtime_ns, st.st_size


#: ``(fingerprint, ((file, (mtime_ns, size) when read), ...))``
Taken = tuple[str, tuple[tuple[Path, tuple[int, int]], ...]]


def _take(folders: tuple[Path, ...]) -> Taken:
    """The fingerprint of the files of :func:`fingerprint_files` under ``folders``, and their stamps."""
    roots = _roots(folders)
    hasher = hashlib.sha256()
    stamps = []
    for path in fingerprint_files(folders):
        stamps.append((path, _stamp(path)))
        root = next(r for r in roots if path.is_relative_to(r))
        hasher.update(path.relative_to(root).as_posix().encode())  # where it is, not where it is installed
        hasher.update(b"\0" + path.read_bytes() + b"\0")
    return hasher.hexdigest()[:20], tuple(stamps)


@functools.lru_cache(maxsize=1)
def _taken() -> Taken:
    """:func:`_take` of :func:`scanned_folders`, once per process."""
    return _take(scanned_folders())


def fingerprint() -> str:
    """The fingerprint of the project's compiled code (module docstring): 20 hex digits, taken once per
    process."""
    return _taken()[0]


def _edited(taken: Taken) -> bool:
    for path, stamp in taken[1]:
        try:
            if _stamp(path) != stamp:
                return True
        except OSError:
            return True
    return False


def edited_since_fingerprint() -> bool:
    """Whether a file of the fingerprint changed on disk (mtime or size) after this process took it."""
    return _edited(_taken())


class _Stamped:
    """numba's cache locator ``inner`` (its folder, its names) with ``(inner's stamp, fingerprint)`` as
    the stamp of the source."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def get_source_stamp(self) -> Any:
        return self._inner.get_source_stamp(), fingerprint()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _FingerprintImpl(CompileResultCacheImpl):
    """numba's locator for the function, stamped (:class:`_Stamped`), and its compiled result saved with the
    fingerprint beside it. numba names a function's data files ``.1.nbc``, ``.2.nbc``, ... again whenever
    its index is stale, so two processes of different fingerprints compiling one function at once could
    leave one's index naming the other's data file: a result of another fingerprint is not loaded (a
    miss: compiled again and saved)."""

    def __init__(self, py_func: Callable[..., Any]) -> None:
        super().__init__(py_func)  # numba picks the locator ($NUMBA_CACHE_DIR, __pycache__, ...)
        self._locator = _Stamped(self._locator)

    def reduce(self, cres: Any) -> Any:
        return fingerprint(), super().reduce(cres)

    def rebuild(self, target_context: Any, payload: Any) -> Any:
        if not (isinstance(payload, tuple) and len(payload) == 2 and payload[0] == fingerprint()):
            return None
        return super().rebuild(target_context, payload[1])


class FingerprintCache(FunctionCache):
    """numba's per-function disk cache, its source stamp joined with :func:`fingerprint`, and a loaded result
    checked to be of the signature asked for.

    numba names a function's data files by a counter over its index, so two processes saving two
    signatures of one function at once (each adding to the index it read) can leave one signature's index
    entry naming the data file the other wrote last. numba would load that machine code for the wrong
    argument types; here it is a miss, compiled again (:mod:`models.jit_parallel` compiles every signature of
    a function in one process, pytest-xdist's workers do not)."""

    _impl_class = _FingerprintImpl

    def _load_overload(self, sig: Any, target_context: Any) -> Any:
        cres = super()._load_overload(sig, target_context)
        if cres is not None and tuple(cres.signature.args) != tuple(sigutils.normalize_signature(sig)[0]):
            return None
        return cres


def njit(fn: Callable[..., Any] | None = None, /, *, cache: bool = False, dispatcher: type | None = None,
         **options: Any) -> Any:
    """numba's ``njit`` (as ``@njit`` or ``@njit(**options)``), whose ``cache=True`` caches with
    :class:`FingerprintCache`. Compiles lazily (no signatures). ``dispatcher``: a subclass of numba's CPU
    dispatcher to make instead of its own (:class:`blocks.kernel_entry.KernelDispatcher`)."""
    if fn is None:
        return functools.partial(njit, cache=cache, dispatcher=dispatcher, **options)
    if not callable(fn):
        raise TypeError("models.jit.njit compiles lazily: pass options by keyword, no signature")
    disp = numba.njit(**options)(fn)
    if dispatcher is not None and hasattr(disp, "enable_caching"):  # as numba's njit makes it, of that class
        disp = dispatcher(py_func=fn, locals={}, targetoptions=dict(disp.targetoptions))
    if cache and hasattr(disp, "enable_caching"):  # not under NUMBA_DISABLE_JIT (a plain function)
        disp._cache = FingerprintCache(disp.py_func)  # what enable_caching() does, with this cache
    return disp


def has_machine_code(disp: Any, flat: tuple[Any, ...]) -> bool:
    """Whether dispatcher ``disp`` has machine code for positional argument types ``flat`` without
    compiling: in this process, or in its disk cache under the current stamp. A guess for progress
    messages only (the cache can still turn out stale, an unreadable index counts as not cached)."""
    try:
        _, folded = disp._compiler.fold_argument_types(flat, {})
        sig = tuple(folded)
        if sig in disp.overloads:
            return True
        cache: Any = disp._cache
        key = cache._index_key(sig, disp.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # numba internals moved, no cache, an unreadable index: say "no"
        return False

