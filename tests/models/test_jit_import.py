"""``models.jit``: numba is ready without ``scipy.linalg``, and numba's BLAS path still works."""

from __future__ import annotations

import subprocess
import sys

import numpy as np


def test_loading_a_compiled_kernel_does_not_import_scipy_linalg() -> None:
    code = ("import sys; from models._eom_numba import forward_dynamics_into; import numba.np.arraymath as m; "
            "print(m._HAVE_BLAS, 'scipy.linalg' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "False"]  # numba believes BLAS is there; scipy.linalg was not imported


def test_numba_blas_still_compiles_and_runs() -> None:
    from models.jit import njit

    @njit
    def dot(a, b):
        return np.dot(a, b)

    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(dot(a, a.T), a @ a.T)


def test_numba_option_dicts_are_numba_own() -> None:
    """``models.jit``'s faster ``TargetConfig.values`` builds the dict numba's own builds, in its order."""
    from numba.core import targetconfig
    from numba.core.compiler import Flags

    import models.jit  # noqa: F401  (installs it)

    fast = targetconfig.TargetConfig.values
    assert getattr(fast, "fast", False)

    def numba_own(cfg: targetconfig.TargetConfig) -> dict[str, object]:
        return {k: getattr(cfg, k) for k in cfg.options}

    plain = Flags()
    some = Flags()
    some.nrt, some.no_cpython_wrapper, some.error_model, some.enable_ssa = True, True, "numpy", False
    copied = Flags(some)
    copied.release_gil = True
    for cfg in (plain, some, copied):
        assert fast(cfg) == numba_own(cfg)
        assert list(fast(cfg).items()) == list(numba_own(cfg).items())
    assert (some == copied) is False and some == Flags(some) and hash(some) == hash(Flags(some))
