"""Named warnings for the quirks the importers accept instead of rejecting the file.

Every quirk is reported as one text ``"[name] detail"`` in the record's ``warnings`` list
(and from there in ``meta.extra["warnings"]``, ``data info`` and the console of ``run``).
The names are stable, so scripts can look for them; docs/data-import.md lists them all.

==========================  ============================================================
name                        what was accepted
==========================  ============================================================
header-count                a header count (nColumns, nRows, NumFrames, NumberOfSamples,
                            NumMarkers) disagrees with the data; the data are used
header-rate                 the declared rate disagrees with the time column; the time
                            column is used
units-row                   a row of unit names under the column names was skipped
subject-prefix              C3D labels carry a ``Subject:`` prefix, dropped
pig-joint-centres           Plug-in-Gait joint-centre virtual markers used as landmarks
no-psis                     no PSIS/sacrum marker: the pelvis is oriented by the
                            knee -> ASIS line for the hip-centre estimate
no-trunk-marker             no shoulder/C7/sternum marker: trunk angle taken as 0
one-foot-plates             the plates saw one foot only; the other foot's contacts are
                            filled from the markers
plate-assignment            how plate contacts were given to the feet
analog-rate                 analog (force) rate differs from the point (marker) rate
gap-filled                  short NaN runs filled (PCHIP)
long-gap-outside            a long NaN run lies outside the window used; ignored
window                      the window used was chosen automatically
sibling-kinematics          no kinematics file given: the ``.trc`` of the same name beside the
                            GRF file is used
knee-sign                   an OpenSim knee angle read as positive in flexion (not gait2392's
                            convention; ``--knee-sign`` overrides)
empty-marker                a marker listed in the file holds no sample (all NaN or all zero,
                            as Vicon writes gaps): taken as absent
time-ms                     a time column in milliseconds, converted to seconds
window-plates               the automatic window keeps the part where every foot contact is on
                            a force plate
file-subject                body mass / height read from the file (C3D parameters, OpenSim
                            header)
==========================  ============================================================
"""

from __future__ import annotations

QUIRKS = ("header-count", "header-rate", "units-row", "subject-prefix", "pig-joint-centres", "no-psis",
          "no-trunk-marker", "one-foot-plates", "plate-assignment", "analog-rate", "gap-filled",
          "long-gap-outside", "window", "sibling-kinematics", "knee-sign", "empty-marker", "time-ms",
          "window-plates", "file-subject")


def quirk(name: str, detail: str) -> str:
    """The warning text of quirk ``name`` (one of :data:`QUIRKS`)."""
    if name not in QUIRKS:
        raise ValueError(f"unknown quirk {name!r}")
    return f"[{name}] {detail}"
