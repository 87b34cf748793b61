"""The walking library's diagram sections: the biped model and the data every reader shares.

Each is one named section of a diagram file (``"sections": {"model": ..., "data": ...}``,
:mod:`blocks.sections`) and one frozen dataclass here that checks its values on construction.
They are registered here with the block types that read them, so a diagram carries them only
when it holds such a block (a mechanism diagram carries neither). At compile time they are
handed to the blocks through ``CompileContext.resources`` (:meth:`ModelSettings.resources`,
:meth:`DataSettings.resources`; read through :mod:`blocks.library.context`); the engine never
reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from blocks.sections import register_section
from blocks.spec import DiagramError, ParameterValueError, ParamSpec
from models.params import BipedParams

__all__ = ["BIPED", "DATA", "DATA_PARAMS", "DATA_READERS", "MODEL", "MODEL_READERS", "DataSettings", "ModelSettings"]

BIPED = "biped"   # the key of the biped model in CompileContext.resources
DATA = "data"     # the key of the shared data settings in CompileContext.resources, and its section's name
MODEL = "model"   # the name of the biped model's section


@dataclass(frozen=True)
class ModelSettings:
    """The biped every block uses: paper Table 1 (both None) or scaled to mass [kg] and height [m].

    ``foot_radius_m`` is the rolling foot's radius (:mod:`models.params`; 0 = the paper's point
    foot). ``None`` = auto: the run service (:func:`app.runs.build`) fits it to the run's dataset
    (:func:`models.footfit.fit_foot_radius`: the radius that best keeps both feet of the
    reference on the ground in double support); the engine alone uses the point foot. The bundled
    synthetic sets, generated for the point-foot model, fit 0; human recordings, whose ankles rise
    in late stance, 0.4-0.5 m.
    """

    mass_kg: float | None = None
    height_m: float | None = None
    foot_radius_m: float | None = None

    def __post_init__(self) -> None:
        if (self.mass_kg is None) != (self.height_m is None):
            raise DiagramError("model: give both mass_kg and height_m, or neither (paper Table 1)")
        r = self.foot_radius_m
        if r is not None and (isinstance(r, bool) or not isinstance(r, (int, float)) or not 0.0 <= r < 1.0):
            raise DiagramError(f"model.foot_radius_m must be null (auto) or a number in [0, 1) m, got {r!r}")

    def biped_params(self, foot_radius: float | None = None) -> BipedParams:
        """The segment parameters; ``foot_radius`` [m] stands in for an auto (``None``) radius
        (default 0, the point foot)."""
        try:
            if self.mass_kg is None or self.height_m is None:
                params = BipedParams.paper()
            else:
                params = BipedParams.scaled(mass=self.mass_kg, height=self.height_m)
            radius = self.foot_radius_m if self.foot_radius_m is not None else (foot_radius or 0.0)
            return params.with_foot_radius(radius)
        except ValueError as exc:
            raise DiagramError(f"model: {exc}") from None

    def resources(self) -> dict[str, Any]:
        """What this section hands to the blocks at compile time (``CompileContext.resources``):
        ``{BIPED: self.biped_params()}``."""
        return {BIPED: self.biped_params()}


DATA_PARAMS = {
    "t_offset_s": ParamSpec(0.0, min=0.0, max=1e6, unit="s", tunable=False,
                            description="recording time (from its first sample) read at the start of the run"),
    "ref_filter_hz": ParamSpec(20.0, min=0.0, max=500.0, unit="Hz", tunable=False,
                               description="zero-lag Butterworth low-pass of the reference motion; 0 = off"),
}
"""The data section's fields as parameters: their defaults, ranges and units (one source for
:class:`DataSettings`, files and ``--set data.FIELD=VALUE``)."""


@dataclass(frozen=True)
class DataSettings:
    """How every block that reads the recording reads it, set once per diagram.

    ``t_offset_s`` [s]: the recording's time (from its first sample) read at the start of the
    run, by the GRF and reference sources, the dynamics' initial state and the reference motion.
    ``ref_filter_hz`` [Hz]: cut-off of the zero-lag 2nd-order Butterworth low-pass (run forwards
    and backwards: 4th-order magnitude, no lag) applied to the reference motion before it is
    tracked, differentiated or used for the initial state; 0 = off. The default, 20 Hz, keeps
    the gait (its content lies below about 6 Hz) and removes marker noise before the two
    differentiations of the inverse dynamics. The GRF's own low-pass stays on its source block
    (``GrfSource.filter_hz``): forces are not the reference motion. Defaults, ranges and units:
    :data:`DATA_PARAMS`.
    """

    t_offset_s: float = DATA_PARAMS["t_offset_s"].default
    ref_filter_hz: float = DATA_PARAMS["ref_filter_hz"].default

    def __post_init__(self) -> None:
        for key, spec in DATA_PARAMS.items():
            try:
                object.__setattr__(self, key, spec.validate(getattr(self, key), f"data.{key}"))
            except ParameterValueError as exc:
                raise DiagramError(str(exc)) from None

    def resources(self) -> dict[str, Any]:
        """What this section hands to the blocks at compile time: ``{DATA: self}``."""
        return {DATA: self}


MODEL_READERS = frozenset({"AnkleBalance", "BipedKinematics", "FiveLinkDynamics", "Footprints", "GrfMatch", "GrfSource",
                           "GroundContact", "JointReactions", "NetTorqueEstimator", "ReferenceMotion", "SolvedGait",
                           "StanceDamping", "TorqueDecomposition"})
"""The block types whose ``derive`` reads the biped (:func:`blocks.library.context.biped_of`)."""
DATA_READERS = frozenset({"FiveLinkDynamics", "GrfSource", "ReferenceMotion", "ReferenceSource", "SolvedGait"})
"""The block types that read the recording (:func:`blocks.library.context.data_of`)."""

register_section(MODEL, ModelSettings, readers=MODEL_READERS, resources=ModelSettings.resources)
register_section(DATA, DataSettings, readers=DATA_READERS, params=DATA_PARAMS, resources=DataSettings.resources)
