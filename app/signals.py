"""Signals found by block *type* and port, never by block name: a renamed block changes nothing.

* :func:`find_signal` -- the first recorded ``block.port`` of a block type;
* :data:`CANONICAL` / :func:`by_type` (:func:`canonical_names`, :func:`with_canonical`) -- the names
  the metric functions read (``body.q``, ...) mapped onto whatever the diagram calls its blocks;
* :func:`metric_signals` -- the smallest log that keeps ``summary.json`` whole (``--log metrics``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from blocks import Diagram, Results

__all__ = ["CANONICAL", "by_type", "canonical_names", "with_canonical", "find_signal",
           "first_of_type", "metric_signals"]


def first_of_type(diagram: Diagram, type_name: str) -> str | None:
    """Name of the first block (in diagram order) of type ``type_name``, or None."""
    return next((name for name, entry in diagram.blocks.items() if entry.type == type_name), None)


def find_signal(diagram: Diagram, type_name: str, port: str, available: Mapping[str, Any] | Any) -> str | None:
    """``block.port`` of the first block of type ``type_name`` (in diagram order) whose ``port`` is
    in ``available`` (recorded signal names); None if there is none."""
    for name, entry in diagram.blocks.items():
        if entry.type == type_name and f"{name}.{port}" in available:
            return f"{name}.{port}"
    return None


#: the names metric functions read -> the block type that produces them
CANONICAL: dict[str, str] = {
    "body": "FiveLinkDynamics", "ref": "ReferenceSource", "phase": "PhaseDetector", "kin": "BipedKinematics",
    "switch": "TorqueSwitch", "contact": "GroundContact", "ankle": "AnkleBalance", "est": "NetTorqueEstimator",
    "grf": "GrfSource", "trunk": "TrunkBalance", "stance_damp": "StanceDamping", "ref_motion": "ReferenceMotion",
    "footprints": "Footprints", "grf_match": "GrfMatch", "solved": "SolvedGait",
}


def canonical_names(diagram: Diagram, names: Iterable[str]) -> list[tuple[str, str]]:
    """``(canonical, recorded)`` pairs: each recorded signal of ``names`` that belongs to the first
    block of a :data:`CANONICAL` type, with the name it gets there (``body.q`` for the first
    ``FiveLinkDynamics`` block's ``q``, whatever that block is called); a block already so named: none."""
    names = list(names)
    out = []
    for canon, type_name in CANONICAL.items():
        block = first_of_type(diagram, type_name)
        if block is None or block == canon:
            continue
        out += [(f"{canon}.{key.split('.', 1)[1]}", key) for key in names if key.split(".", 1)[0] == block]
    return out


def with_canonical(signals: Mapping[str, Any], pairs: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """``signals`` (a new dict) with each recorded signal of ``pairs`` (:func:`canonical_names`) also
    under its canonical name."""
    out = dict(signals)
    for canon, key in pairs:
        out[canon] = signals[key]
    return out


def by_type(results: Results, diagram: Diagram) -> Results:
    """``results`` with every signal of a :data:`CANONICAL` block type also under its canonical name
    (:func:`canonical_names`)."""
    return replace(results, signals=with_canonical(results.signals, canonical_names(diagram, results.signals)))


def metric_signals(diagram: Diagram) -> list[str]:
    """The recorded signals the summary's walking metrics read (:data:`app.walking.ROLES`), as
    ``block.port`` of ``diagram`` (``--log metrics``): the smallest log that keeps ``summary.json`` whole."""
    from app.walking import ROLES

    out: list[str] = []
    for key in ROLES.values():
        canon, port = key.split(".", 1)
        block = first_of_type(diagram, CANONICAL[canon])
        if block is not None and any(p.name == port for p in diagram.instantiate(block).outputs):
            out.append(f"{block}.{port}")
    return out
