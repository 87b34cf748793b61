"""The fitted rolling-foot radius (models.footfit) on the real recordings and the bundled sets,
and how a diagram's model resolves it (``foot_radius_m``: null = auto)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from blocks import Diagram
from blocks.core import DiagramError
from blocks.library.settings import MODEL, ModelSettings
from grf_data.registry import load_dataset
from models.footfit import fit_foot_radius
from models.params import BipedParams

SUBJECT01 = ("opensim-core/subject01_walk1_grf.mot", "opensim-core/subject01_walk_IK.mot")


def test_subject01_fits_a_foot_that_puts_both_feet_on_the_ground(shared_data: Path) -> None:
    ds = load_dataset(str(shared_data / SUBJECT01[0]), kinematics=str(shared_data / SUBJECT01[1]))
    fit = fit_foot_radius(ds, BipedParams.scaled(mass=72.6, height=1.8))
    assert fit.windows >= 4                          # the double supports of 2.5 s of walking
    assert 0.40 <= fit.radius <= 0.47                # measured 0.435 m
    assert fit.rms_point_foot > 0.05                 # point feet: 5.8 cm RMS apart in double support
    assert fit.rms_fitted < 0.012                    # rolling feet: 0.8 cm


@pytest.mark.parametrize("name", ["walk1", "walk2"])
def test_demotu_walks_fit_similar_radii(shared_data: Path, name: str) -> None:
    base = shared_data / "demotu-BMC" / name
    ds = load_dataset(f"{base}.forces", kinematics=f"{base}.trc")
    fit = fit_foot_radius(ds, BipedParams.scaled(mass=ds.meta.body_mass_kg or 75.0, height=1.75))
    assert 0.42 <= fit.radius <= 0.52                # measured 0.469 / 0.488 m
    assert fit.rms_fitted < 0.3 * fit.rms_point_foot


@pytest.mark.parametrize("name", ["barefoot", "sneakers", "high_heels"])
def test_bundled_sets_fit_the_point_foot_they_were_generated_for(name: str) -> None:
    fit = fit_foot_radius(load_dataset(name), BipedParams.paper())
    assert fit.windows >= 10
    assert fit.radius < 0.005
    assert fit.rms_point_foot < 0.002


def test_model_settings_resolve_auto_and_keep_an_explicit_radius(shared_data: Path) -> None:
    ds = load_dataset(str(shared_data / SUBJECT01[0]), kinematics=str(shared_data / SUBJECT01[1]))
    from app.walking_run import model_for

    auto = ModelSettings(mass_kg=72.6, height_m=1.8)
    assert auto.biped_params().foot_radius == 0.0                     # no dataset: the point foot
    d = Diagram("x", sections={MODEL: auto})
    assert model_for(d, None).foot_radius == 0.0
    assert model_for(d, ds).foot_radius == pytest.approx(fit_foot_radius(ds, auto.biped_params()).radius)
    assert model_for(Diagram("y", sections={MODEL: ModelSettings(foot_radius_m=0.2)}), ds).foot_radius == 0.2
    with pytest.raises(DiagramError, match="foot_radius_m"):
        ModelSettings(foot_radius_m=-1.0)
    with pytest.raises(DiagramError, match="foot_radius"):
        ModelSettings(foot_radius_m=0.9).biped_params()               # longer than the shank


def test_diagram_file_round_trips_the_foot_radius(tmp_path: Path) -> None:
    d = Diagram("x", sections={MODEL: ModelSettings(foot_radius_m=0.25)})
    d.add("body", "FiveLinkDynamics")                                  # a block that reads the model
    d.save(tmp_path / "d.json")
    assert json.loads((tmp_path / "d.json").read_text())["sections"][MODEL]["foot_radius_m"] == 0.25
    assert Diagram.load(tmp_path / "d.json").section(MODEL).foot_radius_m == 0.25


def test_run_reports_the_radius_and_takes_an_override(shared_data: Path, tmp_path: Path) -> None:
    args = ["run", "--grf", str(shared_data / SUBJECT01[0]), "--kinematics", str(shared_data / SUBJECT01[1]),
            "--mass", "72.6", "--height", "1.8", "--duration", "0.05"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    assert 0.40 <= json.loads((tmp_path / "a" / "summary.json").read_text())["model"]["foot_radius_m"] <= 0.47
    assert main([*args, "--foot-radius", "0", "--out", str(tmp_path / "b")]) == 0
    assert json.loads((tmp_path / "b" / "summary.json").read_text())["model"]["foot_radius_m"] == 0.0
    assert main([*args, "--foot-radius", "-2", "--out", str(tmp_path / "c")]) == 2


def test_the_setpoint_preset_takes_a_radius_that_reads_no_recorded_posture(shared_data: Path, tmp_path: Path) -> None:
    """Issue 30 §7: under ``setpoint`` (its posture is an output) the radius is the fixed roll-over one,
    the same whatever the recorded trunk and stance angles are; ``tracking`` (posture an input) fits it."""
    from dataclasses import replace

    import numpy as np

    from app.runs import RunSpec, build
    from app.walking_run import foot_rule, model_for
    from models.footfit import ROLLOVER_FRACTION, fixed_foot_radius

    ds = load_dataset(str(shared_data / SUBJECT01[0]), kinematics=str(shared_data / SUBJECT01[1]))
    assert ds.angles is not None
    bent = ds.angles.copy()                 # [alpha, beta_l, beta_r, gamma_l, gamma_r]
    bent[:, 0] += np.deg2rad(10.0)          # the trunk leans 10 deg more
    bent[:, 3:5] += np.deg2rad(8.0)         # both knees flex 8 deg more
    edited = replace(ds, angles=bent)
    params = BipedParams.scaled(mass=72.6, height=1.8)
    assert fixed_foot_radius(edited, params) == fixed_foot_radius(ds, params) == ROLLOVER_FRACTION * params.leg_length
    assert fit_foot_radius(edited, params).radius != pytest.approx(fit_foot_radius(ds, params).radius, abs=1e-3)
    assert fixed_foot_radius(load_dataset("sneakers"), params) == 0.0    # generated for the point foot
    assert foot_rule(RunSpec(preset="setpoint")) == "fixed" and foot_rule(RunSpec(preset="tracking")) == "fit"
    d = Diagram("x", sections={MODEL: ModelSettings(mass_kg=72.6, height_m=1.8)})
    assert model_for(d, edited, "fixed").foot_radius == pytest.approx(ROLLOVER_FRACTION * params.leg_length)
    spec = RunSpec(dataset=str(shared_data / SUBJECT01[0]), kinematics=str(shared_data / SUBJECT01[1]),
                   mass=72.6, height=1.8, duration=0.05)
    built = {p: build(replace(spec, preset=p)) for p in ("setpoint", "tracking")}
    from blocks.library.context import biped_of

    leg = biped_of(built["setpoint"].model.ctx).leg_length
    assert biped_of(built["setpoint"].model.ctx).foot_radius == pytest.approx(ROLLOVER_FRACTION * leg)
    assert biped_of(built["tracking"].model.ctx).foot_radius == pytest.approx(fit_foot_radius(ds, params).radius,
                                                                              abs=0.02)
