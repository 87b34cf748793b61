"""The summary of a gait data file printed by ``gaitblocks data info`` (a JSON-ready dict).

Keys: ``file``, ``format``, ``rate_hz`` (grid), ``rate_hz_source`` (over the whole file),
``samples``, ``duration_s``, ``channels`` (model channel → source column), ``kinematics``,
``body_mass_kg``, ``mass_source``, ``bw_estimate_n``, ``stance_windows`` (per foot, list of
``[on, off]`` s; ``complete`` false when cut by the record), ``heel_strikes`` (count per foot),
``stride_s``, ``stance_s``, ``cadence_steps_per_min`` (= 120 / stride time),
``unmeasured_contacts_filled`` (contacts the markers show on no force plate, and the plate
contact a run fills each with: :mod:`models.gaitdata.offplate`), ``usable_windows`` (``[start, end]``
s where both feet's GRF and the angles are measured, :mod:`models.gaitdata.window`), ``window_s``
(the one a run uses without ``--start/--end``), ``long_gaps``, ``height_m``/``height_source``,
``warnings``. :func:`render_text` prints it for people. Everything
else describes the measured force.

A headerless two-column file (``time, vertical force``) is summarised as one foot
(``"foot": "unknown"``): fine for event detection, no body weight.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from models.gaitdata.checks import decode_text, read_bytes
from models.gaitdata.events import Contact, detect_contacts, stride_summary
from models.gaitdata.loader import load_trial
from models.gaitdata.preprocess import fill_gaps
from models.gaitdata.table import parse_table

_KNOWN = {".mot", ".sto", ".trc", ".forces", ".c3d"}


def _windows(contacts: list[Contact]) -> list[dict[str, Any]]:
    return [{"on_s": round(c.on_s, 4), "off_s": round(c.off_s, 4), "first_sample": c.first,
             "last_sample": c.last, "complete": c.complete} for c in contacts]


def _cadence(stride_s: float | None) -> float | None:
    return None if stride_s is None else round(120.0 / stride_s, 2)


def _vertical_only(path: Path) -> dict[str, Any] | None:
    """Summary of a headerless ``time, vertical force`` file, or None if it is not one."""
    if path.suffix.lower() in _KNOWN:
        return None
    tab = parse_table(decode_text(read_bytes(path), path), str(path))
    if tab.has_header or len(tab.names) != 2 or tab.rate_hz is None:
        return None
    t = tab.data[:, 0]
    fy, notes = fill_gaps(t, tab.data[:, 1], ["vertical force"], str(path))
    contacts = detect_contacts(t, fy)
    summ = stride_summary(contacts)
    return {
        "file": str(path), "format": "table (time, vertical force; one foot)",
        "rate_hz_source": round(tab.rate_hz, 4), "samples": int(t.shape[0]),
        "duration_s": round(float(t[-1] - t[0]), 4),
        "channels": {"time": "col1", "F_y (one foot)": "col2"}, "foot": "unknown",
        "body_mass_kg": None, "bw_estimate_n": None,
        "stance_windows": {"unknown": _windows(contacts)},
        "heel_strikes": {"unknown": sum(c.heel_strike for c in contacts)},
        "stride_s": summ["stride_s"], "stance_s": summ["stance_s"],
        "cadence_steps_per_min": _cadence(summ["stride_s"]),
        "peak_vertical_n": round(float(np.max(fy)), 2),
        "warnings": notes + ["one foot only: no body-weight estimate"],
    }


def summarize(path: str | Path, kinematics: str | Path | None = None, mass: float | None = None,
              knee_sign: str | None = None) -> dict[str, Any]:
    """JSON-ready summary of a trial (see module doc); ``knee_sign`` as :func:`~models.gaitdata.load_trial`'s."""
    p = Path(path)
    if kinematics is None:
        single = _vertical_only(p) if p.is_file() else None
        if single is not None:
            return single
    ds = load_trial(p, kinematics=kinematics, mass=mass, fill_offplate=False, knee_sign=knee_sign)
    extra = ds.meta.extra
    filled = load_trial(p, kinematics=kinematics, mass=mass, knee_sign=knee_sign).meta.extra.get(
        "filled_contacts", []) \
        if kinematics is not None else []
    contacts = {"left": detect_contacts(ds.t, ds.grf[:, 1]), "right": detect_contacts(ds.t, ds.grf[:, 3])}
    strides = [s for s in (stride_summary(c)["stride_s"] for c in contacts.values()) if s is not None]
    stances = [s for s in (stride_summary(c)["stance_s"] for c in contacts.values()) if s is not None]
    stride = float(np.mean(strides)) if strides else None
    out: dict[str, Any] = {
        "file": str(p), "format": extra["format"], "rate_hz": round(ds.rate_hz, 4),
        "rate_hz_source": round(float(extra["rate_hz_source"]), 4), "samples": int(ds.t.shape[0]),
        "duration_s": round(ds.duration, 4), "channels": extra["channels"],
        "kinematics": None, "body_mass_kg": None if ds.meta.body_mass_kg is None else round(ds.meta.body_mass_kg, 2),
        "mass_source": extra["mass_source"],
        "bw_estimate_n": None if extra["bw_estimate_n"] is None else round(extra["bw_estimate_n"], 1),
        "force_units_found": extra["force_units_found"],
        "stance_windows": {k: _windows(v) for k, v in contacts.items()},
        "heel_strikes": {k: sum(c.heel_strike for c in v) for k, v in contacts.items()},
        "stride_s": None if stride is None else round(stride, 4),
        "stance_s": round(float(np.mean(stances)), 4) if stances else None,
        "cadence_steps_per_min": _cadence(stride),
        "peak_vertical_n": {"left": round(float(ds.grf[:, 1].max()), 1), "right": round(float(ds.grf[:, 3].max()), 1)},
        "unmeasured_contacts_filled": filled,
        "usable_windows": extra.get("usable_windows"), "window_s": extra.get("window_s"),
        "window_source": extra.get("window_source"), "long_gaps": extra.get("long_gaps"),
        "height_m": None if ds.meta.height_m is None else round(ds.meta.height_m, 3),
        "height_source": extra.get("height_source"),
        "warnings": extra["warnings"] + ([f"{len(filled)} contact(s) on no force plate; a simulation run fills "
                                          "them (see unmeasured_contacts_filled)"] if filled else []),
    }
    if ds.angles is not None:
        deg = np.degrees(ds.angles)
        out["kinematics"] = {
            "file": extra.get("kinematics_file"), "format": extra.get("kinematics_format"),
            "rate_hz_source": round(float(extra.get("kinematics_rate_hz", 0.0)), 4),
            "channels": extra.get("angle_channels"),
            "range_deg": {n: [round(float(deg[:, i].min()), 2), round(float(deg[:, i].max()), 2)]
                          for i, n in enumerate(("alpha", "beta_l", "beta_r", "gamma_l", "gamma_r"))},
        }
    return out


def render_text(summary: dict[str, Any]) -> str:
    """The summary as a few readable lines (``data info`` without ``--json``)."""
    def fmt(v: Any, unit: str = "", digits: int = 2) -> str:
        return "n/a" if v is None else f"{v:.{digits}f}{unit}"

    s = summary
    lines = [f"{s['file']}  ({s['format']})",
             f"  {s['samples']} samples, {fmt(s['duration_s'], ' s', 3)} at {fmt(s.get('rate_hz_source'), ' Hz', 1)}"]
    kin = s.get("kinematics")
    if kin:
        rate = fmt(kin.get("rate_hz_source"), " Hz", 1)
        lines.append(f"  kinematics: {kin.get('file')} ({kin.get('format')}, {rate})")
    elif "body_mass_kg" in s and "stance_windows" in s and "left" in s["stance_windows"]:
        from models.gaitdata.hints import sibling_kinematics

        near = ", ".join(q.name for q in sibling_kinematics(s["file"]))
        lines.append("  kinematics: none (a run needs them: --kinematics FILE, see docs/data-import.md"
                     + (f"; beside it: {near})" if near else ")"))
    if kin and (kin.get("channels") or {}).get("knee_sign"):
        lines.append(f"  knee sign: {kin['channels']['knee_sign']}")
    mass_src = s.get("mass_source", "unknown")
    if s.get("body_mass_kg") is None and "stance_windows" in s and "left" in s["stance_windows"]:
        mass_src = "not in the file, and no whole stride to estimate it from the GRF: a run uses the model's mass; " \
                   "give --mass KG"
    lines.append(f"  body mass: {fmt(s.get('body_mass_kg'), ' kg', 1)} ({mass_src}); "
                 f"height: {fmt(s.get('height_m'), ' m')} ({s.get('height_source') or 'unknown'})")
    wins = s.get("usable_windows")
    if wins is not None:
        shown = ", ".join(f"{a:.3f}-{b:.3f} s" for a, b in wins) or "none"
        lines.append(f"  usable windows: {shown}")
    if s.get("window_s"):
        a, b = s["window_s"]
        lines.append(f"  window a run uses: {a:.3f}-{b:.3f} s ({s.get('window_source')})")
    for foot, ws in s.get("stance_windows", {}).items():
        shown = ", ".join(f"{w['on_s']:.3f}-{w['off_s']:.3f}" + ("" if w["complete"] else " (cut)") for w in ws[:8])
        more = f" (+{len(ws) - 8} more)" if len(ws) > 8 else ""
        lines.append(f"  {foot} stances: {shown or 'none'}{more}")
    lines.append(f"  stride {fmt(s.get('stride_s'), ' s', 3)}, stance {fmt(s.get('stance_s'), ' s', 3)}, "
                 f"cadence {fmt(s.get('cadence_steps_per_min'), ' steps/min', 1)}")
    for w in s.get("warnings", []):
        lines.append(f"  warning: {w}")
    return "\n".join(lines)
