"""Where gaitblocks keeps per-user files: the XDG base-directory rule with an override.

``user_dir("config")`` is ``$GAITBLOCKS_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/gaitblocks``, else
``~/.config/gaitblocks``; ``user_dir("cache")`` likewise with ``GAITBLOCKS_CACHE_DIR``,
``XDG_CACHE_HOME`` and ``~/.cache``. The folder is not created here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

_RULES = {"config": ("GAITBLOCKS_CONFIG_DIR", "XDG_CONFIG_HOME", ".config"),
          "cache": ("GAITBLOCKS_CACHE_DIR", "XDG_CACHE_HOME", ".cache")}


def user_dir(kind: Literal["config", "cache"]) -> Path:
    own, xdg, fallback = _RULES[kind]
    env = os.environ.get(own)
    if env:
        return Path(env)
    base = os.environ.get(xdg)
    return (Path(base) if base else Path.home() / fallback) / "gaitblocks"
