"""The walking half of a run: the biped scaled to the subject and fitted to the data, and its summary keys.

The run service (:mod:`app.runs`) knows no biped: it imports this module by name
(:data:`app.runs.PLUGINS`), and this module registers, on import,

* a build hook (:func:`walking_build`): for a diagram whose blocks read the dataset, it loads and
  crops the data (:func:`app.runs.load_data`), repeats it by whole cycles or cuts the run to its
  length (:func:`fit_to_data`), scales the diagram's ``model`` section to the subject (given, else
  the recording's, :func:`models.gaitdata.subject.run_subject`), fits an automatic foot radius
  (:func:`model_for`) and hands the biped, the dataset resolver and a solved gait's cycle to the
  blocks (``CompileContext.resources``);
* the summary keys ``model`` (the biped's segments) and ``data_settings`` (the diagram's ``data``
  section), written only for a diagram that carries those sections (a mechanism has neither),
  ``subject``, the walking metrics (:mod:`app.walking`) and the solved gait's (:mod:`app.solved`);
* the stop at a fall (:func:`app.walking.fall_stop`, with ``RunSpec.stop_at_fall``).
"""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import TYPE_CHECKING, Any

from app.run_summary import ResultsBatch, register_metric, same_for_every_copy
from app.runs import (
    PAPER_SUBJECT,
    Assembly,
    Built,
    RunSpec,
    load_data,
    register_build_hook,
    register_stop,
    uses_dataset,
)
from blocks.library.settings import DATA, MODEL

if TYPE_CHECKING:
    from blocks import Diagram, Results
    from models.dataset import GaitDataset
    from models.params import BipedParams

__all__ = ["fit_to_data", "foot_rule", "model_for", "walking_build"]


def foot_rule(spec: RunSpec) -> str:
    """How a run's auto foot radius is chosen: the preset file's ``"foot_radius"`` (``"fixed"``: a
    preset whose posture is an output must not read the recorded posture through the fit), else
    ``"fit"``."""
    if not spec.preset:
        return "fit"
    from blocks.library.presets import load_preset

    return str(load_preset(spec.preset).get("foot_radius", "fit"))


def model_for(diagram: Diagram, data: GaitDataset | None, rule: str = "fit") -> BipedParams:
    """The biped of a run: the diagram's ``model`` section, with an auto foot radius for ``data``:
    ``rule`` ``"fit"`` fits it to the recording's double supports (:func:`models.footfit.fit_foot_radius`,
    which reads the recorded trunk and stance angles), ``"fixed"`` takes the roll-over shape's
    (:func:`models.footfit.fixed_foot_radius`); the point foot without data."""
    model = diagram.section(MODEL)
    radius = None
    if model.foot_radius_m is None and data is not None:
        from models.footfit import fit_foot_radius, fixed_foot_radius

        params = model.biped_params()
        radius = fixed_foot_radius(data, params) if rule == "fixed" else fit_foot_radius(data, params).radius
    return model.biped_params(radius)


def fit_to_data(spec: RunSpec, t0: float, t_end: float, data: GaitDataset) -> tuple[float, GaitDataset, str | None]:
    """``(t_end, data, warning)`` of a run of ``[t0, t_end]`` [s] on ``data``: the data repeated by
    whole cycles when ``spec.repeat`` (:func:`models.gaitdata.repeat.repeat_dataset`), else ``t_end``
    cut to the data's end, with a warning naming the asked and the used duration."""
    asked = t_end - t0
    if asked <= data.duration + 0.5 * data.dt:
        return t_end, data, None
    if spec.repeat:
        from models.gaitdata.repeat import repeat_dataset

        return t_end, repeat_dataset(data, asked), None
    note = None
    if spec.duration is not None:  # the diagram's own t_end is documented as "at most the data length"
        note = (f"--duration {asked:g} s is longer than the data ('{data.name}', {data.duration:g} s): the run is "
                f"cut to {data.duration:g} s; give --repeat-cycles to repeat whole gait cycles of the recording")
    return t0 + data.duration, data, note


def _scale(diagram: Diagram, **fields: Any) -> None:
    diagram.set_section(MODEL, replace(diagram.section(MODEL), **fields))


def walking_build(job: Assembly) -> None:
    """The build hook (module docstring): sets ``job``'s model section, data, ``t_end``, resources."""
    from app.solved import prepare_diagram, solution_resources
    from blocks.library.context import BIPED, DATASETS
    from blocks.library.datasets import resolve_dataset

    spec, diagram = job.spec, job.diagram
    if MODEL in diagram.sections:
        if spec.mass is not None or spec.height is not None:
            _scale(diagram, mass_kg=spec.mass if spec.mass is not None else PAPER_SUBJECT[0],
                   height_m=spec.height if spec.height is not None else PAPER_SUBJECT[1])
        if spec.foot_radius is not None:
            _scale(diagram, foot_radius_m=spec.foot_radius)
        prepare_diagram(diagram, spec)
    if not uses_dataset(diagram):
        return
    from models.gaitdata.subject import run_subject

    data = recorded = load_data(spec, job.dataset)
    job.t_end, data, note = fit_to_data(spec, job.t0, job.t_end, data)
    if note:
        job.warnings.append(note)
    subject = run_subject(spec.mass, spec.height, recorded)
    if subject is not None and (diagram.section(MODEL).mass_kg is None or spec.mass is not None
                                or spec.height is not None):
        # a recording: scale the model to its subject (given, else estimated, else the default height)
        _scale(diagram, mass_kg=subject["mass_kg"], height_m=subject["height_m"])
    cached = {job.dataset: data}
    biped = model_for(diagram, recorded, foot_rule(spec))
    job.resources.update({BIPED: biped, DATASETS: lambda s: cached[s] if s in cached else resolve_dataset(s),
                          **solution_resources(spec, diagram, job.dataset, recorded, biped)})


register_build_hook(walking_build)


def _sections(results: Results, built: Built) -> dict[str, Any]:
    """``model``: the biped the run's blocks used; ``data_settings``: the diagram's ``data`` section."""
    from blocks.library.context import biped_of

    sections = built.diagram.sections
    out: dict[str, Any] = {}
    if DATA in sections:
        out["data_settings"] = asdict(sections[DATA])
    if MODEL in sections:
        out["model"] = biped_of(built.model.ctx).to_dict()
    return out


register_metric(_sections, lambda diagram: [], same_for_every_copy(_sections))


def _walking(results: Results, built: Built) -> dict[str, Any]:
    from app.walking import walking_summary

    return walking_summary(results, built)


def _walking_many(batch: ResultsBatch, built: Built) -> list[dict[str, Any]]:
    from app.walking import walking_summary_many

    return walking_summary_many(batch, built)


def _walking_signals(diagram: Diagram) -> list[str]:
    from app.signals import metric_signals

    return metric_signals(diagram)


register_metric(_walking, _walking_signals, _walking_many)


def _subject(results: Results, built: Built) -> dict[str, Any]:
    """``subject``: mass, height, model scale, foot radius and window, and where each came from."""
    from blocks.library.context import biped_of, dataset_of
    from models.footfit import ROLLOVER_FRACTION
    from models.gaitdata.subject import run_subject, subject_summary

    if not uses_dataset(built.diagram):
        return {}  # a diagram without a biped on data (e.g. a mechanism)
    spec = built.spec
    data = dataset_of(built.model.ctx, built.dataset)
    sub = run_subject(spec.mass, spec.height, data)
    bp = biped_of(built.model.ctx)
    model = built.diagram.section(MODEL)
    how = ("given" if spec.foot_radius is not None else "diagram"
           if model.foot_radius_m is not None else "fitted to the dataset's double supports"
           if foot_rule(spec) == "fit" else f"fixed: the roll-over shape's radius, {ROLLOVER_FRACTION:g} leg lengths "
           "(0 on a synthetic set), not fitted to the recorded posture")
    return {"subject": subject_summary(sub, data, bp.total_mass, model.height_m, bp.foot_radius, how,
                                       PAPER_SUBJECT)}


register_metric(_subject, lambda diagram: [], same_for_every_copy(_subject))


def _solved(results: Results, built: Built) -> dict[str, Any]:
    from app.solved import solved_summary

    return solved_summary(results, built)


def _solved_signals(diagram: Diagram) -> list[str]:
    from app.solved import solved_signals

    return solved_signals(diagram)


register_metric(_solved, _solved_signals)


def _fall_stop(built: Built) -> Any:
    from app.walking import fall_stop

    return fall_stop(built) if built.spec.stop_at_fall else None


register_stop(_fall_stop)
