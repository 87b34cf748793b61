"""The program's default choices, each named once; every command and view reads them from here.

``DEFAULT_PRESET``
    What ``gaitblocks run``, ``tune`` and the GUI's simulation use: ``tracking`` (the paper's scheme:
    stance torques estimated from the GRF, swing joints tracked by PID).
``COMPARE_PRESET``
    What ``gaitblocks compare`` and the GUI's Compare view use: ``emergent``, the posture solver's
    periodic gait walked in the diagram (docs/posture.md), so that a footwear comparison reports the
    posture the GRF produces, not the recorded one.
"""
from __future__ import annotations

DEFAULT_PRESET = "tracking"
COMPARE_PRESET = "emergent"
