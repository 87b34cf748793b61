"""What the library's blocks read from the run: the biped model and the recorded data.

The engine passes both without knowing what they are
(:attr:`blocks.core.CompileContext.resources`); this module is the one place the library reads
them. Keys: :data:`BIPED` (a :class:`~models.params.BipedParams`; the diagram's model section
provides it, the run service overrides it with the model scaled and fitted to the run's data),
:data:`DATA` (the diagram's :class:`~blocks.library.settings.DataSettings`: the offset into the
recording and the reference filter, shared by every block that reads the recording)
and :data:`DATASETS` (a callable ``spec -> GaitDataset``; default
:func:`blocks.library.datasets.resolve_dataset`; tests inject in-memory datasets here).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from blocks.core import Block, CompileContext, DiagramError, Params, PortSpec
from blocks.library.settings import BIPED, DATA, DataSettings
from models.biped import Q_NAMES
from models.params import BipedParams
from models.segment_trig import TRIG_NAMES, TRIG_SIZE

if TYPE_CHECKING:
    from models.dataset import GaitDataset

__all__ = ["BIPED", "BIPED_LAYOUT", "DATA", "DATASETS", "FEET", "QD_IN", "Q_IN", "STANCE_IN", "TRIG_IN", "biped_of",
           "ReadsBiped", "data_of", "dataset_of"]

DATASETS = "datasets"   # the key of the dataset resolver in CompileContext.resources
#: the body's state and stance flags as every block that reads them declares its inputs (the dynamics' ``q``,
#: ``qd``: :data:`models.biped.Q_NAMES`; the phase detector's ``stance``)
Q_IN = PortSpec("q", 7, "m, rad", "biped state", Q_NAMES)
QD_IN = PortSpec("qd", 7, "m/s, rad/s", "rates", Q_NAMES)
STANCE_IN = PortSpec("stance", 2, "", "stance flags", ("l", "r"))
#: the segment angles' sines and cosines of ``q`` from a :class:`~blocks.library.biped.SegmentTrig` block, the
#: optional input of the blocks that read them (unconnected: each computes them, :func:`models.segment_trig.trig_of`)
TRIG_IN = PortSpec("trig", TRIG_SIZE, "1", "sines and cosines of the segment angles (SegmentTrig)", TRIG_NAMES,
                   optional=True)
#: the labels of a pair of foot points (positions or contact coordinates) [m], left then right
FEET = ("x_l", "y_l", "x_r", "y_r")
#: the biped's parameter vector (:class:`ReadsBiped`), in :meth:`BipedParams.as_array` order: per link (trunk 0,
#: thigh 1, shank 2) length [m], CoM distance [m], mass [kg], inertia [kg m^2]; then g [m/s^2], foot radius [m]
BIPED_LAYOUT = ("l0", "r0", "m0", "J0", "l1", "r1", "m1", "J1", "l2", "r2", "m2", "J2", "g", "R")


def biped_of(ctx: CompileContext) -> BipedParams:
    """The segment parameters (lengths [m], masses [kg], inertias [kg m^2], foot radius [m]) the
    biped blocks of this run use: ``ctx.resources[BIPED]``, else the paper's model (Table 1,
    point foot) for a bare context, as in a block probed alone."""
    bp = ctx.resources.get(BIPED)
    if bp is None:
        return BipedParams.paper()
    if not isinstance(bp, BipedParams):
        raise TypeError(f"CompileContext.resources[{BIPED!r}] must be BipedParams, got {type(bp).__name__}")
    return bp


class ReadsBiped(Block, register=False):
    """Base of the blocks whose kernels read the body: their packed entry ``_bp[]`` is the biped of this run
    (:func:`biped_of`) as its parameter vector (:data:`BIPED_LAYOUT`); a ``derive`` of their own calls this one."""

    def derive(self, p: Params, ctx: CompileContext) -> None:
        p.set("_bp", tuple(biped_of(ctx).as_array()))

    def check_wiring(self, source: Mapping[str, str], blocks: Mapping[str, Block]) -> None:
        """A wired ``trig`` (:data:`TRIG_IN`) must be the trig of the ``q`` this block reads: the output of a
        ``SegmentTrig`` block whose ``q`` comes from the same output as this block's ``q`` input (the
        dynamics: from its own ``q`` output). Another wire would give the kernels the sines and cosines
        of other angles, wrong physics without a failure, so it is refused at compile."""
        trig = source.get(f"{self.name}.trig")
        if trig is None:
            return
        maker = trig.split(".")[0]
        own_q = f"{self.name}.q"
        q = source.get(own_q, own_q if any(s.name == "q" for s in self.outputs) else None)
        if blocks[maker].type_name != "SegmentTrig" or source.get(f"{maker}.q") != q:
            raise DiagramError(f"block '{self.name}' ({self.type_name}): input 'trig' must come from a SegmentTrig "
                               f"block whose q is this block's q ({q}); it comes from {trig}"
                               + (f", the trig of {source.get(f'{maker}.q')}" if f"{maker}.q" in source else ""))


def data_of(ctx: CompileContext) -> DataSettings:
    """The diagram's shared data settings (offset [s], reference filter [Hz]):
    ``ctx.resources[DATA]``, else the defaults (:class:`~blocks.library.settings.DataSettings`)."""
    data = ctx.resources.get(DATA)
    if data is None:
        return DataSettings()
    if not isinstance(data, DataSettings):
        raise TypeError(f"CompileContext.resources[{DATA!r}] must be DataSettings, got {type(data).__name__}")
    return data


def dataset_of(ctx: CompileContext, spec: str = "") -> GaitDataset:
    """The dataset ``spec`` names (``""``: the run's, ``ctx.dataset``), loaded once per compile
    (kept in ``ctx.cache``) by ``ctx.resources[DATASETS]`` or :func:`blocks.library.datasets.resolve_dataset`."""
    key = f"dataset:{spec or ctx.dataset}"
    if key not in ctx.cache:
        from blocks.library.datasets import resolve_dataset

        resolve: Callable[[str], GaitDataset] = ctx.resources.get(DATASETS) or resolve_dataset
        ctx.cache[key] = resolve(spec or ctx.dataset)
    data: GaitDataset = ctx.cache[key]
    return data
