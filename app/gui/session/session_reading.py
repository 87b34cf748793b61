"""Reading a :class:`~app.gui.session.session.SimSession`: recorded signals, units, block lookup and the
run's figures (part of the GUI's engine adapter; no Qt in this module).

:class:`SessionReading` is the read-only half of the session, a mixin over the attributes the
session sets when it adopts a compiled run: ``runner`` (:class:`~blocks.runner.Runner`),
``model`` (the compiled model), ``diagram``, ``built`` (:class:`~app.runs.Built`) and ``dataset``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from app.run_summary import summarise
from app.runs import Built, uses_dataset
from app.signals import find_signal
from blocks import Diagram
from blocks.core import resolve_setting
from blocks.library.context import biped_of, data_of, dataset_of
from blocks.spec import split_param
from blocks.widths import width_change
from models.params import G_EARTH

__all__ = ["SessionReading"]


class SessionReading:
    """Read-only queries of a session (module doc)."""

    runner: Any
    model: Any
    diagram: Diagram
    built: Built
    dataset: str
    preset: str

    def needs_compile(self, ref: str, value: Any) -> bool:
        """Whether setting ``ref = value`` recompiles: a structural parameter, or a tunable one whose value
        changes a width (a constant's ``value`` of another length: :func:`blocks.widths.width_change`)."""
        spec = self.diagram.param_spec(ref)
        if not spec.tunable:
            return True
        block, param, _ = split_param(ref)
        whole = resolve_setting(self.model.block(block), ref, value, self.runner.registry.get(f"{block}.{param}"))[1]
        return width_change(self.model.block(block), param, whole) is not None

    def signal_names(self) -> list[str]:
        return list(self.runner.recorder.names)

    def recorded_time(self) -> np.ndarray:
        return self.runner.recorder.time()

    def recorded(self, name: str) -> np.ndarray:
        """Samples of a logged signal so far: (n,) or (n, size) read-only view."""
        return self.runner.recorder.view(name)

    def labels(self, name: str) -> tuple[str, ...]:
        return self.runner.recorder.labels[name]

    def unit(self, name: str) -> str:
        return self.runner.recorder.units[name]

    def latest(self, ref: str) -> np.ndarray:
        """Current value of an output ``block.port`` or input (the output driving it)."""
        m = self.model
        src = ref if ref in m.out_slot else m.in_source.get(ref, ref)
        if src not in m.out_slot:
            raise KeyError(ref)
        off, size = m.out_slot[src]
        return self.runner.sig[off: off + size].copy()

    def find(self, type_name: str, port: str) -> str | None:
        """First logged ``block.port`` whose block has type ``type_name`` (:func:`app.signals.find_signal`)."""
        return find_signal(self.diagram, type_name, port, self.runner.recorder.columns)

    def summary(self) -> dict[str, Any]:
        """The ``summary.json`` dict of the run so far (:func:`app.run_summary.summarise`), computed on
        read-only views of the recorder (``results(copy=False)``): no copy of the whole log."""
        return summarise(self.runner.results(copy=False), self.built)

    def blocks_of_type(self, type_name: str) -> list[str]:
        return [n for n, e in self.diagram.blocks.items() if e.type == type_name]

    def block_ports(self, name: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """Resolved (inputs, outputs) ``PortSpec`` tuples of a block."""
        return self.model.inputs[name], self.model.outputs[name]

    def block_type(self, name: str) -> str:
        return self.diagram.blocks[name].type

    def filled_spans(self) -> list[tuple[float, float, str]]:
        """``(t_start, t_end, foot)`` in run seconds of the GRF the loader filled because no force
        plate measured that contact (:mod:`models.gaitdata.offplate`); empty for measured data."""
        grf = self.find("GrfSource", "F")
        if grf is None:
            return []
        block = grf.split(".")[0]
        spec = self.diagram.blocks[block].params.get("dataset") or self.dataset
        ds = dataset_of(self.model.ctx, spec)
        shift = self.model.ctx.t0 - ds.t[0] - data_of(self.model.ctx).t_offset_s
        return [(f["start_s"] + shift, f["end_s"] + shift, f["foot"])
                for f in ds.meta.extra.get("filled_contacts", [])]

    def label(self) -> str:
        """What the run reads and how it is set up, for the status bar and the run list: ``dataset
        sneakers · preset tracking`` (``GRF A, kinematics B`` with a kinematics file, ``preset (diagram)``
        with none), or ``diagram NAME`` for a diagram that reads no recording."""
        if not uses_dataset(self.diagram):
            return f"diagram {self.diagram.name}"
        kin = self.built.spec.kinematics
        data = f"GRF {self.dataset}, kinematics {kin}" if kin else f"dataset {self.dataset}"
        return f"{data} · preset {self.preset or '(diagram)'}"

    def body_weight_n(self) -> float:
        return float(biped_of(self.model.ctx).total_mass) * G_EARTH

    def biped_params(self) -> Any:
        return biped_of(self.model.ctx)

    def events(self) -> list[dict[str, Any]]:
        return list(self.runner.events)

    def results(self) -> Any:
        return self.runner.results()
