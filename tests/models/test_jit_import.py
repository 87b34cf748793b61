"""``models.jit``: numba is ready without ``scipy.linalg``, and numba's BLAS path still works."""

from __future__ import annotations

import os
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


def test_numba_error_messages_are_plain_text() -> None:
    """numba's messages keep their text and lose only the colours (``models.jit._plain_error_messages``)."""
    code = ("import models.jit; from numba.core import errors; t = errors.termcolor(); "
            "print(repr(t.errmsg('a') + t.filename('b') + t.highlight('c') + t.code('d') + t.indicate('e')))")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_COLOR_SCHEME"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=env).stdout.strip()
    assert out == "'abcde'"
    coloured = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**env, "NUMBA_COLOR_SCHEME": "dark_bg"}).stdout.strip()
    assert coloured != "'abcde'" and "\\x1b[" in coloured  # asked for: numba's own colours
