"""numba for the whole project, imported in one place: :data:`njit`, :data:`register_jitable`.

One start-up fix. numba's array-math module, imported when the first compiled function is
compiled or loaded from the cache, checks once that BLAS is there by importing
``scipy.linalg.cython_blas``; that imports the whole ``scipy.linalg`` package: about 0.2 s and
10 MB on every start, for nothing (no gaitblocks kernel calls BLAS, and nothing else on the
``gaitblocks run`` path imports ``scipy.linalg``). :func:`_import_array_math` imports that module
with the check answered by finding scipy instead (scipy is a dependency). numba's own
linear-algebra code is left as it is: compiling a function that calls BLAS or LAPACK
(``np.dot``, ``np.linalg.solve``) still imports and checks ``scipy.linalg.cython_blas``/``_lapack``
(``numba.np.linalg.ensure_blas``), and the compiled code loads it at run time.
"""

from __future__ import annotations

import importlib.util
import sys

try:
    import numba
    from numba import njit, prange
    from numba.extending import register_jitable
except ImportError:  # pragma: no cover - exercised only where numba is missing
    AVAILABLE = False
else:
    AVAILABLE = True

__all__ = ["AVAILABLE", "njit", "prange", "register_jitable", "numba"]


def _scipy_found() -> None:
    """numba's BLAS check (``ensure_blas``) for its array-math import: scipy is installed."""
    if importlib.util.find_spec("scipy") is None:
        raise ImportError("scipy 0.16+ is required for linear algebra")


def _import_array_math() -> None:
    """Import ``numba.np.arraymath`` with :func:`_scipy_found` as its BLAS check (module docstring)."""
    if "numba.np.arraymath" in sys.modules:
        return
    import numba.np.linalg as linalg

    check = getattr(linalg, "ensure_blas", None)
    if check is None:  # another numba: leave its import as it is
        return
    linalg.ensure_blas = _scipy_found
    try:
        import numba.np.arraymath  # noqa: F401  (binds the check it was given, runs it once)
    finally:
        linalg.ensure_blas = check


if AVAILABLE:
    _import_array_math()
