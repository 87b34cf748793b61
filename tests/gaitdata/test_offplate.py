"""Contacts no force plate saw: marker detection against the plates, and the fill."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from grf_data.registry import load_dataset
from models.gaitdata import load_trial, read_kinematics
from models.gaitdata.events import OFF_N, detect_contacts
from models.gaitdata.info import summarize
from models.gaitdata.offplate import fill_offplate, marker_contacts, spans


def walk(shared_data: Path, name: str, fill: bool = True):  # type: ignore[no-untyped-def]
    d = shared_data / "demotu-BMC"
    return load_trial(d / f"{name}.forces", kinematics=d / f"{name}.trc", fill_offplate=fill)


def test_marker_contacts_match_the_plates(shared_data: Path) -> None:
    """Every complete plate contact of walk1 (data README: L 96-387, R 343-631, L 592-879 at
    450 Hz) is one marker contact span, with heel strike and toe-off within 0.035 s."""
    kin = read_kinematics(shared_data / "demotu-BMC" / "walk1.trc")
    assert kin.soles is not None
    ds = walk(shared_data, "walk1", fill=False)
    checked = 0
    for side, col in (("l", 1), ("r", 3)):
        on = marker_contacts(kin.t, kin.soles[side])
        marker = [(kin.t[a], kin.t[b]) for a, b in spans(on)]
        for c in detect_contacts(ds.t, ds.grf[:, col]):
            if not c.complete:
                continue
            match = [m for m in marker if m[0] < c.off_s and m[1] > c.on_s]
            assert len(match) == 1
            assert match[0][0] == pytest.approx(c.on_s, abs=0.035)
            assert match[0][1] == pytest.approx(c.off_s, abs=0.035)
            checked += 1
    assert checked == 3


@pytest.mark.parametrize("name, foot, end_s", [("walk1", "r", 0.30), ("walk2", "l", 0.14)])
def test_unmeasured_first_contact_is_filled(shared_data: Path, name: str, foot: str, end_s: float) -> None:
    """Both trials start with one foot on the bare floor (0 N on every plate); the fill gives it
    that foot's own plate contact, aligned at the marker toe-off, and leaves measured samples alone."""
    raw, ds = walk(shared_data, name, fill=False), walk(shared_data, name)
    bw = ds.meta.body_mass_kg * 9.81
    unseen = raw.grf[:, 1::2].sum(axis=1) < OFF_N
    early = unseen & (ds.t < end_s)
    assert early.sum() >= 20                             # no plate sees anything while one foot stands
    assert 0.8 * bw < ds.grf[early][:, 1::2].sum(axis=1).mean() < 1.2 * bw
    (entry,) = ds.meta.extra["filled_contacts"]
    assert entry["foot"] == foot and entry["template_foot"] == foot and entry["aligned"] == "toe-off"
    assert entry["start_s"] == 0.0 and entry["end_s"] == pytest.approx(end_s, abs=0.02)
    assert any("on no force plate" in w for w in ds.meta.extra["warnings"])
    measured = raw.grf[:, 1::2] >= OFF_N
    assert np.array_equal(ds.grf[:, 1::2][measured], raw.grf[:, 1::2][measured])
    assert ds.meta.body_mass_kg == raw.meta.body_mass_kg   # the weight comes from measured force only


def test_info_lists_the_fill_and_keeps_the_measured_windows(shared_data: Path) -> None:
    d = shared_data / "demotu-BMC"
    info = summarize(d / "walk1.forces", kinematics=d / "walk1.trc")
    assert [w["first_sample"] for w in info["stance_windows"]["right"]] == [343, 837]
    (filled,) = info["unmeasured_contacts_filled"]
    assert filled["foot"] == "r" and filled["end_s"] == pytest.approx(0.30, abs=0.02)


def contact_masks(t: np.ndarray, grf: np.ndarray) -> dict[str, np.ndarray]:
    masks = {}
    for side, col in (("l", 1), ("r", 3)):
        m = np.zeros(t.shape[0], dtype=bool)
        for c in detect_contacts(t, grf[:, col]):
            m[c.first:c.last + 1] = True
        masks[side] = m
    return masks


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_fill_restores_a_blanked_stance_of_periodic_walking(where: str) -> None:
    """On the synthetic sneakers set every stance of a foot is the same, so a blanked one is
    restored by the fill to within 1 % of body weight (aligning the toe-offs at the start, the
    heel strikes at the end, stretching in the middle)."""
    ds = load_dataset("sneakers")
    t, grf = ds.t, ds.grf
    on_floor = contact_masks(t, grf)
    runs = spans(on_floor["l"])
    a, b = {"start": runs[0], "middle": runs[3], "end": runs[-1]}[where]
    assert (a == 0) == (where == "start") and (b == t.shape[0] - 1) == (where == "end")
    blank = grf.copy()
    blank[a:b + 1, 0:2] = 0.0
    out, filled = fill_offplate(t, blank, on_floor)
    (entry,) = filled
    assert entry.foot == "l" and entry.template_foot == "l"
    assert entry.aligned == {"start": "toe-off", "middle": "both ends (stretched)", "end": "heel strike"}[where]
    bw = ds.meta.body_mass_kg * 9.81
    assert np.abs(out[a:b + 1, 0:2] - grf[a:b + 1, 0:2]).max() < 0.01 * bw
    assert np.array_equal(out[:, 2:4], grf[:, 2:4])


def test_nothing_is_filled_when_every_contact_is_measured() -> None:
    ds = load_dataset("barefoot")
    out, filled = fill_offplate(ds.t, ds.grf, contact_masks(ds.t, ds.grf))
    assert filled == [] and np.array_equal(out, ds.grf)


def test_markers_longer_than_a_measured_contact_fill_nothing() -> None:
    """Where markers and plate only disagree about the ends of a measured contact (here the
    marker spans run 0.1 s longer on both sides), the measured force stays as it is."""
    ds = load_dataset("high_heels")
    masks = contact_masks(ds.t, ds.grf)
    pad = int(round(0.1 / ds.dt))
    wide = {s: np.convolve(m, np.ones(2 * pad + 1), mode="same") > 0 for s, m in masks.items()}
    out, filled = fill_offplate(ds.t, ds.grf, wide)
    assert filled == [] and np.array_equal(out, ds.grf)


def test_run_says_what_it_filled(shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import main

    d = shared_data / "demotu-BMC"
    assert main(["run", "--grf", str(d / "walk1.forces"), "--kinematics", str(d / "walk1.trc"),
                 "--duration", "0.05", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "data: right foot on the floor but on no force plate 0.000-0.30" in out


def test_a_pair_is_compared_under_its_grf_file_name(shared_data: Path) -> None:
    from app.comparison import run_condition
    from app.runs import RunSpec

    d = shared_data / "demotu-BMC"
    result = run_condition(RunSpec(dataset=f"{d / 'walk2.forces'}|{d / 'walk2.trc'}", duration=0.05))
    assert result.name == "walk2" and result.summary["status"] == "ok"
    assert result.summary["dataset"]["filled_contacts"][0]["foot"] == "l"


def test_empty_heel_and_toe_markers_are_absent(shared_data: Path, tmp_path: Path) -> None:
    """Heel/toe columns present but blank in every frame are absent markers (issue 34): the ankle
    stands in for them, as in a marker set without them; an ``empty-marker`` warning names them, and
    no numpy warning is raised on the way."""
    import warnings

    lines = (shared_data / "demotu-BMC" / "walk1.trc").read_text().split("\n")
    names = [h for h in lines[3].split("\t")[2:] if h]
    out = lines[:5]
    for line in lines[5:]:
        cells = line.split("\t")
        if len(cells) > 3:
            for k, name in enumerate(names):
                if name.endswith(("Heel", "MT1", "MT2", "MT5")):
                    cells[2 + 3 * k: 5 + 3 * k] = ["", "", ""]
        out.append("\t".join(cells))
    bad = tmp_path / "nofeet.trc"
    bad.write_text("\n".join(out))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kin = read_kinematics(bad)
    note = next(w for w in kin.warnings if w.startswith("[empty-marker]"))
    assert "R.Heel" in note and "L.Heel" in note
    assert kin.soles is not None and np.isfinite(kin.soles["l"]).any()
