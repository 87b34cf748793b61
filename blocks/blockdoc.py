"""A block class's reference sections, written from its declarations (numpydoc): ``Parameters`` from its
``ParamSpec`` objects (kind, unit, range, default, description), ``Inputs`` and ``Outputs`` from its
``PortSpec`` objects (size, unit, description, element labels).

``Block.__init_subclass__`` appends them to the class's own docstring (:func:`documented`), so
``help(PID)`` lists the ports and units the engine checks and the GUI shows, and a block's hand-written
docstring keeps to its law: one source of truth for the metadata. A class whose ports depend on its
parameters (``dynamic_ports``) documents its ports itself; its parameters are still listed.
"""

from __future__ import annotations

import inspect
from typing import Any

from blocks.spec import ParamSpec, PortSpec

__all__ = ["declared_sections", "documented"]


def _param(name: str, spec: ParamSpec) -> list[str]:
    bits = [spec.kind + (f", one per item of ``{spec.size}``" if spec.size else "")]
    if spec.unit:
        bits.append(spec.unit)
    if spec.choices:
        bits.append("one of " + ", ".join(spec.choices))
    if spec.min is not None or spec.max is not None:
        bits.append(f"{spec.min:g} to {spec.max:g}" if spec.min is not None and spec.max is not None
                    else f">= {spec.min:g}" if spec.min is not None else f"<= {spec.max:g}")
    bits.append(f"default {spec.default!r}" + ("" if spec.tunable else ", structural (recompiles)"))
    return [f"{name} : {', '.join(bits)}"] + ([f"    {spec.description}"] if spec.description else [])


def _port(port: PortSpec) -> list[str]:
    head = f"{port.name} : ({port.size},)" + (f" {port.unit}" if port.unit else "")
    text = port.description + (f" ``[{', '.join(port.labels)}]``" if port.labels else "")
    if port.optional:
        text += "; optional: zeros when unconnected"
    return [head] + ([f"    {text.strip()}"] if text.strip() else [])


def _section(title: str, lines: list[str]) -> str:
    return "\n".join([title, "-" * len(title), *lines])


def declared_sections(cls: Any) -> str:
    """The ``Parameters``, ``Inputs`` and ``Outputs`` sections of block class ``cls`` (module docstring)."""
    out = []
    if cls.params:
        out.append(_section("Parameters", [line for k, s in cls.params.items() for line in _param(k, s)]))
    for title, ports in (("Inputs", cls.inputs), ("Outputs", cls.outputs)):
        if ports and not cls.dynamic_ports:
            out.append(_section(title, [line for p in ports for line in _port(p)]))
    return "\n\n".join(out)


def documented(doc: str | None, cls: Any) -> str | None:
    """``doc`` (a class's own docstring; None: none, left so) followed by :func:`declared_sections`."""
    if not doc:
        return doc
    extra = declared_sections(cls)
    return f"{inspect.cleandoc(doc)}\n\n{extra}" if extra else doc
