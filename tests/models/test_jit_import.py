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
