"""Units and sign checks of GRF records, and the body-weight estimate.

Rules (per foot vertical force ``F_y``, after conversion to N):

================================  ===========================================================
what is seen                      verdict
================================  ===========================================================
peak ``|F_y|`` in 0.3–5           body weights (BW): converted with the mass, which is needed
peak ``|F_y|`` in 5–40            N/kg: converted with the mass, which is needed
peak ``|F_y|`` in 40–6000         newtons
peak ``|F_y|`` above 6000         not a human GRF (kN → N twice? mN?): error
mean total ``F_y`` < 0            the force on the plate, not on the foot: error (flip sign)
COP median ``|x|`` above 20       millimetres: divided by 1000
================================  ===========================================================

Body weight is the mean total vertical force over whole strides in which both feet are
measured (a stride of one foot counts when the other foot is in contact at both of its
heel strikes and has exactly one heel strike in between: it then held no unmeasured
floor contact). Newton's second law over a whole stride of steady walking makes the mean
vertical GRF equal to the weight.
"""

from __future__ import annotations

import numpy as np

from models.errors import DataFormatError
from models.gaitdata.events import Contact, detect_contacts

G = 9.81


def force_scale(grf: np.ndarray, mass_kg: float | None, path: object) -> tuple[float, str]:
    """Factor that converts ``grf`` to newtons, and the unit name found.

    Raises
    ------
    DataFormatError
        The unit is BW or N/kg and no mass is known, or the peak is not a human GRF.
    """
    fy = np.abs(grf[:, 1::2])
    peak = float(np.nanmax(fy)) if np.isfinite(fy).any() else 0.0
    if peak < 0.3:
        raise DataFormatError(f"vertical force peak {peak:.3g} is too small for a GRF in N, N/kg or BW",
                              path=path, channel="F_y")
    if peak > 6000.0:
        raise DataFormatError(f"vertical force peak {peak:.4g} N is not a human GRF (wrong units?)",
                              path=path, channel="F_y")
    if peak >= 40.0:
        return 1.0, "N"
    unit = "BW" if peak < 5.0 else "N/kg"
    if mass_kg is None:
        raise DataFormatError(f"forces look like {unit} (vertical peak {peak:.3g}); give the body mass "
                              "(--mass KG) to convert them to N", path=path, channel="F_y")
    return (mass_kg * G if unit == "BW" else mass_kg), unit


def length_scale(values: np.ndarray) -> float:
    """1/1000 when positions look like millimetres (median magnitude above 20), else 1."""
    finite = np.abs(values[np.isfinite(values)])
    return 1e-3 if finite.size and float(np.median(finite)) > 20.0 else 1.0


def contacts_both(t: np.ndarray, grf: np.ndarray, **kw: float) -> dict[str, list[Contact]]:
    """Contacts of each foot (``{"l": …, "r": …}``) from ``grf`` (N, 4) in N."""
    return {"l": detect_contacts(t, grf[:, 1], **kw), "r": detect_contacts(t, grf[:, 3], **kw)}


def _in_contact(contacts: list[Contact], time: float) -> bool:
    return any(c.on_s <= time <= c.off_s for c in contacts)


def stride_windows(contacts: dict[str, list[Contact]]) -> list[tuple[str, float, float]]:
    """Whole strides ``(foot, start, end)`` in which both feet are fully measured (module doc)."""
    out = []
    for foot, other in (("l", "r"), ("r", "l")):
        hs = [c.on_s for c in contacts[foot] if c.heel_strike]
        other_hs = [c.on_s for c in contacts[other] if c.heel_strike]
        for a, b in zip(hs[:-1], hs[1:]):
            inside = sum(1 for h in other_hs if a < h < b)
            if inside == 1 and _in_contact(contacts[other], a) and _in_contact(contacts[other], b):
                out.append((foot, a, b))
    return out


Stride = tuple[str, float, float]


def estimate_bw(t: np.ndarray, grf: np.ndarray,
                contacts: dict[str, list[Contact]] | None = None) -> tuple[float | None, list[Stride]]:
    """Body weight in N (mean total vertical GRF over whole strides) and the strides used.

    ``None`` when no whole stride with both feet measured is found.
    """
    contacts = contacts_both(t, grf) if contacts is None else contacts
    windows = stride_windows(contacts)
    if not windows:
        return None, []
    total = np.nan_to_num(grf[:, 1] + grf[:, 3])
    sums, spans = 0.0, 0.0
    for _, a, b in windows:
        keep = (t >= a) & (t < b)
        if keep.sum() < 2:
            continue
        sums += float(np.trapezoid(total[keep], t[keep]))
        spans += float(t[keep][-1] - t[keep][0])
    return (sums / spans if spans > 0 else None), windows


def check_vertical(t: np.ndarray, grf: np.ndarray, path: object, mass_kg: float | None) -> tuple[
        float | None, list[str]]:
    """Check the sign and size of the vertical force; return the BW estimate and warnings.

    Raises
    ------
    DataFormatError
        The vertical force is mostly negative (force on the plate), or its mean over whole
        strides is outside 0.5–2 times the weight of the given mass.
    """
    warnings: list[str] = []
    fy = np.nan_to_num(grf[:, 1::2])
    if float(np.mean(fy.sum(axis=1))) < 0 or float(np.min(fy)) < -0.5 * float(np.max(fy)):
        raise DataFormatError(f"vertical force is negative (min {np.min(fy):.1f} N, max {np.max(fy):.1f} N): "
                              "these look like forces on the plate, not on the foot; flip the sign",
                              path=path, channel="F_y")
    bw, windows = estimate_bw(t, grf)
    if bw is None:
        warnings.append("no whole stride with both feet measured: body weight not estimated")
    if bw is not None and mass_kg is not None:
        ratio = bw / (mass_kg * G)
        if not 0.5 <= ratio <= 2.0:
            raise DataFormatError(f"mean vertical force over whole strides is {bw:.0f} N = {ratio:.2f} x the "
                                  f"weight of {mass_kg:g} kg: wrong units or wrong mass", path=path,
                                  channel="F_y")
        if abs(ratio - 1.0) > 0.15:
            warnings.append(f"mean vertical force over whole strides {bw:.0f} N differs from the weight of "
                            f"{mass_kg:g} kg ({mass_kg * G:.0f} N) by {100 * (ratio - 1):+.0f} %")
    return bw, warnings
