"""Gait data: importers for lab formats, preprocessing and gait events.

The entry point is :func:`load_trial`, which turns a GRF file (and optionally a kinematics
file of the same trial) into a :class:`models.dataset.GaitDataset` in the models.biped
convention. The modules:

* ``opensim`` (.mot/.sto), ``trc`` (markers), ``cortex`` (.forces), ``c3d`` (ezc3d, optional),
  ``table`` (CSV / whitespace);
* ``angles``: sagittal angles from markers, with the sign tables;
* ``preprocess``: resampling, Butterworth filtering, NaN gaps, cycles;
* ``events``: contacts from the vertical GRF; ``units``: N/BW/mm checks and the BW estimate;
* ``checks``: decoding and numeric parsing with file/line/column errors;
* ``info``: the summary printed by ``gaitblocks data info``.
"""

from __future__ import annotations

from models.gaitdata.events import Contact, detect_contacts
from models.gaitdata.loader import load_trial, read_any, read_kinematics, with_mass

__all__ = ["Contact", "detect_contacts", "load_trial", "read_any", "read_kinematics", "with_mass"]
