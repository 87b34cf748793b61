"""The block library's catalogue: importing it registers every block type (one module per family,
:data:`blocks.library.FAMILIES`) and the walking library's diagram sections
(:mod:`blocks.library.settings`).

The engine imports it by name at the first look-up of a block type or section
(:data:`blocks.core.LIBRARIES`); nothing of the engine imports it.
"""

from __future__ import annotations

import importlib

from blocks.library import FAMILIES

for _family in FAMILIES:
    importlib.import_module(f"blocks.library.{_family}")
