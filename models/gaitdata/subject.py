"""The subject behind a recording: body height from the leg markers, and the console summary.

Height from markers (Winter 2009, *Biomechanics and Motor Control of Human Movement*, Fig. 4.1
segment lengths as fractions of body height H): thigh (hip centre -> knee centre) 0.245 H,
leg (knee centre -> ankle centre) 0.246 H, so

    H = (L_thigh + L_shank) / 0.491

with ``L`` the median over the trial of the 3-D distance between the landmarks of each leg
(both legs averaged). Distances between markers on one segment do not change with posture, so
the estimate holds while walking. Skin markers sit a little off the joint centres (a lateral
knee marker is ~5 cm lateral of the knee centre, which lengthens neither segment much).

Mass: read from the file where it holds one (C3D ``PROCESSING:Bodymass``, an OpenSim header
``mass=``), else the importer estimates it from the GRF (:mod:`models.gaitdata.units`); with
neither a run uses the model's mass and says so (:data:`NO_MASS_SOURCE`). Without markers
the height is the documented default, the paper's subject (:data:`DEFAULT_HEIGHT_M`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from models.dataset import GaitDataset
from models.gaitdata.records import KinematicsRecord

#: thigh + leg length as a fraction of body height (Winter 2009, Fig. 4.1)
LEG_FRACTION = 0.245 + 0.246
#: height used when neither the user nor the markers give one: the paper's subject (Table 1)
DEFAULT_HEIGHT_M = 1.66
#: where a recording's run takes its mass from when neither the file nor the GRF gives one
NO_MASS_SOURCE = ("the model's: the file holds no body mass and the GRF gave no estimate (no whole stride); "
                  "give --mass KG")
#: plausible human range of an estimate, m (outside: not used)
HEIGHT_RANGE_M = (1.0, 2.3)


def stature_from_legs(hip: dict[str, np.ndarray], knee: dict[str, np.ndarray],
                      ankle: dict[str, np.ndarray]) -> float | None:
    """Body height [m] from landmark trajectories ``{"l", "r"}`` (N, 3) m (module doc), or None."""
    lengths = []
    for s in ("l", "r"):
        th = np.linalg.norm(hip[s] - knee[s], axis=1)
        sh = np.linalg.norm(knee[s] - ankle[s], axis=1)
        leg = (th + sh)[np.isfinite(th + sh)]
        if leg.size:
            lengths.append(float(np.median(leg)))
    if not lengths:
        return None
    h = float(np.mean(lengths)) / LEG_FRACTION
    return h if HEIGHT_RANGE_M[0] <= h <= HEIGHT_RANGE_M[1] else None


def estimate_height(kin: KinematicsRecord) -> tuple[float, str] | None:
    """``(height m, source)`` from a kinematics record that came from markers, else None."""
    if kin.height_m is None:
        return None
    return kin.height_m, "estimated from the markers (thigh + shank length / 0.491, Winter 2009)"


def subject_lines(info: dict[str, Any]) -> list[str]:
    """Console lines for a run's subject block (keys of :func:`run_subject`)."""
    out = [f"subject: mass {info['mass_kg']:.1f} kg ({info['mass_source']}), height {info['height_m']:.2f} m "
           f"({info['height_source']})",
           f"model: {info['model_mass_kg']:.1f} kg, {info['model_height_m']:.2f} m (scale {info['scale']}), "
           f"foot radius {info['foot_radius_m']:.3f} m ({info['foot_radius_source']})"]
    if info.get("window_s"):
        a, b = info["window_s"]
        out.append(f"window: {a:.3f}-{b:.3f} s ({info.get('window_source', 'given')})")
    return out


def run_subject(mass_arg: float | None, height_arg: float | None, data: GaitDataset) -> dict[str, Any] | None:
    """Mass and height to scale the model to for a run on ``data``, with where each came from.

    ``None`` for synthetic sets (they are scaled by the registry, the model follows the
    command line). For recordings: the given value, else the importer's (mass from the GRF,
    height from the markers or a registered entry), else for the height :data:`DEFAULT_HEIGHT_M`.
    """
    if data.meta.synthetic:
        return None
    extra = data.meta.extra
    if mass_arg is not None:
        mass, m_src = float(mass_arg), "given"
    elif data.meta.body_mass_kg is not None:
        mass, m_src = float(data.meta.body_mass_kg), str(extra.get("mass_source", "registered"))
    else:
        return None
    if height_arg is not None:
        height, h_src = float(height_arg), "given"
    elif data.meta.height_m is not None:
        height, h_src = float(data.meta.height_m), str(extra.get("height_source", "registered"))
    else:
        height, h_src = DEFAULT_HEIGHT_M, f"default: the paper's subject, {DEFAULT_HEIGHT_M} m; give --height M"
    return {"mass_kg": mass, "mass_source": m_src, "height_m": height, "height_source": h_src}


def subject_summary(sub: dict[str, Any] | None, data: GaitDataset | None, model_mass: float,
                    model_height: float | None, foot_radius: float, radius_source: str,
                    paper: tuple[float, float]) -> dict[str, Any]:
    """The ``subject`` block of ``summary.json`` (printed by :func:`subject_lines`).

    ``sub`` is :func:`run_subject`'s answer (None: the model follows the diagram / command line).
    """
    extra = data.meta.extra if data is not None else {}
    height = model_height if model_height is not None else paper[1]
    m_src = "model" if model_height is None else "given"
    if m_src == "model" and data is not None and not data.meta.synthetic:
        m_src = NO_MASS_SOURCE
    out: dict[str, Any] = dict(sub) if sub is not None else {
        "mass_kg": float(model_mass), "mass_source": m_src,
        "height_m": float(height), "height_source": "paper model" if model_height is None else "given"}
    out.update({
        "model_mass_kg": float(model_mass), "model_height_m": float(height),
        "scale": f"lengths x{height / paper[1]:.3f}, masses x{model_mass / paper[0]:.3f} of the paper's model",
        "foot_radius_m": float(foot_radius), "foot_radius_source": radius_source,
        "window_s": extra.get("window_s"), "window_source": extra.get("window_source"),
        "usable_windows": extra.get("usable_windows"),
    })
    return out
