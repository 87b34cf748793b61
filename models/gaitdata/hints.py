"""What to tell a user whose GRF file comes without the joint angles a run needs."""

from __future__ import annotations

from pathlib import Path

from models.dataset import GaitDataset

KINEMATICS_FORMATS = (
    "an OpenSim IK .mot/.sto (hip_flexion_r/_l, knee_angle_r/_l; pelvis_tilt, lumbar_extension for the trunk), "
    "a .trc marker file (per side: hip (GTR/HJC, or ASIS + PSIS/sacrum), knee, ankle, heel, toe; "
    "shoulder/C7/sternum for the trunk), a C3D with those markers or Plug-in-Gait Hip/Knee/Pelvis angles, "
    "or a table with alpha, beta_l, beta_r, gamma_l, gamma_r columns (docs/data-import.md)")
_SUFFIXES = (".trc", ".c3d", ".mot", ".sto", ".csv", ".txt")


def sibling_kinematics(grf_file: str | Path) -> list[Path]:
    """Files beside ``grf_file`` whose name shares its stem (or its first word) and may hold angles."""
    p = Path(grf_file)
    if not p.parent.is_dir():
        return []
    stem = p.stem.lower()
    head = stem.split("_")[0]
    out = []
    for q in sorted(p.parent.iterdir()):
        if q == p or q.suffix.lower() not in _SUFFIXES or not q.is_file():
            continue
        name = q.stem.lower()
        if name == stem or (name.startswith(head) and ("ik" in name.split("_") or q.suffix.lower() == ".trc")):
            out.append(q)
    return out[:4]


def missing_kinematics_hint(ds: GaitDataset) -> str:
    """One sentence: how to supply the kinematics of ``ds`` (and which files beside it would do)."""
    grf = ds.meta.extra.get("grf_file")
    text = f"; give them with --kinematics FILE: {KINEMATICS_FORMATS}"
    why = ds.meta.extra.get("kinematics_error")
    if why:
        text += f". The file's own markers gave no angles: {why}"
    near = sibling_kinematics(grf) if grf else []
    if near:
        text += ". Beside it: " + ", ".join(q.name for q in near)
    return text
