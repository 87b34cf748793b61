"""An OpenSim trial's subject: body mass [kg] and height [m] from the ``.sto``/``.mot`` header or from an
OpenSim Scale setup (``*Setup_Scale*.xml``) beside the file. Each value carries its source, as the
importer reports it (:mod:`models.gaitdata.subject`); a value outside the plausible range (mass 10-400 kg,
height 0.5-2.5 m; a height above 10 is read as mm) is not taken."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from models.gaitdata.opensim import StoTable

__all__ = ["subject_from_header", "subject_from_setup"]

_MASS_KEYS = ("mass", "bodymass", "body_mass", "subject_mass", "subjectmass", "mass_kg")
_HEIGHT_KEYS = ("height", "bodyheight", "body_height", "subject_height", "subjectheight", "height_m", "height_mm")


def subject_from_header(table: StoTable) -> dict[str, object]:
    """Body mass [kg] / height [m] from header fields (``mass=72.6``, ``height=1803``, ``subject_mass=…``;
    heights above 10 are mm), as some OpenSim setups and exports write them; ``{}`` when none."""
    out: dict[str, object] = {}
    for key, raw in table.header.items():
        k = key.strip().lower().replace(" ", "_")
        try:
            v = float(raw.split()[0]) if raw.split() else float("nan")
        except ValueError:
            continue
        if k in _MASS_KEYS and 10.0 <= v <= 400.0 and "mass_kg" not in out:
            out["mass_kg"], out["mass_source"] = v, f"read from the file header ({key}={raw})"
        elif k in _HEIGHT_KEYS and "height_m" not in out:
            h = v / 1000.0 if v > 10.0 else v
            if 0.5 <= h <= 2.5:
                out["height_m"], out["height_source"] = h, f"read from the file header ({key}={raw})"
    return out


def subject_from_setup(path: str | Path) -> dict[str, object]:
    """Body mass [kg] / height [m] from an OpenSim Scale setup beside ``path`` (``*Setup_Scale*.xml``,
    as OpenSim's examples ship it: ``<ScaleTool><mass>72.6</mass><height>1803</height>``, height in mm
    when above 10); of several, the one whose name shares the longest start with ``path``'s. ``{}`` when
    there is none or it holds no plausible value."""
    import xml.etree.ElementTree as ET

    p = Path(path)
    if not p.is_file():
        return {}
    try:
        found = [q for q in p.parent.iterdir() if q.suffix.lower() == ".xml" and "setup_scale" in q.name.lower()]
    except OSError:
        return {}
    if not found:
        return {}

    def shared(q: Path) -> int:
        return next((i for i, (a, b) in enumerate(zip(q.name.lower(), p.name.lower())) if a != b),
                    min(len(q.name), len(p.name)))

    setup = max(sorted(found), key=shared)
    try:
        tool = ET.parse(setup).getroot().find(".//ScaleTool")
    except (ET.ParseError, OSError):
        return {}
    out: dict[str, object] = {}
    if tool is None:
        return out
    for tag in ("mass", "height"):
        el = tool.find(tag)
        try:
            v = float((el.text or "").strip()) if el is not None else float("nan")
        except ValueError:
            continue
        if tag == "mass" and 10.0 <= v <= 400.0:
            out["mass_kg"], out["mass_source"] = v, f"read from the OpenSim scale setup {setup.name} (<mass>)"
        elif tag == "height":
            h = v / 1000.0 if v > 10.0 else v
            if 0.5 <= h <= 2.5:
                out["height_m"], out["height_source"] = h, (f"read from the OpenSim scale setup {setup.name} "
                                                            f"(<height> {v:g}{' mm' if v > 10.0 else ' m'})")
    return out
