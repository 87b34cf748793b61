"""The block contract, checked when a block class is defined (``Block.__init_subclass__``, as bdsim does).

:func:`contract_problems` lists what a :class:`blocks.core.Block` subclass declares wrongly: parameters that
are not a :class:`~blocks.spec.ParamSpec` or not identifiers, per-item parameters not sized by an ``int``
parameter, port names repeated or sizes that name no ``int`` parameter, feedthrough pairs naming unknown
ports, state sizes naming no ``int`` parameter, more than one width that inherits (``ParamSpec(inherit=True)``),
modes without discrete states, callbacks with the wrong arguments, and a missing law: a block with
continuous states needs ``derivative``, a discrete one with discrete states ``update``, one with outputs
``output``, unless its kernels (``law``) are its law. The class statement then raises ``TypeError``
naming the block and every problem.
"""

from __future__ import annotations

import inspect
from typing import Any

from blocks.spec import NAME_RE, Kernels, ParamSpec, PortSpec

__all__ = ["CALLBACKS", "contract_problems"]

#: the Python callbacks a block may define, and how many arguments each takes after ``self``
CALLBACKS = {"output": 6, "derivative": 6, "update": 6}


def contract_problems(cls: Any, base: Any) -> list[str]:
    """What block class ``cls`` declares against the contract (module docstring), one message each (empty: none);
    ``base`` is :class:`blocks.core.Block`, whose callbacks a class overrides."""
    problems: list[str] = []
    for key, spec in cls.params.items():
        if not isinstance(spec, ParamSpec):
            problems.append(f"parameter {key!r} must be a ParamSpec")
        if not NAME_RE.match(key):
            problems.append(f"parameter name {key!r} is not an identifier")
    int_names = {k for k, s in cls.params.items() if isinstance(s, ParamSpec) and s.kind == "int"}
    if sum(isinstance(s, ParamSpec) and s.inherit for s in cls.params.values()) > 1:
        problems.append("at most one parameter may inherit its width (ParamSpec(inherit=True))")
    for key, spec in cls.params.items():
        if isinstance(spec, ParamSpec) and spec.size and (spec.kind != "float" or spec.size not in int_names):
            problems.append(f"per-item parameter {key!r} must be a float sized by an int parameter")
    ports = [*cls.inputs, *cls.outputs]
    names = [s.name for s in ports]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        problems.append(f"port names must be unique across inputs and outputs: {dupes}")
    int_params = {k for k, s in cls.params.items() if isinstance(s, ParamSpec) and s.kind == "int"}
    for s in ports:
        if not isinstance(s, PortSpec):
            problems.append(f"port {s!r} must be a PortSpec")
        elif isinstance(s.size, str) and s.size not in int_params:
            problems.append(f"port {s.name!r} size {s.size!r} does not name an int parameter")
        elif isinstance(s.size, int) and s.size < 1:
            problems.append(f"port {s.name!r} size must be >= 1")
    if isinstance(cls.feedthrough, str):
        if cls.feedthrough not in ("all", "none"):
            problems.append("feedthrough must be 'all', 'none' or a set of (input, output) pairs")
    elif not cls.dynamic_ports:
        in_names = {s.name for s in cls.inputs}
        out_names = {s.name for s in cls.outputs}
        for pair in cls.feedthrough:
            if pair[0] not in in_names or pair[1] not in out_names:
                problems.append(f"feedthrough pair {pair} names an unknown port")
    for attr in ("n_states", "n_discrete"):
        size = getattr(cls, attr)
        if isinstance(size, str) and size not in int_params:
            problems.append(f"{attr} {size!r} does not name an int parameter")
    overrides = {m: getattr(cls, m) is not getattr(base, m) for m in CALLBACKS}
    if cls.law is not None and not isinstance(cls.law, Kernels):
        problems.append("law must be a Kernels(output=..., derivative=..., update=...)")
    if cls.has_kernels():  # the kernels are the law (checked when compiled)
        overrides = dict.fromkeys(overrides, True)
    if cls.n_states != 0 and not overrides["derivative"]:
        problems.append("a block with continuous states must define derivative()")
    if cls.discrete and cls.n_discrete != 0 and not overrides["update"]:
        problems.append("a discrete block with discrete states must define update()")
    if (cls.outputs or cls.dynamic_ports) and not overrides["output"]:
        problems.append("a block with outputs must define output()")
    if cls.modes and not cls.discrete:
        problems.append("modes live in discrete states: set discrete = True")
    if isinstance(cls.n_discrete, int) and len(cls.modes) > cls.n_discrete:
        problems.append("more modes than discrete states")
    for meth, nargs in CALLBACKS.items():
        if getattr(cls, meth) is not getattr(base, meth):
            sig = inspect.signature(getattr(cls, meth))
            if len(sig.parameters) != nargs + 1:
                problems.append(f"{meth}() must take (self, t, x, z, u, p, out): got {list(sig.parameters)}")
    return problems
