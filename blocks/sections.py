"""Named diagram sections: settings that a block library declares for the diagrams using its blocks.

The engine knows none of them by name. A library registers each one with
:func:`register_section`, as a block type registers itself in :data:`blocks.core.BLOCK_TYPES`:

* ``name`` -- the key under ``"sections"`` in a diagram file, and the ``NAME`` of the
  ``"NAME.FIELD"`` parameter references (``Diagram.set_param``, ``--set``);
* ``cls`` -- a frozen dataclass whose fields are the section's JSON fields; it checks its values
  on construction and raises :class:`~blocks.spec.DiagramError`;
* ``readers`` -- the block types that read it: a diagram carries (and saves) the sections its
  blocks read, and no other (a mechanism diagram carries none of the walking library's);
* ``params`` -- the fields that are parameters (:class:`~blocks.spec.ParamSpec`: default, range,
  unit), settable as ``"NAME.FIELD"``;
* ``resources`` -- ``value -> {key: object}``: what the section hands to the blocks at compile
  time (:attr:`blocks.core.CompileContext.resources`); the engine passes it on unread.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from blocks.core import load_libraries
from blocks.spec import DiagramError, ParamSpec

__all__ = ["SECTION_TYPES", "SectionType", "register_section", "section_type", "sections_read_by"]


@dataclass(frozen=True)
class SectionType:
    """One registered section: see the module docstring for each field."""

    name: str
    cls: type
    readers: frozenset[str]
    params: Mapping[str, ParamSpec] = field(default_factory=dict)
    resources: Callable[[Any], dict[str, Any]] = lambda value: {}

    def from_dict(self, fields: Any) -> Any:
        """The section's value from its file form ``{field: literal}`` (missing fields: defaults)."""
        if not isinstance(fields, dict):
            raise DiagramError(f"sections.{self.name} must be a JSON object")
        known = [f.name for f in dataclasses.fields(self.cls)]
        unknown = sorted(set(fields) - set(known))
        if unknown:
            raise DiagramError(f"sections.{self.name}: unknown field(s) {', '.join(unknown)}; "
                               f"allowed: {', '.join(known)}")
        try:
            return self.cls(**fields)
        except (TypeError, ValueError) as exc:
            raise DiagramError(f"sections.{self.name}: {exc}") from None

    @staticmethod
    def to_dict(value: Any) -> dict[str, Any]:
        """The file form of a value: its dataclass fields."""
        return dataclasses.asdict(value)


SECTION_TYPES: dict[str, SectionType] = {}
"""Every registered section by name, in registration order."""


def register_section(name: str, cls: type, *, readers: Iterable[str], params: Mapping[str, ParamSpec] | None = None,
                     resources: Callable[[Any], dict[str, Any]] | None = None) -> SectionType:
    """Register section ``name`` (module docstring); registering a name again replaces it."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"section {name!r}: {cls!r} must be a dataclass")
    fields = {f.name for f in dataclasses.fields(cls)}
    if params and not set(params) <= fields:
        raise TypeError(f"section {name!r}: parameters {sorted(set(params) - fields)} are not fields of {cls.__name__}")
    kind = SectionType(name, cls, frozenset(readers), MappingProxyType(dict(params or {})),
                       resources if resources is not None else (lambda value: {}))
    SECTION_TYPES[name] = kind
    return kind


def section_type(name: str) -> SectionType:
    """The registered section ``name``, or a :class:`DiagramError` naming the known ones."""
    if name not in SECTION_TYPES:
        load_libraries()
    if name not in SECTION_TYPES:
        raise DiagramError(f"unknown diagram section {name!r}; known sections: {', '.join(SECTION_TYPES) or 'none'}")
    return SECTION_TYPES[name]


def is_section(name: str) -> bool:
    """Whether ``name`` is a registered section (a block may not bear that name)."""
    load_libraries()
    return name in SECTION_TYPES


def sections_read_by(type_names: Iterable[str]) -> list[str]:
    """The sections that blocks of ``type_names`` read, in registration order."""
    load_libraries()
    types = set(type_names)
    return [name for name, kind in SECTION_TYPES.items() if kind.readers & types]
