"""Session files (``*.gbsession.json``): write and read a :class:`~app.gui.session.session.SimSession`.

Part of the GUI's engine adapter (:mod:`app.gui.session.session`); no Qt in this module. Format::

    {"format": "gaitblocks-session", "version": 1, "diagram": {<diagram file>},
     "dataset": str, "preset": str, "t_end": float, "gains": {"block.param": value}, "view": {...}}

The PID gains are stored apart from the diagram so that a reader sees them at a glance; on
loading they are written back into the diagram, which is run as saved (the preset is not
applied again). ``view["solution"]`` is the folder of the posture solution the window showed
(*Solve posture*, :mod:`app.gui.solve.solve_flow`), or null; opening the session shows it again
without solving.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.defaults import DEFAULT_PRESET
from app.gui.session.session_catalog import GAIN_NAMES, diagram_value
from blocks import Diagram
from blocks.core import BlockError, DiagramError
from models.errors import DataFormatError

if TYPE_CHECKING:
    from app.gui.session.session import SimSession

__all__ = ["SESSION_FORMAT", "SESSION_VERSION", "load_session", "save_session", "session_dict"]

SESSION_FORMAT = "gaitblocks-session"
SESSION_VERSION = 1


def session_dict(s: SimSession, view: dict[str, Any] | None = None) -> dict[str, Any]:
    """The session file contents of ``s`` with the window's ``view`` state."""
    gains = {f"{b}.{p}": diagram_value(s.diagram, f"{b}.{p}") for b in s.blocks_of_type("PID")
             for p in GAIN_NAMES}
    return {"format": SESSION_FORMAT, "version": SESSION_VERSION, "diagram": s.diagram.to_dict(),
            "dataset": s.dataset, "preset": s.preset, "t_end": s.t_end, "gains": gains,
            "view": dict(view or {})}


def save_session(s: SimSession, path: str | Path, view: dict[str, Any] | None = None) -> None:
    """Write ``s`` (and ``view``) to ``path`` as strict JSON."""
    Path(path).write_text(json.dumps(session_dict(s, view), indent=2, allow_nan=False) + "\n", encoding="utf-8")


def load_session(path: str | Path, cls: type[SimSession]) -> tuple[SimSession, dict[str, Any]]:
    """Read a session file into a new ``cls``; returns the session and its ``view`` dict.

    Any fault (unreadable file, bad JSON, wrong format or version, missing field, a diagram
    that does not compile) raises ``DataFormatError`` naming the file.
    """
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT:
        raise DataFormatError(f"not a gaitblocks session file (format must be {SESSION_FORMAT!r})", path=path)
    if data.get("version") != SESSION_VERSION:
        raise DataFormatError(f"session version {data.get('version')!r} is not supported", path=path)
    try:
        diagram = Diagram.from_dict(data["diagram"])
        for ref, value in dict(data.get("gains", {})).items():
            if diagram_value(diagram, ref) != value:
                diagram.set_param(ref, value)
        t_end = data.get("t_end")
        s = cls(diagram, str(data.get("dataset", "")), str(data.get("preset", DEFAULT_PRESET)),
                t_end=float(t_end) if isinstance(t_end, (int, float)) and math.isfinite(t_end) else None,
                apply=False)
    except KeyError as exc:
        raise DataFormatError(f"session file lacks field {exc}", path=path) from None
    except (DiagramError, BlockError) as exc:
        raise DataFormatError(str(exc), path=path) from None
    view = data.get("view", {})
    return s, view if isinstance(view, dict) else {}


def read_json(path: Path) -> Any:
    """Parsed JSON of ``path``; an unreadable file or bad JSON raises ``DataFormatError`` with line and column."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DataFormatError(f"cannot read file: {exc.strerror}", path=path) from None
    except json.JSONDecodeError as exc:
        raise DataFormatError(f"invalid JSON: {exc.msg}", path=path, line=exc.lineno, column=exc.colno) from None
