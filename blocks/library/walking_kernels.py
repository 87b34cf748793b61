"""The law (kernel) of :class:`~blocks.library.walking.ReferenceMotion`: both engines run it.

Packed vector: ``[gain, origin_x, origin_y]``, the grid header at 3
(:mod:`blocks.library.sources_kernels`), the sample times, then the 12 columns ``tau (4), feet (4),
com (2), com rate (2)`` before the origin shift, each ``n`` long.
"""

from __future__ import annotations

from blocks.kernels import kernel
from blocks.library.sources_kernels import table_row, table_value

__all__ = ["reference_motion_output"]


@kernel
def reference_motion_output(t, x, z, p, tau, feet, com):
    """ReferenceMotion: the played-back row ``[tau, feet, com]`` (module docstring for ``p``), the feet
    and the CoM shifted by the origin ``p[1:3]``."""
    row = table_row(p, 3, t)
    for k in range(12):
        v = table_value(p, row, k, p[1 + k % 2] if 4 <= k < 10 else 0.0,  # positions shifted, not rates
                        -1 if k == 4 or k == 6 or k == 8 else -2)  # the x positions move on when folded
        if k < 4:
            tau[k] = v * p[0]
        elif k < 8:
            feet[k - 4] = v
        else:
            com[k - 8] = v
